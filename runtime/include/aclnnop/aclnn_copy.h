/*
 * AscendSim: aclnnInplaceCopy (aclnnop/aclnn_copy.h): selfRef = src, broadcast and cast to
 * selfRef's type. Signature as in CANN.
 */
#ifndef OP_API_INC_ACLNN_COPY_H_
#define OP_API_INC_ACLNN_COPY_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor* selfRef,
                                                                 const aclTensor* src,
                                                                 uint64_t* workspaceSize,
                                                                 aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceCopy(void* workspace, uint64_t workspaceSize,
                                                 aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ACLNN_COPY_H_ */
