#pragma once
// The operator API's calls a program sharing a machine served by `ascendsim exec --shared` sends
// to it (docs/multiprocess.md), with how each parameter travels (runtime/remote/marshal.h):
// tensors, scalars and executors are made and kept in the server, where the kernels run; their
// handles mean nothing in another process. Registered by aclnn_served.cpp.

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_sub.h"
#include "runtime/remote/marshal.h"

// What a served program's calls that return a handle or an array send instead (the handle or the
// values come back through the last argument): aclCreateTensor, aclCreateScalar (the value's
// bytes, as many as its type takes), and aclGetViewShape / aclGetViewStrides / aclGetStorageShape
// (which: 0, 1, 2; `pointers`: bit 0 the array pointer was given, bit 1 the count's).
struct AscendsimDims {
  uint64_t count;
  int64_t values[64];
};
extern "C" {
// (The data type and format travel as their bits: a value outside the enum, which is refused with
// its code, is not a valid enum to load.)
aclnnStatus ascendsimCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, int32_t dataType,
                                  const int64_t* stride, int64_t offset, int32_t format,
                                  const int64_t* storageDims, uint64_t storageDimsNum,
                                  void* tensorData, aclTensor** tensor);
aclnnStatus ascendsimCreateScalar(void* value, uint64_t valueBytes, int32_t dataType,
                                  aclScalar** scalar);
aclnnStatus ascendsimTensorDims(const aclTensor* tensor, int32_t which, int32_t pointers,
                                AscendsimDims* dims);
}

namespace ascendsim::remote {

// tensors, scalars and executors
ASCENDSIM_SERVED(ascendsimCreateTensor, InArray<1>, Val, Val, InArray<1>, Val, Val, InArray<7>, Val,
                 Val, Out)
ASCENDSIM_SERVED(ascendsimCreateScalar, InBytes<1>, Val, Val, Out)
ASCENDSIM_SERVED(ascendsimTensorDims, Val, Val, Val, Out)
ASCENDSIM_SERVED(aclDestroyTensor, Val)
ASCENDSIM_SERVED(aclDestroyScalar, Val)
ASCENDSIM_SERVED(aclDestroyAclOpExecutor, Val)
ASCENDSIM_SERVED(aclSetAclOpExecutorRepeatable, Val)
ASCENDSIM_SERVED(aclSetInputTensorAddr, Val, Val, Val, Val)
ASCENDSIM_SERVED(aclSetOutputTensorAddr, Val, Val, Val, Val)
ASCENDSIM_SERVED(aclGetViewOffset, Val, Out)
ASCENDSIM_SERVED(aclGetFormat, Val, Out)
ASCENDSIM_SERVED(aclGetDataType, Val, Out)
// operators: the first phase (checks and plan) and the second (the kernel's launch)
ASCENDSIM_SERVED(aclnnAddGetWorkspaceSize, Val, Val, Val, Val, Out, Out)
ASCENDSIM_SERVED(aclnnAdd, Val, Val, Val, Val)
ASCENDSIM_SERVED(aclnnInplaceAddGetWorkspaceSize, Val, Val, Val, Out, Out)
ASCENDSIM_SERVED(aclnnInplaceAdd, Val, Val, Val, Val)
ASCENDSIM_SERVED(aclnnMulGetWorkspaceSize, Val, Val, Val, Out, Out)
ASCENDSIM_SERVED(aclnnMul, Val, Val, Val, Val)
ASCENDSIM_SERVED(aclnnInplaceMulGetWorkspaceSize, Val, Val, Out, Out)
ASCENDSIM_SERVED(aclnnInplaceMul, Val, Val, Val, Val)
ASCENDSIM_SERVED(aclnnSubGetWorkspaceSize, Val, Val, Val, Val, Out, Out)
ASCENDSIM_SERVED(aclnnSub, Val, Val, Val, Val)
ASCENDSIM_SERVED(aclnnInplaceSubGetWorkspaceSize, Val, Val, Val, Out, Out)
ASCENDSIM_SERVED(aclnnInplaceSub, Val, Val, Val, Val)
ASCENDSIM_SERVED(aclnnDivGetWorkspaceSize, Val, Val, Val, Out, Out)
ASCENDSIM_SERVED(aclnnDiv, Val, Val, Val, Val)
ASCENDSIM_SERVED(aclnnInplaceDivGetWorkspaceSize, Val, Val, Out, Out)
ASCENDSIM_SERVED(aclnnInplaceDiv, Val, Val, Val, Val)
ASCENDSIM_SERVED(aclnnInplaceCopyGetWorkspaceSize, Val, Val, Out, Out)
ASCENDSIM_SERVED(aclnnInplaceCopy, Val, Val, Val, Val)

}  // namespace ascendsim::remote

// The first line of an operator API entry point: on a served machine, the call goes there (a
// failure to reach it is ACLNN_ERR_RUNTIME_ERROR, as the runtime's own failures are).
#define ASCENDSIM_FORWARD_OP(fn, ...)      \
  if (::ascendsim::remote::clientActive()) \
  return ::ascendsim::runtime::api::opStatus(::ascendsim::remote::forward<&fn>(__VA_ARGS__))
