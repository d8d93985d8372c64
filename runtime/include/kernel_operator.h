/*
 * kernel_operator.h for Ascend C kernels compiled for the host by AscendSim's ascendc_library
 * (ascendc.cmake). What the kernel sees:
 * - qualifiers (__global__, __aicore__, __gm__ empty), GM_ADDR, block_idx / block_num,
 *   AscendC::GetBlockIdx / GetBlockNum, AscendC::printf (in block order, at the kernel's
 *   simulated start), trap;
 * - global memory: the device's memory at its own addresses, through __gm__ pointers or
 *   GlobalTensor;
 * - the vector interface: TPipe, TQue (VECIN / VECOUT / VECCALC), TBuf, LocalTensor in the core's
 *   Unified Buffer (host memory here), DataCopy (also strided) and DataCopyPad between global
 *   memory and local tensors, atomic copies out (SetAtomicAdd ...), and the vector instructions
 *   below (also their repeat-and-mask forms), on half, bfloat16_t, float and integer types. Blocks
 * run one after the other, so queues and barriers only order what already runs in order. Timing
 * (docs/ascendc.md, "Timing"): each DataCopy and vector instruction tells the runtime what it moved
 * and which local buffers it read and wrote; the runtime times them on the core's MTE2, vector and
 * MTE3 pipes, which overlap where the buffers allow (double-buffered queues).
 */
#ifndef ASCENDSIM_KERNEL_OPERATOR_H_
#define ASCENDSIM_KERNEL_OPERATOR_H_

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "ascendsim/ascendc.h"

#define __global__
#define __aicore__
#define __gm__
#define __ubuf__
#define GM_ADDR __gm__ uint8_t*

#if defined(__FLT16_MAX__)
using half = _Float16;
#endif

// bfloat16: the upper 16 bits of a float32 (8 exponent bits, 7 fraction bits). Converted from
// float by rounding to nearest, ties to even (NaN stays NaN); computed on as float, as the host
// stand-ins for vector instructions compute on every type.
struct bfloat16_t {
  uint16_t bits = 0;
  bfloat16_t() = default;
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U, float> &&
                                                    !std::is_same_v<std::decay_t<U>, bfloat16_t>>>
  bfloat16_t(U value) : bits(fromFloat(static_cast<float>(value))) {}
  operator float() const {
    const uint32_t wide = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &wide, sizeof f);
    return f;
  }
  static uint16_t fromFloat(float f) {
    uint32_t wide;
    std::memcpy(&wide, &f, sizeof wide);
    if ((wide & 0x7f800000u) == 0x7f800000u && (wide & 0x007fffffu) != 0) {
      return static_cast<uint16_t>((wide >> 16) | 0x0040u);  // a quiet NaN
    }
    const uint32_t roundingBias = 0x7fffu + ((wide >> 16) & 1u);
    return static_cast<uint16_t>((wide + roundingBias) >> 16);
  }
};

// The pipes, at global scope as in CANN (kernels write PipeBarrier<PIPE_V>() with or without
// AscendC::).
enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL };

