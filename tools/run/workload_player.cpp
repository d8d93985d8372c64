#include "tools/run/workload_player.h"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "ascendsim/compute.h"
#include "tools/progress_line.h"

namespace ascendsim::tools {
namespace {

struct PlayError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string at(const spec::SourceLocation& where) {
  return where.file + ":" + std::to_string(where.line) + ":" + std::to_string(where.column);
}

void check(aclError code, const char* call, const spec::SourceLocation& where) {
  if (code == ACL_SUCCESS) return;
  const char* msg = aclGetRecentErrMsg();
  throw PlayError(at(where) + ": " + call + " returned " + std::to_string(code) +
                  (msg ? std::string(": ") + msg : ""));
}

// Host threads of a workload run concurrently: a thread enters a blocking step (a synchronisation,
// a synchronous copy) only when every other thread is at a blocking step too, or done. So all
// the work the threads queue before they wait is in the simulation together, as it would be on
// real threads, whatever order the operating system runs them in.
class BlockingGate {
 public:
  explicit BlockingGate(size_t threads) : total_(threads) {}
  void arrive() {
    std::unique_lock<std::mutex> lock(mutex_);
    ++arrived_;
    changed_.notify_all();
    changed_.wait(lock, [this] { return arrived_ + finished_ >= total_; });
  }
  void leave() {
    std::lock_guard<std::mutex> lock(mutex_);
    --arrived_;
  }
  void finish() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++finished_;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t total_, arrived_ = 0, finished_ = 0;
};

// The steps a list makes when played (a repeat's body as often as it repeats).
uint64_t playedSteps(const std::vector<WorkloadStep>& steps) {
  uint64_t n = 0;
  for (const WorkloadStep& s : steps)
    n += s.op == WorkloadStep::Op::Repeat ? uint64_t{s.times} * playedSteps(s.body) : 1;
  return n;
}

uint64_t playedSteps(const Workload& w) {
  uint64_t n = 0;
  for (const WorkloadThread& t : w.threads) n += playedSteps(t.steps);
  return n;
}

class Player {
 public:
  explicit Player(const Workload& w)
      : w_(w), gate_(w.threads.size()), progress_("ascendsim run", playedSteps(w), 1, "steps") {}

  void run() {
    check(aclInit(nullptr), "aclInit", {w_.source, 1, 1});
    std::vector<int> devices;
    for (const auto& b : w_.buffers) devices.push_back(b.device);
    for (const auto& s : w_.streams) devices.push_back(s.device);
    for (const auto& e : w_.events) devices.push_back(e.device);
    for (const auto& t : w_.threads) devices.push_back(t.device);
    std::sort(devices.begin(), devices.end());
    devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
    for (int d : devices) check(aclrtSetDevice(d), "aclrtSetDevice", {w_.source, 1, 1});
    for (const auto& s : w_.streams) {
      check(aclrtSetDevice(s.device), "aclrtSetDevice", {w_.source, 1, 1});
      check(aclrtCreateStream(&streams_[s.name]), "aclrtCreateStream", {w_.source, 1, 1});
    }
    for (const auto& e : w_.events) {
      check(aclrtSetDevice(e.device), "aclrtSetDevice", {w_.source, 1, 1});
      // Script events may be waited for before another thread records them: SYNC events, as
      // CANN requires for that, that keep timestamps too.
      check(aclrtCreateEventWithFlag(&events_[e.name], ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE),
            "aclrtCreateEventWithFlag", {w_.source, 1, 1});
    }
    for (const auto& b : w_.buffers) {
      if (b.allocated) alloc(b, {w_.source, 1, 1});
    }
    std::string failure;
    std::mutex failureMutex;
    std::vector<std::thread> threads;
    for (const WorkloadThread& t : w_.threads) {
      threads.emplace_back([&, &t = t] {
        try {
          check(aclrtSetDevice(t.device), "aclrtSetDevice", {w_.source, 1, 1});
          for (const WorkloadStep& s : t.steps) step(s, t.device);
          blocking([&] {
            check(aclrtSynchronizeDevice(), "aclrtSynchronizeDevice", {w_.source, 1, 1});
          });
        } catch (const PlayError& e) {
          std::lock_guard<std::mutex> lock(failureMutex);
          if (failure.empty()) failure = e.what();
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> lock(failureMutex);
          if (failure.empty()) failure = std::string("internal error: ") + e.what();
        }
        gate_.finish();
      });
    }
    for (auto& th : threads) th.join();
    if (!failure.empty()) throw PlayError(failure);
    // Work a thread left queued on a stream of another device is still running: let every stream
    // finish before anything it may use is released.
    for (const auto& st : w_.streams) {
      check(aclrtSetDevice(st.device), "aclrtSetDevice", {w_.source, 1, 1});
      check(aclrtSynchronizeStream(streams_[st.name]), "aclrtSynchronizeStream", {w_.source, 1, 1});
    }
    for (auto& [name, p] : device_) aclrtFree(p);
    for (auto& [name, p] : pinned_) aclrtFreeHost(p);
    for (auto& [name, e] : events_) aclrtDestroyEvent(e);
    for (const auto& st : w_.streams) {
      aclrtSetDevice(st.device);
      aclrtDestroyStream(streams_[st.name]);
    }
    for (int d : devices) aclrtResetDevice(d);
    check(aclFinalize(), "aclFinalize", {w_.source, 1, 1});
  }

