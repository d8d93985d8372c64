/*
 * More of the Ascend C API for kernels compiled for the host (included by kernel_operator.h, after
 * its tensors, queues and instructions): the AscendC::Std helpers, LocalMemAllocator, GatherMask,
 * Broadcast and SyncAll. Names and signatures follow the Ascend C API reference; the data they
 * leave is the reference's, the time they take follows docs/ascendc.md ("Timing").
 */
#ifndef ASCENDSIM_ASCENDC_MORE_H_
#define ASCENDSIM_ASCENDC_MORE_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>

namespace AscendC {

// ---------------------------------------------------------------- AscendC::Std

// The reference's small template library for kernels (its utils/std headers): min and max of two
// values (as the reference writes them: a < b ? a : b), the type traits and tuple. On the host
// they are the standard library's.
namespace Std {
template <typename T, typename U>
constexpr auto min(const T& src0, const U& src1) {
  return (src0 < src1) ? src0 : src1;
}
template <typename T, typename U>
constexpr auto max(const T& src0, const U& src1) {
  return (src0 > src1) ? src0 : src1;
}
using std::add_const;
using std::add_pointer;
using std::bool_constant;
using std::conditional;
using std::conditional_t;
using std::decay;
using std::decay_t;
using std::enable_if;
using std::enable_if_t;
using std::false_type;
using std::get;
using std::integral_constant;
using std::is_arithmetic;
using std::is_base_of;
using std::is_const;
using std::is_convertible;
using std::is_floating_point;
using std::is_integral;
using std::is_pointer;
using std::is_reference;
using std::is_same;
using std::is_same_v;
using std::make_tuple;
using std::remove_const;
using std::remove_cv;
using std::remove_cv_t;
using std::remove_pointer;
using std::remove_reference;
using std::remove_reference_t;
using std::tie;
using std::true_type;
using std::tuple;
using std::tuple_element;
using std::tuple_size;
template <typename T>
struct remove_cvref {
  using type = std::remove_cv_t<std::remove_reference_t<T>>;
};
template <typename T>
using remove_cvref_t = typename remove_cvref<T>::type;
}  // namespace Std

// ---------------------------------------------------------------- LocalMemAllocator

// The core's memories, as LocalMemAllocator names them.
enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };

namespace detail {
// The running core's Unified Buffer for tensors placed by address (LocalMemAllocator): one per
// host thread, as large as the largest Unified Buffer of any SoC (256 KiB); a kernel sees the
// first ascendsimAscendCUnifiedBufferBytes() of it. Its contents stay from block to block, as the
// core's do.
inline uint8_t* unifiedBuffer() {
  static thread_local std::unique_ptr<uint8_t[]> storage(new uint8_t[(256u << 10) + 32]());
  return storage.get();
}
}  // namespace detail

// Static tensor programming: local tensors placed one after the other in the Unified Buffer, each
// 32-byte aligned, from address 0, without TPipe or TQue. Asking for more than the core's Unified
// Buffer stops the kernel, as a TPipe that does (the message names both sizes). Only the Unified
// Buffer is modelled (Hardware::UB, the default).
template <Hardware hard = Hardware::UB>
class LocalMemAllocator {
  static_assert(hard == Hardware::UB, "AscendSim models the Unified Buffer only (Hardware::UB)");

 public:
  LocalMemAllocator() = default;
  // The address (bytes from the start of the Unified Buffer) the next tensor gets.
  uint32_t GetCurAddr() const { return cur_; }
  template <class DataType, uint32_t tileSize>
  LocalTensor<DataType> Alloc() {
    return take<DataType>(TPosition::VECCALC, tileSize);
  }
  template <TPosition pos, class DataType, uint32_t tileSize>
  LocalTensor<DataType> Alloc() {
    return take<DataType>(pos, tileSize);
  }
  template <class DataType>
  LocalTensor<DataType> Alloc(uint32_t tileSize) {
    return take<DataType>(TPosition::VECCALC, tileSize);
  }
  template <TPosition pos, class DataType>
  LocalTensor<DataType> Alloc(uint32_t tileSize) {
    return take<DataType>(pos, tileSize);
  }

 private:
  template <class DataType>
  LocalTensor<DataType> take(TPosition pos, uint32_t tileSize) {
    const uint64_t bytes = static_cast<uint64_t>(tileSize) * sizeof(DataType);
    const uint64_t at = cur_;
    const uint64_t end = (at + bytes + 31) / 32 * 32;
    const uint32_t ub = ascendsimAscendCUnifiedBufferBytes();
    const uint64_t limit = ub > 0 ? ub : (256u << 10);
    if (end > limit) {
      char reason[200];
      std::snprintf(reason, sizeof reason,
                    "its LocalMemAllocator tensors take %llu bytes, more than the core's %llu "
                    "bytes of Unified Buffer",
                    static_cast<unsigned long long>(end), static_cast<unsigned long long>(limit));
      ascendsimAscendCExceedResource(reason);  // stops the kernel's block
      trap();                                  // a CPU-debug block
      throw std::length_error(reason);         // outside any kernel
    }
    cur_ = static_cast<uint32_t>(end);
    uint8_t* p = detail::unifiedBuffer() + at;
    return LocalTensor<DataType>(reinterpret_cast<DataType*>(p), tileSize, p, pos);
  }
  uint32_t cur_ = 0;
};

