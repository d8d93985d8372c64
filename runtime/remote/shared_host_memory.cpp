#include "runtime/remote/shared_host_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

namespace ascendsim::remote {
namespace {
std::unique_ptr<SharedHostMemory> gShared;

[[noreturn]] void failed(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}
}  // namespace

SharedHostMemory& SharedHostMemory::create() {
  const int fd = memfd_create("ascendsim-shared-host-memory", MFD_CLOEXEC);
  if (fd < 0) failed("cannot create the job's shared host memory");
  if (ftruncate(fd, static_cast<off_t>(AddressPlan::kSharedSize)) != 0)
    failed("cannot size the job's shared host memory");
  gShared.reset(new SharedHostMemory(fd));
  gShared->map();
  return *gShared;
}

SharedHostMemory& SharedHostMemory::attach(int fd) {
  gShared.reset(new SharedHostMemory(fd));
  gShared->map();
  return *gShared;
}

SharedHostMemory* SharedHostMemory::instance() {
  return gShared.get();
}

void SharedHostMemory::map() {
  void* want = reinterpret_cast<void*>(AddressPlan::kSharedBase);
  void* p = mmap(want, AddressPlan::kSharedSize, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_NORESERVE | MAP_FIXED_NOREPLACE, fd_, 0);
  if (p == MAP_FAILED) failed("cannot map the job's shared host memory at its fixed address");
  if (p != want) {
    munmap(p, AddressPlan::kSharedSize);
    errno = EEXIST;
    failed("cannot map the job's shared host memory at its fixed address");
  }
}

void* SharedHostMemory::allocate(uint64_t size, uint64_t alignment) {
  constexpr uint64_t kPage = 4096;
  alignment = alignment < kPage ? kPage : alignment;
  // A page of addresses stays unused after each allocation: one past its end (which the runtime
  // counts as part of it, as C's pointer rules do) is then never the start of the next.
  // (A size past the whole window can never fit: refused before the rounding could wrap.)
  if (size > AddressPlan::kSharedSize || alignment > AddressPlan::kSharedSize) return nullptr;
  const uint64_t length = (size + kPage - 1) / kPage * kPage + kPage;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const uint64_t start = (it->first + alignment - 1) / alignment * alignment;
    const uint64_t end = start + length;
    if (end > it->first + it->second || length == 0) continue;
    const uint64_t extentStart = it->first, extentEnd = it->first + it->second;
    free_.erase(it);
    if (start > extentStart) free_[extentStart] = start - extentStart;
    if (extentEnd > end) free_[end] = extentEnd - end;
    used_[start] = length;
    return reinterpret_cast<void*>(AddressPlan::kSharedBase + start);
  }
  return nullptr;
}

void SharedHostMemory::release(void* p) {
  const uint64_t offset = reinterpret_cast<uint64_t>(p) - AddressPlan::kSharedBase;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = used_.find(offset);
  if (it == used_.end()) return;
  uint64_t start = it->first, length = it->second;
  used_.erase(it);
  // Its pages go back to the system now; the next allocation there reads zeros.
  fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(start),
            static_cast<off_t>(length));
  auto next = free_.lower_bound(start);
  if (next != free_.end() && start + length == next->first) {
    length += next->second;
    free_.erase(next);
  }
  auto prev = free_.lower_bound(start);
  if (prev != free_.begin()) {
    --prev;
    if (prev->first + prev->second == start) {
      start = prev->first;
      length += prev->second;
      free_.erase(prev);
    }
  }
  free_[start] = length;
}

void SharedHostMemory::discard(void* p, uint64_t size) {
  const uint64_t offset = reinterpret_cast<uint64_t>(p) - AddressPlan::kSharedBase;
  fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
            static_cast<off_t>(size));
}

namespace {
void mapStore(int fd) {
  void* want = SharedDeviceStore::base();
  void* p = mmap(want, AddressPlan::kDeviceSize, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_NORESERVE | MAP_FIXED_NOREPLACE, fd, 0);
  if (p == MAP_FAILED || p != want)
    failed("cannot map the job's device memory at its fixed address");
}
}  // namespace

int SharedDeviceStore::create() {
  const int fd = memfd_create("ascendsim-device-memory", MFD_CLOEXEC);
  if (fd < 0) failed("cannot create the job's device memory");
  if (ftruncate(fd, static_cast<off_t>(AddressPlan::kDeviceSize)) != 0)
    failed("cannot size the job's device memory");
  mapStore(fd);
  return fd;
}

void SharedDeviceStore::attach(int fd) {
  mapStore(fd);
  ::close(fd);  // the mapping keeps it
}

void reserveDeviceWindow() {
  void* want = reinterpret_cast<void*>(AddressPlan::kDeviceBase);
  void* p = mmap(want, AddressPlan::kDeviceSize, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED || p != want) failed("cannot keep the device address window free");
}

}  // namespace ascendsim::remote
