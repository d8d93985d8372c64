/*
 * AscendSim: aclnnSub and aclnnInplaceSub (aclnnop/aclnn_sub.h): out = self - alpha * other,
 * with broadcasting and type promotion. Signatures as in CANN.
 */
#ifndef OP_API_INC_ACLNN_SUB_H_
#define OP_API_INC_ACLNN_SUB_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnSubGetWorkspaceSize(const aclTensor* self,
                                                         const aclTensor* other,
                                                         const aclScalar* alpha, aclTensor* out,
                                                         uint64_t* workspaceSize,
                                                         aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnSub(void* workspace, uint64_t workspaceSize,
                                         aclOpExecutor* executor, aclrtStream stream);
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceSubGetWorkspaceSize(const aclTensor* selfRef,
                                                                const aclTensor* other,
                                                                const aclScalar* alpha,
                                                                uint64_t* workspaceSize,
                                                                aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceSub(void* workspace, uint64_t workspaceSize,
                                                aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ACLNN_SUB_H_ */
