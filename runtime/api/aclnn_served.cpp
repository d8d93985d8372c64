// The server's end of the operator API calls in aclnn_served.h: each is run by its entry point on
// the connection's thread, as the program would run it on a machine of its own. A process's
// tensors, scalars and executors live as long as on a machine of its own (until destroyed).

#include "runtime/api/aclnn_served.h"

#include "runtime/remote/served_handlers.h"

namespace ascendsim::remote {
namespace {

template <auto Fn>
void add() {
  addServed<Fn>();
}

const bool kRegistered = [] {
  add<&ascendsimCreateTensor>();
  add<&ascendsimCreateScalar>();
  add<&ascendsimTensorDims>();
  add<&aclDestroyTensor>();
  add<&aclDestroyScalar>();
  add<&aclDestroyAclOpExecutor>();
  add<&aclSetAclOpExecutorRepeatable>();
  add<&aclSetInputTensorAddr>();
  add<&aclSetOutputTensorAddr>();
  add<&aclGetViewOffset>();
  add<&aclGetFormat>();
  add<&aclGetDataType>();
  add<&aclnnAddGetWorkspaceSize>();
  add<&aclnnAdd>();
  add<&aclnnInplaceAddGetWorkspaceSize>();
  add<&aclnnInplaceAdd>();
  add<&aclnnMulGetWorkspaceSize>();
  add<&aclnnMul>();
  add<&aclnnInplaceMulGetWorkspaceSize>();
  add<&aclnnInplaceMul>();
  add<&aclnnSubGetWorkspaceSize>();
  add<&aclnnSub>();
  add<&aclnnInplaceSubGetWorkspaceSize>();
  add<&aclnnInplaceSub>();
  add<&aclnnDivGetWorkspaceSize>();
  add<&aclnnDiv>();
  add<&aclnnInplaceDivGetWorkspaceSize>();
  add<&aclnnInplaceDiv>();
  add<&aclnnInplaceCopyGetWorkspaceSize>();
  add<&aclnnInplaceCopy>();
  return true;
}();

}  // namespace
}  // namespace ascendsim::remote
