#pragma once
// Host memory devices reach in place: ranges the program registered (aclrtHostRegister,
// aclrtHostGetDevicePointer, aclrtHostUnregister) and managed allocations (aclrtMemAllocManaged),
// whose pages migrate to the device a kernel touches them from. Kernels watch exactly these ranges.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/managed_memory.h"

namespace ascendsim::runtime {

class MemoryManager;

class HostRegistry {
 public:
  explicit HostRegistry(MemoryManager& memory) : memory_(memory) {}

  void registerRange(void* p, uint64_t size, uint32_t flags);  // flags: ACL_HOST_REG_*
  void* devicePointer(void* p, uint32_t flag);  // of a range registered ACL_HOST_REG_MAPPED
  void unregisterRange(void* p);
  // aclrtMemAllocManaged's arguments, checked before the machine's SoC is asked for.
  static void checkManagedRequest(uint64_t size, uint32_t flag);
  // Managed memory on a machine whose SoC is `soc` (A2/A3 only), pinned whole pages.
  void* allocateManaged(uint64_t size, const std::string& soc);
  ManagedMemory& managed() { return managed_; }
  // Host memory kernels reach in place: registered mapped ranges and managed allocations.
  std::vector<std::pair<uint64_t, uint64_t>> rangesForKernels() const;

 private:
  MemoryManager& memory_;
  std::map<uint64_t, std::pair<uint64_t, uint32_t>> registrations_;  // start -> (size, flags)
  ManagedMemory managed_;  // (host memory, freed by aclrtFree)
};

}  // namespace ascendsim::runtime
