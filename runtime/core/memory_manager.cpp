#include "runtime/core/memory_manager.h"

#include "runtime/core/data_mode.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "acl/acl_base.h"
#include "runtime/core/errors.h"

namespace ascendsim::runtime {

using models::MemoryPlace;

std::string describePointer(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

namespace {
const char* apiName(AllocationApi api) {
  switch (api) {
    case AllocationApi::Malloc: return "aclrtMalloc";
    case AllocationApi::MallocHost: return "aclrtMallocHost";
    case AllocationApi::Dvpp: return "acldvppMalloc";
    case AllocationApi::Map: return "aclrtMapMem";
  }
  return "?";
}
const char* freeName(AllocationApi api) {
  switch (api) {
    case AllocationApi::Malloc: return "aclrtFree";
    case AllocationApi::MallocHost: return "aclrtFreeHost";
    case AllocationApi::Dvpp: return "acldvppFree";
    case AllocationApi::Map: return "aclrtUnmapMem";
  }
  return "?";
}
}  // namespace

Device* MemoryManager::deviceOwning(uint64_t address) const {
  for (Device* d : devices_) {
    if (d->memory->contains(address)) return d;
  }
  return nullptr;
}

void* MemoryManager::allocateDevice(Device& device, uint64_t size, uint64_t reserved,
                                    uint64_t alignment, AllocationApi api) {
  DeviceMemory& mem = *device.memory;
  auto address = mem.allocate(size, reserved, alignment);
  if (!address) {
    fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
         "device " + std::to_string(device.id) + " is out of memory: " + std::to_string(reserved) +
             " bytes requested, " + std::to_string(mem.capacity() - mem.used()) + " of " +
             std::to_string(mem.capacity()) + " free");
  }
  deviceApi_[*address] = api;
  return reinterpret_cast<void*>(*address);
}

namespace {
// The C library's heap: pages given back with madvise stay allocated to the heap.
class ProcessHostMemory : public HostMemorySource {
 public:
  void* allocate(uint64_t size, uint64_t alignment) override {
    void* p = nullptr;
    return posix_memalign(&p, alignment, size) == 0 ? p : nullptr;
  }
  void release(void* p) override { std::free(p); }
  void discard(void* p, uint64_t size) override { madvise(p, size, MADV_DONTNEED); }
};
HostMemorySource* gHostMemory = nullptr;
}  // namespace

HostMemorySource& hostMemory() {
  static ProcessHostMemory process;
  return gHostMemory ? *gHostMemory : process;
}

void useHostMemory(HostMemorySource& source) {
  gHostMemory = &source;
}

void* MemoryManager::allocatePinnedHost(uint64_t size, uint64_t alignment, int socket) {
  void* p = nullptr;
  if (size > UINT64_MAX - (alignment - 1)) {
    fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
         "host is out of memory for " + std::to_string(size) + " pinned bytes");
  }
  const uint64_t rounded = (size + alignment - 1) / alignment * alignment;
  p = hostMemory().allocate(rounded, alignment);
  if (!p) {
    fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
         "host is out of memory for " + std::to_string(size) + " pinned bytes");
  }
  pinned_[reinterpret_cast<uint64_t>(p)] = HostAllocation{size, pinnedCount_++, socket};
  pinnedBytes_ += size;
  return p;
}

bool MemoryManager::free(void* p, AllocationApi api) {
  const uint64_t address = reinterpret_cast<uint64_t>(p);
  const bool held = holds_.count(address) > 0;
  if (Device* d = deviceOwning(address)) {
    auto it = deviceApi_.find(address);
    if (it == deviceApi_.end() || !d->memory->allocationAt(address)) {
      fail(ACL_ERROR_RT_MEMORY_FREE,
           describePointer(p) + " is not the start of a live allocation on device " +
               std::to_string(d->id) + " (freed twice, or never allocated)");
    }
    if (it->second != api) {
      fail(ACL_ERROR_RT_MEMORY_FREE, describePointer(p) + " was allocated by " +
                                         apiName(it->second) + "; release it with " +
                                         freeName(it->second));
    }
    deviceApi_.erase(it);
    if (held) {
      freedDevice_[address] = d;
    } else {
      d->memory->release(address);
    }
    return held;
  }
  auto it = pinned_.find(address);
  if (it != pinned_.end() && api == AllocationApi::MallocHost) {
    if (held) {
      freedPinned_[address] = it->second;
    } else {
      retirePinned(address, it->second);
    }
    pinned_.erase(it);
    return held;
  }
  if (it != pinned_.end()) {
    fail(ACL_ERROR_RT_MEMORY_FREE,
         describePointer(p) + " was allocated by aclrtMallocHost; release it with aclrtFreeHost");
  }
  fail(ACL_ERROR_RT_MEMORY_FREE, describePointer(p) + " was not allocated by " +
                                     std::string(apiName(api)) +
                                     " (freed twice, or never allocated)");
}

