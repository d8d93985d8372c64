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
ACL_FUNC_VISIBILITY aclError ascendsimLaunchComputeTask(const char* name, uint64_t bytesRead,
                                                        uint64_t bytesWritten, uint64_t ops,
                                                        uint32_t opBytes, aclrtStream stream);

/* How a compute task's traffic walks the device memory it is given. */
typedef enum ascendsimAccessPattern {
  ASCENDSIM_ACCESS_SEQUENTIAL = 0, /* in order, wrapping at the region's end */
  ASCENDSIM_ACCESS_STRIDED =
      1, /* one memory burst every `stride` bytes, one burst further on each wrap */
  ASCENDSIM_ACCESS_RANDOM =
      2 /* one burst at a uniformly random place; the writes at the places read */
} ascendsimAccessPattern;

/*
 * As ascendsimLaunchComputeTask, with the traffic placed: the task reads `bytesRead` bytes of the
 * device memory [region, region + regionBytes) and writes `bytesWritten` bytes into it, in
 * `pattern` (an ascendsimAccessPattern, passed as an int so that any value can be refused).
 * Device memories with `timing: cycle` time every burst at its address (a random kernel costs
 * row misses and slows the copies beside it); with `timing: sustained` only the byte counts
 * matter. Returns ACL_ERROR_INVALID_PARAM for a NULL name or region, a regionBytes of
 * 0, an unknown pattern, a STRIDED pattern with stride 0 and opBytes of 0;
 * ACL_ERROR_RT_PARAM_INVALID when the region is not device memory of the stream's device.
 */
ACL_FUNC_VISIBILITY aclError ascendsimLaunchComputeTaskIn(const char* name, void* region,
                                                          uint64_t regionBytes, int32_t pattern,
                                                          uint64_t stride, uint64_t bytesRead,
                                                          uint64_t bytesWritten, uint64_t ops,
                                                          uint32_t opBytes, aclrtStream stream);

/*
 * As ascendsimLaunchComputeTaskIn, with the size of each access of a STRIDED or RANDOM pattern
 * (a gather's element): `accessBytes` bytes at each place instead of one memory burst. It must be
 * a multiple of 32 (the AI Core moves whole 32-byte data blocks between global memory and its
 * Unified Buffer) and no larger than the region; 0 means one burst of the device's memory (as
 * ascendsimLaunchComputeTaskIn). Returns ACL_ERROR_INVALID_PARAM for a size that is not a
 * multiple of 32, larger than the region, or given with a SEQUENTIAL pattern, besides the codes
 * of ascendsimLaunchComputeTaskIn.
 */
ACL_FUNC_VISIBILITY aclError ascendsimLaunchComputeTaskSized(const char* name, void* region,
                                                             uint64_t regionBytes, int32_t pattern,
                                                             uint64_t stride, uint64_t accessBytes,
                                                             uint64_t bytesRead,
                                                             uint64_t bytesWritten, uint64_t ops,
                                                             uint32_t opBytes, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ASCENDSIM_COMPUTE_H_ */
