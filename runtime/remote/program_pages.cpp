#include "runtime/remote/program_pages.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <vector>

#include "runtime/remote/machine_client.h"
#include "runtime/remote/machine_server.h"
#include "runtime/remote/protocol.h"
#include "runtime/remote/shared_host_memory.h"

namespace ascendsim::remote {
namespace {

constexpr uint64_t kPage = 4096;

struct Pages {
  std::mutex mutex;
  std::map<uint64_t, uint32_t> holders;  // a shared page -> the registrations that cover it
  // Runs shared with the server: start -> (bytes, offset of their bytes in the shared file).
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> runs;
  std::map<uint64_t, uint64_t> registrations;  // start -> bytes, as the program registered them
  // Guards `registrations` alone, and is never held across a question to the server: a kernel the
  // server hands to a thread of the program that waits for its answer (kernel_service.h) reads
  // them while that thread may hold `mutex` in the middle of sharing pages.
  std::mutex registrationsMutex;
  std::map<uint64_t, uint64_t> pending;  // sent for registration, not answered yet
};

std::atomic<bool> gAnyShared{false};  // whether a page was ever shared (copies skip the lock)

Pages& pages() {
  static Pages* p = new Pages();  // (never destroyed: a kernel may run while the program exits)
  return *p;
}

// Whether [begin, end) lies wholly in private, anonymous, writable mappings of this process (its
// heap, stack and anonymous mmaps): memory whose pages may move into the shared file.
bool privateMemory(uint64_t begin, uint64_t end) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  uint64_t covered = begin;
  while (covered < end && std::getline(maps, line)) {
    unsigned long long lo = 0, hi = 0, offset = 0, inode = 0;
    char perms[8] = {}, device[32] = {};
    int pathAt = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %31s %llu %n", &lo, &hi, perms, &offset,
                    device, &inode, &pathAt) < 6)
      continue;
    if (hi <= covered) continue;
    if (lo > covered) return false;  // a hole
    const std::string path = pathAt > 0 ? line.substr(static_cast<size_t>(pathAt)) : "";
    const bool anonymous =
        inode == 0 && (path.empty() || path == "[heap]" || path.compare(0, 6, "[stack") == 0);
    if (perms[0] != 'r' || perms[1] != 'w' || perms[3] != 'p' || !anonymous) return false;
    covered = hi;
  }
  return covered >= end;
}

// Asks the server to map `bytes` of the shared file at `address` too (share) or to drop that
// mapping (give back). Share: the offset of the bytes in the file, or false with the reason.
bool askServer(bool share, uint64_t address, uint64_t bytes, uint64_t& offset, std::string& why) {
  WireWriter w;
  w.u8(share ? 1 : 0);
  w.u64(address);
  w.u64(bytes);
  const CallReply reply = callServer(kSharePagesCall, w, true);
  if (reply.code != ACL_SUCCESS) {
    const char* text = takeServedError();
    why = text ? text : "the server refused";
    return false;
  }
  try {
    WireReader r(reply.results);
    const bool ok = r.u8() != 0;
    why = r.text();
    offset = r.u64();
    return ok;
  } catch (const WireError&) {
    why = "the server's reply was cut short";
    return false;
  }
}

// Copies whole pages, which hold whatever lies around the program's buffer (other heap objects,
// and under AddressSanitizer their red zones): word by word, unchecked by the sanitizer (volatile,
// so that the loop does not become a checked memcpy call).
__attribute__((no_sanitize("address"))) void copyPages(void* to, const void* from, uint64_t bytes) {
  auto* out = static_cast<volatile uint64_t*>(to);
  const auto* in = static_cast<const volatile uint64_t*>(from);
  for (uint64_t i = 0; i < bytes / sizeof(uint64_t); ++i) out[i] = in[i];
}

// [start, start + bytes): page-aligned, not shared yet. Its bytes go into the shared file and the
// file is mapped over it.
bool shareRun(Pages& p, uint64_t start, uint64_t bytes, std::string& why) {
  uint64_t offset = 0;
  if (!askServer(true, start, bytes, offset, why)) return false;
  SharedHostMemory* shared = SharedHostMemory::instance();
  auto* alias = reinterpret_cast<uint8_t*>(AddressPlan::kSharedBase + offset);
  copyPages(alias, reinterpret_cast<const void*>(start), bytes);
  void* at = ::mmap(reinterpret_cast<void*>(start), bytes, PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_FIXED, shared->fd(), static_cast<off_t>(offset));
  if (at == MAP_FAILED) {
    std::string ignored;
    askServer(false, start, bytes, offset, ignored);
    why = "cannot map the shared memory over the program's pages: " +
          std::string(std::strerror(errno));
    return false;
  }
  p.runs[start] = {bytes, offset};
  return true;
}