uint64_t MemoryManager::allocationStart(const MemoryPlace& place) const {
  if (place.kind == MemoryPlace::Kind::Device) {
    const Device* d = devices_.at(static_cast<size_t>(place.device));
    const DeviceMemory::Allocation* a = d->memory->allocationContaining(place.address);
    return a ? a->base : 0;
  }
  if (place.kind != MemoryPlace::Kind::HostPinned) return 0;
  auto it = pinned_.upper_bound(place.address);
  if (it == pinned_.begin()) return 0;
  --it;
  return place.address <= it->first + it->second.size ? it->first : 0;
}

uint64_t MemoryManager::hold(const MemoryPlace& place) {
  const uint64_t start = allocationStart(place);
  if (start) ++holds_[start];
  return start;
}

void MemoryManager::drop(uint64_t start) {
  auto it = holds_.find(start);
  if (it == holds_.end()) return;
  if (--it->second == 0) {
    holds_.erase(it);
    releaseNow(start);
  }
}

// Releases an allocation the program freed while tasks held it, now that the last has ended.
void MemoryManager::releaseNow(uint64_t start) {
  if (auto d = freedDevice_.find(start); d != freedDevice_.end()) {
    d->second->memory->release(start);
    freedDevice_.erase(d);
  } else if (auto p = freedPinned_.find(start); p != freedPinned_.end()) {
    retirePinned(start, p->second);
    freedPinned_.erase(p);
  }
}

namespace {
// Freed pinned allocations kept back from the C library at most (their pages are given back, so
// each costs at most two partial pages of memory).
constexpr size_t kQuarantined = 1024;
}  // namespace

void MemoryManager::retirePinned(uint64_t start, const HostAllocation& alloc) {
  pinnedBytes_ -= alloc.size;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t first = (start + page - 1) / page * page;
  const uint64_t last = (start + alloc.size) / page * page;
  // The whole pages inside the allocation go back to the OS now (they read as zero if touched);
  // the allocator's own bookkeeping lies outside them.
  if (last > first) hostMemory().discard(reinterpret_cast<void*>(first), last - first);
  quarantine_[start] = alloc.size;
  quarantineOrder_.push_back(start);
  while (quarantineOrder_.size() > kQuarantined) {
    const uint64_t oldest = quarantineOrder_.front();
    quarantineOrder_.pop_front();
    quarantine_.erase(oldest);
    hostMemory().release(reinterpret_cast<void*>(oldest));
  }
}

void MemoryManager::releaseDevice(Device& device) {
  for (auto it = deviceApi_.begin(); it != deviceApi_.end();) {
    it = device.memory->contains(it->first) ? deviceApi_.erase(it) : std::next(it);
  }
  for (auto it = freedDevice_.begin(); it != freedDevice_.end();) {
    it = it->second == &device ? freedDevice_.erase(it) : std::next(it);
  }
  device.memory->releaseAll();
}

void MemoryManager::releaseAll() {
  for (Device* d : devices_) releaseDevice(*d);
  for (auto& [address, alloc] : pinned_) hostMemory().release(reinterpret_cast<void*>(address));
  for (auto& [address, alloc] : freedPinned_)
    hostMemory().release(reinterpret_cast<void*>(address));
  for (uint64_t address : quarantineOrder_) hostMemory().release(reinterpret_cast<void*>(address));
  pinned_.clear();
  freedPinned_.clear();
  quarantine_.clear();
  quarantineOrder_.clear();
  freedDevice_.clear();
  holds_.clear();
  pinnedBytes_ = 0;
}

namespace {
// "PREFIX<number>+0x<offset hex>", as snprintf's "%s%llu+0x%llx" writes it; without snprintf,
// for the trace's arguments of every call.
std::string placeName(const char* prefix, uint64_t number, uint64_t offset) {
  std::string name(prefix);
  char digits[24];
  name.append(digits, std::to_chars(digits, digits + sizeof digits, number).ptr);
  name += "+0x";
  name.append(digits, std::to_chars(digits, digits + sizeof digits, offset, 16).ptr);
  return name;
}
}  // namespace

