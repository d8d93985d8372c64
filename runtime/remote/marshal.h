#pragma once
// How a served call's parameters travel, declared once per AscendCL function and used by both
// ends: the program's entry point encodes its arguments (forward<&fn>), the server decodes them,
// runs the same entry point on the program thread's stand-in and returns what it wrote.
//
//   ASCENDSIM_SERVED(aclrtMalloc, Out, Val, Val)   // in runtime/api/served_calls.h
//   ASCENDSIM_FORWARD(aclrtMalloc, devPtr, size, policy);   // first line of the entry point
//
// Roles: Val (a number, enum or handle: device pointers, streams and events mean the same in
// every process), Whole (a struct passed by value), Out (T*: one T written back on success), In
// (const T*: one T read), InOut (T*: one T read, and written back on success), Str (a string),
// InArray<N> / OutArray<N> (as many elements as argument N says, read / written back), OutChars<B>
// (char*: B bytes written back), RankArray<C> / RankMatrix<C> (const void*: uint64_t counts, one
// per rank / rank x rank, of the communicator in argument C; the program knows its communicators'
// sizes: rememberRanks), Src2d/Dst2d<P, W, H> (the rows of a 2D copy, staged row by row),
// OutText<N> (char*: as many bytes as argument N says, written back), Src<N> / Dst<N> (host data of
// argument N bytes: the program's own memory goes through a shared staging buffer; pinned and
// device memory are passed as they are).

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/core/kernel_sandbox.h"
#include "runtime/remote/machine_client.h"
#include "runtime/remote/wire.h"

