// The server's end of the calls in model_served.h, and the program's record of which of its
// streams record a model. Each call is run by its AscendCL entry point on the connection's thread,
// as the program would run it on a machine of its own. Models (with their branches, condition
// handles and task groups), labels and label lists are their process's own: another process's
// handle is refused exactly as a destroyed one is (the call runs with a handle of nothing: the
// same code, trace and time), its message saying why; a process that goes has its models, label
// lists and labels destroyed for it.

#include "runtime/api/model_served.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/core/host_threads.h"
#include "runtime/remote/machine_client.h"
#include "runtime/remote/program_pages.h"
#include "runtime/remote/served_handlers.h"

namespace ascendsim::remote {
namespace {

// What a handle not this process's is given as: no object's, so the call refuses it exactly as
// it refuses a destroyed handle on a machine of its own (the code, 107000, its trace and time).
constexpr uint64_t kNoHandle = 1;

// A handle of the call: this process's, with what it belongs to in `owner` (the first found), or
// replaced by kNoHandle (`foreign`).
template <class Value>
void screen(Session& s, Value& value, uint64_t& owner, bool& foreign) {
  const uint64_t handle = bitsOf(value);
  if (handle == 0) return;  // (NULL: refused as it is)
  const uint64_t of = s.process().ownerOf(handle);
  if (of == 0) {
    value = fromBits<Value>(kNoHandle);
    foreign = true;
  } else if (!owner) {
    owner = of;
  }
}

// Runs the call; a refusal of a handle that was not this process's says why.
template <auto Fn>
void run(ServedCall<Fn>& call, bool foreign) {
  call.run();
  if (call.code == ACL_SUCCESS || !foreign) return;
  if (runtime::HostThread* self = runtime::HostThreads::self()) {
    self->error +=
        " (a handle it was given is not a live one of this process: models, labels, label "
        "lists, condition handles and task groups are valid only in the process that made them, "
        "until they are destroyed; another process's are refused as destroyed ones)";
  }
}

// A call taking handles (the arguments `Handles`) and perhaps making one (`Made`, -1: none) that
// belongs with what the first handle belongs to.
template <auto Fn, int Made, size_t... Handles>
aclError serveHandles(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<Fn> call;
  call.read(in);
  uint64_t owner = 0;
  bool foreign = false;
  (screen(s, call.template slot<Handles>().value, owner, foreign), ...);
  run(call, foreign);
  call.write(out);
  if constexpr (Made >= 0) {
    if (call.code == ACL_SUCCESS && call.template arg<Made>())
      s.process().own(bitsOf(*call.template arg<Made>()), owner);
  }
  return call.code;
}

// A call making a handle of its own (a built model, a label, a label list), destroyed by
// `Release` if the process goes without doing so.
template <auto Fn, auto Release, size_t Made>
aclError serveMade(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<Fn> call;
  call.read(in);
  call.run();
  call.write(out);
  if (call.code == ACL_SUCCESS && call.template arg<Made>()) {
    auto handle = *call.template arg<Made>();
    s.process().own(bitsOf(handle), bitsOf(handle));
    s.process().hold(bitsOf(handle), [handle] { Release(handle); });
  }
  return call.code;
}

// Destroys argument 0 (with everything that belongs to it: a model's branches, condition handles
// and task groups).
template <auto Fn>
aclError serveDestroy(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<Fn> call;
  call.read(in);
  const uint64_t handle = bitsOf(call.template arg<0>());
  uint64_t owner = 0;
  bool foreign = false;
  screen(s, call.template slot<0>().value, owner, foreign);
  // What another thread of the process makes at the freed address before the disown below stays
  // the process's (ServedProcess::ownedSoFar).
  const uint64_t owned = s.process().ownedSoFar();
  run(call, foreign);
  call.write(out);
  if (call.code == ACL_SUCCESS) {
    s.process().drop(handle);
    s.process().disown(handle, owned);
  }
  return call.code;
}

aclError destroyModel(aclmdlRI m) {
  return aclmdlRIDestroy(m);
}
aclError destroyLabel(aclrtLabel l) {
  return aclrtDestroyLabel(l);
}

// A capture makes its model: the process's from then on.
aclError serveCaptureBegin(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<&aclmdlRICaptureBegin> call;
  call.read(in);
  call.run();
  call.write(out);
  if (call.code == ACL_SUCCESS) {
    auto model = static_cast<aclmdlRI>(const_cast<void*>(runtime::api::modelOfLastCall()));
    s.process().own(bitsOf(model), bitsOf(model));
    s.process().hold(bitsOf(model), [model] { aclmdlRIDestroy(model); });
  }
  return call.code;
}

// A task group belongs with the model it is a part of.
aclError serveTaskGroupEnd(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<&aclmdlRICaptureTaskGrpEnd> call;
  call.read(in);
  call.run();
  call.write(out);
  if (call.code == ACL_SUCCESS && call.arg<1>()) {
    const uint64_t model = bitsOf(runtime::api::modelOfLastCall());
    const uint64_t owner = s.process().ownerOf(model);
    s.process().own(bitsOf(*call.arg<1>()), owner ? owner : model);
  }
  return call.code;
}

// A condition's branches belong with its model.
aclError serveAddCondTask(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<&ascendsimAddCondTask> call;
  call.read(in);
  uint64_t owner = 0;
  bool foreign = false;
  screen(s, call.slot<0>().value, owner, foreign);
  run(call, foreign);
  call.write(out);
  if (call.code == ACL_SUCCESS && call.arg<3>()) {
    for (uint32_t i = 0; i < call.arg<2>(); ++i) s.process().own(bitsOf(call.arg<3>()[i]), owner);
  }
  return call.code;
}

// Every label of the list must be this process's.
aclError serveCreateLabelList(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<&aclrtCreateLabelList> call;
  call.read(in);
  uint64_t owner = 0;
  bool foreign = false;
  for (auto& label : call.slot<0>().value) screen(s, label, owner, foreign);
  run(call, foreign);
  call.write(out);
  if (call.code == ACL_SUCCESS && call.arg<2>()) {
    aclrtLabelList list = *call.arg<2>();
    s.process().own(bitsOf(list), bitsOf(list));
    s.process().hold(bitsOf(list), [list] { aclrtDestroyLabelList(list); });
  }
  return call.code;
}

template <auto Fn>
void add(ServedHandler handler = &serve<Fn>) {
  addServed<Fn>(handler);
}

const bool kRegistered = [] {
  add<&aclmdlRIBuildBegin>(&serveMade<&aclmdlRIBuildBegin, &destroyModel, 0>);
  add<&aclmdlRIBindStream>(&serveHandles<&aclmdlRIBindStream, -1, 0>);
  add<&aclmdlRIUnbindStream>(&serveHandles<&aclmdlRIUnbindStream, -1, 0>);
  add<&aclmdlRIEndTask>(&serveHandles<&aclmdlRIEndTask, -1, 0>);
  add<&aclmdlRIBuildEnd>(&serveHandles<&aclmdlRIBuildEnd, -1, 0>);
  add<&aclmdlRIExecuteAsync>(&serveHandles<&aclmdlRIExecuteAsync, -1, 0>);
  add<&aclmdlRIExecute>(&serveHandles<&aclmdlRIExecute, -1, 0>);
  add<&aclmdlRIDestroy>(&serveDestroy<&aclmdlRIDestroy>);
  add<&aclmdlRISetName>(&serveHandles<&aclmdlRISetName, -1, 0>);
  add<&aclmdlRIGetName>(&serveHandles<&aclmdlRIGetName, -1, 0>);
  add<&aclmdlRIGetId>(&serveHandles<&aclmdlRIGetId, -1, 0>);
  add<&ascendsimModelGetStreams>(&serveHandles<&ascendsimModelGetStreams, -1, 0>);
  add<&aclmdlRIDebugJsonPrint>(&serveHandles<&aclmdlRIDebugJsonPrint, -1, 0>);
  add<&aclmdlRICaptureBegin>(&serveCaptureBegin);
  add<&aclmdlRICaptureToModelRIBegin>(&serveHandles<&aclmdlRICaptureToModelRIBegin, -1, 1>);
  add<&aclmdlRICaptureGetInfo>();
  add<&aclmdlRICaptureEnd>();
  add<&aclmdlRICaptureThreadExchangeMode>();
  add<&aclmdlRICaptureTaskGrpBegin>();
  add<&aclmdlRICaptureTaskGrpEnd>(&serveTaskGroupEnd);
  add<&aclmdlRICaptureTaskUpdateBegin>(&serveHandles<&aclmdlRICaptureTaskUpdateBegin, -1, 1>);
  add<&aclmdlRICaptureTaskUpdateEnd>();
  add<&aclmdlRICondHandleCreate>(&serveHandles<&aclmdlRICondHandleCreate, 3, 0>);
  add<&aclmdlRICondHandleGetCondPtr>(&serveHandles<&aclmdlRICondHandleGetCondPtr, -1, 0>);
  add<&ascendsimAddCondTask>(&serveAddCondTask);
  add<&aclrtActiveStream>();
  add<&aclrtSwitchStream>();
  add<&aclrtCreateLabel>(&serveMade<&aclrtCreateLabel, &destroyLabel, 0>);
  add<&aclrtSetLabel>(&serveHandles<&aclrtSetLabel, -1, 0>);
  add<&aclrtDestroyLabel>(&serveDestroy<&aclrtDestroyLabel>);
  add<&aclrtCreateLabelList>(&serveCreateLabelList);
  add<&aclrtDestroyLabelList>(&serveDestroy<&aclrtDestroyLabelList>);
  add<&aclrtSwitchLabelByIndex>(&serveHandles<&aclrtSwitchLabelByIndex, -1, 2>);
  add<&aclrtRecordEventWithFlag>();
  add<&aclrtStreamWaitEventWithFlag>();
  add<&aclrtRandomNumAsync>();
  return true;
}();

// ---------------------------------------------------------------- the program's side

// A range shared for recorded copies, and what records copies of it: models, task groups being
// updated, or (while a capture runs, its model not known here yet) the capturing stream.
// Each user with when it began to use the range, and each recording stream with when it began to
// record (a count of such changes, `Recording::changes`): a model's destroy forgets only what was
// recorded for it before the destroy began, not what another thread records for a model made at
// the same address meanwhile.
struct SharedRange {
  uint64_t bytes = 0;
  std::map<const void*, uint64_t> users;
};

struct RecordsFor {
  const void* user = nullptr;
  uint64_t since = 0;
};

struct Recording {
  std::mutex mutex;
  uint64_t changes = 0;
  // A recording stream -> what its copies are recorded for: its model, the task group it updates,
  // or itself while it captures.
  std::map<aclrtStream, RecordsFor> streams;
  std::map<const void*, SharedRange> shared;  // by start
};

Recording& recording() {
  static Recording* r = new Recording();  // (never destroyed: calls may come during exit)
  return *r;
}

// Ranges no one uses any more (taken out of `r`), for unsharePagesOf outside the lock.
std::vector<const void*> unused(Recording& r) {
  std::vector<const void*> out;
  for (auto it = r.shared.begin(); it != r.shared.end();) {
    if (it->second.users.empty()) {
      out.push_back(it->first);
      it = r.shared.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

}  // namespace

void streamRecords(aclrtStream stream, const void* model) {
  Recording& r = recording();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.streams[stream] = RecordsFor{model ? model : stream, ++r.changes};
}

void streamRecordsNoMore(aclrtStream stream, const void* model) {
  Recording& r = recording();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.streams.erase(stream);
  // A capture's copies were recorded for the stream until its model was known.
  if (!model) return;
  for (auto& [start, range] : r.shared) {
    if (range.users.erase(stream)) range.users[model] = ++r.changes;
  }
}

uint64_t recordedSoFar() {
  Recording& r = recording();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.changes;
}

void modelRecordsNoMore(const void* model, bool destroyed, uint64_t upTo) {
  std::vector<const void*> give;
  {
    Recording& r = recording();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (auto it = r.streams.begin(); it != r.streams.end();) {
      const bool its = it->second.user == model && it->second.since <= upTo;
      it = its ? r.streams.erase(it) : std::next(it);
    }
    if (!destroyed) return;
    for (auto& [start, range] : r.shared) {
      auto use = range.users.find(model);
      if (use != range.users.end() && use->second <= upTo) range.users.erase(use);
    }
    give = unused(r);
  }
  for (const void* p : give) unsharePagesOf(p);
}

bool shareForRecording(aclrtStream stream, const void* p, uint64_t bytes, std::string& why) {
  if (!stream || bytes == 0) return true;
  const void* user = nullptr;
  {
    Recording& r = recording();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.streams.find(stream);
    if (it == r.streams.end()) return true;
    user = it->second.user;
    // Shared already for another recorded copy: used by this one's model too.
    const auto a = reinterpret_cast<uint64_t>(p);
    for (auto& [start, range] : r.shared) {
      const auto b = reinterpret_cast<uint64_t>(start);
      if (a >= b && a - b + bytes <= range.bytes) {
        range.users[user] = ++r.changes;
        return true;
      }
    }
  }
  if (!programMemory(p, bytes)) return true;  // (pinned, device, registered: as it is)
  if (!sharePagesOf(p, bytes, why)) return false;
  settleRegistration(p, bytes, true);
  Recording& r = recording();
  std::lock_guard<std::mutex> lock(r.mutex);
  SharedRange& range = r.shared[p];
  range.bytes = bytes;
  range.users[user] = ++r.changes;
  return true;
}

void unshareRecordedPages() {
  std::vector<const void*> give;
  {
    Recording& r = recording();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (auto& [start, range] : r.shared) range.users.clear();
    give = unused(r);
  }
  for (const void* p : give) unsharePagesOf(p);
}

aclError shareRecordedCopy(const char* name, aclrtStream stream, const void* dst, uint64_t dstBytes,
                           const void* src, uint64_t srcBytes) {
  std::string why;
  if (shareForRecording(stream, dst, dstBytes, why) &&
      shareForRecording(stream, src, srcBytes, why))
    return ACL_SUCCESS;
  setServedError(std::string(name) +
                 ": the stream records a model, whose launches read and write the program's own "
                 "memory where it is, and its pages cannot be shared with the machine: " +
                 why);
  return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}

}  // namespace ascendsim::remote
