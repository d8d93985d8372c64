#include "runtime/core/managed_memory.h"

#include <cstring>

namespace ascendsim::runtime {

void ManagedMemory::add(uint64_t base, uint64_t size) {
  Allocation& a = allocations_[base];
  a.pages = (size + kPage - 1) / kPage;
  a.where.assign(a.pages, kHost);
  a.copies.clear();
}

void ManagedMemory::remove(uint64_t base) {
  allocations_.erase(base);
}

std::vector<std::pair<uint64_t, uint64_t>> ManagedMemory::ranges() const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& [base, a] : allocations_) out.push_back({base, a.pages * kPage});
  return out;
}

ManagedMemory::Allocation* ManagedMemory::find(uint64_t page, uint64_t& index) {
  auto it = allocations_.upper_bound(page);
  if (it == allocations_.begin()) return nullptr;
  --it;
  if (page >= it->first + it->second.pages * kPage) return nullptr;
  index = (page - it->first) / kPage;
  return &it->second;
}

bool ManagedMemory::isManagedPage(uint64_t page) const {
  auto it = allocations_.upper_bound(page);
  if (it == allocations_.begin()) return false;
  --it;
  return page < it->first + it->second.pages * kPage;
}

void ManagedMemory::settleHostChanges() {
  for (auto& [base, a] : allocations_) {
    for (auto it = a.copies.begin(); it != a.copies.end();) {
      const void* now = reinterpret_cast<const void*>(base + it->first * kPage);
      if (std::memcmp(now, it->second.data(), kPage) != 0) {
        a.where[it->first] = kHost;
        it = a.copies.erase(it);
      } else {
        ++it;
      }
    }
  }
}

ManagedMemory::KernelUse ManagedMemory::useByKernel(int device,
                                                    const std::vector<uint64_t>& touched,
                                                    const std::vector<uint64_t>& changed) {
  KernelUse use;
  for (uint64_t page : touched) {
    uint64_t i = 0;
    Allocation* a = find(page, i);
    if (!a) continue;
    (a->where[i] == device ? use.resident : use.migrated).push_back(page);
  }
  for (uint64_t page : changed) {
    uint64_t i = 0;
    if (find(page, i)) use.changed.push_back(page);
  }
  return use;
}

void ManagedMemory::settleOnDevice(int device, const std::vector<uint64_t>& touched) {
  for (uint64_t page : touched) {
    uint64_t i = 0;
    Allocation* a = find(page, i);
    if (!a) continue;
    a->where[i] = device;
    const auto* bytes = reinterpret_cast<const uint8_t*>(page);
    a->copies[i].assign(bytes, bytes + kPage);
  }
}

uint64_t ManagedMemory::residentPages(int device) const {
  uint64_t n = 0;
  for (const auto& [base, a] : allocations_) {
    for (int32_t w : a.where) n += w == device;
  }
  return n;
}

}  // namespace ascendsim::runtime