 private:
  const WorkloadBuffer& buffer(const std::string& name) const {
    for (const auto& b : w_.buffers) {
      if (b.name == name) return b;
    }
    throw PlayError("no buffer " + name);
  }

  void alloc(const WorkloadBuffer& b, const spec::SourceLocation& where) {
    std::lock_guard<std::mutex> lock(mutex_);
    switch (b.memory) {
      case WorkloadBuffer::Memory::Device:
        check(aclrtSetDevice(b.device), "aclrtSetDevice", where);
        check(aclrtMalloc(&device_[b.name], b.size, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc",
              where);
        break;
      case WorkloadBuffer::Memory::Pinned:
        check(aclrtMallocHost(&pinned_[b.name], b.size), "aclrtMallocHost", where);
        break;
      case WorkloadBuffer::Memory::Pageable:
        pageable_[b.name] = std::make_shared<std::vector<char>>(b.size, 0);
        break;
    }
  }

  [[noreturn]] static void notAllocated(const std::string& name,
                                        const spec::SourceLocation& where) {
    throw PlayError(at(where) + ": buffer '" + name +
                    "' is not allocated (freed, or `allocated: false` without an alloc step)");
  }

  void free(const WorkloadBuffer& b, const spec::SourceLocation& where) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (b.memory == WorkloadBuffer::Memory::Device) {
      auto it = device_.find(b.name);
      if (it == device_.end()) notAllocated(b.name, where);
      check(aclrtFree(it->second), "aclrtFree", where);
      device_.erase(it);
    } else if (b.memory == WorkloadBuffer::Memory::Pinned) {
      auto it = pinned_.find(b.name);
      if (it == pinned_.end()) notAllocated(b.name, where);
      check(aclrtFreeHost(it->second), "aclrtFreeHost", where);
      pinned_.erase(it);
    } else {
      // A step of another thread that is using it keeps it alive until that step ends.
      if (pageable_.erase(b.name) == 0) notAllocated(b.name, where);
    }
  }

  // A buffer's address for one step. `keep` holds a pageable buffer alive for the step, should
  // another thread free it meanwhile.
  char* pointer(const std::string& name, const spec::SourceLocation& where,
                std::shared_ptr<std::vector<char>>& keep) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = device_.find(name); it != device_.end()) return static_cast<char*>(it->second);
    if (auto it = pinned_.find(name); it != pinned_.end()) return static_cast<char*>(it->second);
    if (auto it = pageable_.find(name); it != pageable_.end()) {
      keep = it->second;
      return keep->data();
    }
    notAllocated(name, where);
  }

  // The runtime cannot bound pageable memory (it is the program's own): the player does.
  static void checkHostRange(const WorkloadBuffer& b, uint64_t offset, uint64_t size,
                             const spec::SourceLocation& where) {
    if (b.memory != WorkloadBuffer::Memory::Pageable) return;
    if (offset > b.size || size > b.size - offset) {
      throw PlayError(at(where) + ": " + std::to_string(size) + " bytes at offset " +
                      std::to_string(offset) + " run past the end of buffer '" + b.name + "' (" +
                      std::to_string(b.size) + " bytes)");
    }
  }

  aclrtStream stream(const std::string& name) { return name.empty() ? nullptr : streams_.at(name); }

  template <class F>
  void blocking(F&& call) {
    gate_.arrive();
    try {
      call();
    } catch (...) {
      gate_.leave();
      throw;
    }
    gate_.leave();
  }

