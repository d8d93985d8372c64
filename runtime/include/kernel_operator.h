/*
 * kernel_operator.h for Ascend C kernels compiled for the host by AscendSim's ascendc_library
 * (ascendc.cmake). What the kernel sees:
 * - qualifiers (__global__, __aicore__, __gm__ empty), GM_ADDR, block_idx / block_num,
 *   AscendC::GetBlockIdx / GetBlockNum, AscendC::printf (in block order, at the kernel's
 *   simulated start), trap;
 * - global memory: the device's memory at its own addresses, through __gm__ pointers or
 *   GlobalTensor;
 * - the vector interface: TPipe, TQue (VECIN / VECOUT / VECCALC), TBuf, LocalTensor in the core's
 *   Unified Buffer (host memory here), DataCopy between global memory and local tensors, and the
 *   vector instructions below. Blocks run one after the other, so queues and barriers only order
 *   what already runs in order.
 * Timing (docs/ascendc.md, "Timing"): each DataCopy and vector instruction tells the runtime what
 * it moved and which local buffers it read and wrote; the runtime times them on the core's MTE2,
 * vector and MTE3 pipes, which overlap where the buffers allow (double-buffered queues).
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
enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL };
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
  LocalTensor(T* data, uint32_t size, const void* buffer = nullptr)
      : data_(data), size_(size), buffer_(buffer ? buffer : data) {}
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
    return LocalTensor(data_ + offset, size_ > offset ? size_ - offset : 0, buffer_);
  }
  uint32_t GetSize() const { return size_; }
  T* GetPhyAddr() const { return data_; }
  // The buffer (of a queue or TBuf) the tensor lies in: what the timing follows.
  const void* Buffer() const { return buffer_; }
  template <typename U>
  LocalTensor<U> ReinterpretCast() const {
    return LocalTensor<U>(reinterpret_cast<U*>(data_),
                          static_cast<uint32_t>(size_ * sizeof(T) / sizeof(U)), buffer_);
  }

 private:
  T* data_ = nullptr;
  uint32_t size_ = 0;  // elements
  const void* buffer_ = nullptr;
};

// ---------------------------------------------------------------- buffers: queues and TBuf

namespace detail {
// A core's Unified Buffer, as buffers of `len` bytes carved from host memory.
struct BufferPool {
  std::vector<std::unique_ptr<uint8_t[]>> storage;
  std::vector<bool> inUse;
  size_t cursor = 0;  // the buffer to try first
  std::deque<uint8_t*> queued;
  uint32_t len = 0;
  void init(uint32_t num, uint32_t bytes) {
    len = bytes;
    for (uint32_t i = 0; i < num; ++i) {
      storage.emplace_back(new uint8_t[bytes + 32]());
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
    return LocalTensor<T>(reinterpret_cast<T*>(p), pool_.len / sizeof(T));
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
    return LocalTensor<T>(reinterpret_cast<T*>(p), pool_.len / sizeof(T));
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
    return LocalTensor<T>(reinterpret_cast<T*>(pool_.storage.front().get()), pool_.len / sizeof(T));
  }
  template <typename T>
  LocalTensor<T> Get(uint32_t count) {
    return LocalTensor<T>(reinterpret_cast<T*>(pool_.storage.front().get()), count);
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
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  const detail::LibraryScope scope;
  std::memcpy(dst.GetPhyAddr(), src.GetPhyAddr(), count * sizeof(T));
  ascendsimAscendCCopy(dst.GetPhyAddr(), src.Buffer(), count * sizeof(T), 1);
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

#define block_idx (AscendC::GetBlockIdx())
#define block_num (AscendC::GetBlockNum())

#endif
