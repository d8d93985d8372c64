#include "runtime/hccl/data_types.h"

namespace ascendsim::runtime::hccl {

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

ops::ReduceElement reduceElement(int32_t dataType) {
  switch (dataType) {
    case HCCL_DATA_TYPE_INT8: return ops::ReduceElement::Int8;
    case HCCL_DATA_TYPE_INT16: return ops::ReduceElement::Int16;
    case HCCL_DATA_TYPE_INT32: return ops::ReduceElement::Int32;
    case HCCL_DATA_TYPE_INT64: return ops::ReduceElement::Int64;
    case HCCL_DATA_TYPE_UINT64: return ops::ReduceElement::Uint64;
    case HCCL_DATA_TYPE_FP16: return ops::ReduceElement::Fp16;
    case HCCL_DATA_TYPE_BFP16: return ops::ReduceElement::Bf16;
    case HCCL_DATA_TYPE_FP64: return ops::ReduceElement::Fp64;
    default: return ops::ReduceElement::Fp32;
  }
}

ops::ReduceOp reduceOperation(int32_t op) {
  switch (op) {
    case HCCL_REDUCE_PROD: return ops::ReduceOp::Prod;
    case HCCL_REDUCE_MAX: return ops::ReduceOp::Max;
    case HCCL_REDUCE_MIN: return ops::ReduceOp::Min;
    default: return ops::ReduceOp::Sum;
  }
}

void reduceInto(uint8_t* acc, const uint8_t* in, uint64_t count, int32_t dataType, int32_t op) {
  if (!reducible(dataType, HCCL_REDUCE_SUM, nullptr)) return;  // no reduction type: left alone
  ops::reduceElements(acc, in, count, reduceElement(dataType), reduceOperation(op));
}

}  // namespace ascendsim::runtime::hccl
