/*
 * AscendSim: the AscendCL profiling API (CANN's acl/acl_prof.h: names, values and signatures as
 * CANN declares them). Profiling writes what the simulated machine did between aclprofStart and
 * aclprofStop, for the devices the configuration names, as an msprof-style result folder under
 * the path given to aclprofInit (docs/runtime.md, "Profiling"). Linked as libmsprofiler.so, or
 * through any other AscendCL library of the prefix.
 */
#ifndef INC_EXTERNAL_ACL_PROF_H_
#define INC_EXTERNAL_ACL_PROF_H_

#if defined(_WIN32) || defined(_WIN64) || defined(_MSC_VER)
#define MSVP_PROF_API __declspec(dllexport)
#else
#define MSVP_PROF_API __attribute__((visibility("default")))
#endif

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What to collect (aclprofCreateConfig's dataTypeConfig, a mask of these). */
#define ACL_PROF_ACL_API 0x0001ULL
#define ACL_PROF_TASK_TIME 0x0002ULL
#define ACL_PROF_AICORE_METRICS 0x0004ULL
#define ACL_PROF_AICPU 0x0008ULL
#define ACL_PROF_L2CACHE 0x0010ULL
#define ACL_PROF_HCCL_TRACE 0x0020ULL
#define ACL_PROF_TRAINING_TRACE 0x0040ULL
#define ACL_PROF_MSPROFTX 0x0080ULL
#define ACL_PROF_RUNTIME_API 0x0100ULL
#define ACL_PROF_GE_API_L0 0x0200ULL
#define ACL_PROF_TASK_TIME_L0 0x0800ULL
#define ACL_PROF_TASK_MEMORY 0x1000ULL
#define ACL_PROF_TASK_TIME_L2 0x2000ULL
#define ACL_PROF_OP_ATTR 0x4000ULL
#define ACL_PROF_TASK_TIME_L3 0x8000ULL
#define ACL_PROF_GE_API_L1 0x01000000ULL
#define ACL_PROF_API_STATS 0x400000000ULL
#define ACL_PROF_AICORE_SHAPE 0x800000000ULL

/* Longest operator name and type (with the terminating NUL) in subscription data. */
#define ACL_PROF_MAX_OP_NAME_LEN 257
#define ACL_PROF_MAX_OP_TYPE_LEN 65

typedef enum {
  ACL_AICORE_ARITHMETIC_UTILIZATION = 0,
  ACL_AICORE_PIPE_UTILIZATION = 1,
  ACL_AICORE_MEMORY_BANDWIDTH = 2,
  ACL_AICORE_L0B_AND_WIDTH = 3,
  ACL_AICORE_RESOURCE_CONFLICT_RATIO = 4,
  ACL_AICORE_MEMORY_UB = 5,
  ACL_AICORE_L2_CACHE = 6,
  ACL_AICORE_PIPE_EXECUTE_UTILIZATION = 7,
  ACL_AICORE_MEMORY_ACCESS = 8,
  ACL_AICORE_NONE = 0xFF
} aclprofAicoreMetrics;

typedef enum { ACL_STEP_START = 0, ACL_STEP_END = 1 } aclprofStepTag;

typedef enum {
  ACL_SUBSCRIBE_OP = 0,
  ACL_SUBSCRIBE_SUBGRAPH = 1,
  ACL_SUBSCRIBE_OP_THREAD = 2,
  ACL_SUBSCRIBE_NONE = 0xFF
} aclprofSubscribeOpFlag;

typedef enum { ACL_SUBSCRIBE_ATTRI_THREADID = 0, ACL_SUBSCRIBE_ATTRI_NONE } aclprofSubscribeOpAttri;

/* aclprofSetConfig's settings. */
typedef enum {
  ACL_PROF_ARGS_MIN = 0,
  ACL_PROF_STORAGE_LIMIT = 1,
  ACL_PROF_SYS_HARDWARE_MEM_FREQ = 3,
  ACL_PROF_LLC_MODE = 4,
  ACL_PROF_SYS_IO_FREQ = 5,
  ACL_PROF_SYS_INTERCONNECTION_FREQ = 6,
  ACL_PROF_DVPP_FREQ = 7,
  ACL_PROF_HOST_SYS = 8,
  ACL_PROF_HOST_SYS_USAGE = 9,
  ACL_PROF_HOST_SYS_USAGE_FREQ = 10,
  ACL_PROF_LOW_POWER_FREQ = 11,
  ACL_PROF_SYS_MEM_SERVICEFLOW = 12,
  ACL_PROF_SYS_CPU_FREQ = 13,
  ACL_PROF_OPTYPE = 14,
  ACL_PROF_NTS_METRICS = 15,
  ACL_PROF_PATH = 16,
  ACL_PROF_ARGS_MAX = 17
} aclprofConfigType;

typedef struct aclprofConfig aclprofConfig;
typedef struct aclprofStopConfig aclprofStopConfig;
typedef struct aclprofAicoreEvents aclprofAicoreEvents;
typedef struct aclprofSubscribeConfig aclprofSubscribeConfig;
typedef struct aclprofStepInfo aclprofStepInfo;

/*
 * Sets the folder profiling results go to (created if missing). `length` is strlen of the path,
 * 1 to 4095. Paired with aclprofFinalize; a second call before it fails with
 * ACL_ERROR_REPEAT_INITIALIZE.
 */
MSVP_PROF_API aclError aclprofInit(const char* profilerResultPath, size_t length);

/* Ends profiling; a collection still running is stopped and written first. */
MSVP_PROF_API aclError aclprofFinalize(void);

/* Starts collecting what `profilerConfig` asks for on its devices (after aclprofInit). */
MSVP_PROF_API aclError aclprofStart(const aclprofConfig* profilerConfig);

/*
 * A configuration for aclprofStart/aclprofStop: the devices to profile (each one that exists,
 * none twice), the AI Core metrics, `aicoreEvents` NULL, and the ACL_PROF_* data to collect.
 * NULL if an argument is refused.
 */
MSVP_PROF_API aclprofConfig* aclprofCreateConfig(uint32_t* deviceIdList, uint32_t deviceNums,
                                                 aclprofAicoreMetrics aicoreMetrics,
                                                 const aclprofAicoreEvents* aicoreEvents,
                                                 uint64_t dataTypeConfig);

/* Frees a configuration made by aclprofCreateConfig. */
MSVP_PROF_API aclError aclprofDestroyConfig(const aclprofConfig* profilerConfig);

/* Stops the collection started with this configuration (the same devices and data) and writes it.
 */
MSVP_PROF_API aclError aclprofStop(const aclprofConfig* profilerConfig);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_PROF_H_ */
