// Fixture of tools.ascendc_prep.loop_tests: the loops ascendsim-ascendc-prep counts (a kernel
// source and the headers it includes with quotes from beside it).
#include <algorithm>

#include "kernel_operator.h"
#include "sub/helper.h"

constexpr int Triangle(int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += i;
  return s;
}
static_assert(Triangle(4) == 6, "a constexpr loop still runs at compile time");

extern "C" __global__ __aicore__ void Loops(__gm__ uint32_t* out, uint32_t n) {
  uint32_t x = 1;
  for (uint32_t i = 0; i < n; ++i) x += Helper(i);
  for (;;) {
    if (x) break;
  }
  int values[3] = {1, 2, 3};
  for (int v : values) {
    x += static_cast<uint32_t>(v);
  }
  while (x > 100) x /= 2;
  do {
    ++x;
  } while (x < 5);
  std::for_each(values, values + 3, [](int) {});
  out[0] = x;  // for (a comment) is left alone
  const char* text = "while (1) in a string";
  (void)text;
}
