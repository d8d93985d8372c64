#include "runtime/ops/data_type.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace ascendsim::runtime::ops {
namespace {

template <class T>
T get(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class T>
void put(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// Rank for promotion: bool < integers < floating; within integers by width (uint8 beside int8).
int category(aclDataType t) {
  if (t == ACL_BOOL) return 0;
  return isFloating(t) ? 2 : 1;
}

}  // namespace

bool isDataType(int32_t raw) {
  switch (raw) {
    case ACL_FLOAT:
    case ACL_FLOAT16:
    case ACL_INT8:
    case ACL_INT32:
    case ACL_UINT8:
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_UINT32:
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_BOOL:
    case ACL_STRING:
    case ACL_COMPLEX64:
    case ACL_COMPLEX128:
    case ACL_BF16:
    case ACL_INT4:
    case ACL_UINT1:
    case ACL_COMPLEX32: return true;
    default: return false;
  }
}

bool supported(aclDataType t) {
  switch (t) {
    case ACL_FLOAT:
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_DOUBLE:
    case ACL_INT8:
    case ACL_INT16:
    case ACL_INT32:
    case ACL_INT64:
    case ACL_UINT8:
    case ACL_BOOL: return true;
    default: return false;
  }
}

bool isFloating(aclDataType t) {
  return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16 || t == ACL_DOUBLE;
}

size_t elementSize(aclDataType t) {
  switch (t) {
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8: return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16: return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32: return 4;
    case ACL_DOUBLE:
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    default: return 0;
  }
}

const char* typeName(aclDataType t) {
  switch (t) {
    case ACL_FLOAT: return "FLOAT";
    case ACL_FLOAT16: return "FLOAT16";
    case ACL_BF16: return "BFLOAT16";
    case ACL_DOUBLE: return "DOUBLE";
    case ACL_INT8: return "INT8";
    case ACL_INT16: return "INT16";
    case ACL_INT32: return "INT32";
    case ACL_INT64: return "INT64";
    case ACL_UINT8: return "UINT8";
    case ACL_UINT16: return "UINT16";
    case ACL_UINT32: return "UINT32";
    case ACL_UINT64: return "UINT64";
    case ACL_BOOL: return "BOOL";
    case ACL_STRING: return "STRING";
    case ACL_COMPLEX32: return "COMPLEX32";
    case ACL_COMPLEX64: return "COMPLEX64";
    case ACL_COMPLEX128: return "COMPLEX128";
    default: return "UNKNOWN";
  }
}

uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7FFFFFFFu;
  if (x >= 0x7F800000u)
    return static_cast<uint16_t>(sign | (x > 0x7F800000u ? 0x7E00u : 0x7C00u));  // NaN, inf
  if (x >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds past 65504: inf
  if (x < 0x38800000u) {
    // Subnormal half (or zero): value / 2^-24, rounded to nearest even.
    if (x < 0x33000000u) return static_cast<uint16_t>(sign);  // below half the smallest subnormal
    const uint32_t mantissa = (x & 0x7FFFFFu) | 0x800000u;
    const int shift = 126 - static_cast<int>(x >> 23);  // 14..24
    uint32_t h = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = ((x >> 13) - (112u << 10));  // rebias exponent 127 -> 15
  const uint32_t rest = x & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // carries into the exponent correctly
  return static_cast<uint16_t>(sign | h);
}

float halfToFloat(uint16_t h) {
  const uint32_t sign = (uint32_t{h} & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    magnitude = mantissa ? std::nanf("") : INFINITY;
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
  }
  uint32_t bits;
  std::memcpy(&bits, &magnitude, sizeof bits);
  bits |= sign;
  float out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

uint16_t floatToBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  x += 0x7FFFu + ((x >> 16) & 1u);                    // round to nearest even
  return static_cast<uint16_t>(x >> 16);
}

float bf16ToFloat(uint16_t b) {
  const uint32_t x = uint32_t{b} << 16;
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

Value load(aclDataType t, const uint8_t* p) {
  Value v;
  switch (t) {
    case ACL_FLOAT: v.f = get<float>(p); break;
    case ACL_FLOAT16: v.f = halfToFloat(get<uint16_t>(p)); break;
    case ACL_BF16: v.f = bf16ToFloat(get<uint16_t>(p)); break;
    case ACL_DOUBLE: v.f = get<double>(p); break;
    case ACL_INT8: v.i = get<int8_t>(p); break;
    case ACL_INT16: v.i = get<int16_t>(p); break;
    case ACL_INT32: v.i = get<int32_t>(p); break;
    case ACL_INT64: v.i = get<int64_t>(p); break;
    case ACL_UINT8: v.i = get<uint8_t>(p); break;
    case ACL_BOOL: v.i = get<uint8_t>(p) != 0; break;
    default: break;
  }
  if (!isFloating(t)) v.f = static_cast<double>(v.i);
  return v;
}

void store(aclDataType t, uint8_t* p, double v) {
  switch (t) {
    case ACL_FLOAT: put(p, static_cast<float>(v)); break;
    case ACL_FLOAT16: put(p, floatToHalf(static_cast<float>(v))); break;
    case ACL_BF16: put(p, floatToBf16(static_cast<float>(v))); break;
    case ACL_DOUBLE: put(p, v); break;
    case ACL_BOOL: put(p, static_cast<uint8_t>(v != 0)); break;
    default: storeInt(t, p, std::isfinite(v) ? static_cast<int64_t>(v) : 0); break;
  }
}

void saturate(aclDataType t, uint8_t* p) {
  if (!isFloating(t)) return;
  const double v = load(t, p).f;
  if (std::isnan(v)) {
    store(t, p, 0.0);
  } else if (std::isinf(v)) {
    double largest = std::numeric_limits<double>::max();
    switch (t) {
      case ACL_FLOAT: largest = std::numeric_limits<float>::max(); break;
      case ACL_FLOAT16: largest = 65504.0; break;
      case ACL_BF16: largest = static_cast<double>(bf16ToFloat(0x7F7F)); break;
      default: break;
    }
    store(t, p, v < 0 ? -largest : largest);
  }
}

void storeInt(aclDataType t, uint8_t* p, int64_t v) {
  // Narrowing to the type keeps the low bits (two's complement), as the hardware's casts do.
  const uint64_t u = static_cast<uint64_t>(v);
  switch (t) {
    case ACL_INT8:
    case ACL_UINT8: put(p, static_cast<uint8_t>(u)); break;
    case ACL_INT16: put(p, static_cast<uint16_t>(u)); break;
    case ACL_INT32: put(p, static_cast<uint32_t>(u)); break;
    case ACL_INT64: put(p, u); break;
    case ACL_BOOL: put(p, static_cast<uint8_t>(v != 0)); break;
    default: store(t, p, static_cast<double>(v)); break;
  }
}

std::optional<aclDataType> promote(aclDataType a, aclDataType b) {
  if (!supported(a) || !supported(b)) return std::nullopt;
  if (a == b) return a;
  const int ca = category(a), cb = category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 2) {
    if (a == ACL_DOUBLE || b == ACL_DOUBLE) return ACL_DOUBLE;
    return ACL_FLOAT;  // float16 with bfloat16, or either with float
  }
  // Integers: the wider one; uint8 with int8 needs int16 to hold both ranges.
  if ((a == ACL_UINT8 && b == ACL_INT8) || (a == ACL_INT8 && b == ACL_UINT8)) return ACL_INT16;
  return elementSize(a) >= elementSize(b) ? a : b;
}

bool canCast(aclDataType from, aclDataType to) {
  if (!supported(from) || !supported(to)) return false;
  if (isFloating(from) && !isFloating(to)) return false;
  if (to == ACL_BOOL && from != ACL_BOOL) return false;
  return true;
}

}  // namespace ascendsim::runtime::ops