namespace AscendC {

inline int64_t GetBlockIdx() {
  return ascendsimAscendCBlockIdx();
}
inline int64_t GetBlockNum() {
  return ascendsimAscendCBlockNum();
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-security"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
template <typename... Args>
inline void printf(const char* format, Args... args) {
  std::printf(format, args...);
  std::fflush(stdout);
}
#pragma GCC diagnostic pop

inline void trap() {
  ascendsimAscendCTrap();
}

namespace detail {
// kernel_operator.h's own code: not the kernel's scalar code (see ascendsimAscendCLibrary).
struct LibraryScope {
  LibraryScope() { ascendsimAscendCLibrary(1); }
  ~LibraryScope() { ascendsimAscendCLibrary(0); }
  LibraryScope(const LibraryScope&) = delete;
  LibraryScope& operator=(const LibraryScope&) = delete;
};
}  // namespace detail

// ---------------------------------------------------------------- positions, pipes, barriers

enum class TPosition { GM, VECIN, VECOUT, VECCALC, A1, A2, B1, B2, C1, C2, CO1, CO2 };
using QuePosition = TPosition;
using ::PIPE_ALL;
using ::PIPE_M;
using ::PIPE_MTE1;
using ::PIPE_MTE2;
using ::PIPE_MTE3;
using ::PIPE_S;
using ::pipe_t;
using ::PIPE_V;
enum class HardEvent {
  MTE2_V,
  V_MTE2,
  MTE3_V,
  V_MTE3,
  MTE2_MTE3,
  MTE3_MTE2,
  S_V,
  V_S,
  MTE2_S,
  S_MTE2,
  MTE3_S,
  S_MTE3
};

// The data moves when the instruction is called; for the timing, PipeBarrier<PIPE_ALL> makes the
// scalar unit wait for every pipe, and the other barriers and flags are implied by the local
// buffers each instruction reads and writes (docs/ascendc.md, "Timing").
template <pipe_t pipe>
inline void PipeBarrier() {
  if (pipe == PIPE_ALL) ascendsimAscendCBarrier();
}
template <HardEvent event>
inline void SetFlag(int32_t) {}
template <HardEvent event>
inline void WaitFlag(int32_t) {}

// ---------------------------------------------------------------- tensors

template <typename T>
class GlobalTensor {
 public:
  void SetGlobalBuffer(__gm__ T* buffer, uint64_t size = 0) {
    base_ = buffer;
    size_ = size;
  }
  GlobalTensor operator[](uint64_t offset) const {
    GlobalTensor g;
    g.base_ = base_ + offset;
    g.size_ = size_ > offset ? size_ - offset : 0;
    return g;
  }
  T GetValue(uint64_t i) const { return base_[i]; }
  void SetValue(uint64_t i, T value) { base_[i] = value; }
  __gm__ T* GetPhyAddr() const { return base_; }
  __gm__ T* GetPhyAddr(uint64_t offset) const { return base_ + offset; }
  uint64_t GetSize() const { return size_; }

 private:
  T* base_ = nullptr;
  uint64_t size_ = 0;
};

template <typename T>
class LocalTensor {
 public:
  LocalTensor() = default;
  LocalTensor(T* data, uint32_t size, const void* buffer = nullptr,
              TPosition position = TPosition::VECCALC)
      : data_(data), size_(size), buffer_(buffer ? buffer : data), position_(position) {}
  // The scalar unit reading or writing the Unified Buffer waits for the pipes' work on it.
  T GetValue(uint32_t i) const {
    ascendsimAscendCLocalAccess(buffer_, 0);
    return data_[i];
  }
  void SetValue(uint32_t i, T value) {
    ascendsimAscendCLocalAccess(buffer_, 1);
    data_[i] = value;
  }
  T& operator()(uint32_t i) const {
    ascendsimAscendCLocalAccess(buffer_, 1);
    return data_[i];
  }
  LocalTensor operator[](uint32_t offset) const {
    return LocalTensor(data_ + offset, size_ > offset ? size_ - offset : 0, buffer_, position_);
  }
  uint32_t GetSize() const { return size_; }
  T* GetPhyAddr() const { return data_; }
  // The buffer (of a queue or TBuf) the tensor lies in: what the timing follows.
  const void* Buffer() const { return buffer_; }
  // The position of the queue or TBuf it came from (Fill's block size depends on it).
  TPosition Position() const { return position_; }
  template <typename U>
  LocalTensor<U> ReinterpretCast() const {
    return LocalTensor<U>(reinterpret_cast<U*>(data_),
                          static_cast<uint32_t>(size_ * sizeof(T) / sizeof(U)), buffer_, position_);
  }

 private:
  T* data_ = nullptr;
  uint32_t size_ = 0;  // elements
  const void* buffer_ = nullptr;
  TPosition position_ = TPosition::VECCALC;
};

// ---------------------------------------------------------------- buffers: queues and TBuf

namespace detail {
// A core's Unified Buffer, as buffers of `len` bytes carved from host memory.
struct BufferPool {
  // Each buffer between guard pages (ascendsimAscendCLocalBuffer): a write past its end faults.
  struct Free {
    void operator()(uint8_t* p) const { ascendsimAscendCFreeLocalBuffer(p); }
  };
  std::vector<std::unique_ptr<uint8_t[], Free>> storage;
  std::vector<bool> inUse;
  size_t cursor = 0;  // the buffer to try first
  std::deque<uint8_t*> queued;
  uint32_t len = 0;
  void init(uint32_t num, uint32_t bytes) {
    len = bytes;
    for (uint32_t i = 0; i < num; ++i) {
      auto* p = static_cast<uint8_t*>(ascendsimAscendCLocalBuffer(bytes));
      if (!p) throw std::bad_alloc();
      storage.emplace_back(p);
      inUse.push_back(false);
    }
  }
  // The buffers are taken in turn, from the one after the last taken, skipping those in use, as
  // Ascend C's TQueBind::AllocBuffer does (kernel_tquebind_impl.h): so a queue of two buffers
  // fills one while the other is computed on, which the timing sees (docs/ascendc.md). nullptr:
  // every buffer is in use.
  uint8_t* take() {
    for (size_t tried = 0; tried < storage.size(); ++tried) {
      const size_t i = cursor;
      cursor = (cursor + 1) % storage.size();
      if (!inUse[i]) {
        inUse[i] = true;
        return storage[i].get();
      }
    }
    return nullptr;
  }
  void give(const uint8_t* p) {
    for (size_t i = 0; i < storage.size(); ++i) {
      if (storage[i].get() == p) inUse[i] = false;
    }
  }
};
}  // namespace detail

template <TPosition pos, int32_t depth = 1>
class TQue {
 public:
  void init(uint32_t num, uint32_t len) { pool_.init(num, len); }
  template <typename T>
  LocalTensor<T> AllocTensor() {
    uint8_t* p = pool_.take();
    if (!p) trap();  // every buffer in use: a kernel error on the device too
    return LocalTensor<T>(reinterpret_cast<T*>(p), pool_.len / sizeof(T), p, pos);
  }
  template <typename T>
  void EnQue(const LocalTensor<T>& t) {
    pool_.queued.push_back(static_cast<uint8_t*>(const_cast<void*>(t.Buffer())));
  }
  template <typename T>
  LocalTensor<T> DeQue() {
    if (pool_.queued.empty()) trap();  // nothing was queued
    uint8_t* p = pool_.queued.front();
    pool_.queued.pop_front();
    return LocalTensor<T>(reinterpret_cast<T*>(p), pool_.len / sizeof(T), p, pos);
  }
  template <typename T>
  void FreeTensor(LocalTensor<T>& t) {
    pool_.give(reinterpret_cast<const uint8_t*>(t.Buffer()));
  }

 private:
  detail::BufferPool pool_;
};

template <TPosition pos = TPosition::VECCALC>
class TBuf {
 public:
  void init(uint32_t len) { pool_.init(1, len); }
  template <typename T>
  LocalTensor<T> Get() {
    uint8_t* p = pool_.storage.front().get();
    return LocalTensor<T>(reinterpret_cast<T*>(p), pool_.len / sizeof(T), p, pos);
  }
  template <typename T>
  LocalTensor<T> Get(uint32_t count) {
    uint8_t* p = pool_.storage.front().get();
    return LocalTensor<T>(reinterpret_cast<T*>(p), count, p, pos);
  }

 private:
  detail::BufferPool pool_;
};

class TPipe {
 public:
  template <TPosition pos, int32_t depth>
  void InitBuffer(TQue<pos, depth>& que, uint8_t num, uint32_t len) {
    take(static_cast<uint64_t>(num) * align(len));
    que.init(num, len);
  }
  template <TPosition pos>
  void InitBuffer(TBuf<pos>& buf, uint32_t len) {
    take(align(len));
    buf.init(len);
  }
  void Destroy() { used_ = 0; }
  void Reset() { used_ = 0; }

 private:
  // The pipe's buffers live in the core's Unified Buffer, 32-byte aligned; asking for more than
  // the core has stops the kernel (AscendSim reports the sizes).
  static uint64_t align(uint32_t len) { return (static_cast<uint64_t>(len) + 31) / 32 * 32; }
  void take(uint64_t bytes) {
    used_ += bytes;
    const uint32_t ub = ascendsimAscendCUnifiedBufferBytes();
    if (ub > 0 && used_ > ub) {
      char reason[160];
      std::snprintf(
          reason, sizeof reason,
          "its TPipe buffers take %llu bytes, more than the core's %u bytes of Unified Buffer",
          static_cast<unsigned long long>(used_), ub);
      ascendsimAscendCExceedResource(reason);
    }
  }
  uint64_t used_ = 0;
};

// ---------------------------------------------------------------- data movement

// Global memory to a local tensor (MTE2), a local tensor to global memory (MTE3), local to local.
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count) {
  const detail::LibraryScope scope;
  std::memcpy(dst.GetPhyAddr(), src.GetPhyAddr(), count * sizeof(T));
  ascendsimAscendCCopy(src.GetPhyAddr(), dst.Buffer(), count * sizeof(T), 0);
}
// What a copy out does with the bytes global memory holds (SetAtomicAdd, SetAtomicMax,
// SetAtomicMin; SetAtomicNone: replace them). The core's setting: it stays until changed.
namespace detail {
enum class Atomic { None, Add, Max, Min };
inline Atomic atomicMode = Atomic::None;
// Writes `count` elements of `src` to global memory at `dst` as the atomic setting says.
template <typename T>
inline void storeOut(T* dst, const T* src, uint64_t count) {
  switch (atomicMode) {
    case Atomic::None: std::memcpy(static_cast<void*>(dst), src, count * sizeof(T)); return;
    case Atomic::Add:
      for (uint64_t i = 0; i < count; ++i) dst[i] = static_cast<T>(dst[i] + src[i]);
      return;
    case Atomic::Max:
      for (uint64_t i = 0; i < count; ++i) dst[i] = src[i] > dst[i] ? src[i] : dst[i];
      return;
    case Atomic::Min:
      for (uint64_t i = 0; i < count; ++i) dst[i] = src[i] < dst[i] ? src[i] : dst[i];
      return;
  }
}
// ascendsimAscendCCopyBlocks' flags for a copy out under the atomic setting.
inline int32_t outFlags() {
  return 1 | (atomicMode == Atomic::None ? 0 : 2);
}
}  // namespace detail

template <typename T>
inline void SetAtomicAdd() {
  detail::atomicMode = detail::Atomic::Add;
}
template <typename T>
inline void SetAtomicMax() {
  detail::atomicMode = detail::Atomic::Max;
}
template <typename T>
inline void SetAtomicMin() {
  detail::atomicMode = detail::Atomic::Min;
}
inline void SetAtomicNone() {
  detail::atomicMode = detail::Atomic::None;
}

template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  const detail::LibraryScope scope;
  detail::storeOut(dst.GetPhyAddr(), src.GetPhyAddr(), count);
  ascendsimAscendCCopyBlocks(dst.GetPhyAddr(), src.Buffer(), uint64_t{count} * sizeof(T), 1, 0,
                             detail::outFlags());
}

