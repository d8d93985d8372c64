// aclnnAdd, aclnnSub, aclnnMul, aclnnDiv, aclnnInplaceCopy and the in-place forms: the two-phase
// operator API.
// The first phase checks the arguments and prepares an executor; the second launches a kernel
// on the stream, timed by the AI Core model, whose data effect computes the result.

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_sub.h"
#include "runtime/api/aclnn_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::runtime::ops::ElementwisePlan;
using ascendsim::runtime::ops::Executor;

namespace {

// The tensor behind a handle, or nullptr for NULL (the plan reports NULL with its own wording).
const ops::Tensor* tensorOrNull(const aclTensor* handle, const char* what) {
  if (!handle) return nullptr;
  const ops::Tensor* t = objects().tensors.find(handle);
  if (!t)
    fail(ACLNN_ERR_PARAM_INVALID,
         std::string(what) + " " + describePointer(handle) + " is not a live aclTensor");
  return t;
}

const ops::Scalar* scalarOrNull(const aclScalar* handle) {
  if (!handle) return nullptr;
  const ops::Scalar* s = objects().scalars.find(handle);
  if (!s)
    fail(ACLNN_ERR_PARAM_INVALID, "alpha " + describePointer(handle) + " is not a live aclScalar");
  return s;
}

TraceArg tensorArg(const char* key, const ops::Tensor* t) {
  return arg(key, t ? t->describe() + "@" + rt().pointerName(t->data) : std::string("NULL"));
}

void prepare(HostThread& t, ElementwisePlan plan, uint64_t* workspaceSize,
             aclOpExecutor** executor) {
  needOpPointer(workspaceSize, "workspaceSize");
  needOpPointer(executor, "executor");
  // Elementwise kernels stream straight between device memory and the cores: no workspace.
  auto e = std::make_unique<Executor>();
  e->plan = std::move(plan);
  *workspaceSize = e->workspaceSize;
  t.callArgs.push_back(arg("workspaceSize", e->workspaceSize));
  *executor = reinterpret_cast<aclOpExecutor*>(&objects().executors.add(std::move(e)));
}

aclnnStatus binaryPhase1(const char* api, ops::Elementwise op, const char* kernel,
                         const aclTensor* self, const aclTensor* other, const aclScalar* alpha,
                         const aclTensor* out, bool inplace, uint64_t* workspaceSize,
                         aclOpExecutor** executor) {
  return runHostOp(api, [&](HostThread& t) {
    const ops::Tensor* a = tensorOrNull(self, inplace ? "selfRef" : "self");
    const ops::Tensor* b = tensorOrNull(other, "other");
    const ops::Tensor* o = inplace ? a : tensorOrNull(out, "out");
    t.callArgs = {tensorArg(inplace ? "selfRef" : "self", a), tensorArg("other", b)};
    if (!inplace) t.callArgs.push_back(tensorArg("out", o));
    prepare(t, ops::planBinary(op, kernel, a, b, scalarOrNull(alpha), o, inplace), workspaceSize,
            executor);
  });
}

// The launch: one kernel that reads its inputs' storage and rewrites its output's.
void launch(HostThread& t, const ElementwisePlan& plan, aclrtStream stream) {
  KernelLaunch k;
  k.work = ops::kernelWork(plan);
  t.callArgs = {arg("kernel", plan.name), streamArg(stream), arg("elements", plan.out.elements())};
  if (plan.out.elements() == 0) {  // nothing to compute; the stream still orders the task
    rt().launchKernel(t, stream, std::move(k));
    return;
  }
  const bool hasSelf = plan.hasSelf;
  if (hasSelf) k.reads.push_back({plan.self.data, plan.self.extentBytes(), "self"});
  k.reads.push_back({plan.other.data, plan.other.extentBytes(),
                     plan.op == ops::Elementwise::Copy ? "src" : "other"});
  k.writes.push_back({plan.out.data, plan.out.extentBytes(), "out"});
  ElementwisePlan run = plan;
  run.saturate = rt().streams()
                     .stream(t, stream)
                     .saturate;  // the stream's overflow mode (aclrtSetDeviceSatMode)
  k.compute = [run, hasSelf](std::vector<std::vector<uint8_t>>& images) {
    const uint8_t* self = hasSelf ? images[0].data() : nullptr;
    ops::execute(run, self, images[hasSelf ? 1 : 0].data(), images.back().data());
  };
  rt().launchKernel(t, stream, std::move(k));
}

aclnnStatus phase2(const char* api, const char* kernel, void* workspace, uint64_t workspaceSize,
                   aclOpExecutor* executor, aclrtStream stream) {
  return opStatus(
      rt().call(api, &ascendsim::spec::ApiOverheads::kernelLaunch, true, [&](HostThread& t) {
        needOpPointer(executor, "executor");
        Executor* e = objects().executors.find(executor);
        if (!e) {
          fail(ACLNN_ERR_PARAM_INVALID,
               "executor " + describePointer(executor) +
                   " is not live (an executor runs once unless made repeatable)");
        }
        // The executor is spent whatever happens next, as CANN's are, unless it was made
        // repeatable.
        const ElementwisePlan plan = e->plan;
        const uint64_t needed = e->workspaceSize;
        if (!e->repeatable) objects().executors.remove(executor);
        if (plan.name != kernel)
          fail(ACLNN_ERR_PARAM_INVALID,
               "executor was prepared for " + plan.name + ", not " + kernel);
        if (workspaceSize < needed) {
          fail(ACLNN_ERR_PARAM_INVALID, "workspaceSize " + std::to_string(workspaceSize) +
                                            " is less than the " + std::to_string(needed) +
                                            " bytes asked for");
        }
        if (needed > 0 && !workspace) fail(ACLNN_ERR_PARAM_NULLPTR, "workspace is NULL");
        launch(t, plan, stream);
      }));
}

}  // namespace