// ---------------------------------------------------------------- GatherMask

enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V2;
constexpr GatherMaskMode defaultGahterMaskMode = defaultGatherMaskMode;  // older references' name

struct GatherMaskParams {
  GatherMaskParams() = default;
  GatherMaskParams(uint8_t src0BlockStrideIn, uint16_t repeatTimesIn, uint16_t src0RepeatStrideIn,
                   uint8_t src1RepeatStrideIn)
      : src0BlockStride(src0BlockStrideIn),
        repeatTimes(repeatTimesIn),
        src0RepeatStride(src0RepeatStrideIn),
        src1RepeatStride(src1RepeatStrideIn) {}
  uint8_t src0BlockStride = 1;
  uint16_t repeatTimes = 0;
  uint16_t src0RepeatStride = 8;
  uint8_t src1RepeatStride = 8;
};

namespace detail {
// GatherMask over repeats of 256 bytes of src0 (8 data blocks of 32 bytes, src0BlockStride data
// blocks apart, repeats src0RepeatStride data blocks apart): the elements whose bit is set in the
// repeat's pattern (`selected(repeat, k)`, k the element's place in its repeat) are written one
// after the other to dst, across repeats. Normal mode (reduceMode false): repeatTimes repeats of
// whole repeats, the mask unused. Counter mode (true): `mask` elements in all, the repeats
// following from it (the last one partial), repeatTimes unused. Timed as one 256-byte repeat per
// vector cycle, as the other repeat forms.
template <typename T, typename Selected>
inline uint64_t gatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                           const void* patternBuffer, bool reduceMode, uint32_t mask,
                           const GatherMaskParams& p, Selected selected) {
  const LibraryScope scope;
  constexpr uint64_t perRepeat = 256 / sizeof(T);
  constexpr uint64_t perBlock = 32 / sizeof(T);
  const uint64_t repeats = reduceMode ? (mask + perRepeat - 1) / perRepeat : p.repeatTimes;
  const uint64_t total = reduceMode ? mask : repeats * perRepeat;
  T* out = dst.GetPhyAddr();
  const T* in = src0.GetPhyAddr();
  uint64_t kept = 0;
  for (uint64_t r = 0; r < repeats; ++r) {
    for (uint64_t k = 0; k < perRepeat && r * perRepeat + k < total; ++k) {
      if (!selected(r, k)) continue;
      const uint64_t block = k / perBlock;
      out[kept++] =
          in[(r * p.src0RepeatStride + block * p.src0BlockStride) * perBlock + k % perBlock];
    }
  }
  ascendsimAscendCVector(dst.Buffer(), src0.Buffer(), patternBuffer, repeats * 256);
  return kept;
}
}  // namespace detail

// The pattern from a tensor: bit k of a repeat's pattern (bits of U, element k of the repeat in
// bit k % (8 sizeof(U)) of word k / (8 sizeof(U))) keeps element k; repeat r's pattern starts
// r x src1RepeatStride data blocks (32 bytes) into src1Pattern. rsvdCnt: how many were kept.
template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                       const LocalTensor<U>& src1Pattern, const bool reduceMode,
                       const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt) {
  static_assert(sizeof(U) == sizeof(T) && (sizeof(U) == 2 || sizeof(U) == 4),
                "GatherMask: src1Pattern is uint16_t for 2-byte types, uint32_t for 4-byte ones");
  const U* pattern = src1Pattern.GetPhyAddr();
  const uint64_t wordsPerStride = 32 / sizeof(U) * gatherMaskParams.src1RepeatStride;
  rsvdCnt = detail::gatherMask(dst, src0, src1Pattern.Buffer(), reduceMode, mask, gatherMaskParams,
                               [&](uint64_t r, uint64_t k) {
                                 const U word = pattern[r * wordsPerStride + k / (8 * sizeof(U))];
                                 return ((word >> (k % (8 * sizeof(U)))) & 1u) != 0;
                               });
}

