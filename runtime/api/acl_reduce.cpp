// aclrtReduceAsync: a built-in task in which the DMA engine reduces while it copies (SDMA reduce),
// dst = dst kind src. The same task HCCL's collectives queue (runtime/ops/sdma_reduce.h).
// Arguments are checked in CANN's order and with its codes (hicann/runtime
// src/acl/aclrt_impl/memory.cpp aclrtReduceAsyncImpl, src/runtime/api/impl/api_error.cc
// ApiErrorDecorator::ReduceAsync, src/runtime/core/src/launch/memory_stars.cc
// CheckReduceCapability and SubmitReduceTask's Context::CheckMemAlign); which types and kinds
// each SoC's engine takes is the API reference's (docs/zh/api_ref/12_execution_control.md
// aclrtReduceAsync, 25-02_Enumerations.md aclrtReduceKind).

#include <optional>
#include <string>

#include "runtime/api/api_call.h"
#include "runtime/core/copy_planner.h"
#include "runtime/core/service_port.h"
#include "runtime/ops/data_type.h"
#include "runtime/ops/sdma_reduce.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::models::MemoryPlace;
using ascendsim::runtime::ops::ReduceElement;
using ascendsim::runtime::ops::ReduceOp;

namespace {

// The largest SUM reduce CANN accepts: MAX_MEMCPY_SIZE_OF_D2D, 4 GiB (hicann/runtime
// src/runtime/core/inc/spec/base_info.hpp).
constexpr uint64_t kMaxSumBytes = 4ull << 30;

// The data types the ACL layer passes on to the runtime (memory.cpp kMapDataType); any other is
// ACL_ERROR_INVALID_PARAM. INT4 passes but no engine reduces it.
bool aclPassesOn(int32_t type) {
  switch (type) {
    case ACL_FLOAT:
    case ACL_FLOAT16:
    case ACL_INT16:
    case ACL_INT4:
    case ACL_INT8:
    case ACL_INT32:
    case ACL_BF16:
    case ACL_UINT8:
    case ACL_UINT16:
    case ACL_UINT32: return true;
    default: return false;
  }
}

std::optional<ReduceElement> elementOf(int32_t type) {
  switch (type) {
    case ACL_FLOAT: return ReduceElement::Fp32;
    case ACL_FLOAT16: return ReduceElement::Fp16;
    case ACL_BF16: return ReduceElement::Bf16;
    case ACL_INT8: return ReduceElement::Int8;
    case ACL_INT16: return ReduceElement::Int16;
    case ACL_INT32: return ReduceElement::Int32;
    case ACL_UINT8: return ReduceElement::Uint8;
    case ACL_UINT16: return ReduceElement::Uint16;
    case ACL_UINT32: return ReduceElement::Uint32;
    default: return std::nullopt;
  }
}

ReduceOp opOf(int32_t kind) {
  switch (kind) {
    case ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX: return ReduceOp::Max;
    case ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN: return ReduceOp::Min;
    default: return ReduceOp::Sum;
  }
}

const char* kindName(int32_t kind) {
  switch (kind) {
    case ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM: return "SUM";
    case ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX: return "MAX";
    case ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN: return "MIN";
    case ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL: return "EQUAL";
    default: return "unknown";
  }
}

std::string typeLabel(int32_t type) {
  if (!ops::isDataType(type)) return "unknown (" + std::to_string(type) + ")";
  return ops::typeName(static_cast<aclDataType>(type));
}

bool startsWith(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// What the SoC's engine reduces, per the API reference: 910B and 910_93 (Atlas A2/A3) int8,
// int16, int32, fp16, fp32, bf16; 950 those and uint32; 310B int8, int16, int32, fp16, fp32;
// 310P fp32, fp16, int16 with SUM only; the first 910 fp32 with SUM only.
struct EngineReduce {
  bool maxMin = false;  // MAX and MIN besides SUM
  bool (*takes)(ReduceElement) = nullptr;
};

bool a2Types(ReduceElement e) {
  return e == ReduceElement::Int8 || e == ReduceElement::Int16 || e == ReduceElement::Int32 ||
         e == ReduceElement::Fp16 || e == ReduceElement::Fp32 || e == ReduceElement::Bf16;
}
bool types950(ReduceElement e) {
  return a2Types(e) || e == ReduceElement::Uint32;
}
bool types310B(ReduceElement e) {
  return a2Types(e) && e != ReduceElement::Bf16;
}
bool types310P(ReduceElement e) {
  return e == ReduceElement::Fp32 || e == ReduceElement::Fp16 || e == ReduceElement::Int16;
}
bool types910(ReduceElement e) {
  return e == ReduceElement::Fp32;
}
bool noTypes(ReduceElement) {
  return false;
}

EngineReduce engineOf(const std::string& soc) {
  if (startsWith(soc, "Ascend910B") || startsWith(soc, "Ascend910_93")) return {true, a2Types};
  if (startsWith(soc, "Ascend950")) return {true, types950};
  if (startsWith(soc, "Ascend310B")) return {true, types310B};
  if (startsWith(soc, "Ascend310P")) return {false, types310P};
  if (startsWith(soc, "Ascend910")) return {false, types910};
  return {false, noTypes};
}

// CANN's runtime checks, after the ACL layer's: count, kind range, the SUM size limit.
void checkRange(uint64_t count, int32_t kind) {
  if (count == 0) fail(ACL_ERROR_RT_PARAM_INVALID, "count must not be 0");
  if (kind < ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM || kind > ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "kind " + std::to_string(kind) + " is not in [10, 14) (aclrtReduceKind)");
  }
  if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM && count > kMaxSumBytes) {
    fail(ACL_ERROR_RT_PARAM_INVALID,
         "count " + std::to_string(count) + " exceeds 4 GiB, the most a SUM reduce takes");
  }
}

