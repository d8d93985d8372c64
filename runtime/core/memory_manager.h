#pragma once
// Knows every allocation: device memory (simulated addresses with sparse contents, or real memory
// in run mode device) and pinned host memory from aclrtMallocHost. Classifies any pointer range
// a copy touches, refuses ranges that leave their allocation, and applies copies' data effects.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "models/task/task.h"
#include "runtime/core/objects.h"

namespace ascendsim::runtime {

// Map: a mapping of physical memory into reserved addresses (aclrtMapMem), undone by aclrtUnmapMem.
enum class AllocationApi { Malloc, MallocHost, Dvpp, Map };

// Where pinned host memory (aclrtMallocHost) comes from: the C library for a program on its own
// machine, memory shared with every process of the job for a machine `ascendsim exec --shared`
// serves. Chosen once per process, before aclInit.
class HostMemorySource {
 public:
  virtual ~HostMemorySource() = default;
  virtual void* allocate(uint64_t size, uint64_t alignment) = 0;  // nullptr when out of memory
  virtual void release(void* p) = 0;
  virtual void discard(void* p, uint64_t size) = 0;  // gives whole pages back, keeps the range
};
HostMemorySource& hostMemory();
void useHostMemory(HostMemorySource& source);

class MemoryManager {
 public:
  explicit MemoryManager(std::vector<Device*> devices) : devices_(std::move(devices)) {}

  // Device memory; fails with ACL_ERROR_RT_MEMORY_ALLOCATION when the device is full.
  void* allocateDevice(Device& device, uint64_t size, uint64_t reserved, uint64_t alignment,
                       AllocationApi api);
  // `alignment`: a power of two; the allocation is rounded up to a multiple of it.
  // `socket`: the NUMA node its pages are on, when the runtime knows it (-1: as the copy decides).
  void* allocatePinnedHost(uint64_t size, uint64_t alignment = 64, int socket = -1);
  // Frees what `api` allocated; fails with ACL_ERROR_RT_MEMORY_FREE otherwise. An allocation that
  // queued copies or memsets still use lives on until the last of them ends (as the driver keeps
  // it): returns true when the release was deferred so.
  bool free(void* p, AllocationApi api);
  // A queued task's data effect will touch the allocation holding `place` (pinned or device;
  // pageable memory is the program's own): keep it alive until drop() of the start returned.
  uint64_t hold(const models::MemoryPlace& place);
  void drop(uint64_t start);
  void releaseDevice(Device& device);
  // aclrtMapMem / aclrtUnmapMem: [address, address + size) of a reservation is device memory
  // while mapped (copies, memsets and kernels reach it; aclrtFree refuses it).
  void mapDevice(Device& device, uint64_t address, uint64_t size, uint64_t target);
  void unmapDevice(Device& device, uint64_t address);
  void releaseAll();

  // The place of [p, p + n): device memory, pinned host memory or pageable host memory.
  // Fails with ACL_ERROR_RT_PARAM_INVALID when the range leaves its allocation.
  models::MemoryPlace resolve(const void* p, uint64_t n, const char* role) const;

  void copy(const models::MemoryPlace& dst, const models::MemoryPlace& src, uint64_t n);
  void fill(const models::MemoryPlace& dst, uint8_t value, uint64_t n);
  // Device bytes for kernels' data effects. Never-written bytes read as zero; reading them warns
  // when `warnUnwritten` (inputs), not for an output's old contents.
  std::vector<uint8_t> readDevice(const models::MemoryPlace& src, uint64_t n, bool warnUnwritten);
  void writeDevice(const models::MemoryPlace& dst, const std::vector<uint8_t>& bytes);

  // Host memory registered with aclrtHostRegister: pinned for copies while registered.
  void registerHost(uint64_t address, uint64_t size);
  bool unregisterHost(uint64_t address);  // false: no registration starts there
  bool overlapsRegistered(uint64_t address, uint64_t size) const;
  bool registered(uint64_t address, uint64_t size) const;  // inside one registration

  size_t liveAllocations() const;
  // Called when a copy reads device memory that was never written (its bytes read as zero).
  std::function<void(const std::string&)> onUnwrittenRead;
  std::string stableName(const void* p) const;
  uint64_t pinnedBytes() const { return pinnedBytes_; }
  uint64_t pinnedSize(uint64_t address) const;  // of the aclrtMallocHost allocation there (0: none)
  // Whether a task queued before still holds the allocation starting at `start`.
  bool held(uint64_t start) const { return holds_.count(start) > 0; }

 private:
  struct HostAllocation {
    uint64_t size;
    uint64_t number;  // order of allocation, for names that do not depend on addresses
    int socket = -1;  // NUMA node, when known
  };
  uint64_t pinnedCount_ = 0;
  Device* deviceOwning(uint64_t address) const;
  // The start of the pinned or device allocation holding `place`, or 0.
  uint64_t allocationStart(const models::MemoryPlace& place) const;
  void releaseNow(uint64_t start);
  // Gives pinned memory the program freed back to the C library, by way of the quarantine.
  void retirePinned(uint64_t start, const HostAllocation& alloc);

  std::map<uint64_t, uint64_t> registered_;  // registered host range start -> size
  std::map<uint64_t, uint32_t> holds_;       // allocation start -> queued tasks that touch it
  std::map<uint64_t, HostAllocation> freedPinned_;  // freed by the program, held by tasks
  std::map<uint64_t, Device*> freedDevice_;         // likewise
  // Pinned memory the program freed, kept allocated (its whole pages given back to the OS) so
  // that no other allocation can take its addresses: a copy from a stale pointer into it is then
  // known to be one and refused, never a read of freed memory. The oldest leaves first.
  std::map<uint64_t, uint64_t> quarantine_;  // start -> size
  std::deque<uint64_t> quarantineOrder_;

  std::vector<Device*> devices_;
  std::map<uint64_t, HostAllocation> pinned_;
  std::map<uint64_t, AllocationApi> deviceApi_;  // how each device allocation was made
  uint64_t pinnedBytes_ = 0;
};

std::string describePointer(const void* p);

}  // namespace ascendsim::runtime