// Strided copies: `blockCount` blocks of `blockLen` data blocks (32 bytes each), with
// `srcStride` / `dstStride` data blocks between one block's end and the next one's start, on
// either side.
struct DataCopyParams {
  DataCopyParams() = default;
  DataCopyParams(uint16_t count, uint16_t len, uint16_t srcStrideIn, uint16_t dstStrideIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
  uint16_t blockCount = 1;
  uint16_t blockLen = 0;
  uint16_t srcStride = 0;
  uint16_t dstStride = 0;
};
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                     const DataCopyParams& p) {
  const detail::LibraryScope scope;
  const uint64_t len = uint64_t{p.blockLen} * 32;
  auto* to = reinterpret_cast<uint8_t*>(dst.GetPhyAddr());
  const auto* from = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
  for (uint64_t b = 0; b < p.blockCount; ++b) {
    std::memcpy(to + b * (len + p.dstStride * 32u), from + b * (len + p.srcStride * 32u), len);
  }
  ascendsimAscendCCopyBlocks(src.GetPhyAddr(), dst.Buffer(), len, p.blockCount,
                             len + p.srcStride * 32u, 0);
}
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                     const DataCopyParams& p) {
  const detail::LibraryScope scope;
  const uint64_t len = uint64_t{p.blockLen} * 32;
  auto* to = reinterpret_cast<uint8_t*>(dst.GetPhyAddr());
  const auto* from = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
  for (uint64_t b = 0; b < p.blockCount; ++b) {
    detail::storeOut(reinterpret_cast<T*>(to + b * (len + p.dstStride * 32u)),
                     reinterpret_cast<const T*>(from + b * (len + p.srcStride * 32u)),
                     len / sizeof(T));
  }
  ascendsimAscendCCopyBlocks(dst.GetPhyAddr(), src.Buffer(), len, p.blockCount,
                             len + p.dstStride * 32u, detail::outFlags());
}

// Copies of any length (DataCopyPad): `blockCount` blocks of `blockLen` bytes. In global memory
// the blocks are `srcStride` (in) or `dstStride` (out) bytes apart, end to start; in the Unified
// Buffer each block starts on a 32-byte boundary and the strides count 32-byte data blocks. A
// block copied in may be padded: `leftPadding` elements before its data and `rightPadding` after
// it, set to `paddingValue` when `isPad` (otherwise left as they were).
struct DataCopyExtParams {
  DataCopyExtParams() = default;
  DataCopyExtParams(uint16_t count, uint32_t len, uint32_t srcStrideIn, uint32_t dstStrideIn,
                    uint32_t reserved)
      : blockCount(count),
        blockLen(len),
        srcStride(srcStrideIn),
        dstStride(dstStrideIn),
        rsv(reserved) {}
  uint16_t blockCount = 1;
  uint32_t blockLen = 0;
  uint32_t srcStride = 0;
  uint32_t dstStride = 0;
  uint32_t rsv = 0;
};
template <typename T>
struct DataCopyPadExtParams {
  DataCopyPadExtParams() = default;
  DataCopyPadExtParams(bool pad, uint8_t left, uint8_t right, T value)
      : isPad(pad), leftPadding(left), rightPadding(right), paddingValue(value) {}
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  T paddingValue = 0;
};
namespace detail {
inline uint64_t align32(uint64_t bytes) {
  return (bytes + 31) / 32 * 32;
}
}  // namespace detail
template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                        const DataCopyExtParams& p, const DataCopyPadExtParams<T>& pad) {
  const detail::LibraryScope scope;
  const uint64_t left = uint64_t{pad.leftPadding} * sizeof(T);
  const uint64_t right = uint64_t{pad.rightPadding} * sizeof(T);
  const uint64_t footprint =
      detail::align32(left + p.blockLen + right) + uint64_t{p.dstStride} * 32;
  auto* to = reinterpret_cast<uint8_t*>(dst.GetPhyAddr());
  const auto* from = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
  for (uint64_t b = 0; b < p.blockCount; ++b) {
    uint8_t* block = to + b * footprint;
    std::memcpy(block + left, from + b * (uint64_t{p.blockLen} + p.srcStride), p.blockLen);
    if (pad.isPad) {
      T* before = reinterpret_cast<T*>(block);
      T* after = reinterpret_cast<T*>(block + left + p.blockLen);
      for (uint32_t i = 0; i < pad.leftPadding; ++i) before[i] = pad.paddingValue;
      for (uint32_t i = 0; i < pad.rightPadding; ++i) after[i] = pad.paddingValue;
    }
  }
  ascendsimAscendCCopyBlocks(src.GetPhyAddr(), dst.Buffer(), p.blockLen, p.blockCount,
                             uint64_t{p.blockLen} + p.srcStride, 0);
}
template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                        const DataCopyExtParams& p) {
  const detail::LibraryScope scope;
  const uint64_t footprint = detail::align32(p.blockLen) + uint64_t{p.srcStride} * 32;
  auto* to = reinterpret_cast<uint8_t*>(dst.GetPhyAddr());
  const auto* from = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
  for (uint64_t b = 0; b < p.blockCount; ++b) {
    detail::storeOut(reinterpret_cast<T*>(to + b * (uint64_t{p.blockLen} + p.dstStride)),
                     reinterpret_cast<const T*>(from + b * footprint), p.blockLen / sizeof(T));
  }
  ascendsimAscendCCopyBlocks(dst.GetPhyAddr(), src.Buffer(), p.blockLen, p.blockCount,
                             uint64_t{p.blockLen} + p.dstStride, detail::outFlags());
}
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  const detail::LibraryScope scope;
  std::memmove(dst.GetPhyAddr(), src.GetPhyAddr(), count * sizeof(T));
  ascendsimAscendCVector(dst.Buffer(), src.Buffer(), nullptr, uint64_t{count} * sizeof(T));
}

// ---------------------------------------------------------------- vector instructions

namespace detail {
template <typename T, typename F>
inline void binary(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                   int32_t count, F f) {
  const LibraryScope scope;
  T* d = dst.GetPhyAddr();
  const T* x = a.GetPhyAddr();
  const T* y = b.GetPhyAddr();
  for (int32_t i = 0; i < count; ++i) d[i] = f(x[i], y[i]);
  ascendsimAscendCVector(dst.Buffer(), a.Buffer(), b.Buffer(),
                         static_cast<uint64_t>(count) * sizeof(T));
}
template <typename T, typename F>
inline void unary(const LocalTensor<T>& dst, const LocalTensor<T>& a, int32_t count, F f) {
  const LibraryScope scope;
  T* d = dst.GetPhyAddr();
  const T* x = a.GetPhyAddr();
  for (int32_t i = 0; i < count; ++i) d[i] = f(x[i]);
  ascendsimAscendCVector(dst.Buffer(), a.Buffer(), nullptr,
                         static_cast<uint64_t>(count) * sizeof(T));
}
}  // namespace detail

