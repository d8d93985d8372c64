/*
 * AscendSim: operator-API tensors and scalars (aclnn/acl_meta.h), as CANN's libnnopbase offers
 * them. Names, signatures and values follow CANN so that existing programs build unchanged.
 */
#ifndef OP_API_ACL_META_H_
#define OP_API_ACL_META_H_

#include <stddef.h>
#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t aclnnStatus;

typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;

/* A view of `viewDimsNum` dimensions over device memory at `tensorData`: element (i0, i1, ...)
 * lives at element index offset + sum(ik * stride[k]) of the storage. Returns NULL when an
 * argument is invalid (a dimension count over 8, a negative size or stride, a NULL array). */
ACL_FUNC_VISIBILITY aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum,
                                               aclDataType dataType, const int64_t* stride,
                                               int64_t offset, aclFormat format,
                                               const int64_t* storageDims, uint64_t storageDimsNum,
                                               void* tensorData);
/* A host-side value of `dataType` copied from `value`; NULL for a NULL value or unknown type. */
ACL_FUNC_VISIBILITY aclScalar* aclCreateScalar(void* value, aclDataType dataType);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor* tensor);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalar(const aclScalar* scalar);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor);

/* Reuse: after the first phase, make the executor repeatable; the second phase then runs it any
 * number of times, until aclDestroyAclOpExecutor. Moved device memory is re-pointed per tensor:
 * inputs in the operator's order (self, other; a copy's src), outputs (out, or selfRef). */
ACL_FUNC_VISIBILITY aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor);
ACL_FUNC_VISIBILITY aclnnStatus aclSetInputTensorAddr(aclOpExecutor* executor, const size_t index,
                                                      aclTensor* tensor, void* addr);
ACL_FUNC_VISIBILITY aclnnStatus aclSetOutputTensorAddr(aclOpExecutor* executor, const size_t index,
                                                       aclTensor* tensor, void* addr);

/* Read back what a tensor describes. The arrays are allocated with new[] for the caller to
 * delete[], as CANN does. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims,
                                                uint64_t* viewDimsNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue,
                                                  uint64_t* stridesNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset);
ACL_FUNC_VISIBILITY aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims,
                                                   uint64_t* storageDimsNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format);
ACL_FUNC_VISIBILITY aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_ACL_META_H_ */
