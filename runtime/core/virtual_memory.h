#pragma once
// Virtual memory management: reserved addresses, physical memory and mappings
// (aclrtReserveMemAddress, aclrtMallocPhysical, aclrtMapMem ...), and physical memory shared
// between processes by shareable handle (aclrtMemExportToShareableHandle ...). Physical memory's
// bytes live at a hidden range of its device's addresses; a mapping is an allocation of the
// device over reserved addresses whose bytes are those, so every mapping of one physical memory,
// in this process or another on the same machine, reads and writes the same bytes. Processes are
// named by pid (the facade passes the caller's); a handle is its process's own.

#include <cstdint>
#include <map>
#include <memory>
#include <set>

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
  // `hostNodes`: the host's NUMA nodes, which ACL_MEM_LOCATION_TYPE_HOST_NUMA ids must name.
  PhysicalMemory* allocatePhysical(int32_t pid, uint64_t size, const aclrtPhysicalMemProp* prop,
                                   uint64_t flags, uint32_t hostNodes);
  void freePhysical(int32_t pid, aclrtDrvMemHandle handle);
  void map(int32_t pid, void* p, uint64_t size, uint64_t offset, aclrtDrvMemHandle handle,
           uint64_t flags);
  // Whether a mapping starts at `address`.
  bool mapped(uint64_t address) const;
  // Unmaps the mapping at `p`; its bytes stay with its physical memory. The caller has waited for
  // the tasks queued on it: their bytes must land in that physical memory, never elsewhere.
  void unmap(void* p);
  void setAccess(void* p, uint64_t size, const aclrtMemAccessDesc* desc, size_t count);
  // aclFinalize: every handle, mapping and shareable handle goes, and the memory with them.
  void releaseAll();
  // The device's memory was released (its last reset): its mappings are gone; handles and their
  // memory stay.
  void deviceReleased(const Device& d);

  // ---- shareable handles (aclrtMemExportToShareableHandle, SetPid..., ImportFrom...)
  uint64_t exportShareable(int32_t pid, aclrtDrvMemHandle handle, uint64_t flags);
  void allowProcesses(int32_t pid, uint64_t shareable, const int32_t* pids, size_t n);
  // The device of that id (ACL_ERROR_RT_INVALID_DEVICEID when the machine has none).
  const Device& device(int32_t id) const { return deviceById(devices_, id); }
  // A handle of `pid` to the exported physical memory (mapped on the memory's own device only).
  PhysicalMemory* importShareable(int32_t pid, uint64_t shareable);

 private:
  struct Mapping {
    PhysicalMemory* handle = nullptr;
    uint64_t size = 0;
  };
  struct Export {
    PhysicalMemory* handle = nullptr;  // the exporter's
    int32_t owner = 0;
    bool anyProcess = false;  // exported with ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION
    std::set<int32_t> allowed;
  };
  // The handle `pid` holds, or a failure (not made, freed, or another process's).
  PhysicalMemory& physical(int32_t pid, aclrtDrvMemHandle handle);
  void dropHandle(PhysicalMemory& m);
  const Devices& devices_;
  MemoryManager& memory_;
  HandleTable<PhysicalMemory> physical_;
  std::map<PhysicalBacking*, std::unique_ptr<PhysicalBacking>> backings_;
  std::map<uint64_t, Mapping> mappings_;  // by address
  std::map<uint64_t, Export> exports_;    // by shareable handle
  uint64_t shareables_ = 0;               // the last shareable handle made
};

}  // namespace ascendsim::runtime
