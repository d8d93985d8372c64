#pragma once
// Managed (unified) memory: host memory the device's kernels reach in place, whose pages move to
// the device that touches them. A page a kernel touches while it is in host memory (or on
// another device) migrates to the kernel's device across PCIe, and stays there: later kernels on
// that device use it at device-memory speed. A page the host changes while it is on a device
// comes back to host memory (seen at the next kernel launch, by its contents: the host's own
// accesses are not trapped, so that system calls on managed buffers keep working).
//
// The bytes themselves always live in the process's memory (kernels run on the host); what
// moves is where the timing model serves them from.

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

namespace ascendsim::runtime {

class ManagedMemory {
 public:
  static constexpr uint64_t kPage = 4096;  // migration granule: the kernel memory window's page

  void add(uint64_t base, uint64_t size);
  void remove(uint64_t base);
  bool empty() const { return allocations_.empty(); }
  bool isAllocation(uint64_t base) const { return allocations_.count(base) > 0; }
  // Every allocation as (base, whole-page size).
  std::vector<std::pair<uint64_t, uint64_t>> ranges() const;

  // Before a kernel runs: pages the host changed since they went to a device are in host memory
  // again.
  void settleHostChanges();

  // What a kernel on `device` did to managed pages, from the pages it touched and changed (any
  // host pages; those outside managed memory are ignored): the pages that migrated to the device,
  // and those it used where they already were.
  struct KernelUse {
    std::vector<uint64_t> migrated, resident, changed;  // page addresses
  };
  KernelUse useByKernel(int device, const std::vector<uint64_t>& touched,
                        const std::vector<uint64_t>& changed);
  // After the kernel: the pages it touched are on `device` with their current contents.
  void settleOnDevice(int device, const std::vector<uint64_t>& touched);

  // Pages of managed memory on `device` (statistics, tests).
  uint64_t residentPages(int device) const;
  bool isManagedPage(uint64_t page) const;

 private:
  struct Allocation {
    uint64_t pages = 0;
    std::vector<int32_t> where;  // per page: the device holding it, or kHost
    // Per page on a device (by index): its contents when it went there. Only those pages: a
    // kernel may touch a small part of a large allocation.
    std::unordered_map<uint64_t, std::vector<uint8_t>> copies;
  };
  static constexpr int32_t kHost = -1;
  // The allocation holding `page`, and the page's index in it; nullptr when not managed.
  Allocation* find(uint64_t page, uint64_t& index);

  std::map<uint64_t, Allocation> allocations_;  // by base address (page aligned)
};

}  // namespace ascendsim::runtime
