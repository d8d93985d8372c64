#pragma once
// The data sizes hccl_test visits (hicann/oam-tools src/hccl_test/common/src/hccl_test_common.cc:
// check_data_count, opbase_test_by_data_size): from -b up to -e, adding -i bytes or multiplying by
// -f, with -b and -e aligned to the rank count for the collectives that split data among ranks.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ascendsim::tools {

// A byte count as hccl_test reads -b and -e: a number (decimal, 0x hex or 0 octal) with an
// optional K, M or G (case-insensitive; 2^10, 2^20, 2^30). nullopt for anything else.
std::optional<uint64_t> parseHcclTestBytes(const std::string& text);

struct SizeSweepRequest {
  uint64_t minBytes = 64ull << 20;    // -b
  uint64_t maxBytes = 64ull << 20;    // -e
  std::optional<uint64_t> stepBytes;  // -i; default (e - b) / 10; 0: -b only
  std::optional<double> stepFactor;   // -f (> 1); takes precedence over -i
};

class SizeSweep {
 public:
  // `request` must hold 0 < minBytes <= maxBytes and a factor above 1.
  SizeSweep(const SizeSweepRequest& request, uint32_t ranks, bool alignToRanks);
  uint64_t minBytes() const { return min_; }  // after alignment: the header line prints these
  uint64_t maxBytes() const { return max_; }
  const std::vector<uint64_t>& sizes() const { return sizes_; }

 private:
  uint64_t min_ = 0, max_ = 0;
  std::vector<uint64_t> sizes_;
};

}  // namespace ascendsim::tools
