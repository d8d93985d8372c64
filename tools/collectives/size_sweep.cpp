#include "tools/collectives/size_sweep.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace ascendsim::tools {
namespace {

// hccl_test's BUF_ALGIN_SIZE and BUF_ALGIN_LINE: sizes above 16 MiB are aligned to ranks x 512
// bytes, smaller ones to the rank count.
constexpr uint64_t kAlignUnit = 512;
constexpr uint64_t kAlignLine = 16ull << 20;

uint64_t alignToRanks(uint64_t bytes, uint64_t ranks) {
  bytes = std::max(bytes, ranks);
  const uint64_t unit = bytes > kAlignLine ? ranks * kAlignUnit : ranks;
  return bytes / unit * unit;
}

}  // namespace

std::optional<uint64_t> parseHcclTestBytes(const std::string& text) {
  if (text.empty() || text[0] == '-' || text[0] == '+') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 0);
  if (end == text.c_str() || errno == ERANGE) return std::nullopt;
  const std::string unit(end);
  uint64_t scale = 1;
  if (unit == "K" || unit == "k") {
    scale = 1ull << 10;
  } else if (unit == "M" || unit == "m") {
    scale = 1ull << 20;
  } else if (unit == "G" || unit == "g") {
    scale = 1ull << 30;
  } else if (!unit.empty()) {
    return std::nullopt;
  }
  if (value > UINT64_MAX / scale) return std::nullopt;
  return value * scale;
}

SizeSweep::SizeSweep(const SizeSweepRequest& r, uint32_t ranks, bool align) {
  min_ = r.minBytes;
  max_ = r.maxBytes;
  uint64_t step = r.stepBytes ? *r.stepBytes : (max_ > min_ ? (max_ - min_) / 10 : 1);
  if (align) {
    min_ = alignToRanks(min_, ranks);
    max_ = alignToRanks(max_, ranks);
    step = (step + ranks - 1) / ranks * ranks;
  }
  for (uint64_t size = min_; size <= max_;) {
    sizes_.push_back(size);
    if (r.stepFactor) {
      // hccl_test multiplies the byte count by the factor and truncates; a product that does not
      // grow would repeat the size for ever, so it moves on by at least one byte.
      const double next = static_cast<double>(size) * *r.stepFactor;
      if (next > static_cast<double>(max_)) break;
      size = std::max(size + 1, static_cast<uint64_t>(next));
    } else {
      if (step == 0 || size > max_ - step) break;  // -i 0: the one size; or past -e
      size += step;
    }
  }
}

}  // namespace ascendsim::tools