// A built-in pattern, the same for every repeat: 1 the even elements, 2 the odd ones, 3 to 6 the
// first to the fourth of every four, 7 all. Another value stops the kernel (a trap).
template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                       const uint8_t src1Pattern, const bool reduceMode, const uint32_t mask,
                       const GatherMaskParams& gatherMaskParams, uint64_t& rsvdCnt) {
  if (src1Pattern < 1 || src1Pattern > 7) trap();
  rsvdCnt = detail::gatherMask(dst, src0, nullptr, reduceMode, mask, gatherMaskParams,
                               [src1Pattern](uint64_t, uint64_t k) {
                                 switch (src1Pattern) {
                                   case 1: return k % 2 == 0;
                                   case 2: return k % 2 == 1;
                                   case 7: return true;
                                   default: return k % 4 == static_cast<uint64_t>(src1Pattern - 3);
                                 }
                               });
}

// ---------------------------------------------------------------- Broadcast

// Broadcast of a 1-D or 2-D tensor along `axis` to dstShape: srcShape is 1 on that axis and equal
// to dstShape on the other ([1] to [n]; [m, 1] to [m, k] along axis 1; [1, k] to [m, k] along
// axis 0); other shapes stop the kernel (a trap). The temporary buffer is not needed here. Timed
// as one pass of the vector unit over dst (its bytes, 256 a cycle); the device's brcb, copy and
// GatherMask steps are not modelled one by one (**assumed**, docs/ascendc.md).
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                      const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      LocalTensor<uint8_t>& sharedTmpBuffer) {
  static_assert(dim == 1 || dim == 2, "Broadcast: dim is 1 or 2");
  static_assert(axis >= 0 && axis < dim, "Broadcast: axis is 0 or 1, below dim");
  (void)sharedTmpBuffer;
  const detail::LibraryScope scope;
  const uint32_t rows = dim == 2 ? dstShape[0] : 1;
  const uint32_t cols = dstShape[dim - 1];
  bool shapesFit = srcShape[axis] == 1;
  for (int32_t d = 0; d < dim; ++d) {
    if (d != axis && srcShape[d] != dstShape[d]) shapesFit = false;
  }
  if (!shapesFit) trap();
  T* out = dstLocal.GetPhyAddr();
  const T* in = srcLocal.GetPhyAddr();
  for (uint32_t i = 0; i < rows; ++i) {
    for (uint32_t j = 0; j < cols; ++j) {
      // dim 1: in[0]; [m, 1] -> [m, k]: in[i]; [1, k] -> [m, k]: in[j].
      out[static_cast<uint64_t>(i) * cols + j] = dim == 1 ? in[0] : (axis == 1 ? in[i] : in[j]);
    }
  }
  ascendsimAscendCVector(dstLocal.Buffer(), srcLocal.Buffer(), nullptr,
                         static_cast<uint64_t>(rows) * cols * sizeof(T));
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                      const uint32_t dstShape[dim], const uint32_t srcShape[dim]) {
  LocalTensor<uint8_t> none;
  Broadcast<T, dim, axis, isReuseSource>(dstLocal, srcLocal, dstShape, srcShape, none);
}
// The name older references give it.
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                      const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      LocalTensor<uint8_t>& sharedTmpBuffer) {
  Broadcast<T, dim, axis, isReuseSource>(dstLocal, srcLocal, dstShape, srcShape, sharedTmpBuffer);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                      const uint32_t dstShape[dim], const uint32_t srcShape[dim]) {
  Broadcast<T, dim, axis, isReuseSource>(dstLocal, srcLocal, dstShape, srcShape);
}

// ---------------------------------------------------------------- SyncAll

namespace detail {
// SyncAll makes every core of the kernel wait until all have reached it. AscendSim runs a
// kernel's blocks one after the other, so a block cannot wait for a later one: with one block
// taking part it is a barrier of the block's own pipes (as PipeBarrier<PIPE_ALL>); with more the
// kernel fails at the call, saying so, rather than run on as if the others had arrived.
inline void syncAll(int64_t waiting) {
  if (waiting > 1) {
    char reason[240];
    std::snprintf(reason, sizeof reason,
                  "SyncAll across %lld blocks is not supported by AscendSim (it runs a kernel's "
                  "blocks one after another, so they cannot wait for each other)",
                  static_cast<long long>(waiting));
    ascendsimAscendCExceedResource(reason);
    trap();
    return;
  }
  ascendsimAscendCBarrier();
}
}  // namespace detail

// Hard synchronisation of all the kernel's cores.
template <bool isAIVOnly = true>
inline void SyncAll() {
  detail::syncAll(GetBlockNum());
}
// Soft synchronisation through a global-memory workspace (`usedCores` cores, or all of the
// kernel's when 0).
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t>& gmWorkspace,
                    const LocalTensor<int32_t>& ubWorkspace, const int32_t usedCores = 0) {
  (void)gmWorkspace;
  (void)ubWorkspace;
  detail::syncAll(usedCores > 0 ? usedCores : GetBlockNum());
}

}  // namespace AscendC

#endif