template <typename T>
inline void Add(const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b,
                int32_t n) {
  detail::binary(d, a, b, n, [](T x, T y) { return static_cast<T>(x + y); });
}
template <typename T>
inline void Sub(const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b,
                int32_t n) {
  detail::binary(d, a, b, n, [](T x, T y) { return static_cast<T>(x - y); });
}
template <typename T>
inline void Mul(const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b,
                int32_t n) {
  detail::binary(d, a, b, n, [](T x, T y) { return static_cast<T>(x * y); });
}
template <typename T>
inline void Div(const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b,
                int32_t n) {
  detail::binary(d, a, b, n, [](T x, T y) { return static_cast<T>(x / y); });
}
template <typename T>
inline void Max(const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b,
                int32_t n) {
  detail::binary(d, a, b, n, [](T x, T y) { return x > y ? x : y; });
}
template <typename T>
inline void Min(const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b,
                int32_t n) {
  detail::binary(d, a, b, n, [](T x, T y) { return x < y ? x : y; });
}
template <typename T, typename S>
inline void Adds(const LocalTensor<T>& d, const LocalTensor<T>& a, S s, int32_t n) {
  detail::unary(d, a, n, [s](T x) { return static_cast<T>(x + static_cast<T>(s)); });
}
template <typename T, typename S>
inline void Muls(const LocalTensor<T>& d, const LocalTensor<T>& a, S s, int32_t n) {
  detail::unary(d, a, n, [s](T x) { return static_cast<T>(x * static_cast<T>(s)); });
}
template <typename T, typename S>
inline void Maxs(const LocalTensor<T>& d, const LocalTensor<T>& a, S s, int32_t n) {
  detail::unary(d, a, n, [s](T x) { return x > static_cast<T>(s) ? x : static_cast<T>(s); });
}
template <typename T, typename S>
inline void Mins(const LocalTensor<T>& d, const LocalTensor<T>& a, S s, int32_t n) {
  detail::unary(d, a, n, [s](T x) { return x < static_cast<T>(s) ? x : static_cast<T>(s); });
}
template <typename T>
inline void Exp(const LocalTensor<T>& d, const LocalTensor<T>& a, int32_t n) {
  detail::unary(d, a, n, [](T x) { return static_cast<T>(std::exp(static_cast<float>(x))); });
}
template <typename T>
inline void Ln(const LocalTensor<T>& d, const LocalTensor<T>& a, int32_t n) {
  detail::unary(d, a, n, [](T x) { return static_cast<T>(std::log(static_cast<float>(x))); });
}
template <typename T>
inline void Abs(const LocalTensor<T>& d, const LocalTensor<T>& a, int32_t n) {
  detail::unary(d, a, n, [](T x) { return x < static_cast<T>(0) ? static_cast<T>(-x) : x; });
}
template <typename T>
inline void Sqrt(const LocalTensor<T>& d, const LocalTensor<T>& a, int32_t n) {
  detail::unary(d, a, n, [](T x) { return static_cast<T>(std::sqrt(static_cast<float>(x))); });
}
template <typename T>
inline void Reciprocal(const LocalTensor<T>& d, const LocalTensor<T>& a, int32_t n) {
  detail::unary(d, a, n, [](T x) { return static_cast<T>(static_cast<T>(1) / x); });
}
template <typename T>
inline void Relu(const LocalTensor<T>& d, const LocalTensor<T>& a, int32_t n) {
  detail::unary(d, a, n, [](T x) { return x > static_cast<T>(0) ? x : static_cast<T>(0); });
}
template <typename T, typename S>
inline void Duplicate(const LocalTensor<T>& d, S value, int32_t n) {
  const detail::LibraryScope scope;
  T* p = d.GetPhyAddr();
  for (int32_t i = 0; i < n; ++i) p[i] = static_cast<T>(value);
  ascendsimAscendCVector(d.Buffer(), nullptr, nullptr, static_cast<uint64_t>(n) * sizeof(T));
}
// The repeat forms of vector instructions: each repeat covers 8 data blocks of 32 bytes (256
// bytes) of each operand; a block stride is the distance between a repeat's data blocks and a
// repeat stride the distance between repeats' first blocks, both in data blocks. The mask says
// which elements of a repeat take part: the first `mask` (contiguous mode) or those whose bit is
// set (bitwise mode: mask[0] for elements 0-63, mask[1] for 64-127). Each repeat takes one cycle
// of the vector unit: timed as 256 bytes (docs/ascendc.md, "Timing").
namespace detail {
constexpr uint64_t kRepeatBytes = 256;
constexpr uint64_t kDataBlockBytes = 32;
// Calls f(k, offset) for every element k of repeat `repeat` the mask selects, with its offset in
// elements of T from the operand's start.
template <typename T, typename Selected, typename F>
inline void forRepeat(uint64_t repeat, uint64_t blockStride, uint64_t repeatStride,
                      Selected selected, F f) {
  constexpr uint64_t perBlock = kDataBlockBytes / sizeof(T);
  for (uint64_t b = 0; b < 8; ++b) {
    for (uint64_t j = 0; j < perBlock; ++j) {
      const uint64_t k = b * perBlock + j;
      if (!selected(k)) continue;
      f(k, (repeat * repeatStride + b * blockStride) * perBlock + j);
    }
  }
}
inline auto contiguousMask(uint64_t mask) {
  return [mask](uint64_t k) { return k < mask; };
}
inline auto bitwiseMask(const uint64_t mask[]) {
  const uint64_t low = mask[0], high = mask[1];
  return [low, high](uint64_t k) {
    if (k >= 128) return false;  // two 64-bit words select at most 128 elements
    return k < 64 ? ((low >> k) & 1) != 0 : ((high >> (k - 64)) & 1) != 0;
  };
}
template <typename T, typename S, typename Selected>
inline void duplicateRepeats(const LocalTensor<T>& d, S value, Selected selected, uint8_t repeats,
                             uint16_t blockStride, uint8_t repeatStride) {
  const LibraryScope scope;
  T* p = d.GetPhyAddr();
  const T v = static_cast<T>(value);
  for (uint64_t r = 0; r < repeats; ++r) {
    forRepeat<T>(r, blockStride, repeatStride, selected, [&](uint64_t, uint64_t at) { p[at] = v; });
  }
  ascendsimAscendCVector(d.Buffer(), nullptr, nullptr, repeats * kRepeatBytes);
}
template <typename T, typename Selected>
inline void wholeReduceSum(const LocalTensor<T>& d, const LocalTensor<T>& a, Selected selected,
                           int32_t repeats, int32_t dstRepStride, int32_t srcBlkStride,
                           int32_t srcRepStride) {
  const LibraryScope scope;
  T* out = d.GetPhyAddr();
  const T* x = a.GetPhyAddr();
  for (int32_t r = 0; r < repeats; ++r) {
    float sum = 0;
    forRepeat<T>(static_cast<uint64_t>(r), static_cast<uint64_t>(srcBlkStride),
                 static_cast<uint64_t>(srcRepStride), selected,
                 [&](uint64_t, uint64_t at) { sum += static_cast<float>(x[at]); });
    out[static_cast<int64_t>(r) * dstRepStride] = static_cast<T>(sum);
  }
  ascendsimAscendCVector(d.Buffer(), a.Buffer(), nullptr,
                         static_cast<uint64_t>(repeats > 0 ? repeats : 0) * kRepeatBytes);
}
}  // namespace detail

