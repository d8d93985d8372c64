/*
 * AscendSim: the DVPP memory calls of acl/ops/acl_dvpp.h (image-processing buffers are device
 * memory with DVPP's alignment).
 */
#ifndef INC_EXTERNAL_ACL_OPS_ACL_DVPP_H_
#define INC_EXTERNAL_ACL_OPS_ACL_DVPP_H_

#include "../acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclError acldvppMalloc(void** devPtr, size_t size);
ACL_FUNC_VISIBILITY aclError acldvppFree(void* devPtr);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_OPS_ACL_DVPP_H_ */