// Whether [begin, end) is still wholly mapped shared (the program has not unmapped or replaced
// the shared file's mapping there since).
bool sharedMapping(uint64_t begin, uint64_t end) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  uint64_t covered = begin;
  while (covered < end && std::getline(maps, line)) {
    unsigned long long lo = 0, hi = 0;
    char perms[8] = {};
    if (std::sscanf(line.c_str(), "%llx-%llx %7s", &lo, &hi, perms) < 3) continue;
    if (hi <= covered) continue;
    if (lo > covered || perms[3] != 's') return false;
    covered = hi;
  }
  return covered >= end;
}

// A shared run's pages become private memory again, with their bytes (unless the program has let
// go of those addresses meanwhile: then whatever it maps there now is left alone).
void unshareRun(Pages& p, uint64_t start) {
  auto it = p.runs.find(start);
  if (it == p.runs.end()) return;
  const auto [bytes, offset] = it->second;
  p.runs.erase(it);
  const auto* alias = reinterpret_cast<const uint8_t*>(AddressPlan::kSharedBase + offset);
  if (sharedMapping(start, start + bytes)) {
    void* at = ::mmap(reinterpret_cast<void*>(start), bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (at != MAP_FAILED) copyPages(at, alias, bytes);
  }
  uint64_t ignoredOffset = 0;
  std::string ignored;
  askServer(false, start, bytes, ignoredOffset, ignored);
}

// The pages of a registration: [first, last) whole pages.
std::pair<uint64_t, uint64_t> pagesOf(uint64_t address, uint64_t bytes) {
  return {address / kPage * kPage, (address + bytes + kPage - 1) / kPage * kPage};
}

}  // namespace

bool sharePagesOf(const void* ptr, uint64_t size, std::string& why) {
  const auto address = reinterpret_cast<uint64_t>(ptr);
  if (!ptr || size == 0 || size > UINT64_MAX - address - kPage) return true;  // (refused there)
  SharedHostMemory* shared = SharedHostMemory::instance();
  // (Any of it: a range that starts in a page an earlier registration shared has the rest to
  // share.)
  if (!shared || !programMemory(ptr, size)) return true;
  Pages& p = pages();
  std::lock_guard<std::mutex> lock(p.mutex);
  const auto [first, last] = pagesOf(address, size);
  // The pages no registration holds yet, in runs.
  std::vector<std::pair<uint64_t, uint64_t>> toShare;
  for (uint64_t page = first; page < last; page += kPage) {
    if (p.holders.count(page)) continue;
    if (!toShare.empty() && toShare.back().second == page) {
      toShare.back().second += kPage;
    } else {
      toShare.push_back({page, page + kPage});
    }
  }
  for (const auto& [begin, end] : toShare) {
    if (!privateMemory(begin, end)) return true;  // not the program's private memory: as it is
  }
  std::vector<uint64_t> done;
  for (const auto& [begin, end] : toShare) {
    if (!shareRun(p, begin, end - begin, why)) {
      for (uint64_t start : done) unshareRun(p, start);
      return false;
    }
    done.push_back(begin);
  }
  for (uint64_t page = first; page < last; page += kPage) ++p.holders[page];
  p.pending[address] = size;
  gAnyShared.store(true, std::memory_order_release);
  return true;
}

namespace {
// The registration of [address, address + size) no longer holds its pages.
void release(Pages& p, uint64_t address, uint64_t size) {
  const auto [first, last] = pagesOf(address, size);
  std::vector<uint64_t> freed;
  for (uint64_t page = first; page < last; page += kPage) {
    auto it = p.holders.find(page);
    if (it == p.holders.end()) continue;
    if (--it->second == 0) {
      p.holders.erase(it);
      freed.push_back(page);
    }
  }
  if (freed.empty()) return;
  // Each shared run is given back whole, once no registration holds any of its pages: the server
  // keeps a run (its mapping and its bytes in the shared file) whole, so a run cut in two here
  // would have the server give back the bytes of the part still in use.
  std::vector<uint64_t> givenBack;
  for (uint64_t page : freed) {
    auto it = p.runs.upper_bound(page);
    if (it == p.runs.begin()) continue;
    --it;
    const uint64_t start = it->first, end = start + it->second.first;
    if (page >= end || (!givenBack.empty() && givenBack.back() == start)) continue;
    auto held = p.holders.lower_bound(start);
    if (held == p.holders.end() || held->first >= end) givenBack.push_back(start);
  }
  for (uint64_t start : givenBack) unshareRun(p, start);
}
}  // namespace

