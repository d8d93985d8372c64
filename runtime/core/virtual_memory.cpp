#include "runtime/core/virtual_memory.h"

#include <algorithm>
#include <optional>
#include <string>

#include "runtime/core/errors.h"
#include "runtime/core/memory_manager.h"

namespace ascendsim::runtime {
namespace {

constexpr uint64_t kGranularity = 2ull << 20;  // CANN's device memory granularity (huge pages)

void checkGranular(uint64_t value, const char* what) {
  if (value % kGranularity != 0) {
    fail(ACL_ERROR_INVALID_PARAM,
         std::string(what) + " " + std::to_string(value) +
             " is not a multiple of the 2 MiB granularity (aclrtMemGetAllocationGranularity)");
  }
}

}  // namespace

void VirtualMemory::checkReservation(uint64_t size, uint64_t alignment, const void* expect,
                                     uint64_t flags) {
  if (size == 0) fail(ACL_ERROR_INVALID_PARAM, "size is 0");
  checkGranular(size, "size");
  if (flags != 0) fail(ACL_ERROR_INVALID_PARAM, "flags must be 0");
  if (expect)
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "expectPtr: a reservation at a chosen address is not simulated; pass NULL");
  if (alignment != 0) checkGranular(alignment, "alignment");
}

void* VirtualMemory::reserve(Device& d, uint64_t size, uint64_t alignment) {
  const auto address = d.memory->reserveAddresses(size, alignment ? alignment : kGranularity);
  if (!address) {
    fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "device " + std::to_string(d.id) +
                                             " has no free address range of " +
                                             std::to_string(size) + " bytes");
  }
  return reinterpret_cast<void*>(*address);
}

void VirtualMemory::release(void* p) {
  if (!p) fail(ACL_ERROR_INVALID_PARAM, "virPtr is NULL");
  const uint64_t address = reinterpret_cast<uint64_t>(p);
  for (auto& d : devices_) {
    if (d->memory->reservationContaining(address, 1) != address) continue;
    if (!d->memory->releaseAddresses(address)) {
      fail(ACL_ERROR_INVALID_PARAM,
           "the reservation at " + describePointer(p) + " still has mappings: unmap them first");
    }
    return;
  }
  fail(ACL_ERROR_INVALID_PARAM,
       describePointer(p) + " is not the start of a reservation (aclrtReserveMemAddress)");
}

PhysicalMemory& VirtualMemory::physical(int32_t pid, aclrtDrvMemHandle handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "handle is NULL");
  PhysicalMemory* m = physical_.find(handle);
  if (!m || m->owner != pid) {
    fail(ACL_ERROR_INVALID_PARAM,
         m ? "handle is physical memory of another process (import it from a shareable handle)"
           : "handle is not physical memory of aclrtMallocPhysical (freed already?)");
  }
  return *m;
}

PhysicalMemory* VirtualMemory::allocatePhysical(int32_t pid, uint64_t size,
                                                const aclrtPhysicalMemProp* prop, uint64_t flags,
                                                uint32_t hostNodes) {
  if (!prop) fail(ACL_ERROR_INVALID_PARAM, "prop is NULL");
  if (size == 0) fail(ACL_ERROR_INVALID_PARAM, "size is 0");
  checkGranular(size, "size");
  if (flags != 0) fail(ACL_ERROR_INVALID_PARAM, "flags must be 0");
  const int32_t where = static_cast<int32_t>(prop->location.type);
  if (where == ACL_MEM_LOCATION_TYPE_UNREGISTERED || where == ACL_MEM_LOCATION_TYPE_MANAGED) {
    fail(ACL_ERROR_INVALID_PARAM, "location.type " + std::to_string(where) +
                                      " (UNREGISTERED or MANAGED) is no place for physical memory");
  }
  if (where == ACL_MEM_LOCATION_TYPE_HOST_NUMA && prop->location.id >= hostNodes) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "location.id " + std::to_string(prop->location.id) + " names no NUMA node: the host has " +
             std::to_string(hostNodes) + " (one per socket, pcie.root_complex.sockets)");
  }
  if (where != ACL_MEM_LOCATION_TYPE_DEVICE) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "physical host memory (location.type HOST or HOST_NUMA) is not simulated; pinned host "
         "memory on a chosen node comes from aclrtMallocHost called by a thread on that node's "
         "socket (host.thread_sockets)");
  }
  if (prop->allocationType != ACL_MEM_ALLOCATION_TYPE_PINNED)
    fail(ACL_ERROR_INVALID_PARAM, "allocationType must be PINNED");
  if (prop->handleType != ACL_MEM_HANDLE_TYPE_NONE &&
      prop->handleType != ACL_MEM_HANDLE_TYPE_POSIX) {
    fail(ACL_ERROR_INVALID_PARAM, "handleType must be NONE or POSIX");
  }
  Device& d = deviceById(devices_, static_cast<int32_t>(prop->location.id));
  const std::optional<uint64_t> address = d.memory->makeBacking(size);
  if (!address) {
    fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "device " + std::to_string(d.id) + " has no " +
                                             std::to_string(size) +
                                             " bytes left for physical memory");
  }
  auto backing = std::make_unique<PhysicalBacking>();
  backing->device = &d;
  backing->address = *address;
  backing->size = size;
  backing->handles = 1;
  auto m = std::make_unique<PhysicalMemory>();
  m->backing = backing.get();
  m->owner = pid;
  backings_[backing.get()] = std::move(backing);
  return &physical_.add(std::move(m));
}

