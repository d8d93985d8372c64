#include "runtime/trace/trace_recorder.h"

#include <algorithm>

namespace ascendsim::runtime {
namespace {
constexpr uint64_t kTransferFlow = uint64_t{1} << 40;  // task -> transfer arrows
constexpr uint64_t kWaitFlow = uint64_t{2} << 40;      // record -> wait arrows
constexpr size_t kRecordsKept = 64;                    // per event or notify

// Fills an argument vector kept from event to event: its elements, and their strings' capacity,
// are reused rather than destroyed and built again. done() drops what the last event had beyond.
class ArgFiller {
 public:
  explicit ArgFiller(TraceArgs& args) : args_(args) {}
  void number(const char* key, uint64_t value) {
    next(key, TraceArg::Kind::Unsigned).unsignedValue = value;
  }
  void real(const char* key, double value, int decimals) {
    TraceArg& a = next(key, TraceArg::Kind::Real);
    a.realValue = value;
    a.decimals = decimals;
  }
  void text(const char* key, const std::string& value) {
    next(key, TraceArg::Kind::Text).text.assign(value);
  }
  const TraceArgs& done() {
    args_.resize(used_);
    return args_;
  }

 private:
  TraceArg& next(const char* key, TraceArg::Kind kind) {
    if (used_ == args_.size()) args_.emplace_back();
    TraceArg& a = args_[used_++];
    a.key.assign(key);
    a.kind = kind;
    return a;
  }
  TraceArgs& args_;
  size_t used_ = 0;
};
}  // namespace

bool TraceRecorder::open(const std::string& path, const std::string& format,
                         const spec::SystemSpec& sys, std::string& why, uint64_t maxBytes) {
  sink_ = makeTraceSink(format, path);
  if (!sink_->open(path, why, maxBytes)) {
    sink_.reset();
    return false;
  }
  sys_ = &sys;
  threads_.clear();
  streams_.clear();
  streamFree_.clear();
  memoryInUse_.assign(sys.devices.size(), -1);
  channels_.clear();
  aicoreNamed_.clear();
  sink_->processName(0,
                     msprofNames_
                         ? std::string("CANN")
                         : "Host (" + (sys.name.empty() ? std::string("machine") : sys.name) + ")",
                     0);
  int devicesRecorded = 0;
  for (size_t d = 0; d < sys.devices.size(); ++d) devicesRecorded += recorded(static_cast<int>(d));
  for (size_t d = 0; d < sys.devices.size(); ++d) {
    if (!recorded(static_cast<int>(d))) continue;
    const spec::DeviceSpec& dev = sys.devices[d];
    const std::string name = !msprofNames_
                                 ? dev.name + (dev.model.empty() ? "" : " (" + dev.model + ")")
                             : devicesRecorded == 1 ? std::string("Ascend Hardware")
                                                    : "Ascend Hardware (" + dev.name + ")";
    sink_->processName(static_cast<int>(d) + 1, name, static_cast<int>(d) + 1);
  }
  return true;
}

void TraceRecorder::attachFabric(models::ResourceTable* resources, spec::Picoseconds interval) {
  if (!active() || interval <= 0) return;
  resources_ = resources;
  lastBin_.assign(resources->size(), -2);
  resources->sampleEvery(interval);
  fabricPid_ = static_cast<int>(sys_->devices.size()) + 1;
  sink_->processName(fabricPid_, "Interconnect", fabricPid_);
}

// Device resources show under their device, host memory and the CPU under the host, switch
// uplinks and device links under "Interconnect".
int TraceRecorder::counterPid(const std::string& name) const {
  for (size_t d = 0; d < sys_->devices.size(); ++d) {
    if (name.rfind(sys_->devices[d].name + ".", 0) == 0) return static_cast<int>(d) + 1;
  }
  return name.rfind("host.", 0) == 0 ? 0 : fabricPid_;
}

void TraceRecorder::flushCounters(spec::Picoseconds now) {
  if (!resources_ || !active()) return;
  if (lastBin_.size() < resources_->size())
    lastBin_.resize(resources_->size(), -2);  // added while running
  for (size_t i = 0; i < resources_->size(); ++i) {
    models::Resource& r = (*resources_)[i];
    while (!r.bins.empty()) {
      const auto it = r.bins.begin();
      if (now >= 0 && (it->first + 1) * r.binWidth > now) break;  // still filling
      if (lastBin_[i] >= 0 && it->first > lastBin_[i] + 1) {
        sink_->counter(counterPid(r.name), r.name, (lastBin_[i] + 1) * r.binWidth, "GB/s", 0);
      }
      sink_->counter(counterPid(r.name), r.name, it->first * r.binWidth, "GB/s",
                     it->second / (static_cast<double>(r.binWidth) * 1e-12) / 1e9);
      lastBin_[i] = it->first;
      r.bins.erase(it);
    }
    if (now < 0 && lastBin_[i] >= 0) {
      sink_->counter(counterPid(r.name), r.name, (lastBin_[i] + 1) * r.binWidth, "GB/s", 0);
      lastBin_[i] = -2;
    }
  }
}

void TraceRecorder::nameThread(const HostTrack& who) {
  if (!threads_.insert({who.process, who.thread}).second) return;
  if (who.process != 0 && threads_.lower_bound({who.process, 0})->second == who.thread)
    sink_->processName(who.process, who.processName, who.process);
  const uint32_t thread = who.thread;
  sink_->threadName(
      who.process, static_cast<int>(thread) + 1,
      thread == 0 ? std::string("Thread 0 (main)") : "Thread " + std::to_string(thread),
      static_cast<int>(thread));
}

void TraceRecorder::nameStream(int device, uint32_t streamId) {
  if (!streams_.insert({device, streamId}).second) return;
  sink_->threadName(device + 1, streamTrack(streamId), "Stream " + std::to_string(streamId),
                    streamTrack(streamId));
}

void TraceRecorder::nameChannel(int device, int channel) {
  if (!channels_.insert({device, channel}).second) return;
  sink_->threadName(device + 1, channelTrack(channel), "DMA channel " + std::to_string(channel),
                    channelTrack(channel));
}

void TraceRecorder::apiCall(const HostTrack& who, const char* name, spec::Picoseconds start,
                            spec::Picoseconds end, int code, TraceArgs& args,
                            const std::vector<uint64_t>& tasks) {
  if (!active()) return;
  nameThread(who);
  // The return code goes on the call's own vector for the sink, and comes off again.
  args.push_back(TraceArg::signedNumber("return", code));
  apiName_.assign(name);
  const int tid = static_cast<int>(who.thread) + 1;
  sink_->complete(who.process, tid, apiName_, "api", start, end - start, args);
  args.pop_back();
  for (uint64_t id : tasks) sink_->flowStart(who.process, tid, id, end > start ? end - 1 : end);
}

const std::string& TraceRecorder::placeText(const models::MemoryPlace& p) const {
  static const std::string pinned = "host (pinned)", pageable = "host (pageable)", unknown = "?";
  switch (p.kind) {
    case models::MemoryPlace::Kind::Device:
      return sys_->devices.at(static_cast<size_t>(p.device)).name;
    case models::MemoryPlace::Kind::HostPinned: return pinned;
    case models::MemoryPlace::Kind::HostPageable: return pageable;
  }
  return unknown;
}

void TraceRecorder::addKernelArgs(TraceArgs& args, const models::Task& task) {
  const models::KernelWork& k = task.kernel;
  args.push_back(TraceArg::string("kernel", k.name));
  args.push_back(TraceArg::number("bytes_read", k.bytesRead));
  args.push_back(TraceArg::number("bytes_written", k.bytesWritten));
  args.push_back(TraceArg::number("ops", k.ops));
}

void TraceRecorder::taskStarted(int device, const models::StreamQueue& stream,
                                const models::Task& task) {
  if (!active() || !recorded(device)) return;
  nameStream(device, stream.id());
  sink_->flowEnd(device + 1, streamTrack(stream.id()), task.id, task.startTime);
}

void TraceRecorder::taskEnded(int device, const models::StreamQueue& stream,
                              const models::Task& task) {
  if (!active() || !recorded(device)) return;
  flushCounters(task.endTime);
  nameStream(device, stream.id());
  const int pid = device + 1;
  ArgFiller args(taskArgs_);
  args.number("task_id", task.id);
  args.number("stream", stream.id());
  if (!task.model.empty()) args.text("model", task.model);
  const bool transfer =
      task.kind == models::TaskKind::Copy || task.kind == models::TaskKind::Memset;
  if (transfer) {
    args.number("bytes", task.bytes);
    args.text("dst", placeText(task.dst));
    if (task.kind == models::TaskKind::Copy) args.text("src", placeText(task.src));
    const double seconds = static_cast<double>(task.endTime - task.startTime) * 1e-12;
    args.real("GB/s", seconds > 0 ? static_cast<double>(task.bytes) / seconds / 1e9 : 0.0, 3);
  }
  const bool kernel = task.kind == models::TaskKind::Kernel;
  if (kernel) {
    const models::KernelWork& k = task.kernel;
    args.text("kernel", k.name);
    args.number("bytes_read", k.bytesRead);
    args.number("bytes_written", k.bytesWritten);
    args.number("ops", k.ops);
  }
  // A wait is drawn from the moment it reached the head of its stream (its submission, or the end
  // of the task before it) to its end: the stream was blocked from there until the wait was
  // satisfied (its start), then launched it. `blocked_us` is that blocked part.
  spec::Picoseconds atHead = task.startTime;
  auto& free = streamFree_[{device, stream.id()}];
  if (task.kind == models::TaskKind::EventWait || task.kind == models::TaskKind::ValueWait) {
    atHead = std::min(task.startTime, std::max(task.submitTime, free));
    args.real("blocked_us", static_cast<double>(task.startTime - atHead) / 1e6, 3);
  }
  free = task.endTime;
  if (task.kind == models::TaskKind::Control && !task.control.empty())
    eventName_.assign(task.control);
  else
    eventName_.assign(models::taskKindName(task.kind));
  sink_->complete(pid, streamTrack(stream.id()), eventName_, "task", atHead, task.endTime - atHead,
                  args.done());
  if (task.sync && task.kind == models::TaskKind::EventRecord)
    noteRecord(pid, streamTrack(stream.id()), task);
  if (task.sync && task.kind == models::TaskKind::EventWait && !task.isCancelled())
    linkWait(pid, streamTrack(stream.id()), task);
  if (kernel) {
    // The AI Cores' own track: when they were busy with which kernel.
    if (aicoreNamed_.insert(device).second)
      sink_->threadName(pid, kAiCoreTrack, "AI Core", kAiCoreTrack);
    const spec::DeviceSpec& d = sys_->devices.at(static_cast<size_t>(device));
    const spec::Picoseconds begin = std::min(task.endTime, task.startTime + d.scheduler.taskLaunch);
    sink_->flowStart(pid, streamTrack(stream.id()), task.id + kTransferFlow, task.startTime);
    TraceArgs kernelArgs{TraceArg::number("task_id", task.id)};
    addKernelArgs(kernelArgs, task);
    sink_->complete(pid, kAiCoreTrack, task.kernel.name, "kernel", begin, task.endTime - begin,
                    kernelArgs);
    sink_->flowEnd(pid, kAiCoreTrack, task.id + kTransferFlow, begin);
  }
  if (transfer && task.channel >= 0) {
    nameChannel(device, task.channel);
    const spec::Picoseconds begin =
        task.startTime + sys_->devices.at(static_cast<size_t>(device)).scheduler.taskLaunch;
    if (task.kind == models::TaskKind::Memset) {
      eventName_.assign("memset ");
    } else {
      eventName_.assign(placeText(task.src));
      eventName_ += " -> ";
    }
    eventName_ += placeText(task.dst);
    sink_->flowStart(pid, streamTrack(stream.id()), task.id + kTransferFlow, task.startTime);
    ArgFiller transferArgs(transferArgs_);
    transferArgs.number("task_id", task.id);
    transferArgs.number("bytes", task.bytes);
    sink_->complete(pid, channelTrack(task.channel), eventName_, "transfer", begin,
                    task.endTime - begin, transferArgs.done());
    sink_->flowEnd(pid, channelTrack(task.channel), task.id + kTransferFlow, begin);
  }
}

void TraceRecorder::noteRecord(int pid, int track, const models::Task& task) {
  // (The scheduler has counted this record before telling its listeners.)
  auto& mine = records_[task.sync];
  mine[task.sync->recordsCompleted] = {pid, track, task.startTime, task.endTime};
  while (mine.size() > kRecordsKept) mine.erase(mine.begin());
  if (++recordsSeen_ % 4096 == 0) {  // events and notifies destroyed since
    for (auto it = records_.begin(); it != records_.end();)
      it = it->first.expired() ? records_.erase(it) : std::next(it);
  }
}

void TraceRecorder::linkWait(int pid, int track, const models::Task& task) {
  // A notify's wait took the latest record; an event's, the one it was queued behind.
  const uint64_t number = task.resetsFlag ? task.sync->consumedUpTo : task.waitForRecord;
  auto sync = records_.find(task.sync);
  if (number == 0 || sync == records_.end()) return;
  auto record = sync->second.find(number);
  if (record == sync->second.end()) return;  // on a device not recorded, or long ago
  const RecordSlice& r = record->second;
  sink_->flowStart(r.pid, r.track, task.id + kWaitFlow, r.end > r.start ? r.end - 1 : r.end);
  sink_->flowEnd(pid, track, task.id + kWaitFlow, task.startTime);
}

void TraceRecorder::memoryStatistics(int pid, const std::string& memory, spec::Picoseconds end,
                                     const TraceArgs& args) {
  if (!active()) return;
  sink_->threadName(pid, kDramTrack, "DRAM statistics", kDramTrack);
  sink_->complete(pid, kDramTrack, memory, "dram", 0, end, args);
}

void TraceRecorder::memoryInUse(int device, spec::Picoseconds at, uint64_t bytes) {
  if (!active() || !recorded(device)) return;
  if (static_cast<size_t>(device) >= memoryInUse_.size())
    memoryInUse_.resize(static_cast<size_t>(device) + 1, -1);
  int64_t& last = memoryInUse_[static_cast<size_t>(device)];
  if (last == static_cast<int64_t>(bytes)) return;
  last = static_cast<int64_t>(bytes);
  sink_->counter(device + 1,
                 sys_->devices.at(static_cast<size_t>(device)).name + ".memory allocated", at,
                 "MiB", static_cast<double>(bytes) / static_cast<double>(1ull << 20));
}

void TraceRecorder::memoryCounters(int pid, const std::string& memory,
                                   const std::map<int64_t, models::DramCounters>& bins,
                                   spec::Picoseconds width) {
  if (!active()) return;
  for (const auto& [bin, c] : bins) {
    const uint64_t accesses = c.rowHits + c.rowMisses + c.rowConflicts;
    if (accesses > 0) {
      sink_->counter(pid, memory + " row hits", bin * width, "%",
                     100.0 * static_cast<double>(c.rowHits) / static_cast<double>(accesses));
    }
    if (c.reads > 0) {
      sink_->counter(
          pid, memory + " read latency", bin * width, "ns",
          static_cast<double>(c.readLatencySumPs) / static_cast<double>(c.reads) / 1000.0);
    }
  }
}

}  // namespace ascendsim::runtime