// The strides of the repeat forms of unary (and scalar) and binary instructions, in data blocks;
// by default a repeat's blocks are contiguous and repeats follow each other.
struct UnaryRepeatParams {
  UnaryRepeatParams() = default;
  UnaryRepeatParams(uint16_t dstBlk, uint16_t srcBlk, uint8_t dstRep, uint8_t srcRep)
      : dstBlkStride(dstBlk), srcBlkStride(srcBlk), dstRepStride(dstRep), srcRepStride(srcRep) {}
  uint32_t blockNumber = 8;
  uint16_t dstBlkStride = 1;
  uint16_t srcBlkStride = 1;
  uint8_t dstRepStride = 8;
  uint8_t srcRepStride = 8;
};
struct BinaryRepeatParams {
  BinaryRepeatParams() = default;
  BinaryRepeatParams(uint8_t dstBlk, uint8_t src0Blk, uint8_t src1Blk, uint8_t dstRep,
                     uint8_t src0Rep, uint8_t src1Rep)
      : dstBlkStride(dstBlk),
        src0BlkStride(src0Blk),
        src1BlkStride(src1Blk),
        dstRepStride(dstRep),
        src0RepStride(src0Rep),
        src1RepStride(src1Rep) {}
  uint32_t blockNumber = 8;
  uint8_t dstBlkStride = 1;
  uint8_t src0BlkStride = 1;
  uint8_t src1BlkStride = 1;
  uint8_t dstRepStride = 8;
  uint8_t src0RepStride = 8;
  uint8_t src1RepStride = 8;
};

namespace detail {
// Element k (of a repeat's 256 bytes) of repeat r of an operand with these strides, in elements.
template <typename T>
inline uint64_t repeatElement(uint64_t r, uint64_t k, uint64_t blockStride, uint64_t repeatStride) {
  constexpr uint64_t perBlock = kDataBlockBytes / sizeof(T);
  return (r * repeatStride + (k / perBlock) * blockStride) * perBlock + k % perBlock;
}
template <typename T, typename Selected, typename F>
inline void binaryRepeats(const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b,
                          Selected selected, uint8_t repeats, const BinaryRepeatParams& p, F f) {
  const LibraryScope scope;
  T* out = d.GetPhyAddr();
  const T* x = a.GetPhyAddr();
  const T* y = b.GetPhyAddr();
  for (uint64_t r = 0; r < repeats; ++r) {
    for (uint64_t k = 0; k < kRepeatBytes / sizeof(T); ++k) {
      if (!selected(k)) continue;
      out[repeatElement<T>(r, k, p.dstBlkStride, p.dstRepStride)] =
          f(x[repeatElement<T>(r, k, p.src0BlkStride, p.src0RepStride)],
            y[repeatElement<T>(r, k, p.src1BlkStride, p.src1RepStride)]);
    }
  }
  ascendsimAscendCVector(d.Buffer(), a.Buffer(), b.Buffer(), repeats * kRepeatBytes);
}
template <typename T, typename Selected, typename F>
inline void unaryRepeats(const LocalTensor<T>& d, const LocalTensor<T>& a, Selected selected,
                         uint8_t repeats, const UnaryRepeatParams& p, F f) {
  const LibraryScope scope;
  T* out = d.GetPhyAddr();
  const T* x = a.GetPhyAddr();
  for (uint64_t r = 0; r < repeats; ++r) {
    for (uint64_t k = 0; k < kRepeatBytes / sizeof(T); ++k) {
      if (!selected(k)) continue;
      out[repeatElement<T>(r, k, p.dstBlkStride, p.dstRepStride)] =
          f(x[repeatElement<T>(r, k, p.srcBlkStride, p.srcRepStride)]);
    }
  }
  ascendsimAscendCVector(d.Buffer(), a.Buffer(), nullptr, repeats * kRepeatBytes);
}
}  // namespace detail

// The repeat forms of the binary, unary and scalar instructions: the elements the mask selects,
// repeat by repeat, with each operand's strides.
#define ASCENDSIM_BINARY_REPEATS(NAME, EXPR)                                                  \
  template <typename T>                                                                       \
  inline void NAME(const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b, \
                   uint64_t mask, uint8_t repeatTimes, const BinaryRepeatParams& p) {         \
    detail::binaryRepeats(d, a, b, detail::contiguousMask(mask), repeatTimes, p,              \
                          [](T x, T y) { return static_cast<T>(EXPR); });                     \
  }                                                                                           \
  template <typename T>                                                                       \
  inline void NAME(const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b, \
                   const uint64_t mask[], uint8_t repeatTimes, const BinaryRepeatParams& p) { \
    detail::binaryRepeats(d, a, b, detail::bitwiseMask(mask), repeatTimes, p,                 \
                          [](T x, T y) { return static_cast<T>(EXPR); });                     \
  }
ASCENDSIM_BINARY_REPEATS(Add, x + y)
ASCENDSIM_BINARY_REPEATS(Sub, x - y)
ASCENDSIM_BINARY_REPEATS(Mul, x* y)
ASCENDSIM_BINARY_REPEATS(Div, x / y)
ASCENDSIM_BINARY_REPEATS(Max, x > y ? x : y)
ASCENDSIM_BINARY_REPEATS(Min, x < y ? x : y)
#undef ASCENDSIM_BINARY_REPEATS

#define ASCENDSIM_UNARY_REPEATS(NAME, EXPR)                                                 \
  template <typename T>                                                                     \
  inline void NAME(const LocalTensor<T>& d, const LocalTensor<T>& a, uint64_t mask,         \
                   uint8_t repeatTimes, const UnaryRepeatParams& p) {                       \
    detail::unaryRepeats(d, a, detail::contiguousMask(mask), repeatTimes, p,                \
                         [](T x) { return static_cast<T>(EXPR); });                         \
  }                                                                                         \
  template <typename T>                                                                     \
  inline void NAME(const LocalTensor<T>& d, const LocalTensor<T>& a, const uint64_t mask[], \
                   uint8_t repeatTimes, const UnaryRepeatParams& p) {                       \
    detail::unaryRepeats(d, a, detail::bitwiseMask(mask), repeatTimes, p,                   \
                         [](T x) { return static_cast<T>(EXPR); });                         \
  }
ASCENDSIM_UNARY_REPEATS(Exp, std::exp(static_cast<float>(x)))
ASCENDSIM_UNARY_REPEATS(Ln, std::log(static_cast<float>(x)))
ASCENDSIM_UNARY_REPEATS(Abs, x < static_cast<T>(0) ? static_cast<T>(-x) : x)
ASCENDSIM_UNARY_REPEATS(Sqrt, std::sqrt(static_cast<float>(x)))
ASCENDSIM_UNARY_REPEATS(Reciprocal, static_cast<T>(1) / x)
ASCENDSIM_UNARY_REPEATS(Relu, x > static_cast<T>(0) ? x : static_cast<T>(0))
#undef ASCENDSIM_UNARY_REPEATS