std::string MemoryManager::stableName(const void* p) const {
  const uint64_t address = reinterpret_cast<uint64_t>(p);
  if (!p) return "NULL";
  if (Device* d = deviceOwning(address))
    return placeName("npu", static_cast<uint64_t>(d->id), address - d->memory->base());
  auto it = pinned_.upper_bound(address);
  if (it != pinned_.begin()) {
    --it;
    if (address < it->first + std::max<uint64_t>(it->second.size, 1))
      return placeName("pinned#", it->second.number, address - it->first);
  }
  return "pageable";
}

size_t MemoryManager::liveAllocations() const {
  return deviceApi_.size() + pinned_.size();
}

uint64_t MemoryManager::pinnedSize(uint64_t address) const {
  auto it = pinned_.find(address);
  return it == pinned_.end() ? 0 : it->second.size;
}

void MemoryManager::registerHost(uint64_t address, uint64_t size) {
  registered_[address] = size;
}

bool MemoryManager::unregisterHost(uint64_t address) {
  return registered_.erase(address) > 0;
}

bool MemoryManager::overlapsRegistered(uint64_t address, uint64_t size) const {
  auto it = registered_.lower_bound(address);
  if (it != registered_.end() && it->first - address < size) return true;
  if (it == registered_.begin()) return false;
  --it;
  return address - it->first < it->second;
}

bool MemoryManager::registered(uint64_t address, uint64_t size) const {
  auto it = registered_.upper_bound(address);
  if (it == registered_.begin()) return false;
  --it;
  return address - it->first < it->second && size <= it->second - (address - it->first);
}

void MemoryManager::mapDevice(Device& device, uint64_t address, uint64_t size, uint64_t target) {
  device.memory->mapRange(address, size, target);
  deviceApi_[address] = AllocationApi::Map;
}

void MemoryManager::unmapDevice(Device& device, uint64_t address) {
  deviceApi_.erase(address);
  device.memory->unmapRange(address);
}

MemoryPlace MemoryManager::resolve(const void* p, uint64_t n, const char* role) const {
  const uint64_t address = reinterpret_cast<uint64_t>(p);
  // Every range check below compares sizes, never address + n: a size near 2^64 must not wrap.
  if (n > UINT64_MAX - address) {
    fail(ACL_ERROR_RT_PARAM_INVALID, std::string(role) + " range " + describePointer(p) + " + " +
                                         std::to_string(n) +
                                         " bytes runs past the end of the address space");
  }
  if (Device* d = deviceOwning(address)) {
    const DeviceMemory::Allocation* a = d->memory->allocationContaining(address);
    if (!a || !deviceApi_.count(a->base)) {  // (freed, though queued tasks still hold it)
      fail(ACL_ERROR_RT_PARAM_INVALID,
           std::string(role) + " " + describePointer(p) + " is device memory of device " +
               std::to_string(d->id) +
               " but lies in no live allocation (freed, or never allocated)");
    }
    if (n > a->base + a->size - address) {
      fail(ACL_ERROR_RT_PARAM_INVALID,
           std::string(role) + " range " + describePointer(p) + " + " + std::to_string(n) +
               " bytes overruns its allocation of " + std::to_string(a->size) + " bytes at " +
               describePointer(reinterpret_cast<void*>(a->base)) + " by " +
               std::to_string(n - (a->base + a->size - address)) + " bytes");
    }
    return {MemoryPlace::Kind::Device, d->id, address};
  }
  auto it = pinned_.upper_bound(address);
  if (it != pinned_.begin()) {
    --it;
    const uint64_t end = it->first + it->second.size;
    // One past the end still belongs to the buffer (as C's pointer rules have it): a range that
    // starts there runs off the buffer, it is not someone's pageable memory.
    if (address <= end && (address < end || n > 0)) {
      if (n > end - address) {
        fail(ACL_ERROR_RT_PARAM_INVALID, std::string(role) + " range " + describePointer(p) +
                                             " + " + std::to_string(n) +
                                             " bytes overruns its aclrtMallocHost allocation of " +
                                             std::to_string(it->second.size) + " bytes by " +
                                             std::to_string(n - (end - address)) + " bytes");
      }
      return {MemoryPlace::Kind::HostPinned, -1, address, it->second.socket};
    }
  }
  if (registered(address, n)) return {MemoryPlace::Kind::HostPinned, -1, address};
  // Pinned memory freed lately is still the runtime's (quarantine_): a pointer into it is stale.
  if (auto q = quarantine_.upper_bound(address); q != quarantine_.begin()) {
    --q;
    if (address - q->first < q->second) {
      fail(ACL_ERROR_RT_PARAM_INVALID,
           std::string(role) + " " + describePointer(p) +
               " lies in pinned memory that aclrtFreeHost (or aclrtFree of managed memory) "
               "has freed already");
    }
  }
  // Pageable memory is the program's own: it may be anywhere but in the simulator's memories.
  auto next = pinned_.upper_bound(address);
  if (next != pinned_.end() && n > next->first - address) {
    fail(ACL_ERROR_RT_PARAM_INVALID, std::string(role) + " range " + describePointer(p) + " + " +
                                         std::to_string(n) +
                                         " bytes runs into an aclrtMallocHost allocation at " +
                                         describePointer(reinterpret_cast<void*>(next->first)));
  }
  for (Device* d : devices_) {
    const uint64_t base = d->memory->base();
    if (base > address && n > base - address) {
      fail(ACL_ERROR_RT_PARAM_INVALID,
           std::string(role) + " range " + describePointer(p) + " + " + std::to_string(n) +
               " bytes runs into the memory of device " + std::to_string(d->id));
    }
  }
  return {MemoryPlace::Kind::HostPageable, -1, address};
}