// The device's engine: whether it takes this kind and type (ACL_ERROR_RT_FEATURE_NOT_SUPPORT).
ReduceElement checkEngine(const std::string& soc, int32_t kind, int32_t type) {
  const EngineReduce engine = engineOf(soc);
  if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL) {
    // (CANN documents no result for EQUAL, so the simulator does not offer it.)
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "kind EQUAL (13) is not simulated: CANN documents no result for it");
  }
  if (kind != ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM && !engine.maxMin) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         std::string("the ") + soc + " DMA engine reduces with SUM only, not " + kindName(kind));
  }
  const std::optional<ReduceElement> element = elementOf(type);
  if (!element || !engine.takes(*element)) {
    fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
         "the " + soc + " DMA engine does not reduce " + typeLabel(type));
  }
  return *element;
}

// Context::CheckMemAlign: 16-bit types on 2 bytes, 32-bit types on 4 bytes.
void checkAlignment(const void* p, ReduceElement element, const char* role) {
  const uint32_t size = ops::reduceElementSize(element);
  if (reinterpret_cast<uintptr_t>(p) % size != 0) {
    fail(ACL_ERROR_RT_ADDR_UNALIGNED, std::string(role) + " is not aligned to " +
                                          std::to_string(size) + " bytes, its element size");
  }
}

MemoryPlace devicePlace(ServicePort& port, const void* p, uint64_t count, const Stream& stream,
                        const char* role) {
  const MemoryPlace place = port.place(p, count, role);
  if (!isDevice(place) || place.device != stream.device->id) {
    fail(ACL_ERROR_RT_PARAM_INVALID, std::string(role) + " must be memory of the stream's device " +
                                         std::to_string(stream.device->id));
  }
  return place;
}

}  // namespace

aclError aclrtReduceAsync(void* dst, const void* src, uint64_t count, aclrtReduceKind kind,
                          aclDataType type, aclrtStream stream, void* reserve) {
  ASCENDSIM_FORWARD(aclrtReduceAsync, dst, src, count, kind, type, stream, reserve);
  return run("aclrtReduceAsync", &ascendsim::spec::ApiOverheads::memcpyAsync, [&](HostThread& t) {
    const int32_t rawKind = rawEnum(kind), rawType = rawEnum(type);
    t.callArgs = {ptrArg("dst", dst),
                  ptrArg("src", src),
                  arg("count", count),
                  arg("kind", kindName(rawKind)),
                  arg("type", typeLabel(rawType)),
                  streamArg(stream)};
    needPointer(dst, "dst");
    needPointer(src, "src");
    if (reserve) fail(ACL_ERROR_INVALID_PARAM, "reserve must be NULL");
    if (!aclPassesOn(rawType)) {
      fail(ACL_ERROR_INVALID_PARAM, "type " + typeLabel(rawType) + " is not supported");
    }
    ServicePort port(rt());
    Stream& s = port.stream(t, stream);
    checkRange(count, rawKind);
    const ReduceElement element = checkEngine(port.deviceSpec(s.device->id).soc, rawKind, rawType);
    checkAlignment(src, element, "src");
    checkAlignment(dst, element, "dst");
    const MemoryPlace d = devicePlace(port, dst, count, s, "dst");
    const MemoryPlace from = devicePlace(port, src, count, s, "src");
    port.submit(
        t, s,
        ops::sdmaReduceTask(port.memory(), d, from, count, element, opOf(rawKind), s.saturate));
  });
}