#define ASCENDSIM_SCALAR_REPEATS(NAME, EXPR)                                                  \
  template <typename T, typename S>                                                           \
  inline void NAME(const LocalTensor<T>& d, const LocalTensor<T>& a, S scalar, uint64_t mask, \
                   uint8_t repeatTimes, const UnaryRepeatParams& p) {                         \
    const T s = static_cast<T>(scalar);                                                       \
    detail::unaryRepeats(d, a, detail::contiguousMask(mask), repeatTimes, p,                  \
                         [s](T x) { return static_cast<T>(EXPR); });                          \
  }                                                                                           \
  template <typename T, typename S>                                                           \
  inline void NAME(const LocalTensor<T>& d, const LocalTensor<T>& a, S scalar,                \
                   const uint64_t mask[], uint8_t repeatTimes, const UnaryRepeatParams& p) {  \
    const T s = static_cast<T>(scalar);                                                       \
    detail::unaryRepeats(d, a, detail::bitwiseMask(mask), repeatTimes, p,                     \
                         [s](T x) { return static_cast<T>(EXPR); });                          \
  }
ASCENDSIM_SCALAR_REPEATS(Adds, x + s)
ASCENDSIM_SCALAR_REPEATS(Muls, x* s)
ASCENDSIM_SCALAR_REPEATS(Maxs, x > s ? x : s)
ASCENDSIM_SCALAR_REPEATS(Mins, x < s ? x : s)
#undef ASCENDSIM_SCALAR_REPEATS

// Duplicate's repeat forms: `value` into the elements the mask selects, repeat by repeat.
template <typename T, typename S>
inline void Duplicate(const LocalTensor<T>& d, S value, uint64_t mask, uint8_t repeatTimes,
                      uint16_t dstBlockStride, uint8_t dstRepeatStride) {
  detail::duplicateRepeats(d, value, detail::contiguousMask(mask), repeatTimes, dstBlockStride,
                           dstRepeatStride);
}
template <typename T, typename S>
inline void Duplicate(const LocalTensor<T>& d, S value, const uint64_t mask[], uint8_t repeatTimes,
                      uint16_t dstBlockStride, uint8_t dstRepeatStride) {
  detail::duplicateRepeats(d, value, detail::bitwiseMask(mask), repeatTimes, dstBlockStride,
                           dstRepeatStride);
}

// dst[r * dstRepStride] = the sum of the elements of repeat r the mask selects.
template <typename T>
inline void WholeReduceSum(const LocalTensor<T>& d, const LocalTensor<T>& a, int32_t mask,
                           int32_t repeatTimes, int32_t dstRepStride, int32_t srcBlkStride,
                           int32_t srcRepStride) {
  detail::wholeReduceSum(d, a, detail::contiguousMask(static_cast<uint64_t>(mask)), repeatTimes,
                         dstRepStride, srcBlkStride, srcRepStride);
}
template <typename T>
inline void WholeReduceSum(const LocalTensor<T>& d, const LocalTensor<T>& a, const uint64_t mask[],
                           int32_t repeatTimes, int32_t dstRepStride, int32_t srcBlkStride,
                           int32_t srcRepStride) {
  detail::wholeReduceSum(d, a, detail::bitwiseMask(mask), repeatTimes, dstRepStride, srcBlkStride,
                         srcRepStride);
}

// RepeatReduceSum: WholeReduceSum's contiguous form with a (meaningless) dstBlkStride.
template <typename T>
inline void RepeatReduceSum(const LocalTensor<T>& d, const LocalTensor<T>& a, int32_t repeatTimes,
                            int32_t mask, int32_t dstBlkStride, int32_t srcBlkStride,
                            int32_t dstRepStride, int32_t srcRepStride) {
  (void)dstBlkStride;
  WholeReduceSum(d, a, mask, repeatTimes, dstRepStride, srcBlkStride, srcRepStride);
}

// BlockReduceSum / Max / Min: per repeat, one result per data block (8 a repeat) over the block's
// elements the mask selects, at dst[8 (r x dstRepStride) + b] (dstRepStride counts a repeat's 8
// results). A block none of whose elements is selected gives 0 (AscendSim's choice).
namespace detail {
template <typename T, typename Selected, typename Combine>
inline void blockReduce(const LocalTensor<T>& d, const LocalTensor<T>& a, Selected selected,
                        int32_t repeats, int32_t dstRepStride, int32_t srcBlkStride,
                        int32_t srcRepStride, Combine combine) {
  const LibraryScope scope;
  constexpr uint64_t perBlock = kDataBlockBytes / sizeof(T);
  T* out = d.GetPhyAddr();
  const T* x = a.GetPhyAddr();
  for (int32_t r = 0; r < repeats; ++r) {
    float acc[8] = {};
    bool any[8] = {};
    forRepeat<T>(static_cast<uint64_t>(r), static_cast<uint64_t>(srcBlkStride),
                 static_cast<uint64_t>(srcRepStride), selected, [&](uint64_t k, uint64_t at) {
                   const uint64_t b = k / perBlock;
                   const float v = static_cast<float>(x[at]);
                   acc[b] = any[b] ? combine(acc[b], v) : v;
                   any[b] = true;
                 });
    for (uint64_t b = 0; b < 8; ++b) {
      out[static_cast<uint64_t>(r) * static_cast<uint64_t>(dstRepStride) * 8 + b] =
          static_cast<T>(acc[b]);
    }
  }
  ascendsimAscendCVector(d.Buffer(), a.Buffer(), nullptr,
                         static_cast<uint64_t>(repeats > 0 ? repeats : 0) * kRepeatBytes);
}
}  // namespace detail
#define ASCENDSIM_BLOCK_REDUCE(NAME, COMBINE)                                                     \
  template <typename T>                                                                           \
  inline void NAME(const LocalTensor<T>& d, const LocalTensor<T>& a, int32_t repeatTimes,         \
                   int32_t mask, int32_t dstRepStride, int32_t srcBlkStride,                      \
                   int32_t srcRepStride) {                                                        \
    detail::blockReduce(d, a, detail::contiguousMask(static_cast<uint64_t>(mask)), repeatTimes,   \
                        dstRepStride, srcBlkStride, srcRepStride,                                 \
                        [](float x, float y) { return COMBINE; });                                \
  }                                                                                               \
  template <typename T>                                                                           \
  inline void NAME(const LocalTensor<T>& d, const LocalTensor<T>& a, int32_t repeatTimes,         \
                   const uint64_t mask[], int32_t dstRepStride, int32_t srcBlkStride,             \
                   int32_t srcRepStride) {                                                        \
    detail::blockReduce(d, a, detail::bitwiseMask(mask), repeatTimes, dstRepStride, srcBlkStride, \
                        srcRepStride, [](float x, float y) { return COMBINE; });                  \
  }
ASCENDSIM_BLOCK_REDUCE(BlockReduceSum, x + y)
ASCENDSIM_BLOCK_REDUCE(BlockReduceMax, x > y ? x : y)
ASCENDSIM_BLOCK_REDUCE(BlockReduceMin, x < y ? x : y)
#undef ASCENDSIM_BLOCK_REDUCE

