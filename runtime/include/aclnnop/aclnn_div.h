/*
 * AscendSim: aclnnDiv and aclnnInplaceDiv (aclnnop/aclnn_div.h): out = self / other, true
 * division (integer operands give a floating result), with broadcasting. Signatures as in CANN.
 */
#ifndef OP_API_INC_ACLNN_DIV_H_
#define OP_API_INC_ACLNN_DIV_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnDivGetWorkspaceSize(const aclTensor* self,
                                                         const aclTensor* other, aclTensor* out,
                                                         uint64_t* workspaceSize,
                                                         aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnDiv(void* workspace, uint64_t workspaceSize,
                                         aclOpExecutor* executor, aclrtStream stream);
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceDivGetWorkspaceSize(const aclTensor* selfRef,
                                                                const aclTensor* other,
                                                                uint64_t* workspaceSize,
                                                                aclOpExecutor** executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceDiv(void* workspace, uint64_t workspaceSize,
                                                aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ACLNN_DIV_H_ */
