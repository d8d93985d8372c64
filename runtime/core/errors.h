#pragma once
// Inside the runtime a failed check throws AclFailure; the C layer turns it into the return code
// and the calling thread's aclGetRecentErrMsg text.

#include <string>

#include "acl/acl_base.h"

namespace ascendsim::runtime {

struct AclFailure {
  aclError code;
  std::string message;
};

[[noreturn]] inline void fail(aclError code, std::string message) {
  throw AclFailure{code, std::move(message)};
}

inline void require(bool ok, aclError code, const char* message) {
  if (!ok) fail(code, message);
}

}  // namespace ascendsim::runtime