// WholeReduceMax / WholeReduceMin: per repeat, the greatest (least) of the elements the mask
// selects, the first of equals, and its index within the repeat (k, the element's place among the
// repeat's 256 bytes), written as `order` says: value then index (each in a slot of T's width, the
// index an unsigned integer; dstRepStride counts such pairs), index then value, the value only
// (dstRepStride counts elements of T) or the index only (a uint32_t; dstRepStride counts them).
enum class ReduceOrder { ORDER_VALUE_INDEX, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };
namespace detail {
template <typename T, typename Selected, typename Better>
inline void wholeReduceBest(const LocalTensor<T>& d, const LocalTensor<T>& a, Selected selected,
                            int32_t repeats, int32_t dstRepStride, int32_t srcBlkStride,
                            int32_t srcRepStride, ReduceOrder order, Better better) {
  const LibraryScope scope;
  using Index = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
  auto* out = reinterpret_cast<uint8_t*>(d.GetPhyAddr());
  const T* x = a.GetPhyAddr();
  for (int32_t r = 0; r < repeats; ++r) {
    bool found = false;
    T best = static_cast<T>(0);
    uint32_t bestAt = 0;
    forRepeat<T>(static_cast<uint64_t>(r), static_cast<uint64_t>(srcBlkStride),
                 static_cast<uint64_t>(srcRepStride), selected, [&](uint64_t k, uint64_t at) {
                   if (!found || better(x[at], best)) {
                     best = x[at];
                     bestAt = static_cast<uint32_t>(k);
                     found = true;
                   }
                 });
    const Index index = static_cast<Index>(bestAt);
    const uint64_t slot = static_cast<uint64_t>(r) * static_cast<uint64_t>(dstRepStride);
    switch (order) {
      case ReduceOrder::ORDER_VALUE_INDEX:
        std::memcpy(out + slot * 2 * sizeof(T), &best, sizeof(T));
        std::memcpy(out + slot * 2 * sizeof(T) + sizeof(T), &index, sizeof index);
        break;
      case ReduceOrder::ORDER_INDEX_VALUE:
        std::memcpy(out + slot * 2 * sizeof(T), &index, sizeof index);
        std::memcpy(out + slot * 2 * sizeof(T) + sizeof(T), &best, sizeof(T));
        break;
      case ReduceOrder::ORDER_ONLY_VALUE:
        std::memcpy(out + slot * sizeof(T), &best, sizeof(T));
        break;
      case ReduceOrder::ORDER_ONLY_INDEX:
        std::memcpy(out + slot * sizeof(uint32_t), &bestAt, sizeof bestAt);
        break;
    }
  }
  ascendsimAscendCVector(d.Buffer(), a.Buffer(), nullptr,
                         static_cast<uint64_t>(repeats > 0 ? repeats : 0) * kRepeatBytes);
}
}  // namespace detail
template <typename T>
inline void WholeReduceMax(const LocalTensor<T>& d, const LocalTensor<T>& a, int32_t mask,
                           int32_t repeatTimes, int32_t dstRepStride, int32_t srcBlkStride,
                           int32_t srcRepStride,
                           ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  detail::wholeReduceBest(d, a, detail::contiguousMask(static_cast<uint64_t>(mask)), repeatTimes,
                          dstRepStride, srcBlkStride, srcRepStride, order,
                          [](T x, T y) { return x > y; });
}
template <typename T>
inline void WholeReduceMax(const LocalTensor<T>& d, const LocalTensor<T>& a, const uint64_t mask[],
                           int32_t repeatTimes, int32_t dstRepStride, int32_t srcBlkStride,
                           int32_t srcRepStride,
                           ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  detail::wholeReduceBest(d, a, detail::bitwiseMask(mask), repeatTimes, dstRepStride, srcBlkStride,
                          srcRepStride, order, [](T x, T y) { return x > y; });
}
template <typename T>
inline void WholeReduceMin(const LocalTensor<T>& d, const LocalTensor<T>& a, int32_t mask,
                           int32_t repeatTimes, int32_t dstRepStride, int32_t srcBlkStride,
                           int32_t srcRepStride,
                           ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  detail::wholeReduceBest(d, a, detail::contiguousMask(static_cast<uint64_t>(mask)), repeatTimes,
                          dstRepStride, srcBlkStride, srcRepStride, order,
                          [](T x, T y) { return x < y; });
}
template <typename T>
inline void WholeReduceMin(const LocalTensor<T>& d, const LocalTensor<T>& a, const uint64_t mask[],
                           int32_t repeatTimes, int32_t dstRepStride, int32_t srcBlkStride,
                           int32_t srcRepStride,
                           ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  detail::wholeReduceBest(d, a, detail::bitwiseMask(mask), repeatTimes, dstRepStride, srcBlkStride,
                          srcRepStride, order, [](T x, T y) { return x < y; });
}

// Compare / Compares: bit i of dst (byte i / 8, bit i % 8, as an unsigned mask of any width) is
// 1 when src0[i] compares true with src1[i] (or the scalar), for the first `count` elements.
// Select: dst[i] = src0[i] where bit i of selMask is set, else src1[i] (or the scalar). Each is one
// pass of the vector unit over its operands' elements.
enum class CMPMODE { LT, GT, EQ, LE, GE, NE };
enum class SELMODE { VSEL_CMPMASK_SPR, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
namespace detail {
template <typename T>
inline bool compares(T a, T b, CMPMODE mode) {
  switch (mode) {
    case CMPMODE::LT: return a < b;
    case CMPMODE::GT: return a > b;
    case CMPMODE::EQ: return a == b;
    case CMPMODE::LE: return a <= b;
    case CMPMODE::GE: return a >= b;
    case CMPMODE::NE: return a != b;
  }
  return false;
}
template <typename U, typename T, typename Rhs>
inline void compareInto(const LocalTensor<U>& dst, const LocalTensor<T>& a, Rhs rhs, CMPMODE mode,
                        uint32_t count, const void* src1Buffer) {
  const LibraryScope scope;
  auto* bits = reinterpret_cast<uint8_t*>(dst.GetPhyAddr());
  const T* x = a.GetPhyAddr();
  std::memset(bits, 0, (count + 7) / 8);
  for (uint32_t i = 0; i < count; ++i) {
    if (compares(x[i], rhs(i), mode))
      bits[i / 8] = static_cast<uint8_t>(bits[i / 8] | (1u << (i % 8)));
  }
  ascendsimAscendCVector(dst.Buffer(), a.Buffer(), src1Buffer, uint64_t{count} * sizeof(T));
}
template <typename T, typename U, typename Rhs>
inline void selectInto(const LocalTensor<T>& dst, const LocalTensor<U>& mask,
                       const LocalTensor<T>& a, Rhs rhs, uint32_t count, const void* src1Buffer) {
  const LibraryScope scope;
  const auto* bits = reinterpret_cast<const uint8_t*>(mask.GetPhyAddr());
  T* out = dst.GetPhyAddr();
  const T* x = a.GetPhyAddr();
  for (uint32_t i = 0; i < count; ++i) out[i] = ((bits[i / 8] >> (i % 8)) & 1) != 0 ? x[i] : rhs(i);
  // The timing follows two of its sources: src0 and src1, or src0 and the mask with a scalar. (A
  // mask from Compare is written by the vector unit, whose instructions run in order anyway.)
  ascendsimAscendCVector(dst.Buffer(), a.Buffer(), src1Buffer ? src1Buffer : mask.Buffer(),
                         uint64_t{count} * sizeof(T));
}
}  // namespace detail
template <typename T, typename U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                    const LocalTensor<T>& src1, CMPMODE mode, uint32_t count) {
  const T* y = src1.GetPhyAddr();
  detail::compareInto(
      dst, src0, [y](uint32_t i) { return y[i]; }, mode, count, src1.Buffer());
}
template <typename T, typename U, typename S>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, S scalar, CMPMODE mode,
                     uint32_t count) {
  const T v = static_cast<T>(scalar);
  detail::compareInto(
      dst, src0, [v](uint32_t) { return v; }, mode, count, nullptr);
}
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask,
                   const LocalTensor<T>& src0, const LocalTensor<T>& src1, SELMODE,
                   uint32_t count) {
  const T* y = src1.GetPhyAddr();
  detail::selectInto(
      dst, selMask, src0, [y](uint32_t i) { return y[i]; }, count, src1.Buffer());
}
template <typename T, typename U, typename S,
          typename = std::enable_if_t<!std::is_same_v<std::decay_t<S>, LocalTensor<T>>>>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask,
                   const LocalTensor<T>& src0, S scalar, SELMODE, uint32_t count) {
  const T v = static_cast<T>(scalar);
  detail::selectInto(
      dst, selMask, src0, [v](uint32_t) { return v; }, count, nullptr);
}