void settleRegistration(const void* ptr, uint64_t size, bool registered) {
  const auto address = reinterpret_cast<uint64_t>(ptr);
  Pages& p = pages();
  std::lock_guard<std::mutex> lock(p.mutex);
  const bool held = p.pending.erase(address) > 0;
  if (registered) {
    {
      std::lock_guard<std::mutex> guard(p.registrationsMutex);
      p.registrations[address] = size;
    }
    if (!held) return;
  } else if (held) {
    release(p, address, size);
  }
}

void unsharePagesOf(const void* ptr) {
  const auto address = reinterpret_cast<uint64_t>(ptr);
  Pages& p = pages();
  std::lock_guard<std::mutex> lock(p.mutex);
  uint64_t size = 0;
  {
    std::lock_guard<std::mutex> guard(p.registrationsMutex);
    auto it = p.registrations.find(address);
    if (it == p.registrations.end()) return;
    size = it->second;
    p.registrations.erase(it);
  }
  release(p, address, size);
}

void unshareAllPages() {
  Pages& p = pages();
  std::lock_guard<std::mutex> lock(p.mutex);
  std::map<uint64_t, uint64_t> all;
  {
    std::lock_guard<std::mutex> guard(p.registrationsMutex);
    all.swap(p.registrations);
  }
  for (const auto& [address, size] : all) release(p, address, size);
}

bool inSharedPages(const void* ptr, uint64_t bytes) {
  if (!gAnyShared.load(std::memory_order_acquire)) return false;
  const auto address = reinterpret_cast<uint64_t>(ptr);
  if (bytes == 0 || bytes > UINT64_MAX - address) return false;
  const auto [first, last] = pagesOf(address, bytes);
  Pages& p = pages();
  std::lock_guard<std::mutex> lock(p.mutex);
  // (Shared runs are contiguous in `holders`: a page past the first missing one means no.)
  auto it = p.holders.find(first);
  for (uint64_t page = first; page < last; page += kPage, ++it) {
    if (it == p.holders.end() || it->first != page) return false;
  }
  return true;
}

bool registeredHere(uint64_t address, uint64_t bytes) {
  Pages& p = pages();
  std::lock_guard<std::mutex> lock(p.registrationsMutex);
  auto it = p.registrations.upper_bound(address);
  if (it == p.registrations.begin()) return false;
  --it;
  return address >= it->first && address + bytes <= it->first + it->second;
}

// ---------------------------------------------------------------- the server's end

