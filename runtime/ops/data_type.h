#pragma once
// Element types of operator tensors: sizes, names, how values load and store (float16 and
// bfloat16 by their bit patterns, rounding to nearest even), and PyTorch-style type promotion,
// which CANN's operator API follows.

#include <cstddef>
#include <cstdint>
#include <optional>

#include "acl/acl_base.h"

namespace ascendsim::runtime::ops {

// Whether `raw` is one of aclDataType's values (only those may be converted to the enum).
bool isDataType(int32_t raw);
// Every type the elementwise operators compute on.
bool supported(aclDataType t);
bool isFloating(aclDataType t);
size_t elementSize(aclDataType t);    // 0 for types without a fixed size
const char* typeName(aclDataType t);  // "FLOAT", "FLOAT16", ...

// A value on its way through an operator: floating types travel as double, integer and bool
// types as int64 (exact for every supported integer type).
struct Value {
  double f = 0;
  int64_t i = 0;
};
Value load(aclDataType t, const uint8_t* p);
void store(aclDataType t, uint8_t* p, double v);  // rounds to the type (wraps integers)
void storeInt(aclDataType t, uint8_t* p, int64_t v);
// The saturation mode (aclrtSetDeviceSatMode): a floating element holding Inf becomes the type's
// largest finite value of its sign, one holding NaN becomes 0; other elements stay as they are.
void saturate(aclDataType t, uint8_t* p);

uint16_t floatToHalf(float f);
float halfToFloat(uint16_t h);
uint16_t floatToBf16(float f);
float bf16ToFloat(uint16_t b);

// The type both operands are computed in, or nullopt when they do not promote (unsupported).
std::optional<aclDataType> promote(aclDataType a, aclDataType b);
// Whether a result of type `from` may be written to a tensor of type `to` (no float to integer,
// nothing but bool to bool).
bool canCast(aclDataType from, aclDataType to);

}  // namespace ascendsim::runtime::ops
