#include "runtime/hccl/data_types.h"

#include <algorithm>
#include <cstring>

#include "runtime/ops/data_type.h"

namespace ascendsim::runtime::hccl {
namespace {

template <class T>
T loadAs(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class T>
void storeAs(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// Integers: sums and products wrap modulo 2^bits (computed unsigned, where wrapping is defined);
// max and min compare as the signed or unsigned type.
template <class T>
void reduceIntegers(uint8_t* acc, const uint8_t* in, uint64_t count, int32_t op) {
  using U = std::make_unsigned_t<T>;
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t* a = acc + i * sizeof(T);
    const T x = loadAs<T>(a), y = loadAs<T>(in + i * sizeof(T));
    T r = x;
    switch (op) {
      case HCCL_REDUCE_SUM:
        r = static_cast<T>(static_cast<U>(static_cast<U>(x) + static_cast<U>(y)));
        break;
      case HCCL_REDUCE_PROD:
        // Promoted to at least unsigned int so that narrow types do not multiply as signed int.
        r = static_cast<T>(static_cast<U>(static_cast<uint64_t>(static_cast<U>(x)) *
                                          static_cast<uint64_t>(static_cast<U>(y))));
        break;
      case HCCL_REDUCE_MAX: r = std::max(x, y); break;
      case HCCL_REDUCE_MIN: r = std::min(x, y); break;
      default: break;
    }
    storeAs<T>(a, r);
  }
}

template <class F>
F applyFloat(F x, F y, int32_t op) {
  switch (op) {
    case HCCL_REDUCE_SUM: return x + y;
    case HCCL_REDUCE_PROD: return x * y;
    case HCCL_REDUCE_MAX: return std::max(x, y);
    case HCCL_REDUCE_MIN: return std::min(x, y);
    default: return x;
  }
}

template <class F>
void reduceFloats(uint8_t* acc, const uint8_t* in, uint64_t count, int32_t op) {
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t* a = acc + i * sizeof(F);
    storeAs<F>(a, applyFloat(loadAs<F>(a), loadAs<F>(in + i * sizeof(F)), op));
  }
}

// float16 / bfloat16: each operation in float, rounded once to the 16-bit type. (float carries
// at least 2p + 2 bits for both, so rounding to float first changes no result.)
template <float (*ToFloat)(uint16_t), uint16_t (*FromFloat)(float)>
void reduceHalves(uint8_t* acc, const uint8_t* in, uint64_t count, int32_t op) {
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t* a = acc + i * 2;
    const float r =
        applyFloat(ToFloat(loadAs<uint16_t>(a)), ToFloat(loadAs<uint16_t>(in + i * 2)), op);
    storeAs<uint16_t>(a, FromFloat(r));
  }
}

}  // namespace

uint32_t elementSize(int32_t dataType) {
  switch (dataType) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_UINT8:
    case HCCL_DATA_TYPE_HIF8:
    case HCCL_DATA_TYPE_FP8E4M3:
    case HCCL_DATA_TYPE_FP8E5M2:
    case HCCL_DATA_TYPE_FP8E8M0: return 1;
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_UINT16:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16: return 2;
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_UINT32:
    case HCCL_DATA_TYPE_FP32: return 4;
    case HCCL_DATA_TYPE_INT64:
    case HCCL_DATA_TYPE_UINT64:
    case HCCL_DATA_TYPE_FP64: return 8;
    case HCCL_DATA_TYPE_INT128: return 16;
    default: return 0;
  }
}

std::string dataTypeName(int32_t dataType) {
  switch (dataType) {
    case HCCL_DATA_TYPE_INT8: return "int8";
    case HCCL_DATA_TYPE_INT16: return "int16";
    case HCCL_DATA_TYPE_INT32: return "int32";
    case HCCL_DATA_TYPE_FP16: return "fp16";
    case HCCL_DATA_TYPE_FP32: return "fp32";
    case HCCL_DATA_TYPE_INT64: return "int64";
    case HCCL_DATA_TYPE_UINT64: return "uint64";
    case HCCL_DATA_TYPE_UINT8: return "uint8";
    case HCCL_DATA_TYPE_UINT16: return "uint16";
    case HCCL_DATA_TYPE_UINT32: return "uint32";
    case HCCL_DATA_TYPE_FP64: return "fp64";
    case HCCL_DATA_TYPE_BFP16: return "bfp16";
    case HCCL_DATA_TYPE_INT128: return "int128";
    case HCCL_DATA_TYPE_HIF8: return "hif8";
    case HCCL_DATA_TYPE_FP8E4M3: return "fp8e4m3";
    case HCCL_DATA_TYPE_FP8E5M2: return "fp8e5m2";
    case HCCL_DATA_TYPE_FP8E8M0: return "fp8e8m0";
    default: return "unknown (" + std::to_string(dataType) + ")";
  }
}

