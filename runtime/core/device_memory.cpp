#include "runtime/core/device_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>

namespace ascendsim::runtime {

DeviceMemory::DeviceMemory(uint64_t capacity, bool direct) : capacity_(capacity), direct_(direct) {
  // Alignment padding and the allocator's rounding need a little room beyond the capacity, and
  // virtual address reservations (aclrtReserveMemAddress) as much again as the capacity.
  span_ = (2 * capacity + (4ull << 20) + kPage - 1) / kPage * kPage;
  const int prot = direct ? PROT_READ | PROT_WRITE : PROT_NONE;
  void* at = nullptr;
  int fixed = 0;
  if (windowNext_ != 0) {  // a shared machine: the next place in the window every process keeps
    if (direct) throw std::invalid_argument("run mode device is not served to several processes");
    if (span_ > windowEnd_ - windowNext_) throw std::bad_alloc();
    at = reinterpret_cast<void*>(windowNext_);
    windowNext_ += span_;
    fixed = MAP_FIXED;
    inWindow_ = true;
  }
  void* p = mmap(at, span_, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | fixed, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  base_ = reinterpret_cast<uint64_t>(p);
  if (inWindow_ && sharedStore_) store_ = sharedStore_ + (base_ - windowBase_);
  free_[0] = span_;
}

DeviceMemory::~DeviceMemory() {
  if (view_) return;  // another process's memory, seen for a kernel
  if (inWindow_) {    // the addresses stay kept from the program's own allocations
    mmap(reinterpret_cast<void*>(base_), span_, PROT_NONE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  } else {
    munmap(reinterpret_cast<void*>(base_), span_);
  }
}

uint64_t DeviceMemory::windowNext_ = 0;
uint64_t DeviceMemory::windowEnd_ = 0;
uint64_t DeviceMemory::windowBase_ = 0;
uint8_t* DeviceMemory::sharedStore_ = nullptr;

void DeviceMemory::placeInWindow(uint64_t base, uint64_t size) {
  windowBase_ = base;
  windowNext_ = base;
  windowEnd_ = base + size;
}

std::optional<uint64_t> DeviceMemory::carve(uint64_t length, uint64_t alignment) {
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const uint64_t start = (base_ + it->first + alignment - 1) / alignment * alignment - base_;
    const uint64_t end = start + length;
    if (end > it->first + it->second) continue;
    const uint64_t extentStart = it->first, extentEnd = it->first + it->second;
    free_.erase(it);
    if (start > extentStart) free_[extentStart] = start - extentStart;
    if (extentEnd > end) free_[end] = extentEnd - end;
    return base_ + start;
  }
  return std::nullopt;
}

std::optional<uint64_t> DeviceMemory::allocate(uint64_t size, uint64_t reserved,
                                               uint64_t alignment) {
  if (reserved > capacity_ - used_) return std::nullopt;
  const std::optional<uint64_t> address = carve(reserved, alignment);
  if (!address) return std::nullopt;
  allocations_[*address] = Allocation{*address, size, reserved};
  used_ += reserved;
  return address;
}

std::optional<uint64_t> DeviceMemory::reserveAddresses(uint64_t size, uint64_t alignment) {
  const std::optional<uint64_t> address = carve(size, alignment);
  if (address) reservations_[*address] = size;
  return address;
}

uint64_t DeviceMemory::reservationContaining(uint64_t address, uint64_t size) const {
  auto it = reservations_.upper_bound(address);
  if (it == reservations_.begin()) return 0;
  --it;
  const bool inside =
      address - it->first < it->second && size <= it->second - (address - it->first);
  return inside ? it->first : 0;
}

bool DeviceMemory::releaseAddresses(uint64_t address) {
  auto it = reservations_.find(address);
  if (it == reservations_.end()) return false;
  for (const auto& [base, a] : allocations_) {
    if (base >= address && base - address < it->second) return false;  // still mapped
  }
  giveBack(address - base_, it->second);
  reservations_.erase(it);
  return true;
}

bool DeviceMemory::takeCapacity(uint64_t bytes) {
  if (bytes > capacity_ - used_) return false;
  used_ += bytes;
  return true;
}

void DeviceMemory::giveCapacity(uint64_t bytes) {
  used_ -= std::min(bytes, used_);
}

std::optional<uint64_t> DeviceMemory::makeBacking(uint64_t size) {
  if (size > capacity_ - used_) return std::nullopt;
  const std::optional<uint64_t> address = carve(size, 2ull << 20);
  if (!address) return std::nullopt;
  used_ += size;
  backings_[*address] = size;
  return address;
}

void DeviceMemory::dropBacking(uint64_t address) {
  auto it = backings_.find(address);
  if (it == backings_.end()) return;
  const uint64_t size = it->second;
  backings_.erase(it);
  dropPages(address, address + size);
  giveBack(address - base_, size);
  used_ -= std::min(size, used_);
}

void DeviceMemory::mapRange(uint64_t address, uint64_t size, uint64_t target) {
  allocations_[address] = Allocation{address, size, 0};
  if (target) targets_[address] = target;
}

void DeviceMemory::unmapRange(uint64_t address) {
  auto it = allocations_.find(address);
  if (it == allocations_.end()) return;
  const uint64_t end = address + it->second.size;
  allocations_.erase(it);
  if (targets_.erase(address) == 0) dropPages(address, end);
}

uint64_t DeviceMemory::targetOf(uint64_t address) const {
  auto it = targets_.find(address);
  return it == targets_.end() ? 0 : it->second;
}

std::pair<uint64_t, uint64_t> DeviceMemory::where(uint64_t address, uint64_t n) const {
  auto next = targets_.upper_bound(address);
  if (next != targets_.begin()) {
    auto it = std::prev(next);
    auto alloc = allocations_.find(it->first);
    if (alloc != allocations_.end() && address - it->first < alloc->second.size) {
      const uint64_t inside = address - it->first;
      return {it->second + inside, std::min(n, alloc->second.size - inside)};
    }
  }
  if (next != targets_.end() && next->first - address < n) return {address, next->first - address};
  return {address, n};
}

bool DeviceMemory::inBacking(uint64_t index) const {
  const uint64_t address = base_ + index * kPage;
  auto it = backings_.upper_bound(address);
  if (it == backings_.begin()) return false;
  --it;
  return address - it->first < it->second;
}

const DeviceMemory::Allocation* DeviceMemory::allocationAt(uint64_t address) const {
  auto it = allocations_.find(address);
  return it == allocations_.end() ? nullptr : &it->second;
}

const DeviceMemory::Allocation* DeviceMemory::allocationContaining(uint64_t address) const {
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return nullptr;
  --it;
  return address < it->second.base + std::max<uint64_t>(it->second.size, 1) ? &it->second : nullptr;
}

bool DeviceMemory::release(uint64_t address) {
  auto it = allocations_.find(address);
  if (it == allocations_.end()) return false;
  uint64_t start = address - base_;
  uint64_t length = it->second.reserved;
  used_ -= length;
  allocations_.erase(it);
  dropPages(address, address + length);
  giveBack(start, length);
  return true;
}

void DeviceMemory::giveBack(uint64_t start, uint64_t length) {
  // Coalesce with neighbouring free extents.
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + length) {
    length += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      prev->second += length;
      return;
    }
  }
  free_[start] = length;
}