namespace {
constexpr uint64_t kSharedPages = 1ull << 61;  // a process's shared run, by its address

// Whether [address, address + bytes) overlaps the places every process keeps for the job.
bool inJobWindows(uint64_t address, uint64_t bytes) {
  auto overlaps = [&](uint64_t base, uint64_t size) {
    return address < base + size && base < address + bytes;
  };
  return overlaps(AddressPlan::kSharedBase, AddressPlan::kSharedSize) ||
         overlaps(AddressPlan::kDeviceBase, AddressPlan::kDeviceSize) ||
         overlaps(AddressPlan::kStoreBase, AddressPlan::kDeviceSize);
}

// Runs of addresses whose shared pages were given back: held by an empty mapping of the server's
// (a copy still queued into them must find memory there), free for the next registration.
struct Retired {
  std::mutex mutex;
  std::map<uint64_t, uint64_t> runs;  // start -> end
  bool covers(uint64_t begin, uint64_t end) {
    auto it = runs.upper_bound(begin);
    if (it == runs.begin()) return false;
    --it;
    while (it != runs.end() && it->first <= begin) {
      if (it->second >= end) return true;
      begin = it->second;
      it = runs.find(begin);
    }
    return false;
  }
  void take(uint64_t begin, uint64_t end) {  // [begin, end) is in use again
    std::map<uint64_t, uint64_t> kept;
    for (const auto& [b, e] : runs) {
      if (e <= begin || b >= end) {
        kept[b] = e;
        continue;
      }
      if (b < begin) kept[b] = begin;
      if (e > end) kept[end] = e;
    }
    runs.swap(kept);
  }
  void add(uint64_t begin, uint64_t end) { runs[begin] = end; }
};
Retired& retired() {
  static Retired* r = new Retired();
  return *r;
}

// A process's hold on a run it shared: the server's mapping and the bytes go. (Of its own type,
// so that the holds of shared runs are told from the rest exactly: releaseAllButSharedPages.)
struct GiveBackRun {
  uint64_t address = 0, bytes = 0;
  void* alias = nullptr;
  void operator()() const {
    Retired& r = retired();
    std::lock_guard<std::mutex> lock(r.mutex);
    ::mmap(reinterpret_cast<void*>(address), bytes, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    r.add(address, address + bytes);
    SharedHostMemory::instance()->release(alias);
  }
};

bool givesBackRun(const std::pair<uint64_t, std::function<void()>>& held) {
  return held.second.target<GiveBackRun>() != nullptr;
}
}  // namespace

void releaseAllButSharedPages(ServedProcess& p) {
  std::vector<std::pair<uint64_t, std::function<void()>>> aside;
  {
    std::lock_guard<std::mutex> lock(p.heldMutex);
    auto split = std::stable_partition(p.held.begin(), p.held.end(),
                                       [](const auto& h) { return !givesBackRun(h); });
    aside.assign(std::make_move_iterator(split), std::make_move_iterator(p.held.end()));
    p.held.erase(split, p.held.end());
  }
  p.releaseAll();
  std::lock_guard<std::mutex> lock(p.heldMutex);
  p.held.insert(p.held.begin(), std::make_move_iterator(aside.begin()),
                std::make_move_iterator(aside.end()));
}

aclError serveSharePages(Session& s, WireReader& in, WireWriter& out) {
  const bool share = in.u8() != 0;
  const uint64_t address = in.u64(), bytes = in.u64();
  SharedHostMemory& shared = *SharedHostMemory::instance();
  auto answer = [&](bool ok, const std::string& why, uint64_t offset) {
    out.u8(ok ? 1 : 0);
    out.text(why);
    out.u64(offset);
    return ACL_SUCCESS;
  };
  if (address % kPage || bytes % kPage || bytes == 0 || address > UINT64_MAX - bytes ||
      inJobWindows(address, bytes))
    return answer(false, "not whole pages of the program's own memory", 0);
  if (!share) {
    // Given back: the process's hold on the run runs now.
    std::function<void()> release;
    {
      std::lock_guard<std::mutex> lock(s.process().heldMutex);
      auto& held = s.process().held;
      for (auto it = held.begin(); it != held.end(); ++it) {
        if (it->first == (kSharedPages | address) && givesBackRun(*it)) {
          release = std::move(it->second);
          held.erase(it);
          break;
        }
      }
    }
    if (release) release();
    return answer(true, "", 0);
  }
  void* alias = shared.allocate(bytes, kPage);
  if (!alias) return answer(false, "the job's shared memory has no room for them", 0);
  const uint64_t offset = reinterpret_cast<uint64_t>(alias) - AddressPlan::kSharedBase;
  void* at = MAP_FAILED;
  {
    // Over addresses given back before (an empty mapping of ours), or where nothing is mapped.
    Retired& r = retired();
    std::lock_guard<std::mutex> lock(r.mutex);
    const bool ours = r.covers(address, address + bytes);
    at = ::mmap(reinterpret_cast<void*>(address), bytes, PROT_READ | PROT_WRITE,
                MAP_SHARED | (ours ? MAP_FIXED : MAP_FIXED_NOREPLACE), shared.fd(),
                static_cast<off_t>(offset));
    if (ours && at != MAP_FAILED) r.take(address, address + bytes);
  }
  if (at == MAP_FAILED || at != reinterpret_cast<void*>(address)) {
    if (at != MAP_FAILED) ::munmap(at, bytes);
    shared.release(alias);
    char where[64];
    std::snprintf(where, sizeof where, "0x%llx", static_cast<unsigned long long>(address));
    return answer(false,
                  std::string("the server cannot map the program's pages at ") + where +
                      " (its own memory, or another process's registered memory, lies there)",
                  0);
  }
  // If the process goes without giving them back, the server's mapping and the bytes go.
  s.process().hold(kSharedPages | address, GiveBackRun{address, bytes, alias});
  return answer(true, "", offset);
}

}  // namespace ascendsim::remote
