#pragma once
// Shared by the C entry points: run a call on the Runtime and check required pointers.

#include <cstring>

#include "acl/acl.h"
#include "runtime/api/served_calls.h"
#include "runtime/core/errors.h"
#include "runtime/core/kernel_sandbox.h"
#include "runtime/core/runtime.h"
#include "runtime/trace/trace_sink.h"

namespace ascendsim::runtime::api {

using Overhead = spec::Picoseconds spec::ApiOverheads::*;

inline Runtime& rt() {
  return Runtime::instance();
}

template <class Body>
aclError run(const char* name, Overhead overhead, Body&& body) {
  const aclError code = rt().call(name, overhead, true, std::forward<Body>(body));
  // A program on a served machine: a call refused here replaces the last served call's message
  // (a call that succeeds leaves it to be read, as in-process).
  if (code != ACL_SUCCESS && remote::clientActive()) remote::takeServedError();
  return code;
}

// Runs a call in a program on a served machine, in the program (what it reaches lives there:
// stream configurations, allocator descriptions, stream state callbacks); a failure's message is
// the thread's most recent one, as a served call's is.
template <class Body>
aclError inProgram(const char* name, Body&& body) {
  // (From inside a kernel's code no call runs, as in-process: refuseArgument refuses it so.)
  if (sandbox::runningKernel())
    return rt().refuseArgument(name, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "");
  try {
    body();
    return ACL_SUCCESS;  // (the last served failure's message stays to be read, as in-process)
  } catch (const AclFailure& f) {
    remote::takeServedError();
    return rt().refuseArgument(name, f.code, f.message);
  }
}

// The integer a C caller passed for an enum parameter, read without loading it as the enum type:
// C lets any int through, and a C++ load of an out-of-range enum value is undefined.
template <class Enum>
int32_t rawEnum(const Enum& value) {
  static_assert(sizeof(Enum) == sizeof(int32_t), "AscendCL enums are int-sized");
  int32_t raw = 0;
  std::memcpy(&raw, &value, sizeof raw);
  return raw;
}

// The call's arguments as the trace shows them.
inline TraceArg arg(const char* key, uint64_t value) {
  return TraceArg::number(key, value);
}
inline TraceArg arg(const char* key, const std::string& value) {
  return TraceArg::string(key, value);
}
inline TraceArg ptrArg(const char* key, const void* p) {
  return arg(key, rt().pointerName(p));
}
inline TraceArg streamArg(aclrtStream s) {
  return arg("stream", rt().streamName(s));
}

inline void needPointer(const void* p, const char* what) {
  if (!p) fail(ACL_ERROR_INVALID_PARAM, std::string(what) + " is NULL");
}

}  // namespace ascendsim::runtime::api