void VirtualMemory::dropHandle(PhysicalMemory& m) {
  // Its shareable handle goes with it: imports made already keep the memory.
  if (m.shareable) exports_.erase(m.shareable);
  PhysicalBacking* b = m.backing;
  physical_.erase(&m);
  if (--b->handles == 0) {
    b->device->memory->dropBacking(b->address);
    backings_.erase(b);
  }
}

void VirtualMemory::freePhysical(int32_t pid, aclrtDrvMemHandle handle) {
  PhysicalMemory& m = physical(pid, handle);
  if (m.mappings > 0)
    fail(ACL_ERROR_INVALID_PARAM,
         "the physical memory is still mapped: unmap it first (aclrtUnmapMem)");
  dropHandle(m);
}

void VirtualMemory::map(int32_t pid, void* p, uint64_t size, uint64_t offset,
                        aclrtDrvMemHandle handle, uint64_t flags) {
  if (!p) fail(ACL_ERROR_INVALID_PARAM, "virPtr is NULL");
  PhysicalMemory& m = physical(pid, handle);
  if (flags != 0) fail(ACL_ERROR_INVALID_PARAM, "flags must be 0");
  const uint64_t address = reinterpret_cast<uint64_t>(p);
  checkGranular(size, "size");
  checkGranular(offset, "offset");
  const PhysicalBacking& b = *m.backing;
  if (size == 0 || offset > b.size || size > b.size - offset) {
    fail(ACL_ERROR_INVALID_PARAM,
         "offset " + std::to_string(offset) + " + size " + std::to_string(size) +
             " is not inside the physical memory's " + std::to_string(b.size) + " bytes");
  }
  DeviceMemory& memory = *b.device->memory;
  if (!memory.reservationContaining(address, size)) {
    fail(memory.contains(address) ? ACL_ERROR_INVALID_PARAM : ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         memory.contains(address)
             ? describePointer(p) + " + " + std::to_string(size) + " is not inside a reservation"
             : "the reservation is not on the physical memory's device " +
                   std::to_string(b.device->id));
  }
  for (uint64_t at = address; at < address + size; at += kGranularity) {
    if (memory.allocationContaining(at))
      fail(ACL_ERROR_INVALID_PARAM, "part of the range is mapped already");
  }
  memory_.mapDevice(*b.device, address, size, b.address + offset);
  mappings_[address] = Mapping{&m, size};
  m.mappings++;
}

bool VirtualMemory::mapped(uint64_t address) const {
  return mappings_.count(address) > 0;
}

void VirtualMemory::unmap(void* p) {
  if (!p) fail(ACL_ERROR_INVALID_PARAM, "virPtr is NULL");
  auto it = mappings_.find(reinterpret_cast<uint64_t>(p));
  if (it == mappings_.end())
    fail(ACL_ERROR_INVALID_PARAM,
         describePointer(p) + " is not the start of a mapping (aclrtMapMem)");
  PhysicalMemory& m = *it->second.handle;
  memory_.unmapDevice(*m.backing->device, it->first);
  m.mappings--;
  mappings_.erase(it);
}