namespace ascendsim::remote {

struct Val {};
struct Whole {};  // a struct passed by value
struct Out {};
struct In {};
struct InOut {};
struct Str {};
template <size_t N>
struct InArray {};
template <size_t N>
struct OutArray {};
template <size_t N>
using OutText = OutArray<N>;  // char*: the bytes of a text
template <size_t B>
struct OutChars {};
// InBytes<N> (void*: as many bytes as argument N says, read; when more than a call carries, none
// travel and the server's copy says `cut`).
template <size_t N>
struct InBytes {};
template <size_t C>
struct RankArray {};
template <size_t C>
struct RankMatrix {};
// Host data of a 2D copy: rows of argument W bytes, argument P apart, argument H of them.
template <size_t P, size_t W, size_t H>
struct Src2d {};
template <size_t P, size_t W, size_t H>
struct Dst2d {};
template <size_t N>
struct Src {};
template <size_t N>
struct Dst {};

template <auto Fn>
struct Served;  // each served function's name and roles (ASCENDSIM_SERVED)

// ASCENDSIM_SERVED_ASYNC: an asynchronous call (it only queues work) sent without waiting for its
// result when it stages nothing; a failure comes back from the thread's next call that waits.
// ASCENDSIM_SERVED_LEARNED: a call whose answer to the same arguments stays the same until a call
// declared ASCENDSIM_SERVED_CHANGES (or _REPEATS) changes it (the thread's device and context,
// the machine's static facts): after the machine's first successful answer the program gives it
// itself (Answer in machine_client.h). A failure is never learned: it is asked every time.
#define ASCENDSIM_SERVED_WITH(fn, async, answers, ...) \
  template <>                                          \
  struct Served<&fn> {                                 \
    static constexpr const char* name = #fn;           \
    static constexpr bool pipelined = async;           \
    static constexpr Answer answer = Answer::answers;  \
    using Roles = std::tuple<__VA_ARGS__>;             \
  };
#define ASCENDSIM_SERVED_AS(fn, async, ...) ASCENDSIM_SERVED_WITH(fn, async, Served, __VA_ARGS__)
#define ASCENDSIM_SERVED(fn, ...) ASCENDSIM_SERVED_AS(fn, false, __VA_ARGS__)
#define ASCENDSIM_SERVED_ASYNC(fn, ...) ASCENDSIM_SERVED_AS(fn, true, __VA_ARGS__)
#define ASCENDSIM_SERVED_LEARNED(fn, ...) ASCENDSIM_SERVED_WITH(fn, false, Learned, __VA_ARGS__)
#define ASCENDSIM_SERVED_CHANGES(fn, ...) ASCENDSIM_SERVED_WITH(fn, false, Changes, __VA_ARGS__)
#define ASCENDSIM_SERVED_REPEATS(fn, ...) ASCENDSIM_SERVED_WITH(fn, false, Repeats, __VA_ARGS__)

template <class Fn>
struct Params;
template <class R, class... A>
struct Params<R (*)(A...)> {
  using Tuple = std::tuple<A...>;
  using Result = R;
};

template <class T>
uint64_t bitsOf(const T& v) {
  static_assert(sizeof(T) <= sizeof(uint64_t) && std::is_trivially_copyable_v<T>);
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}
template <class T>
T fromBits(uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// An enum argument travels as the bits the program passed, never loaded as the enum: a value
// outside the enum's range (which the runtime refuses with CANN's code) is not a valid load, and
// UBSan stops it. In-process calls read enums the same way (rawEnum in runtime/api/api_call.h).
template <class P>
struct EnumBits {
  std::underlying_type_t<P> raw;
};
template <class P>
using Carried = std::conditional_t<std::is_enum_v<P>, EnumBits<P>, P>;

// Argument `arg` as parameter type P carries it: converted as the call would convert it, or an
// enum's bits.
template <class P, class A>
Carried<P> carry(const A& arg) {
  if constexpr (std::is_enum_v<P>) {
    static_assert(std::is_same_v<A, P>, "an enum parameter takes its own enum type");
    EnumBits<P> bits;
    std::memcpy(&bits.raw, &arg, sizeof bits.raw);
    return bits;
  } else {
    return arg;
  }
}

template <class Types, size_t... I, class... A>
auto carryAll(std::index_sequence<I...>, const A&... args) {
  return std::tuple<Carried<std::tuple_element_t<I, Types>>...>{
      carry<std::tuple_element_t<I, Types>>(args)...};
}

// ---------------------------------------------------------------- the program's end

template <class Role>
struct ClientArg {  // Val
  template <class P, class All>
  bool put(WireWriter& w, P v, const All&) {
    w.u64(bitsOf(v));
    return true;
  }
  template <class P, class All>
  void take(WireReader&, P, const All&) {}
};

template <>
struct ClientArg<Whole> {
  template <class P, class All>
  bool put(WireWriter& w, const P& v, const All&) {
    static_assert(std::is_trivially_copyable_v<P>);
    w.blob(&v, sizeof v);
    return true;
  }
  template <class P, class All>
  void take(WireReader&, const P&, const All&) {}
};

template <>
struct ClientArg<Out> {
  template <class P, class All>
  bool put(WireWriter& w, P v, const All&) {
    w.u8(v != nullptr);
    return true;
  }
  template <class P, class All>
  void take(WireReader& r, P v, const All&) {
    if (v) r.blobInto(v, sizeof *v);
  }
};

template <>
struct ClientArg<In> {
  template <class P, class All>
  bool put(WireWriter& w, P v, const All&) {
    w.u8(v != nullptr);
    if (v) w.blob(v, sizeof *v);
    return true;
  }
  template <class P, class All>
  void take(WireReader&, P, const All&) {}
};

template <>
struct ClientArg<InOut> {
  template <class P, class All>
  bool put(WireWriter& w, P v, const All&) {
    w.u8(v != nullptr);
    if (v) w.blob(v, sizeof *v);
    return true;
  }
  template <class P, class All>
  void take(WireReader& r, P v, const All&) {
    if (v) r.blobInto(v, sizeof *v);
  }
};

template <>
struct ClientArg<Str> {
  template <class P, class All>
  bool put(WireWriter& w, P v, const All&) {
    w.u8(v != nullptr);
    if (v) w.text(v);
    return true;
  }
  template <class P, class All>
  void take(WireReader&, P, const All&) {}
};

// The most bytes an array argument carries either way: a longer one is refused before it is sent
// (the call's invalid-parameter code, saying so), never sent to be cut off by the server.
constexpr uint64_t kMostArrayBytes = 1u << 20;

template <size_t N>
struct ClientArg<InArray<N>> {
  uint64_t tooLong = 0;  // elements, when more than a call carries
  template <class P, class All>
  bool put(WireWriter& w, P v, const All& all) {
    const uint64_t n = static_cast<uint64_t>(std::get<N>(all));
    if (v && n > kMostArrayBytes / sizeof *v) tooLong = n;
    w.u8(v != nullptr);
    if (v && !tooLong) w.blob(v, n * sizeof *v);
    return true;
  }
  template <class P, class All>
  void take(WireReader&, P, const All&) {}
};

template <size_t N>
struct ClientArg<OutArray<N>> {
  uint64_t tooLong = 0;
  template <class P, class All>
  bool put(WireWriter& w, P v, const All& all) {
    const uint64_t n = static_cast<uint64_t>(std::get<N>(all));
    if (v && n > kMostArrayBytes / sizeof *v) tooLong = n;
    w.u8(v != nullptr);
    w.u64(n);
    return true;
  }
  template <class P, class All>
  void take(WireReader& r, P v, const All& all) {
    if (v) r.blobInto(v, static_cast<uint64_t>(std::get<N>(all)) * sizeof *v);
  }
};

template <size_t N>
struct ClientArg<InBytes<N>> {
  template <class P, class All>
  bool put(WireWriter& w, P v, const All& all) {
    const uint64_t n = static_cast<uint64_t>(std::get<N>(all));
    w.u8(v != nullptr);
    w.u64(n);
    if (v && n <= kMostArrayBytes) w.blob(v, n);
    return true;
  }
  template <class P, class All>
  void take(WireReader&, P, const All&) {}
};

template <size_t B>
struct ClientArg<OutChars<B>> {
  template <class P, class All>
  bool put(WireWriter& w, P v, const All&) {
    w.u8(v != nullptr);
    return true;
  }
  template <class P, class All>
  void take(WireReader& r, P v, const All&) {
    if (v) r.blobInto(v, B);
  }
};

// Counts per rank of the communicator in argument C (its size as this program made it; none for
// a communicator it did not make, which the server refuses).
template <size_t C, bool Matrix>
struct RankCounts {
  template <class P, class All>
  bool put(WireWriter& w, P v, const All& all) {
    uint64_t n = ranksOf(std::get<C>(all));
    if (Matrix) n *= n;
    w.u8(v != nullptr);
    if (v) w.blob(v, n * sizeof(uint64_t));
    return true;
  }
  template <class P, class All>
  void take(WireReader&, P, const All&) {}
};
template <size_t C>
struct ClientArg<RankArray<C>> : RankCounts<C, false> {};
template <size_t C>
struct ClientArg<RankMatrix<C>> : RankCounts<C, true> {};

template <size_t N>
struct ClientArg<Src<N>> {
  bool staged = false;
  template <class P, class All>
  bool put(WireWriter& w, P v, const All& all) {
    const uint64_t n = static_cast<uint64_t>(std::get<N>(all));
    if (!programMemory(v, n) || n == 0) {
      w.u64(bitsOf(v));
      return true;
    }
    void* buffer = stagingBuffer(0, n);
    if (!buffer) return false;
    std::memcpy(buffer, v, n);
    w.u64(bitsOf(buffer));
    staged = true;
    return true;
  }
  template <class P, class All>
  void take(WireReader&, P, const All&) {}
};

template <size_t N>
struct ClientArg<Dst<N>> {
  void* staged = nullptr;
  template <class P, class All>
  bool put(WireWriter& w, P v, const All& all) {
    const uint64_t n = static_cast<uint64_t>(std::get<N>(all));
    if (!programMemory(v, n) || n == 0) {
      w.u64(bitsOf(v));
      return true;
    }
    staged = stagingBuffer(1, n);
    if (!staged) return false;
    w.u64(bitsOf(staged));
    return true;
  }
  template <class P, class All>
  void take(WireReader&, P v, const All& all) {
    if (staged) std::memcpy(v, staged, static_cast<uint64_t>(std::get<N>(all)));
  }
};

// The bytes a 2D copy's rows span (0 when they do not make sense: the server refuses those).
inline uint64_t rowsSpan(uint64_t pitch, uint64_t width, uint64_t height) {
  uint64_t span = 0;
  if (width == 0 || height == 0 || pitch < width) return 0;
  if (__builtin_mul_overflow(pitch, height - 1, &span) ||
      __builtin_add_overflow(span, width, &span))
    return 0;
  return span;
}

template <size_t P, size_t W, size_t H>
struct ClientArg<Src2d<P, W, H>> {
  bool staged = false;
  template <class Ptr, class All>
  bool put(WireWriter& w, Ptr v, const All& all) {
    const uint64_t pitch = std::get<P>(all), width = std::get<W>(all), height = std::get<H>(all);
    const uint64_t span = rowsSpan(pitch, width, height);
    if (!programMemory(v, span) || span == 0) {
      w.u64(bitsOf(v));
      return true;
    }
    auto* buffer = static_cast<uint8_t*>(stagingBuffer(0, span));
    if (!buffer) return false;
    const auto* from = static_cast<const uint8_t*>(v);
    for (uint64_t row = 0; row < height; ++row)
      std::memcpy(buffer + row * pitch, from + row * pitch, width);
    w.u64(bitsOf(static_cast<void*>(buffer)));
    staged = true;
    return true;
  }
  template <class Ptr, class All>
  void take(WireReader&, Ptr, const All&) {}
};

template <size_t P, size_t W, size_t H>
struct ClientArg<Dst2d<P, W, H>> {
  uint8_t* staged = nullptr;
  template <class Ptr, class All>
  bool put(WireWriter& w, Ptr v, const All& all) {
    const uint64_t span = rowsSpan(std::get<P>(all), std::get<W>(all), std::get<H>(all));
    if (!programMemory(v, span) || span == 0) {
      w.u64(bitsOf(v));
      return true;
    }
    staged = static_cast<uint8_t*>(stagingBuffer(1, span));
    if (!staged) return false;
    w.u64(bitsOf(static_cast<void*>(staged)));
    return true;
  }
  template <class Ptr, class All>
  void take(WireReader&, Ptr v, const All& all) {
    if (!staged) return;
    // Row by row: the bytes between the rows are the program's, untouched.
    const uint64_t pitch = std::get<P>(all), width = std::get<W>(all), height = std::get<H>(all);
    auto* to = static_cast<uint8_t*>(v);
    for (uint64_t row = 0; row < height; ++row)
      std::memcpy(to + row * pitch, staged + row * pitch, width);
  }
};

// Whether a role put program data through a staging buffer (then the call must be waited for).
template <class Arg>
bool stagedData(const Arg&) {
  return false;
}
template <size_t N>
bool stagedData(const ClientArg<Dst<N>>& a) {
  return a.staged != nullptr;
}
template <size_t N>
bool stagedData(const ClientArg<Src<N>>& a) {
  return a.staged;
}
template <size_t P, size_t W, size_t H>
bool stagedData(const ClientArg<Src2d<P, W, H>>& a) {
  return a.staged;
}
template <size_t P, size_t W, size_t H>
bool stagedData(const ClientArg<Dst2d<P, W, H>>& a) {
  return a.staged != nullptr;
}

// Elements of an array argument past what a call carries (0: none).
template <class Arg>
uint64_t arrayTooLong(const Arg&) {
  return 0;
}
template <size_t N>
uint64_t arrayTooLong(const ClientArg<InArray<N>>& a) {
  return a.tooLong;
}
template <size_t N>
uint64_t arrayTooLong(const ClientArg<OutArray<N>>& a) {
  return a.tooLong;
}

// A served function's result from the code its call came back with. HCCL's functions return
// HcclResult (their specialisation maps the runtime's codes to it: runtime/api/hccl_served.h).
template <class R>
struct ServedResult {
  static R from(aclError code) { return code; }
};

// After a call that waited, a program with exception callbacks runs those of the failures the
// server kept for the thread (runtime/remote/served_callbacks.h).
void runServedExceptionCallbacks();

template <class Roles, class All, size_t... I>
aclError forwardWith(const char* name, bool async, Answer answer, const All& all,
                     std::index_sequence<I...>) {
  // A kernel's code runs for the server while the server's call waits for it: a call from there
  // would wait for ever (docs/reliability.md).
  if (const std::string* kernel = runtime::sandbox::runningKernel()) {
    setServedError(std::string(name) + ": called from inside kernel " + *kernel +
                   " (a kernel's code runs on the device, where there is no AscendCL; make the "
                   "call on the host before or after the launch)");
    return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
  }
  std::tuple<ClientArg<std::tuple_element_t<I, Roles>>...> args;
  WireWriter w;
  const bool staged = (std::get<I>(args).put(w, std::get<I>(all), all) && ...);
  if (!staged) {
    setServedError(std::string(name) + ": no shared memory left to stage the program's data");
    return ACL_ERROR_RT_MEMORY_ALLOCATION;
  }
  const uint64_t tooLong = std::max({uint64_t{0}, arrayTooLong(std::get<I>(args))...});
  if (tooLong > 0) {
    setServedError(std::string(name) + ": an array argument of " + std::to_string(tooLong) +
                   " elements is longer than a call to the shared machine carries (" +
                   std::to_string(kMostArrayBytes) + " bytes)");
    return ACL_ERROR_INVALID_PARAM;
  }
  const bool wait = !async || !pipelining() || (stagedData(std::get<I>(args)) || ...);
  const std::vector<uint8_t>* known = nullptr;
  if (answer == Answer::Learned) known = learnedAnswer(name, w);
  if (answer == Answer::Repeats) known = repeatedChange(name, w);
  if (known) {
    // Answered here; the machine runs it too (the trace, the report, the thread's clock) and
    // says so with the thread's next call that waits if it answers otherwise.
    checkWithServer(name, w, *known);
    WireReader r(*known);
    try {
      (std::get<I>(args).take(r, std::get<I>(all), all), ...);
    } catch (const WireError&) {
      setServedError(std::string(name) + ": a learned answer was cut short");
      return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    return ACL_SUCCESS;
  }
  const bool changes = answer == Answer::Changes || answer == Answer::Repeats;
  // (Other threads' answers may no longer hold from now on.)
  const uint64_t sentAt = changes ? forgetAnswers() : answersEpoch();
  const CallReply reply = callServer(name, w, wait);
  const uint64_t endedAt = changes ? forgetAnswers() : sentAt;
  if (wait) runServedExceptionCallbacks();
  if (reply.code != ACL_SUCCESS) {
    discardLocalError();  // the served call's message is now the most recent
    return reply.code;
  }
  if (answer == Answer::Learned) learnAnswer(name, w, reply.results, sentAt);
  if (answer == Answer::Repeats) rememberChange(name, w, reply.results, endedAt);
  WireReader r(reply.results);
  try {
    (std::get<I>(args).take(r, std::get<I>(all), all), ...);
  } catch (const WireError&) {
    setServedError(std::string(name) + ": the server's reply was cut short");
    return ACL_ERROR_RT_INTERNAL_ERROR;
  }
  return ACL_SUCCESS;
}

// What a successful call that Repeats tells the calling thread's learned answers besides its own
// (nothing unless specialised: aclrtSetDevice in served_calls.h). `epoch`: when its change ended.
template <auto Fn>
struct Teaches {
  template <class All>
  static void after(const All&, uint64_t) {}
};

// Learns `value` as the answer of `Fn`, a call of one Out parameter (what the machine would
// write back to it), as if the machine had given it at `epoch`.
template <auto Fn, class T>
void learnOut(const T& value, uint64_t epoch) {
  static_assert(std::is_same_v<typename Served<Fn>::Roles, std::tuple<Out>>, "one Out parameter");
  static_assert(Served<Fn>::answer == Answer::Learned, "a learned call");
  WireWriter arguments;
  arguments.u8(1);  // (ClientArg<Out>::put of a pointer that is not NULL)
  WireWriter results;
  results.blob(&value, sizeof value);  // (ServerArg<Out>::write)
  learnAnswer(Served<Fn>::name, arguments, results.bytes(), epoch);
}

// Runs `Fn` on the served machine with these arguments.
// (The arguments are taken by reference: copying an enum argument would load it.)
template <auto Fn, class... A>
auto forward(const A&... args) {
  using Roles = typename Served<Fn>::Roles;
  using Result = typename Params<decltype(Fn)>::Result;
  static_assert(std::tuple_size_v<Roles> == sizeof...(A), "one role per parameter");
  const auto all = carryAll<typename Params<decltype(Fn)>::Tuple>(
      std::make_index_sequence<sizeof...(A)>(), args...);
  const aclError code =
      forwardWith<Roles>(Served<Fn>::name, Served<Fn>::pipelined, Served<Fn>::answer, all,
                         std::make_index_sequence<sizeof...(A)>());
  if constexpr (Served<Fn>::answer == Answer::Repeats) {
    if (code == ACL_SUCCESS && pipelining()) Teaches<Fn>::after(all, lastChangeEpoch());
  }
  return ServedResult<Result>::from(code);
}

#define ASCENDSIM_FORWARD(fn, ...) \
  if (::ascendsim::remote::clientActive()) return ::ascendsim::remote::forward<&fn>(__VA_ARGS__)
#define ASCENDSIM_FORWARD_NO_ARGUMENTS(fn) \
  if (::ascendsim::remote::clientActive()) return ::ascendsim::remote::forward<&fn>()

// ---------------------------------------------------------------- the server's end

template <class Role, class P>
struct ServerArg {  // Val, Src, Dst, Src2d, Dst2d
  Carried<P> value{};
  void read(WireReader& r) { value = fromBits<Carried<P>>(r.u64()); }
  P get() {
    if constexpr (std::is_enum_v<P>) {
      return static_cast<P>(value.raw);  // a conversion, not a load of an enum
    } else {
      return value;
    }
  }
  void write(WireWriter&) {}
};

template <class T>
struct ServerArg<Whole, T> {
  T value{};
  void read(WireReader& r) { r.blobInto(&value, sizeof value); }
  T get() { return value; }
  void write(WireWriter&) {}
};

template <class T>
struct ServerArg<Out, T*> {
  T value{};
  bool present = false;
  void read(WireReader& r) { present = r.u8() != 0; }
  T* get() { return present ? &value : nullptr; }
  void write(WireWriter& w) {
    if (present) w.blob(&value, sizeof value);
  }
};

template <class T>
struct ServerArg<In, const T*> {
  T value{};
  bool present = false;
  void read(WireReader& r) {
    present = r.u8() != 0;
    if (present) r.blobInto(&value, sizeof value);
  }
  const T* get() { return present ? &value : nullptr; }
  void write(WireWriter&) {}
};

// (A struct a function reads through a pointer it does not declare const, e.g. an HCCL config.)
template <class T>
struct ServerArg<In, T*> : ServerArg<In, const T*> {
  T* get() { return this->present ? &this->value : nullptr; }
};

template <class T>
struct ServerArg<InOut, T*> {
  T value{};
  bool present = false;
  void read(WireReader& r) {
    present = r.u8() != 0;
    if (present) r.blobInto(&value, sizeof value);
  }
  T* get() { return present ? &value : nullptr; }
  void write(WireWriter& w) {
    if (present) w.blob(&value, sizeof value);
  }
};

template <>
struct ServerArg<Str, const char*> {
  std::string value;
  bool present = false;
  void read(WireReader& r) {
    present = r.u8() != 0;
    if (present) value = r.text();
  }
  const char* get() { return present ? value.c_str() : nullptr; }
  void write(WireWriter&) {}
};

// (A string a function takes through a pointer it does not declare const: aclsysGetVersionStr.)
template <>
struct ServerArg<Str, char*> : ServerArg<Str, const char*> {
  char* get() { return present ? value.data() : nullptr; }
};

template <size_t N, class T>
struct ServerArg<InArray<N>, T*> {
  std::vector<std::remove_const_t<T>> value;
  bool present = false;
  void read(WireReader& r) {
    present = r.u8() != 0;
    if (!present) return;
    const std::vector<uint8_t> bytes = r.blob(kMostArrayBytes);
    value.resize(bytes.size() / sizeof(T));
    if (!value.empty()) std::memcpy(value.data(), bytes.data(), value.size() * sizeof(T));
  }
  T* get() { return present ? value.data() : nullptr; }
  void write(WireWriter&) {}
};

template <size_t N, class T>
struct ServerArg<OutArray<N>, T*> {
  std::vector<T> value;
  bool present = false;
  void read(WireReader& r) {
    present = r.u8() != 0;
    const uint64_t n = r.u64();
    if (n > kMostArrayBytes / sizeof(T)) throw WireError("output array too long");
    value.assign(n, T{});
  }
  T* get() { return present ? value.data() : nullptr; }
  void write(WireWriter& w) {
    if (present) w.blob(value.data(), value.size() * sizeof(T));
  }
};

template <size_t N, class T>
struct ServerArg<InBytes<N>, T*> {
  std::vector<uint8_t> value;
  bool present = false;
  bool cut = false;  // more bytes than a call carries: none came
  void read(WireReader& r) {
    present = r.u8() != 0;
    const uint64_t n = r.u64();
    cut = present && n > kMostArrayBytes;
    if (present && !cut) value = r.blob(kMostArrayBytes);
    if (value.empty()) value.resize(1);  // (a pointer to no bytes is still not NULL)
  }
  T* get() { return present ? value.data() : nullptr; }
  void write(WireWriter&) {}
};

template <size_t B>
struct ServerArg<OutChars<B>, char*> {
  char value[B] = {};
  bool present = false;
  void read(WireReader& r) { present = r.u8() != 0; }
  char* get() { return present ? value : nullptr; }
  void write(WireWriter& w) {
    if (present) w.blob(value, B);
  }
};

// Counts as the program sent them; `entries` says how many it sent, for the service to check
// against the communicator's size (receivedCountEntries in the HCCL layer).
struct ServedCounts {
  std::vector<uint64_t> value;
  bool present = false;
  void read(WireReader& r) {
    present = r.u8() != 0;
    if (!present) return;
    const std::vector<uint8_t> bytes = r.blob(1u << 24);
    value.resize(bytes.size() / sizeof(uint64_t));
    if (!value.empty()) std::memcpy(value.data(), bytes.data(), value.size() * sizeof(uint64_t));
  }
  const void* get() { return present ? value.data() : nullptr; }
  void write(WireWriter&) {}
  uint64_t entries() const { return value.size(); }
};
template <size_t C>
struct ServerArg<RankArray<C>, const void*> : ServedCounts {};
template <size_t C>
struct ServerArg<RankMatrix<C>, const void*> : ServedCounts {};

// One served call of `Fn` on the server: read() its arguments, run() it, write() its results.
template <auto Fn>
class ServedCall {
  using Roles = typename Served<Fn>::Roles;
  using Types = typename Params<decltype(Fn)>::Tuple;
  template <size_t... I>
  static auto slotsOf(std::index_sequence<I...>)
      -> std::tuple<ServerArg<std::tuple_element_t<I, Roles>, std::tuple_element_t<I, Types>>...>;
  using Indices = std::make_index_sequence<std::tuple_size_v<Types>>;

 public:
  decltype(slotsOf(Indices())) slots;
  aclError code = ACL_SUCCESS;

  void read(WireReader& r) {
    std::apply([&](auto&... s) { (s.read(r), ...); }, slots);
  }
  void run() {
    code = std::apply([](auto&... s) { return Fn(s.get()...); }, slots);
  }
  void write(WireWriter& w) {
    if (code == ACL_SUCCESS) std::apply([&](auto&... s) { (s.write(w), ...); }, slots);
  }
  template <size_t I>
  auto arg() {
    return std::get<I>(slots).get();
  }
  template <size_t I>
  auto& slot() {
    return std::get<I>(slots);
  }
};

}  // namespace ascendsim::remote