  void step(const WorkloadStep& s, int device) {
    using Op = WorkloadStep::Op;
    if (s.op != Op::Repeat) progress_.add(1);
    switch (s.op) {
      case Op::Alloc: alloc(buffer(s.dst), s.where); break;
      case Op::Free: free(buffer(s.dst), s.where); break;
      case Op::Memcpy: {
        const WorkloadBuffer& d = buffer(s.dst);
        const WorkloadBuffer& src = buffer(s.src);
        const uint64_t size = s.size ? s.size
                                     : std::min(d.size - std::min(d.size, s.dstOffset),
                                                src.size - std::min(src.size, s.srcOffset));
        const bool toDevice = d.memory == WorkloadBuffer::Memory::Device;
        const bool fromDevice = src.memory == WorkloadBuffer::Memory::Device;
        const aclrtMemcpyKind kind = toDevice && fromDevice ? ACL_MEMCPY_DEVICE_TO_DEVICE
                                     : toDevice             ? ACL_MEMCPY_HOST_TO_DEVICE
                                     : fromDevice           ? ACL_MEMCPY_DEVICE_TO_HOST
                                                            : ACL_MEMCPY_HOST_TO_HOST;
        checkHostRange(d, s.dstOffset, size, s.where);
        checkHostRange(src, s.srcOffset, size, s.where);
        std::shared_ptr<std::vector<char>> keepDst, keepSrc;
        char* dp = pointer(s.dst, s.where, keepDst) + s.dstOffset;
        const char* sp = pointer(s.src, s.where, keepSrc) + s.srcOffset;
        const size_t room = d.size > s.dstOffset ? d.size - s.dstOffset : 0;
        if (s.async) {
          check(aclrtMemcpyAsync(dp, room, sp, size, kind, stream(s.stream)), "aclrtMemcpyAsync",
                s.where);
        } else {
          blocking([&] { check(aclrtMemcpy(dp, room, sp, size, kind), "aclrtMemcpy", s.where); });
        }
        break;
      }
      case Op::Memset: {
        const WorkloadBuffer& d = buffer(s.dst);
        const uint64_t room = d.size > s.dstOffset ? d.size - s.dstOffset : 0;
        const uint64_t size = s.size ? s.size : room;
        checkHostRange(d, s.dstOffset, size, s.where);
        std::shared_ptr<std::vector<char>> keep;
        char* dp = pointer(s.dst, s.where, keep) + s.dstOffset;
        if (s.async) {
          check(aclrtMemsetAsync(dp, room, s.value, size, stream(s.stream)), "aclrtMemsetAsync",
                s.where);
        } else {
          blocking([&] { check(aclrtMemset(dp, room, s.value, size), "aclrtMemset", s.where); });
        }
        break;
      }
      case Op::Compute:
        if (s.computeBuffer.empty()) {
          check(ascendsimLaunchComputeTask(s.name.c_str(), s.bytesRead, s.bytesWritten, s.ops,
                                           s.opBytes, stream(s.stream)),
                "ascendsimLaunchComputeTask", s.where);
        } else {
          const WorkloadBuffer& b = buffer(s.computeBuffer);
          if (b.memory != WorkloadBuffer::Memory::Device) {
            throw PlayError(at(s.where) + ": compute buffer '" + s.computeBuffer +
                            "' is not device memory");
          }
          std::shared_ptr<std::vector<char>> keep;
          char* p = pointer(s.computeBuffer, s.where, keep);
          check(ascendsimLaunchComputeTaskSized(s.name.c_str(), p, b.size, s.access, s.stride,
                                                s.accessBytes, s.bytesRead, s.bytesWritten, s.ops,
                                                s.opBytes, stream(s.stream)),
                "ascendsimLaunchComputeTaskSized", s.where);
        }
        break;
      case Op::Record:
        check(aclrtRecordEvent(events_.at(s.event), stream(s.stream)), "aclrtRecordEvent", s.where);
        break;
      case Op::Wait:
        check(aclrtStreamWaitEvent(stream(s.stream), events_.at(s.event)), "aclrtStreamWaitEvent",
              s.where);
        break;
      case Op::SyncStream:
        blocking([&] {
          check(aclrtSynchronizeStream(stream(s.stream)), "aclrtSynchronizeStream", s.where);
        });
        break;
      case Op::SyncEvent:
        blocking([&] {
          check(aclrtSynchronizeEvent(events_.at(s.event)), "aclrtSynchronizeEvent", s.where);
        });
        break;
      case Op::SyncDevice:
        check(aclrtSetDevice(s.device >= 0 ? s.device : device), "aclrtSetDevice", s.where);
        blocking([&] { check(aclrtSynchronizeDevice(), "aclrtSynchronizeDevice", s.where); });
        if (s.device >= 0) check(aclrtSetDevice(device), "aclrtSetDevice", s.where);
        break;
      case Op::PeerAccess:
        check(aclrtDeviceEnablePeerAccess(s.device, 0), "aclrtDeviceEnablePeerAccess", s.where);
        break;
      case Op::Repeat:
        for (uint32_t i = 0; i < s.times; ++i) {
          for (const WorkloadStep& b : s.body) step(b, device);
        }
        break;
    }
  }

  const Workload& w_;
  BlockingGate gate_;
  ProgressLine progress_;
  std::mutex mutex_;
  std::map<std::string, void*> device_, pinned_;
  std::map<std::string, std::shared_ptr<std::vector<char>>> pageable_;
  std::map<std::string, aclrtStream> streams_;
  std::map<std::string, aclrtEvent> events_;
};

}  // namespace

std::string playWorkload(const Workload& w) {
  try {
    Player(w).run();
    return "";
  } catch (const PlayError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("internal error: ") + e.what();
  }
}

}  // namespace ascendsim::tools
