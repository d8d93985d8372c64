#pragma once
// One device's memory: a range of virtual addresses reserved in this process (so device pointers
// never collide with host memory and fault if the host dereferences them, as on real hardware),
// an allocator over it that honours the configured capacity, and a sparse backing store that
// costs only the pages a program writes.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace ascendsim::runtime {

class DeviceMemory {
 public:
  // `direct`: the range is ordinary readable memory used as its own store (run mode device,
  // where the program on the device's CPU touches device memory itself).
  DeviceMemory(uint64_t capacity, bool direct);
  ~DeviceMemory();
  // Device memories made from now on take consecutive places in [base, base + size), which the
  // caller has reserved (a machine shared by several processes: every process keeps that window
  // free, so device pointers mean the same everywhere).
  static void placeInWindow(uint64_t base, uint64_t size);
  // With a window: the contents of every device memory live in `store`, memory shared with the
  // programs (at store + (address - the window's base)), so a program can run a kernel on them.
  static void shareStore(uint8_t* store, uint64_t windowBase);
  // A program's view of a served machine's device memory [base, base + span) for one kernel:
  // its live allocations (start, size, and for a mapping of physical memory the address its
  // bytes live at, else 0), its contents in the shared store. It records the pages written
  // through it (writtenPages) for the server, which keeps account of them (markWritten).
  struct Range {
    uint64_t address = 0, size = 0, target = 0;
  };
  DeviceMemory(uint64_t base, uint64_t span, const std::vector<Range>& allocations);
  const std::vector<uint64_t>& writtenPages() const { return written_; }
  void markWritten(uint64_t address);
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  struct Allocation {
    uint64_t base;
    uint64_t size;      // as requested
    uint64_t reserved;  // what it takes from capacity
  };

  uint64_t base() const { return base_; }
  uint64_t span() const { return span_; }
  const std::map<uint64_t, Allocation>& allocations() const { return allocations_; }
  uint64_t capacity() const { return capacity_; }
  uint64_t used() const { return used_; }
  bool contains(uint64_t address) const { return address >= base_ && address < base_ + span_; }
  bool direct() const { return direct_; }

  // Reserves `reserved` bytes (>= size) at an address aligned to `alignment`; nullopt when full.
  std::optional<uint64_t> allocate(uint64_t size, uint64_t reserved, uint64_t alignment);
  // The allocation starting exactly at `address`, or nullptr.
  const Allocation* allocationAt(uint64_t address) const;
  // The live allocation containing `address`, or nullptr.
  const Allocation* allocationContaining(uint64_t address) const;
  bool release(uint64_t address);
  // Virtual memory management (aclrtReserveMemAddress ...): address ranges reserved without
  // capacity; physical memory takes capacity and a hidden range of addresses its bytes live at
  // (no allocation: nothing reaches it there); a mapping makes part of a reservation an
  // allocation (of no capacity of its own) whose bytes are those at `target` on, until it is
  // unmapped, so several mappings of one physical memory hold the same bytes.
  std::optional<uint64_t> reserveAddresses(uint64_t size, uint64_t alignment);
  uint64_t reservationContaining(uint64_t address, uint64_t size) const;  // its start, or 0
  bool releaseAddresses(uint64_t address);  // false: not a reservation's start, or still mapped
  bool takeCapacity(uint64_t bytes);
  void giveCapacity(uint64_t bytes);
  // Physical memory's bytes: `size` addresses and as much capacity (nullopt: full); given back
  // with their contents by dropBacking. They outlive releaseAll (a device reset): handles stay.
  std::optional<uint64_t> makeBacking(uint64_t size);
  void dropBacking(uint64_t address);
  void mapRange(uint64_t address, uint64_t size, uint64_t target);
  void unmapRange(uint64_t address);          // the contents stay at its target
  uint64_t targetOf(uint64_t address) const;  // a mapping's target (by its start), else 0
  void releaseAll();
  size_t allocationCount() const { return allocations_.size(); }
  // How often releaseAll ran (a device reset): services holding allocations across calls (the
  // data queues) tell their memory from a later allocation at the same address by it.
  uint64_t releases() const { return releases_; }

  // Functional contents. Never-written bytes read as zero; read() says whether it met any.
  bool read(uint64_t address, void* out, uint64_t n) const;
  void write(uint64_t address, const void* in, uint64_t n);
  void fill(uint64_t address, uint8_t value, uint64_t n);
  uint64_t residentBytes() const;

 private:
  static constexpr uint64_t kPage = 64 * 1024;
  uint64_t releases_ = 0;
  uint8_t* page(uint64_t index);
  // Where the bytes at `address` live (a mapping's are at its target) and how many of the next
  // `n` live on from there.
  std::pair<uint64_t, uint64_t> where(uint64_t address, uint64_t n) const;
  bool readPlain(uint64_t address, void* out, uint64_t n) const;
  void writePlain(uint64_t address, const void* in, uint64_t n);
  void fillPlain(uint64_t address, uint8_t value, uint64_t n);
  bool inBacking(uint64_t page) const;
  const uint8_t* pageIfPresent(uint64_t index) const;
  void dropPages(uint64_t begin, uint64_t end);
  std::optional<uint64_t> carve(uint64_t length, uint64_t alignment);  // address space only
  void giveBack(uint64_t start, uint64_t length);                      // offsets from base_

  uint64_t capacity_;
  uint64_t span_;
  uint64_t base_ = 0;
  bool direct_;
  bool inWindow_ = false;
  bool view_ = false;
  uint8_t* store_ = nullptr;              // the contents, in the store shared with the programs
  std::unordered_set<uint64_t> present_;  // pages of the shared store holding something
  std::vector<uint64_t> written_;         // (a view's) pages written
  static uint64_t windowNext_, windowEnd_, windowBase_;
  static uint8_t* sharedStore_;
  uint64_t used_ = 0;
  std::map<uint64_t, Allocation> allocations_;  // by base address
  std::map<uint64_t, uint64_t> free_;           // free extents: offset -> length
  std::map<uint64_t, uint64_t> reservations_;   // reserved address ranges: address -> size
  std::map<uint64_t, uint64_t> backings_;       // physical memory's bytes: address -> size
  std::map<uint64_t, uint64_t> targets_;        // mappings: address -> where their bytes are
  std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
};

}  // namespace ascendsim::runtime