// Fill (InitConstValue) of a buffer of the cube's positions: `repeatTimes` repeats of `blockNum`
// blocks (32 bytes in A1 / B1, 512 bytes in A2 / B2), `dstGap` blocks apart; with blockNum and
// dstGap 0, repeats of 512 bytes one after the other (what the older cores support). Timed on the
// vector unit as the bytes it writes (assumed: docs/ascendc.md).
template <typename T>
struct InitConstValueParams {
  InitConstValueParams() = default;
  InitConstValueParams(uint16_t repeats, uint16_t blocks, uint16_t gap, T value)
      : repeatTimes(repeats), blockNum(blocks), dstGap(gap), initValue(value) {}
  InitConstValueParams(uint16_t repeats, T value) : repeatTimes(repeats), initValue(value) {}
  uint16_t repeatTimes = 0;
  uint16_t blockNum = 0;
  uint16_t dstGap = 0;
  T initValue = 0;
};
template <typename T, typename U>
inline void Fill(const LocalTensor<T>& d, const InitConstValueParams<U>& p) {
  const detail::LibraryScope scope;
  const TPosition pos = d.Position();
  const uint64_t block = pos == TPosition::A2 || pos == TPosition::B2 ? 512 : 32;
  const bool plain = p.blockNum == 0 && p.dstGap == 0;
  const uint64_t bytesPerRepeat = plain ? 512 : p.blockNum * block;
  const uint64_t stride = plain ? 512 : (uint64_t{p.blockNum} + p.dstGap) * block;
  T* base = d.GetPhyAddr();
  const T v = static_cast<T>(p.initValue);
  for (uint64_t r = 0; r < p.repeatTimes; ++r) {
    T* at = base + r * stride / sizeof(T);
    for (uint64_t i = 0; i < bytesPerRepeat / sizeof(T); ++i) at[i] = v;
  }
  ascendsimAscendCVector(d.Buffer(), nullptr, nullptr, p.repeatTimes * bytesPerRepeat);
}
template <typename T, typename U>
inline void InitConstValue(const LocalTensor<T>& d, const InitConstValueParams<U>& p) {
  Fill(d, p);
}

// dst[0] = the least (ReduceMin) or greatest (ReduceMax) of src's `count` elements, the first of
// equals; with calIndex, dst[1] holds its index as an unsigned integer of T's width (read it back
// through ReinterpretCast or GetValue's bits). One pass of the vector unit over src, like
// ReduceSum.
namespace detail {
template <typename T, typename Better>
inline void reduceBest(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count,
                       bool calIndex, Better better) {
  const LibraryScope scope;
  const T* x = src.GetPhyAddr();
  int32_t best = 0;
  for (int32_t i = 1; i < count; ++i) {
    if (better(x[i], x[best])) best = i;
  }
  T* out = dst.GetPhyAddr();
  out[0] = count > 0 ? x[best] : static_cast<T>(0);
  if (calIndex) {
    using Index = std::conditional_t<
        sizeof(T) == 2, uint16_t,
        std::conditional_t<sizeof(T) == 4, uint32_t,
                           std::conditional_t<sizeof(T) == 8, uint64_t, uint8_t>>>;
    const Index index = static_cast<Index>(best);
    std::memcpy(static_cast<void*>(out + 1), &index, sizeof index);
  }
  ascendsimAscendCVector(dst.Buffer(), src.Buffer(), nullptr,
                         static_cast<uint64_t>(count > 0 ? count : 0) * sizeof(T));
}
}  // namespace detail
template <typename T>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& work, int32_t count, bool calIndex = false) {
  (void)work;
  detail::reduceBest(dst, src, count, calIndex, [](T a, T b) { return a < b; });
}
template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& work, int32_t count, bool calIndex = false) {
  (void)work;
  detail::reduceBest(dst, src, count, calIndex, [](T a, T b) { return a > b; });
}

// dst[0] = the sum of src's `count` elements (`work` is the scratch buffer the device uses; not
// needed here). Timed as one pass of the vector unit over src (docs/ascendc.md).
template <typename T>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& work, int32_t count) {
  const detail::LibraryScope scope;
  (void)work;
  float sum = 0;
  const T* x = src.GetPhyAddr();
  for (int32_t i = 0; i < count; ++i) sum += static_cast<float>(x[i]);
  dst.GetPhyAddr()[0] = static_cast<T>(sum);
  ascendsimAscendCVector(dst.Buffer(), src.Buffer(), nullptr,
                         static_cast<uint64_t>(count) * sizeof(T));
}
// Element type conversion; the rounding mode is ignored (round to nearest, as the host does).
enum class RoundMode {
  CAST_NONE,
  CAST_RINT,
  CAST_FLOOR,
  CAST_CEIL,
  CAST_ROUND,
  CAST_TRUNC,
  CAST_ODD
};
template <typename D, typename S>
inline void Cast(const LocalTensor<D>& d, const LocalTensor<S>& a, RoundMode, int32_t n) {
  const detail::LibraryScope scope;
  D* p = d.GetPhyAddr();
  const S* x = a.GetPhyAddr();
  for (int32_t i = 0; i < n; ++i) p[i] = static_cast<D>(x[i]);
  ascendsimAscendCVector(
      d.Buffer(), a.Buffer(), nullptr,
      static_cast<uint64_t>(n) * (sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S)));
}

}  // namespace AscendC

// The Std helpers, LocalMemAllocator, GatherMask and Broadcast.
#include "ascendsim/ascendc_more.h"

#define block_idx (AscendC::GetBlockIdx())
#define block_num (AscendC::GetBlockNum())

#endif
