// The tiling of scaled_add_custom, filled in by the host and passed to the kernel by value.
#ifndef SCALED_ADD_TILING_H
#define SCALED_ADD_TILING_H
#include <cstdint>

struct ScaledAddTiling {
  uint32_t totalLength;  // elements in each of x, y and z
  uint32_t tileNum;      // tiles per block (each copied in twice over, double buffered)
  float alpha;           // z = alpha * x + y
};

#endif
