// A kernel binary as ascendc_fatbin_library builds one, written out by hand: each kernel K has the
// entry `ascendsimKernelEntry_K(args)` that runs one block over the arguments as
// aclrtKernelArgsAppend lays them out (each at the next multiple of 8 bytes) and
// `ascendsimKernelArgsBytes_K()`, their size (tools/ascendc/ascendc_prep.cpp writes both).
#include <cstdint>
#include <cstring>

#include "ascendsim/ascendc.h"

namespace {
// Block b of n writes value + b into its share of `count` elements of dst.
void fill(uint32_t* dst, uint32_t value, uint64_t count) {
  const int64_t b = ascendsimAscendCBlockIdx(), n = ascendsimAscendCBlockNum();
  const uint64_t begin = count * static_cast<uint64_t>(b) / static_cast<uint64_t>(n);
  const uint64_t end = count * static_cast<uint64_t>(b + 1) / static_cast<uint64_t>(n);
  for (uint64_t i = begin; i < end; ++i) dst[i] = value + static_cast<uint32_t>(b);
}

template <class T>
T argumentAt(const void* args, size_t offset) {
  T v;
  std::memcpy(&v, static_cast<const uint8_t*>(args) + offset, sizeof v);
  return v;
}
}  // namespace

// Fill(uint32_t* dst, uint32_t value, uint64_t count): offsets 0, 8, 16; 24 bytes.
extern "C" __attribute__((visibility("default"))) void ascendsimKernelEntry_Fill(void* args) {
  fill(argumentAt<uint32_t*>(args, 0), argumentAt<uint32_t>(args, 8),
       argumentAt<uint64_t>(args, 16));
}
extern "C" __attribute__((visibility("default"))) uint32_t ascendsimKernelArgsBytes_Fill() {
  return 24;
}

// FillFromParams(uint32_t* dst, const uint32_t* params): params (a placeholder's device copy)
// holds the value and the count; 16 bytes.
extern "C" __attribute__((visibility("default"))) void ascendsimKernelEntry_FillFromParams(
    void* args) {
  const auto* params = argumentAt<const uint32_t*>(args, 8);
  fill(argumentAt<uint32_t*>(args, 0), params[0], params[1]);
}
extern "C" __attribute__((visibility("default"))) uint32_t
ascendsimKernelArgsBytes_FillFromParams() {
  return 16;
}