void DeviceMemory::releaseAll() {
  ++releases_;
  // Physical memory (its handles outlive a reset) keeps its addresses, capacity and bytes.
  allocations_.clear();
  reservations_.clear();
  targets_.clear();
  free_.clear();
  used_ = 0;
  uint64_t at = 0;
  for (const auto& [address, size] : backings_) {
    const uint64_t offset = address - base_;
    if (offset > at) free_[at] = offset - at;
    at = offset + size;
    used_ += size;
  }
  if (at < span_) free_[at] = span_ - at;
  for (auto it = pages_.begin(); it != pages_.end();)
    it = inBacking(it->first) ? std::next(it) : pages_.erase(it);
  if (store_ && !view_) {
    for (auto it = present_.begin(); it != present_.end();) {
      if (inBacking(*it)) {
        ++it;
        continue;
      }
      madvise(store_ + *it * kPage, kPage, MADV_REMOVE);
      it = present_.erase(it);
    }
  }
}

uint8_t* DeviceMemory::page(uint64_t index) {
  if (store_) {
    if (view_) {
      written_.push_back(base_ + index * kPage);
    } else {
      present_.insert(index);
    }
    return store_ + index * kPage;
  }
  auto& p = pages_[index];
  if (!p) p.reset(new uint8_t[kPage]());
  return p.get();
}

