#include "models/compute/kernel_access.h"

#include <algorithm>

namespace ascendsim::models {
namespace {

__extension__ typedef unsigned __int128 Wide;

// The address of byte `at` of the concatenation of `ranges` (at < their total).
uint64_t addressIn(const std::vector<KernelWork::Range>& ranges, uint64_t at) {
  for (const KernelWork::Range& r : ranges) {
    if (at < r.bytes) return r.address + at;
    at -= r.bytes;
  }
  return ranges.back().address + ranges.back().bytes - 1;
}

// SplitMix64's finaliser: burst k's random place depends on k alone, so any slice of the stream
// can be produced without the ones before it.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

void sequential(const std::vector<KernelWork::Range>& ranges, uint64_t from, uint64_t length,
                uint64_t fallback, bool write, std::vector<AddressRun>& out) {
  if (ranges.empty()) {
    out.push_back({fallback + from, length, write});
    return;
  }
  // A stream longer than its ranges goes over them again.
  uint64_t region = 0;
  for (const KernelWork::Range& r : ranges) region += r.bytes;
  if (region == 0) return;
  uint64_t skip = from % region;
  while (length > 0) {
    for (const KernelWork::Range& r : ranges) {
      if (length == 0) break;
      if (skip >= r.bytes) {
        skip -= r.bytes;
        continue;
      }
      const uint64_t n = std::min(length, r.bytes - skip);
      out.push_back({r.address + skip, n, write});
      length -= n;
      skip = 0;
    }
  }
}

}  // namespace

void kernelRuns(const KernelWork& work, bool write, uint64_t from, uint64_t length, uint64_t burst,
                uint64_t fallback, std::vector<AddressRun>& out) {
  if (length == 0) return;
  const std::vector<KernelWork::Range>& ranges = write ? work.writeRanges : work.readRanges;
  uint64_t region = 0;
  for (const KernelWork::Range& r : ranges) region += r.bytes;
  const bool patterned = work.access != KernelWork::Access::Sequential && region >= burst &&
                         burst > 0 &&
                         (work.access == KernelWork::Access::Random || work.stride > 0);
  if (!patterned) {
    sequential(ranges, from, length, fallback, write, out);
    return;
  }
  const uint64_t places = region / burst;  // whole bursts of the region
  const uint64_t span = places * burst;
  // Burst k of the stream carries bytes [k * burst, (k + 1) * burst) of it.
  for (uint64_t k = from / burst, end = from + length; k * burst < end; ++k) {
    uint64_t place;
    if (work.access == KernelWork::Access::Random) {
      place = mix(work.seed ^ mix(k)) % places * burst;
    } else {
      // i * stride, folded into the region, one burst further on each wrap (the classic stride
      // benchmark's walk: it touches every burst once before repeating one).
      const Wide p = static_cast<Wide>(k) * work.stride;
      const uint64_t wraps = static_cast<uint64_t>(p / span);
      place = static_cast<uint64_t>((p % span + static_cast<Wide>(wraps) * burst) % span) / burst *
              burst;
    }
    const uint64_t lo = std::max(from, k * burst), hi = std::min(end, (k + 1) * burst);
    out.push_back({addressIn(ranges, place + (lo - k * burst)), hi - lo, write});
  }
}

const char* accessName(KernelWork::Access access) {
  switch (access) {
    case KernelWork::Access::Sequential: return "sequential";
    case KernelWork::Access::Strided: return "strided";
    case KernelWork::Access::Random: return "random";
  }
  return "?";
}

bool accessFromName(const std::string& name, KernelWork::Access& out) {
  for (KernelWork::Access a :
       {KernelWork::Access::Sequential, KernelWork::Access::Strided, KernelWork::Access::Random}) {
    if (name == accessName(a)) {
      out = a;
      return true;
    }
  }
  return false;
}

}  // namespace ascendsim::models