extern "C" {

aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor* self, const aclTensor* other,
                                     const aclScalar* alpha, aclTensor* out,
                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
  ASCENDSIM_FORWARD_OP(aclnnAddGetWorkspaceSize, self, other, alpha, out, workspaceSize, executor);
  return binaryPhase1("aclnnAddGetWorkspaceSize", ops::Elementwise::Add, "aclnnAdd", self, other,
                      alpha, out, false, workspaceSize, executor);
}

aclnnStatus aclnnAdd(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                     aclrtStream stream) {
  ASCENDSIM_FORWARD_OP(aclnnAdd, workspace, workspaceSize, executor, stream);
  return phase2("aclnnAdd", "aclnnAdd", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor* selfRef, const aclTensor* other,
                                            const aclScalar* alpha, uint64_t* workspaceSize,
                                            aclOpExecutor** executor) {
  ASCENDSIM_FORWARD_OP(aclnnInplaceAddGetWorkspaceSize, selfRef, other, alpha, workspaceSize,
                       executor);
  return binaryPhase1("aclnnInplaceAddGetWorkspaceSize", ops::Elementwise::Add, "aclnnInplaceAdd",
                      selfRef, other, alpha, nullptr, true, workspaceSize, executor);
}

aclnnStatus aclnnInplaceAdd(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                            aclrtStream stream) {
  ASCENDSIM_FORWARD_OP(aclnnInplaceAdd, workspace, workspaceSize, executor, stream);
  return phase2("aclnnInplaceAdd", "aclnnInplaceAdd", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
  ASCENDSIM_FORWARD_OP(aclnnMulGetWorkspaceSize, self, other, out, workspaceSize, executor);
  return binaryPhase1("aclnnMulGetWorkspaceSize", ops::Elementwise::Mul, "aclnnMul", self, other,
                      nullptr, out, false, workspaceSize, executor);
}

aclnnStatus aclnnMul(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                     aclrtStream stream) {
  ASCENDSIM_FORWARD_OP(aclnnMul, workspace, workspaceSize, executor, stream);
  return phase2("aclnnMul", "aclnnMul", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceMulGetWorkspaceSize(const aclTensor* selfRef, const aclTensor* other,
                                            uint64_t* workspaceSize, aclOpExecutor** executor) {
  ASCENDSIM_FORWARD_OP(aclnnInplaceMulGetWorkspaceSize, selfRef, other, workspaceSize, executor);
  return binaryPhase1("aclnnInplaceMulGetWorkspaceSize", ops::Elementwise::Mul, "aclnnInplaceMul",
                      selfRef, other, nullptr, nullptr, true, workspaceSize, executor);
}

aclnnStatus aclnnInplaceMul(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                            aclrtStream stream) {
  ASCENDSIM_FORWARD_OP(aclnnInplaceMul, workspace, workspaceSize, executor, stream);
  return phase2("aclnnInplaceMul", "aclnnInplaceMul", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnSubGetWorkspaceSize(const aclTensor* self, const aclTensor* other,
                                     const aclScalar* alpha, aclTensor* out,
                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
  ASCENDSIM_FORWARD_OP(aclnnSubGetWorkspaceSize, self, other, alpha, out, workspaceSize, executor);
  return binaryPhase1("aclnnSubGetWorkspaceSize", ops::Elementwise::Sub, "aclnnSub", self, other,
                      alpha, out, false, workspaceSize, executor);
}

aclnnStatus aclnnSub(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                     aclrtStream stream) {
  ASCENDSIM_FORWARD_OP(aclnnSub, workspace, workspaceSize, executor, stream);
  return phase2("aclnnSub", "aclnnSub", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceSubGetWorkspaceSize(const aclTensor* selfRef, const aclTensor* other,
                                            const aclScalar* alpha, uint64_t* workspaceSize,
                                            aclOpExecutor** executor) {
  ASCENDSIM_FORWARD_OP(aclnnInplaceSubGetWorkspaceSize, selfRef, other, alpha, workspaceSize,
                       executor);
  return binaryPhase1("aclnnInplaceSubGetWorkspaceSize", ops::Elementwise::Sub, "aclnnInplaceSub",
                      selfRef, other, alpha, nullptr, true, workspaceSize, executor);
}

aclnnStatus aclnnInplaceSub(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                            aclrtStream stream) {
  ASCENDSIM_FORWARD_OP(aclnnInplaceSub, workspace, workspaceSize, executor, stream);
  return phase2("aclnnInplaceSub", "aclnnInplaceSub", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnDivGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
  ASCENDSIM_FORWARD_OP(aclnnDivGetWorkspaceSize, self, other, out, workspaceSize, executor);
  return binaryPhase1("aclnnDivGetWorkspaceSize", ops::Elementwise::Div, "aclnnDiv", self, other,
                      nullptr, out, false, workspaceSize, executor);
}

aclnnStatus aclnnDiv(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                     aclrtStream stream) {
  ASCENDSIM_FORWARD_OP(aclnnDiv, workspace, workspaceSize, executor, stream);
  return phase2("aclnnDiv", "aclnnDiv", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceDivGetWorkspaceSize(const aclTensor* selfRef, const aclTensor* other,
                                            uint64_t* workspaceSize, aclOpExecutor** executor) {
  ASCENDSIM_FORWARD_OP(aclnnInplaceDivGetWorkspaceSize, selfRef, other, workspaceSize, executor);
  return binaryPhase1("aclnnInplaceDivGetWorkspaceSize", ops::Elementwise::Div, "aclnnInplaceDiv",
                      selfRef, other, nullptr, nullptr, true, workspaceSize, executor);
}

aclnnStatus aclnnInplaceDiv(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                            aclrtStream stream) {
  ASCENDSIM_FORWARD_OP(aclnnInplaceDiv, workspace, workspaceSize, executor, stream);
  return phase2("aclnnInplaceDiv", "aclnnInplaceDiv", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor* selfRef, const aclTensor* src,
                                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  ASCENDSIM_FORWARD_OP(aclnnInplaceCopyGetWorkspaceSize, selfRef, src, workspaceSize, executor);
  return runHostOp("aclnnInplaceCopyGetWorkspaceSize", [&](HostThread& t) {
    const ops::Tensor* dst = tensorOrNull(selfRef, "selfRef");
    const ops::Tensor* from = tensorOrNull(src, "src");
    t.callArgs = {tensorArg("selfRef", dst), tensorArg("src", from)};
    prepare(t, ops::planCopy("aclnnInplaceCopy", dst, from), workspaceSize, executor);
  });
}

aclnnStatus aclnnInplaceCopy(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             aclrtStream stream) {
  ASCENDSIM_FORWARD_OP(aclnnInplaceCopy, workspace, workspaceSize, executor, stream);
  return phase2("aclnnInplaceCopy", "aclnnInplaceCopy", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