void VirtualMemory::setAccess(void* p, uint64_t size, const aclrtMemAccessDesc* desc,
                              size_t count) {
  if (!p || !desc || count == 0)
    fail(ACL_ERROR_INVALID_PARAM, !p ? "virPtr is NULL" : "desc is NULL or count is 0");
  const uint64_t address = reinterpret_cast<uint64_t>(p);
  auto it = mappings_.upper_bound(address);
  const Mapping* mapping = nullptr;
  uint64_t start = 0;
  if (it != mappings_.begin()) {
    --it;
    if (address - it->first < it->second.size) {
      mapping = &it->second;
      start = it->first;
    }
  }
  if (!mapping || size > mapping->size - (address - start)) {
    fail(ACL_ERROR_INVALID_PARAM,
         describePointer(p) + " + " + std::to_string(size) + " is not inside a mapping");
  }
  const int device = mapping->handle->backing->device->id;
  for (size_t i = 0; i < count; ++i) {
    if (desc[i].flags != ACL_RT_MEM_ACCESS_FLAGS_READWRITE ||
        desc[i].location.type != ACL_MEM_LOCATION_TYPE_DEVICE ||
        desc[i].location.id != static_cast<uint32_t>(device)) {
      fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "only read-write access by the mapping's own device " +
                                                 std::to_string(device) + " is simulated");
    }
  }
}

void VirtualMemory::releaseAll() {
  for (const auto& [address, mapping] : mappings_)
    memory_.unmapDevice(*mapping.handle->backing->device, address);
  for (const auto& [b, backing] : backings_) b->device->memory->dropBacking(b->address);
  mappings_.clear();
  exports_.clear();
  backings_.clear();
  physical_.clear();
}

void VirtualMemory::deviceReleased(const Device& d) {
  for (auto it = mappings_.begin(); it != mappings_.end();) {
    if (it->second.handle->backing->device != &d) {
      ++it;
      continue;
    }
    it->second.handle->mappings--;
    it = mappings_.erase(it);
  }
}

// ---------------------------------------------------------------- shareable handles

uint64_t VirtualMemory::exportShareable(int32_t pid, aclrtDrvMemHandle handle, uint64_t flags) {
  // CANN's runtime takes flags up to ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION (107000).
  if (flags > ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
    fail(ACL_ERROR_RT_PARAM_INVALID, "flags " + std::to_string(flags) + " is not an export flag");
  PhysicalMemory& m = physical(pid, handle);
  if (m.imported)
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "the handle was imported from a shareable handle: only the allocating process exports");
  if (!m.shareable) {
    // Numbers no earlier handle had, far from small integers a program might make up.
    m.shareable = (0x4153ull << 48) | ++shareables_;
    exports_[m.shareable] = Export{&m, pid, false, {}};
  }
  if (flags & ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
    exports_[m.shareable].anyProcess = true;
  return m.shareable;
}

void VirtualMemory::allowProcesses(int32_t pid, uint64_t shareable, const int32_t* pids, size_t n) {
  auto it = exports_.find(shareable);
  if (it == exports_.end())
    fail(ACL_ERROR_RT_PARAM_INVALID, "no physical memory is exported under the shareable handle " +
                                         std::to_string(shareable) +
                                         " (its memory was freed, or it was never made)");
  if (it->second.owner != pid)
    fail(ACL_ERROR_RT_NO_PERMISSION,
         "the shareable handle was exported by another process: only it names importers");
  for (size_t i = 0; i < n; ++i) {
    if (pids[i] <= 0)
      fail(ACL_ERROR_RT_PARAM_INVALID, "pid " + std::to_string(pids[i]) + " is not a process id");
  }
  it->second.allowed.insert(pids, pids + n);
}

PhysicalMemory* VirtualMemory::importShareable(int32_t pid, uint64_t shareable) {
  auto it = exports_.find(shareable);
  if (it == exports_.end())
    fail(ACL_ERROR_RT_PARAM_INVALID, "no physical memory is exported under the shareable handle " +
                                         std::to_string(shareable) +
                                         " (its memory was freed, or it was never made)");
  const Export& e = it->second;
  if (!e.anyProcess && pid != e.owner && !e.allowed.count(pid)) {
    fail(ACL_ERROR_RT_NO_PERMISSION,
         "process " + std::to_string(pid) +
             " may not import the shareable handle: the exporter has not named it with "
             "aclrtMemSetPidToShareableHandle (nor exported it with "
             "ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)");
  }
  auto m = std::make_unique<PhysicalMemory>();
  m->backing = e.handle->backing;
  m->backing->handles++;
  m->owner = pid;
  m->imported = true;
  return &physical_.add(std::move(m));
}

}  // namespace ascendsim::runtime
