#pragma once
// Shared by the operator API's C entry points: run a call on the Runtime and report its result
// as an aclnnStatus.

#include "aclnn/aclnn_base.h"
#include "runtime/api/aclnn_served.h"
#include "runtime/api/api_call.h"
#include "runtime/ops/operator_objects.h"

namespace ascendsim::runtime::api {

// The operator API answers in its own codes: its parameter and internal codes pass through, and
// anything the runtime underneath refused is ACLNN_ERR_RUNTIME_ERROR (the message says what).
inline aclnnStatus opStatus(aclError code) {
  const int family = code / 1000;
  if (code == ACL_SUCCESS || family == 161 || family == 361 || family == 561) return code;
  return ACLNN_ERR_RUNTIME_ERROR;
}

// The operator API's live tensors, scalars and executors: host objects of this layer, which the
// runtime underneath never looks at (kept for the life of the process, as the runtime is).
inline ops::OperatorObjects& objects() {
  static auto* live = new ops::OperatorObjects;
  return *live;
}

inline void needOpPointer(const void* p, const char* what) {
  if (!p) fail(ACLNN_ERR_PARAM_NULLPTR, std::string(what) + " is NULL");
}

// Host-side calls (tensors, scalars, first phases) work before aclInit, as CANN's do.
template <class Body>
aclnnStatus runHostOp(const char* name, Body&& body) {
  return opStatus(
      rt().call(name, &spec::ApiOverheads::defaultCall, false, std::forward<Body>(body)));
}

}  // namespace ascendsim::runtime::api
