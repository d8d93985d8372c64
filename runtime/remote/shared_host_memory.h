#pragma once
// The memory every process of a job sees at the same addresses: one memory file (memfd) mapped at
// a fixed place in the server and in each client. aclrtMallocHost allocations and the staging
// buffers of pageable copies live here, so the server's copies move bytes the program reads and
// writes directly, and nothing but addresses crosses the socket.

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>

#include "runtime/core/memory_manager.h"

namespace ascendsim::remote {

// Where things are placed in every process of a job: between 32 and 65 TiB, clear of the places
// Linux gives programs (executables near 85 TiB, libraries and mmap below 128 TiB, the heap after
// the executable) and of AddressSanitizer's shadow (below 16 TiB).
struct AddressPlan {
  // Host memory shared with the programs (1 TiB of addresses, paid for only as touched).
  static constexpr uint64_t kSharedBase = 0x400000000000ull;
  static constexpr uint64_t kSharedSize = 1ull << 40;
  // Device memories, one after another (kept from the programs' own allocations).
  static constexpr uint64_t kDeviceBase = 0x300000000000ull;
  static constexpr uint64_t kDeviceSize = 16ull << 40;
  // The contents of device memory, shared: a device address a lives at kStoreBase + (a -
  // kDeviceBase) in every process (kernels run in the programs that launch them).
  static constexpr uint64_t kStoreBase = 0x200000000000ull;
};

// The memory file holding every device's contents, mapped at AddressPlan::kStoreBase; the
// server's device memories keep their bytes there (DeviceMemory::shareStore).
class SharedDeviceStore {
 public:
  static int create();         // the server's: returns its descriptor
  static void attach(int fd);  // a program's
  static uint8_t* base() { return reinterpret_cast<uint8_t*>(AddressPlan::kStoreBase); }
};

class SharedHostMemory : public runtime::HostMemorySource {
 public:
  // The server's: a new memory file, mapped at AddressPlan::kSharedBase.
  static SharedHostMemory& create();
  // A client's: the server's file `fd`, mapped at the same place (fails if the place is taken).
  static SharedHostMemory& attach(int fd);
  static SharedHostMemory* instance();

  void* allocate(uint64_t size, uint64_t alignment) override;
  void release(void* p) override;
  void discard(void* p, uint64_t size) override;  // gives the pages back, keeps the addresses
  bool contains(const void* p) const {
    const auto a = reinterpret_cast<uint64_t>(p);
    return a >= AddressPlan::kSharedBase && a < AddressPlan::kSharedBase + AddressPlan::kSharedSize;
  }
  int fd() const { return fd_; }

 private:
  explicit SharedHostMemory(int fd) : fd_(fd) {}
  void map();
  int fd_;
  std::mutex mutex_;
  std::map<uint64_t, uint64_t> free_{{0, AddressPlan::kSharedSize}};  // offset -> length
  std::map<uint64_t, uint64_t> used_;                                 // offset -> length
};

// Keeps every process's own allocations out of the device address window, so a device pointer
// the server hands out can never be mistaken for (or collide with) a program's memory.
void reserveDeviceWindow();

}  // namespace ascendsim::remote
