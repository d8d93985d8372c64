#pragma once
// Virtual memory management in one process: reserved addresses, physical memory and mappings
// (aclrtReserveMemAddress, aclrtMallocPhysical, aclrtMapMem ...). A mapping is an allocation of the
// device over reserved addresses; the physical memory's bytes move in when it is mapped and back
// out when it is unmapped.

#include <cstdint>

#include "acl/acl_rt.h"
#include "runtime/core/handle_table.h"
#include "runtime/core/objects.h"

namespace ascendsim::runtime {

class MemoryManager;

class VirtualMemory {
 public:
  VirtualMemory(const Devices& devices, MemoryManager& memory)
      : devices_(devices), memory_(memory) {}

  // aclrtReserveMemAddress's arguments, checked before the device is asked for.
  static void checkReservation(uint64_t size, uint64_t alignment, const void* expect,
                               uint64_t flags);
  // `size` addresses on `d` (the calling thread's current device), checked as above.
  void* reserve(Device& d, uint64_t size, uint64_t alignment);
  void release(void* p);
  PhysicalMemory* allocatePhysical(uint64_t size, const aclrtPhysicalMemProp* prop, uint64_t flags);
  void freePhysical(aclrtDrvMemHandle handle);
  void map(void* p, uint64_t size, uint64_t offset, aclrtDrvMemHandle handle, uint64_t flags);
  // Whether a mapping starts at `address`.
  bool mapped(uint64_t address) const;
  // Unmaps the mapping at `p`, its bytes back into its physical memory. The caller has waited for
  // the tasks queued on it: their bytes must land in that physical memory, never elsewhere.
  void unmap(void* p);
  void setAccess(void* p, uint64_t size, const aclrtMemAccessDesc* desc, size_t count);

 private:
  PhysicalMemory& physical(aclrtDrvMemHandle handle);  // fails on a handle not (or no longer) made
  const Devices& devices_;
  MemoryManager& memory_;
  HandleTable<PhysicalMemory> physical_;
};

}  // namespace ascendsim::runtime