std::string reduceOpName(int32_t op) {
  switch (op) {
    case HCCL_REDUCE_SUM: return "sum";
    case HCCL_REDUCE_PROD: return "prod";
    case HCCL_REDUCE_MAX: return "max";
    case HCCL_REDUCE_MIN: return "min";
    default: return "unknown (" + std::to_string(op) + ")";
  }
}

bool reducible(int32_t dataType, int32_t op, std::string* why) {
  if (op < HCCL_REDUCE_SUM || op > HCCL_REDUCE_MIN) {
    if (why) *why = "reduce op " + reduceOpName(op) + " is not one of sum, prod, max, min";
    return false;
  }
  switch (dataType) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_INT64:
    case HCCL_DATA_TYPE_UINT64:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_FP32:
    case HCCL_DATA_TYPE_FP64: return true;
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_BFP16:
      if (op != HCCL_REDUCE_PROD) return true;
      if (why)
        *why = "prod does not take " + dataTypeName(dataType) +
               " (it takes int8, int32, int64, uint64, fp16, fp32, fp64)";
      return false;
    default:
      if (why)
        *why = "reductions do not take " + dataTypeName(dataType) +
               " (they take int8, int16, int32, int64, fp16, fp32, bfp16, uint64, fp64)";
      return false;
  }
}

bool inlineReducible(const std::string& soc, int32_t dataType, int32_t op) {
  auto startsWith = [&soc](const char* prefix) { return soc.rfind(prefix, 0) == 0; };
  if (startsWith("Ascend910B") || startsWith("Ascend910_93")) {
    const bool type = dataType == HCCL_DATA_TYPE_FP32 || dataType == HCCL_DATA_TYPE_FP16 ||
                      dataType == HCCL_DATA_TYPE_BFP16 || dataType == HCCL_DATA_TYPE_INT8 ||
                      dataType == HCCL_DATA_TYPE_INT16 || dataType == HCCL_DATA_TYPE_INT32;
    return type && (op == HCCL_REDUCE_SUM || op == HCCL_REDUCE_MAX || op == HCCL_REDUCE_MIN);
  }
  if (startsWith("Ascend310P")) {
    const bool type = dataType == HCCL_DATA_TYPE_FP32 || dataType == HCCL_DATA_TYPE_FP16 ||
                      dataType == HCCL_DATA_TYPE_INT16;
    return type && op == HCCL_REDUCE_SUM;
  }
  if (startsWith("Ascend910")) {  // the first 910 generation: 910A, 910ProA, 910PremiumA ...
    return dataType == HCCL_DATA_TYPE_FP32 && op == HCCL_REDUCE_SUM;
  }
  return false;
}

void reduceInto(uint8_t* acc, const uint8_t* in, uint64_t count, int32_t dataType, int32_t op) {
  switch (dataType) {
    case HCCL_DATA_TYPE_INT8: reduceIntegers<int8_t>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_INT16: reduceIntegers<int16_t>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_INT32: reduceIntegers<int32_t>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_INT64: reduceIntegers<int64_t>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_UINT64: reduceIntegers<uint64_t>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_FP32: reduceFloats<float>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_FP64: reduceFloats<double>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_FP16:
      reduceHalves<ops::halfToFloat, ops::floatToHalf>(acc, in, count, op);
      break;
    case HCCL_DATA_TYPE_BFP16:
      reduceHalves<ops::bf16ToFloat, ops::floatToBf16>(acc, in, count, op);
      break;
    default: break;
  }
}

}  // namespace ascendsim::runtime::hccl
