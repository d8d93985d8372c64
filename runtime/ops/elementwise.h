#pragma once
// Elementwise operators (Add, Sub, Mul, Div, Copy): argument checks with CANN's codes, the
// arithmetic on byte images of the tensors' storage, and the work a kernel does for the AI Core
// model.

#include <string>

#include "models/task/task.h"
#include "runtime/ops/tensor.h"

namespace ascendsim::runtime::ops {

enum class Elementwise { Add, Sub, Mul, Div, Copy };

struct ElementwisePlan {
  Elementwise op = Elementwise::Add;
  std::string name;         // "aclnnAdd", "aclnnInplaceMul", ...
  Tensor self, other, out;  // descriptors as they were when planned (Copy: other is the source)
  bool hasSelf = true;      // Copy reads only its source
  bool inplace = false;     // out is self (the in-place forms)
  aclDataType compute = ACL_FLOAT;  // the type the arithmetic runs in
  Value alpha;                      // Add, Sub: out = self +/- alpha * other
  std::vector<int64_t> shape;       // the broadcast shape (= out's)
  bool saturate = false;            // the stream's saturation mode: Inf and NaN results are clamped
};

// Checks as CANN's first-phase call does; fails with ACLNN_ERR_PARAM_NULLPTR or
// ACLNN_ERR_PARAM_INVALID and says why. `out` may be `self` (in-place forms).
ElementwisePlan planBinary(Elementwise op, const std::string& name, const Tensor* self,
                           const Tensor* other, const Scalar* alpha, const Tensor* out,
                           bool inplace);
ElementwisePlan planCopy(const std::string& name, const Tensor* selfRef, const Tensor* src);

// Computes `out` from byte images of each tensor's storage extent (Tensor::extentBytes from its
// data pointer); `outImage` holds out's current bytes, which elements outside the view keep.
void execute(const ElementwisePlan& plan, const uint8_t* selfImage, const uint8_t* otherImage,
             uint8_t* outImage);

// What the kernel asks of the AI Cores and device memory.
models::KernelWork kernelWork(const ElementwisePlan& plan);

}  // namespace ascendsim::runtime::ops
