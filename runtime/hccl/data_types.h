#pragma once
// HCCL's element types and reduce operations: sizes, names, which operations HCCL allows on which
// types (hicann/hccl src/common/param_check.cc and the API reference), and the reduction itself,
// exact on the bytes: integers wrap as the hardware's adders do, float16 and bfloat16 are computed
// in float and rounded to nearest even once per step.

#include <cstdint>
#include <string>

#include "hccl/hccl_types.h"
#include "runtime/ops/sdma_reduce.h"

namespace ascendsim::runtime::hccl {

// Bytes per element of an HcclDataType given as an integer; 0 for a value that names no type
// (13, RESERVED, anything else).
uint32_t elementSize(int32_t dataType);
std::string dataTypeName(int32_t dataType);  // "fp32", "int8", ... ("unknown (13)")
std::string reduceOpName(int32_t op);        // "sum", "prod", "max", "min"

// Whether a reduction (AllReduce, ReduceScatter, Reduce) takes `dataType` with `op`: the reduce
// types are int8, int16, int32, int64, fp16, fp32, bfp16, uint64 and fp64; PROD only int8, int32,
// int64, uint64, fp16, fp32 and fp64. `why` says what is wrong when not.
bool reducible(int32_t dataType, int32_t op, std::string* why);

// Whether the SoC's DMA engine (SDMA) reduces `dataType` with `op` inline, as it writes
// (hicann/hcomm src/legacy/ascend910/platform/common/device_capacity.cc, IsSupportSDMAReduce):
// 910B and 910_93 fp32, fp16, bfp16, int8, int16 and int32 with sum, max and min; 910 (A) fp32
// sum; 310P fp32, fp16 and int16 sum. Elsewhere HCCL reduces with a kernel on the AI Cores.
// (HCCL also asks the 910 and 310P for input and output addresses equal modulo 128 and 2 bytes;
// not applied here: every rank must decide alike, and a rank does not see the others' buffers
// when it queues its part.)
bool inlineReducible(const std::string& soc, int32_t dataType, int32_t op);

// The shared reduction's names (runtime/ops/sdma_reduce.h) of a type and an operation that
// reducible() accepts.
ops::ReduceElement reduceElement(int32_t dataType);
ops::ReduceOp reduceOperation(int32_t op);

// acc[i] = acc[i] op in[i] for `count` elements of `dataType` (a type reducible() accepts).
void reduceInto(uint8_t* acc, const uint8_t* in, uint64_t count, int32_t dataType, int32_t op);

}  // namespace ascendsim::runtime::hccl
