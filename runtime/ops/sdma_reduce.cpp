#include "runtime/ops/sdma_reduce.h"
#include "runtime/core/data_mode.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "runtime/ops/data_type.h"

namespace ascendsim::runtime::ops {
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
void reduceIntegers(uint8_t* acc, const uint8_t* in, uint64_t count, ReduceOp op) {
  using U = std::make_unsigned_t<T>;
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t* a = acc + i * sizeof(T);
    const T x = loadAs<T>(a), y = loadAs<T>(in + i * sizeof(T));
    T r = x;
    switch (op) {
      case ReduceOp::Sum:
        r = static_cast<T>(static_cast<U>(static_cast<U>(x) + static_cast<U>(y)));
        break;
      case ReduceOp::Prod:
        // Promoted to at least unsigned int so that narrow types do not multiply as signed int.
        r = static_cast<T>(static_cast<U>(static_cast<uint64_t>(static_cast<U>(x)) *
                                          static_cast<uint64_t>(static_cast<U>(y))));
        break;
      case ReduceOp::Max: r = std::max(x, y); break;
      case ReduceOp::Min: r = std::min(x, y); break;
    }
    storeAs<T>(a, r);
  }
}

template <class F>
F applyFloat(F x, F y, ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return x + y;
    case ReduceOp::Prod: return x * y;
    case ReduceOp::Max: return std::max(x, y);
    case ReduceOp::Min: return std::min(x, y);
  }
  return x;
}

template <class F>
void reduceFloats(uint8_t* acc, const uint8_t* in, uint64_t count, ReduceOp op) {
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t* a = acc + i * sizeof(F);
    storeAs<F>(a, applyFloat(loadAs<F>(a), loadAs<F>(in + i * sizeof(F)), op));
  }
}

// float16 / bfloat16: each operation in float, rounded once to the 16-bit type. (float carries
// at least 2p + 2 bits for both, so rounding to float first changes no result.)
template <float (*ToFloat)(uint16_t), uint16_t (*FromFloat)(float)>
void reduceHalves(uint8_t* acc, const uint8_t* in, uint64_t count, ReduceOp op) {
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t* a = acc + i * 2;
    const float r =
        applyFloat(ToFloat(loadAs<uint16_t>(a)), ToFloat(loadAs<uint16_t>(in + i * 2)), op);
    storeAs<uint16_t>(a, FromFloat(r));
  }
}

models::MemoryPlace offsetBy(models::MemoryPlace p, uint64_t offset) {
  p.address += offset;
  return p;
}

}  // namespace

uint32_t reduceElementSize(ReduceElement element) {
  switch (element) {
    case ReduceElement::Int8:
    case ReduceElement::Uint8: return 1;
    case ReduceElement::Int16:
    case ReduceElement::Uint16:
    case ReduceElement::Fp16:
    case ReduceElement::Bf16: return 2;
    case ReduceElement::Int32:
    case ReduceElement::Uint32:
    case ReduceElement::Fp32: return 4;
    case ReduceElement::Int64:
    case ReduceElement::Uint64:
    case ReduceElement::Fp64: return 8;
  }
  return 1;
}

void reduceElements(uint8_t* acc, const uint8_t* in, uint64_t count, ReduceElement element,
                    ReduceOp op, bool saturate) {
  switch (element) {
    case ReduceElement::Int8: reduceIntegers<int8_t>(acc, in, count, op); break;
    case ReduceElement::Int16: reduceIntegers<int16_t>(acc, in, count, op); break;
    case ReduceElement::Int32: reduceIntegers<int32_t>(acc, in, count, op); break;
    case ReduceElement::Int64: reduceIntegers<int64_t>(acc, in, count, op); break;
    case ReduceElement::Uint8: reduceIntegers<uint8_t>(acc, in, count, op); break;
    case ReduceElement::Uint16: reduceIntegers<uint16_t>(acc, in, count, op); break;
    case ReduceElement::Uint32: reduceIntegers<uint32_t>(acc, in, count, op); break;
    case ReduceElement::Uint64: reduceIntegers<uint64_t>(acc, in, count, op); break;
    case ReduceElement::Fp32: reduceFloats<float>(acc, in, count, op); break;
    case ReduceElement::Fp64: reduceFloats<double>(acc, in, count, op); break;
    case ReduceElement::Fp16: reduceHalves<halfToFloat, floatToHalf>(acc, in, count, op); break;
    case ReduceElement::Bf16: reduceHalves<bf16ToFloat, floatToBf16>(acc, in, count, op); break;
  }
  if (!saturate) return;
  aclDataType type = ACL_DT_UNDEFINED;
  switch (element) {
    case ReduceElement::Fp16: type = ACL_FLOAT16; break;
    case ReduceElement::Bf16: type = ACL_BF16; break;
    case ReduceElement::Fp32: type = ACL_FLOAT; break;
    case ReduceElement::Fp64: type = ACL_DOUBLE; break;
    default: return;
  }
  const size_t size = reduceElementSize(element);
  for (uint64_t i = 0; i < count; ++i) ops::saturate(type, acc + i * size);
}

void reduceDeviceBytes(MemoryManager& memory, const models::MemoryPlace& dst,
                       const models::MemoryPlace& src, uint64_t bytes, ReduceElement element,
                       ReduceOp op, bool saturate) {
  const uint32_t size = reduceElementSize(element);
  const uint64_t whole = bytes / size * size;
  const uint64_t piece = (1u << 20) / size * size;
  for (uint64_t done = 0; done < whole; done += piece) {
    const uint64_t n = std::min(piece, whole - done);
    std::vector<uint8_t> acc = memory.readDevice(offsetBy(dst, done), n, false);
    const std::vector<uint8_t> in = memory.readDevice(offsetBy(src, done), n, false);
    reduceElements(acc.data(), in.data(), n / size, element, op, saturate);
    memory.writeDevice(offsetBy(dst, done), acc);
  }
}

std::unique_ptr<models::Task> sdmaReduceTask(MemoryManager& memory, const models::MemoryPlace& dst,
                                             const models::MemoryPlace& src, uint64_t bytes,
                                             ReduceElement element, ReduceOp op, bool saturate) {
  auto task = std::make_unique<models::Task>();
  task->kind = models::TaskKind::Copy;
  task->src = src;
  task->dst = dst;
  task->bytes = bytes;
  MemoryManager* mm = &memory;
  task->effect = [mm, dst, src, bytes, element, op, saturate] {
    if (movesData()) reduceDeviceBytes(*mm, dst, src, bytes, element, op, saturate);
  };
  return task;
}

}  // namespace ascendsim::runtime::ops
