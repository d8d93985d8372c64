#include "runtime/core/virtual_memory.h"

#include <algorithm>

#include "runtime/core/errors.h"
#include "runtime/core/memory_manager.h"

namespace ascendsim::runtime {
namespace {

constexpr uint64_t kGranularity = 2ull << 20;  // CANN's device memory granularity (huge pages)
constexpr uint64_t kChunk = 64 * 1024;

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

PhysicalMemory& VirtualMemory::physical(aclrtDrvMemHandle handle) {
  if (!handle) fail(ACL_ERROR_INVALID_PARAM, "handle is NULL");
  PhysicalMemory* m = physical_.find(handle);
  if (!m)
    fail(ACL_ERROR_INVALID_PARAM,
         "handle is not physical memory of aclrtMallocPhysical (freed already?)");
  return *m;
}

PhysicalMemory* VirtualMemory::allocatePhysical(uint64_t size, const aclrtPhysicalMemProp* prop,
                                                uint64_t flags) {
  if (!prop) fail(ACL_ERROR_INVALID_PARAM, "prop is NULL");
  if (size == 0) fail(ACL_ERROR_INVALID_PARAM, "size is 0");
  checkGranular(size, "size");
  if (flags != 0) fail(ACL_ERROR_INVALID_PARAM, "flags must be 0");
  if (prop->location.type != ACL_MEM_LOCATION_TYPE_DEVICE) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "physical memory is simulated on devices only (location.type DEVICE)");
  }
  if (prop->allocationType != ACL_MEM_ALLOCATION_TYPE_PINNED)
    fail(ACL_ERROR_INVALID_PARAM, "allocationType must be PINNED");
  if (prop->handleType != ACL_MEM_HANDLE_TYPE_NONE &&
      prop->handleType != ACL_MEM_HANDLE_TYPE_POSIX) {
    fail(ACL_ERROR_INVALID_PARAM, "handleType must be NONE or POSIX");
  }
  Device& d = deviceById(devices_, static_cast<int32_t>(prop->location.id));
  if (!d.memory->takeCapacity(size)) {
    fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "device " + std::to_string(d.id) + " has no " +
                                             std::to_string(size) +
                                             " bytes left for physical memory");
  }
  auto m = std::make_unique<PhysicalMemory>();
  m->device = &d;
  m->size = size;
  return &physical_.add(std::move(m));
}

void VirtualMemory::freePhysical(aclrtDrvMemHandle handle) {
  PhysicalMemory& m = physical(handle);
  if (m.mappedAt)
    fail(ACL_ERROR_INVALID_PARAM,
         "the physical memory is still mapped: unmap it first (aclrtUnmapMem)");
  m.device->memory->giveCapacity(m.size);
  physical_.erase(&m);
}

void VirtualMemory::map(void* p, uint64_t size, uint64_t offset, aclrtDrvMemHandle handle,
                        uint64_t flags) {
  if (!p) fail(ACL_ERROR_INVALID_PARAM, "virPtr is NULL");
  PhysicalMemory& m = physical(handle);
  if (flags != 0) fail(ACL_ERROR_INVALID_PARAM, "flags must be 0");
  const uint64_t address = reinterpret_cast<uint64_t>(p);
  checkGranular(size, "size");
  checkGranular(offset, "offset");
  if (size == 0 || offset > m.size || size > m.size - offset) {
    fail(ACL_ERROR_INVALID_PARAM,
         "offset " + std::to_string(offset) + " + size " + std::to_string(size) +
             " is not inside the physical memory's " + std::to_string(m.size) + " bytes");
  }
  if (m.mappedAt)
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "the physical memory is mapped already: one mapping at a time is simulated");
  DeviceMemory& memory = *m.device->memory;
  if (!memory.reservationContaining(address, size)) {
    fail(memory.contains(address) ? ACL_ERROR_INVALID_PARAM : ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         memory.contains(address)
             ? describePointer(p) + " + " + std::to_string(size) + " is not inside a reservation"
             : "the reservation is not on the physical memory's device " +
                   std::to_string(m.device->id));
  }
  for (uint64_t at = address; at < address + size; at += kGranularity) {
    if (memory.allocationContaining(at))
      fail(ACL_ERROR_INVALID_PARAM, "part of the range is mapped already");
  }
  memory_.mapDevice(*m.device, address, size);
  for (const auto& [chunkOffset, bytes] : m.chunks) {
    if (chunkOffset >= offset && chunkOffset - offset < size)
      memory.write(address + chunkOffset - offset, bytes.data(), bytes.size());
  }
  m.mappedAt = address;
  m.mappedOffset = offset;
  m.mappedSize = size;
}

bool VirtualMemory::mapped(uint64_t address) const {
  const std::vector<PhysicalMemory*> all = physical_.all();
  return std::any_of(all.begin(), all.end(),
                     [&](const PhysicalMemory* m) { return m->mappedAt == address; });
}

void VirtualMemory::unmap(void* p) {
  if (!p) fail(ACL_ERROR_INVALID_PARAM, "virPtr is NULL");
  const uint64_t address = reinterpret_cast<uint64_t>(p);
  for (PhysicalMemory* m : physical_.all()) {
    if (m->mappedAt != address) continue;
    // The bytes go back to the physical memory, chunk by chunk where something was written.
    std::vector<uint8_t> bytes(kChunk);
    for (uint64_t at = 0; at < m->mappedSize; at += kChunk) {
      const uint64_t n = std::min(kChunk, m->mappedSize - at);
      bytes.assign(n, 0);
      m->device->memory->read(address + at, bytes.data(), n);
      const bool any = std::any_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b != 0; });
      if (any) {
        m->chunks[m->mappedOffset + at] = bytes;
      } else {
        m->chunks.erase(m->mappedOffset + at);
      }
    }
    memory_.unmapDevice(*m->device, address);
    m->mappedAt = 0;
    return;
  }
  fail(ACL_ERROR_INVALID_PARAM,
       describePointer(p) + " is not the start of a mapping (aclrtMapMem)");
}

void VirtualMemory::setAccess(void* p, uint64_t size, const aclrtMemAccessDesc* desc,
                              size_t count) {
  if (!p || !desc || count == 0)
    fail(ACL_ERROR_INVALID_PARAM, !p ? "virPtr is NULL" : "desc is NULL or count is 0");
  const uint64_t address = reinterpret_cast<uint64_t>(p);
  const PhysicalMemory* mapping = nullptr;
  for (PhysicalMemory* m : physical_.all()) {
    if (m->mappedAt && address >= m->mappedAt && address - m->mappedAt < m->mappedSize) mapping = m;
  }
  if (!mapping || size > mapping->mappedSize - (address - mapping->mappedAt)) {
    fail(ACL_ERROR_INVALID_PARAM,
         describePointer(p) + " + " + std::to_string(size) + " is not inside a mapping");
  }
  for (size_t i = 0; i < count; ++i) {
    if (desc[i].flags != ACL_RT_MEM_ACCESS_FLAGS_READWRITE ||
        desc[i].location.type != ACL_MEM_LOCATION_TYPE_DEVICE ||
        desc[i].location.id != static_cast<uint32_t>(mapping->device->id)) {
      fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "only read-write access by the mapping's own device " +
                                                 std::to_string(mapping->device->id) +
                                                 " is simulated");
    }
  }
}

}  // namespace ascendsim::runtime
