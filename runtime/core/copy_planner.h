#pragma once
// How a copy runs, decided from its pointers and kind before anything moves: which memories the
// two sides are, whose DMA engine moves it (or the host CPU), and how it is cut into tasks.
// CANN's argument rules live here: a kind that does not match the pointers, device copies
// without peer access, asynchronous host-to-host copies.

#include <cstdint>
#include <memory>
#include <vector>

#include "acl/acl_rt.h"
#include "models/task/task.h"
#include "runtime/core/memory_manager.h"
#include "runtime/core/objects.h"
#include "spec/system_spec.h"

namespace ascendsim::runtime {

constexpr uint64_t kMaxHostTaskBytes = 64ull << 20;  // the runtime splits H2D/D2H into 64 MiB tasks
constexpr uint64_t kMaxDeviceCopyBytes = 4ull << 30;  // one D2D copy carries at most 4 GiB

struct CopyPlan {
  models::MemoryPlace dst, src;
  Device* engine = nullptr;  // whose DMA runs it; nullptr: the host CPU copies
  bool pageable = false;     // a host side is pageable memory
  uint64_t maxTaskBytes = kMaxHostTaskBytes;
  uint64_t rowBytes = 0;  // a 2D copy of rows that are not contiguous: each row's width
  uint64_t srcPitch = 0, dstPitch = 0;  // and from one row's start to the next on each side
};

inline bool isDevice(const models::MemoryPlace& p) {
  return p.kind == models::MemoryPlace::Kind::Device;
}
const char* copyKindName(int32_t kind);  // "ACL_MEMCPY_HOST_TO_DEVICE", ...

class CopyPlanner {
 public:
  CopyPlanner(const spec::SystemSpec& spec, MemoryManager& memory,
              const std::vector<std::unique_ptr<Device>>& devices);
  // `current`: the calling thread's current device, or nullptr. Throws AclFailure with CANN's
  // code for a copy that cannot run.
  CopyPlan plan(Device* current, void* dst, uint64_t dstBytes, const void* src, uint64_t srcBytes,
                int32_t kind, bool async) const;

 private:
  const spec::SystemSpec& spec_;
  MemoryManager& memory_;
  const std::vector<std::unique_ptr<Device>>& devices_;
};

}  // namespace ascendsim::runtime
