#pragma once
// Every live handle of the operator API: tensors, scalars and executors. A handle is the object's
// address and is looked up here before use, so a destroyed or made-up handle is refused.

#include <memory>

#include "runtime/core/handle_table.h"
#include "runtime/ops/elementwise.h"

namespace ascendsim::runtime::ops {

// What a first-phase call prepared for its second phase; used once, then freed (unless made
// repeatable).
struct Executor {
  ElementwisePlan plan;
  uint64_t workspaceSize = 0;
  bool repeatable = false;  // aclSetAclOpExecutorRepeatable: runs until aclDestroyAclOpExecutor
};

struct OperatorObjects {
  runtime::HandleTable<Tensor> tensors;
  runtime::HandleTable<Scalar> scalars;
  runtime::HandleTable<Executor> executors;
};

}  // namespace ascendsim::runtime::ops
