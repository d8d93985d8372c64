/*
 * AscendSim extension (not part of CANN): a modelled compute task with no arithmetic, for
 * studies that need an operator's timing but not its data. It is a KERNEL_AICORE task on
 * `stream` (NULL: the current context's default stream) that streams `bytesRead` bytes from the
 * device's memory into its AI Cores, performs `ops` element operations `opBytes` wide each, and
 * streams `bytesWritten` bytes back; it takes as long as the slowest of the vector units, the
 * cores' load/store paths and device memory (docs/compute.md). No memory changes.
 */
#ifndef ASCENDSIM_COMPUTE_H_
#define ASCENDSIM_COMPUTE_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returns ACL_ERROR_INVALID_PARAM for a NULL name or opBytes of 0, and the stream's usual codes. */
ACL_FUNC_VISIBILITY aclError ascendsimLaunchComputeTask(const char *name, uint64_t bytesRead, uint64_t bytesWritten,
                                                        uint64_t ops, uint32_t opBytes, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ASCENDSIM_COMPUTE_H_ */
