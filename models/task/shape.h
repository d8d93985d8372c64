#pragma once
// The layout of a transfer or a memory access, which links and memories both charge by.

#include <cstdint>

namespace ascendsim::models {

// A transfer's layout: `rows` rows of `rowBytes` each (a contiguous copy is one row). Every row is
// its own run of packets, so narrow rows pay per-packet overhead on each.
struct Shape {
  uint64_t rowBytes = 0;
  uint64_t rows = 1;
  uint64_t bytes() const { return rowBytes * rows; }
};

}  // namespace ascendsim::models
