#pragma once
// What each rank puts into one checked call and the bytes it must get back, exactly.
// Collectives that only move data (all_gather, broadcast, alltoall, scatter) carry a pattern that
// differs per source rank and per 8-byte word, so a block from the wrong rank or the wrong place
// shows. Reductions (all_reduce, reduce_scatter, reduce) carry small whole numbers, rank r's
// element i being r + 1 + i % 3, whose sum, product, max and min the data type holds exactly
// (when it cannot, the check is skipped and reported as NULL, as hccl_test does on overflow).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/collectives/collective.h"

namespace ascendsim::tools {

struct Mismatch {
  uint64_t differingBytes = 0;
  uint64_t firstOffset = 0;  // bytes into the output
  uint8_t expected = 0, actual = 0;
};

class CollectiveData {
 public:
  CollectiveData(const Collective& collective, const CollectiveLayout& layout,
                 HcclDataType dataType, HcclReduceOp op, uint32_t ranks, uint32_t root);

  // The send buffer of `rank` (broadcast: its one buffer).
  std::vector<uint8_t> input(uint32_t rank) const;
  // Whether `rank`'s output is checked: every rank's, but a reduce's root only.
  bool checksRank(uint32_t rank) const;
  // Whether the expected results are exact in the data type; when not, nothing is checked.
  bool checkable() const { return checkable_; }
  // Where `actual` (the rank's output: broadcast's buffer, else the receive buffer) differs from
  // what the collective must leave there; nullopt when it is exact.
  std::optional<Mismatch> compare(uint32_t rank, const std::vector<uint8_t>& actual) const;

 private:
  double inputValue(uint32_t rank, uint64_t element) const;
  double reducedValue(uint64_t element) const;
  void encode(double value, uint8_t* out) const;
  bool exactIn(double value) const;
  // Bytes [offset, offset + n) of what `rank` must hold, into `out`.
  void expected(uint32_t rank, uint64_t offset, uint64_t n, uint8_t* out) const;

  Collective collective_;
  CollectiveLayout layout_;
  HcclDataType dataType_;
  HcclReduceOp op_;
  uint32_t ranks_, root_, elementSize_;
  bool checkable_ = true;
  uint8_t reduced_[3][8] = {};  // a reduction's result element, by element index modulo 3
};

}  // namespace ascendsim::tools