namespace {
void* hostPointer(const MemoryPlace& place) {
  return reinterpret_cast<void*>(place.address);
}
}  // namespace

void MemoryManager::copy(const MemoryPlace& dst, const MemoryPlace& src, uint64_t n) {
  if (!movesData()) return;
  const bool srcDev = src.kind == MemoryPlace::Kind::Device;
  const bool dstDev = dst.kind == MemoryPlace::Kind::Device;
  if (!srcDev && !dstDev) {
    std::memmove(hostPointer(dst), hostPointer(src), n);
  } else if (!srcDev) {
    devices_.at(static_cast<size_t>(dst.device))->memory->write(dst.address, hostPointer(src), n);
  } else if (!dstDev) {
    if (devices_.at(static_cast<size_t>(src.device))
            ->memory->read(src.address, hostPointer(dst), n) &&
        onUnwrittenRead) {
      onUnwrittenRead(stableName(reinterpret_cast<void*>(src.address)));
    }
  } else {
    // Device to device, possibly overlapping: stage through a bounded buffer, in the direction
    // that does not overwrite bytes still to be read.
    DeviceMemory& from = *devices_.at(static_cast<size_t>(src.device))->memory;
    DeviceMemory& to = *devices_.at(static_cast<size_t>(dst.device))->memory;
    const uint64_t chunk = 1 << 20;
    std::vector<uint8_t> buffer(std::min(n, chunk));
    const bool backwards =
        src.device == dst.device && dst.address > src.address && dst.address < src.address + n;
    bool unwritten = false;
    for (uint64_t done = 0; done < n;) {
      const uint64_t len = std::min(chunk, n - done);
      const uint64_t offset = backwards ? n - done - len : done;
      unwritten = from.read(src.address + offset, buffer.data(), len) || unwritten;
      to.write(dst.address + offset, buffer.data(), len);
      done += len;
    }
    if (unwritten && onUnwrittenRead)
      onUnwrittenRead(stableName(reinterpret_cast<void*>(src.address)));
  }
}

void MemoryManager::fill(const MemoryPlace& dst, uint8_t value, uint64_t n) {
  if (!movesData()) return;
  if (dst.kind == MemoryPlace::Kind::Device) {
    devices_.at(static_cast<size_t>(dst.device))->memory->fill(dst.address, value, n);
  } else {
    std::memset(hostPointer(dst), value, n);
  }
}

std::vector<uint8_t> MemoryManager::readDevice(const MemoryPlace& src, uint64_t n,
                                               bool warnUnwritten) {
  std::vector<uint8_t> bytes(n);
  if (devices_.at(static_cast<size_t>(src.device))->memory->read(src.address, bytes.data(), n) &&
      warnUnwritten && onUnwrittenRead) {
    onUnwrittenRead(stableName(reinterpret_cast<void*>(src.address)));
  }
  return bytes;
}

void MemoryManager::writeDevice(const MemoryPlace& dst, const std::vector<uint8_t>& bytes) {
  devices_.at(static_cast<size_t>(dst.device))
      ->memory->write(dst.address, bytes.data(), bytes.size());
}

}  // namespace ascendsim::runtime