const uint8_t* DeviceMemory::pageIfPresent(uint64_t index) const {
  if (store_) return view_ || present_.count(index) ? store_ + index * kPage : nullptr;
  auto it = pages_.find(index);
  return it == pages_.end() ? nullptr : it->second.get();
}

void DeviceMemory::markWritten(uint64_t address) {
  if (store_ && contains(address)) present_.insert((address - base_) / kPage);
}

void DeviceMemory::shareStore(uint8_t* store, uint64_t windowBase) {
  sharedStore_ = store;
  windowBase_ = windowBase;
}

DeviceMemory::DeviceMemory(uint64_t base, uint64_t span, const std::vector<Range>& allocations)
    : capacity_(span), span_(span), base_(base), direct_(false), view_(true) {
  for (const Range& r : allocations) {
    allocations_[r.address] = Allocation{r.address, r.size, r.size};
    if (r.target) targets_[r.address] = r.target;
  }
  store_ = sharedStore_ + (base_ - windowBase_);
}

void DeviceMemory::dropPages(uint64_t begin, uint64_t end) {
  if (direct_) return;
  // Only pages wholly inside the freed range: a neighbour may share the others.
  for (uint64_t index = (begin - base_ + kPage - 1) / kPage; (index + 1) * kPage <= end - base_;
       ++index) {
    pages_.erase(index);
    if (store_ && present_.erase(index)) madvise(store_ + index * kPage, kPage, MADV_REMOVE);
  }
}

bool DeviceMemory::read(uint64_t address, void* out, uint64_t n) const {
  if (direct_) {
    std::memmove(out, reinterpret_cast<const void*>(address), n);
    return false;
  }
  bool unwritten = false;
  auto* dst = static_cast<uint8_t*>(out);
  while (n > 0) {
    const auto [at, run] = where(address, n);
    unwritten = readPlain(at, dst, run) || unwritten;
    dst += run;
    address += run;
    n -= run;
  }
  return unwritten;
}

bool DeviceMemory::readPlain(uint64_t address, void* out, uint64_t n) const {
  bool unwritten = false;
  auto* dst = static_cast<uint8_t*>(out);
  uint64_t offset = address - base_;
  while (n > 0) {
    const uint64_t inPage = std::min(n, kPage - offset % kPage);
    const uint8_t* p = pageIfPresent(offset / kPage);
    if (p) {
      std::memcpy(dst, p + offset % kPage, inPage);
    } else {
      std::memset(dst, 0, inPage);
      unwritten = true;
    }
    dst += inPage;
    offset += inPage;
    n -= inPage;
  }
  return unwritten;
}

void DeviceMemory::write(uint64_t address, const void* in, uint64_t n) {
  if (direct_) {
    std::memmove(reinterpret_cast<void*>(address), in, n);
    return;
  }
  const auto* src = static_cast<const uint8_t*>(in);
  while (n > 0) {
    const auto [at, run] = where(address, n);
    writePlain(at, src, run);
    src += run;
    address += run;
    n -= run;
  }
}

void DeviceMemory::writePlain(uint64_t address, const void* in, uint64_t n) {
  const auto* src = static_cast<const uint8_t*>(in);
  uint64_t offset = address - base_;
  while (n > 0) {
    const uint64_t inPage = std::min(n, kPage - offset % kPage);
    std::memcpy(page(offset / kPage) + offset % kPage, src, inPage);
    src += inPage;
    offset += inPage;
    n -= inPage;
  }
}

void DeviceMemory::fill(uint64_t address, uint8_t value, uint64_t n) {
  if (direct_) {
    std::memset(reinterpret_cast<void*>(address), value, n);
    return;
  }
  while (n > 0) {
    const auto [at, run] = where(address, n);
    fillPlain(at, value, run);
    address += run;
    n -= run;
  }
}

void DeviceMemory::fillPlain(uint64_t address, uint8_t value, uint64_t n) {
  uint64_t offset = address - base_;
  while (n > 0) {
    const uint64_t inPage = std::min(n, kPage - offset % kPage);
    // Zeroing a page nobody wrote changes nothing: keep the store sparse.
    if (value != 0 || pageIfPresent(offset / kPage))
      std::memset(page(offset / kPage) + offset % kPage, value, inPage);
    offset += inPage;
    n -= inPage;
  }
}

uint64_t DeviceMemory::residentBytes() const {
  if (store_) return present_.size() * kPage;
  return pages_.size() * kPage;
}

}  // namespace ascendsim::runtime
