#pragma once
// Shared by the C entry points: run a call on the Runtime and check required pointers.

#include "acl/acl.h"
#include "runtime/core/errors.h"
#include "runtime/core/runtime.h"

namespace ascendsim::runtime::api {

using Overhead = spec::Picoseconds spec::ApiOverheads::*;

inline Runtime& rt() { return Runtime::instance(); }

template <class Body>
aclError run(const char* name, Overhead overhead, Body&& body) {
  return rt().call(name, overhead, true, std::forward<Body>(body));
}

inline void needPointer(const void* p, const char* what) {
  if (!p) fail(ACL_ERROR_INVALID_PARAM, std::string(what) + " is NULL");
}

}  // namespace ascendsim::runtime::api
