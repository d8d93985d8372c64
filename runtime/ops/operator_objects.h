#pragma once
// Every live handle of the operator API: tensors, scalars and executors. A handle is the object's
// address and is looked up here before use, so a destroyed or made-up handle is refused.

#include <memory>
#include <unordered_map>

#include "runtime/ops/elementwise.h"

namespace ascendsim::runtime::ops {

// What a first-phase call prepared for its second phase; used once, then freed (unless made
// repeatable).
struct Executor {
  ElementwisePlan plan;
  uint64_t workspaceSize = 0;
  bool repeatable = false;  // aclSetAclOpExecutorRepeatable: runs until aclDestroyAclOpExecutor
};

template <class T>
class HandleTable {
 public:
  T* add(std::unique_ptr<T> object) {
    T* p = object.get();
    objects_.emplace(p, std::move(object));
    return p;
  }
  T* find(const void* handle) const {
    auto it = objects_.find(handle);
    return it == objects_.end() ? nullptr : it->second.get();
  }
  bool remove(const void* handle) { return objects_.erase(handle) > 0; }
  size_t size() const { return objects_.size(); }

 private:
  std::unordered_map<const void*, std::unique_ptr<T>> objects_;
};

struct OperatorObjects {
  HandleTable<Tensor> tensors;
  HandleTable<Scalar> scalars;
  HandleTable<Executor> executors;
};

}  // namespace ascendsim::runtime::ops
