/*
 * AscendSim: AscendCL runtime API (acl/acl_rt.h): devices, contexts, streams, events, memory.
 * Names, signatures and enum values follow CANN.
 */
#ifndef INC_EXTERNAL_ACL_ACL_RT_H_
#define INC_EXTERNAL_ACL_ACL_RT_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The AscendCL API version AscendSim implements: that of CANN's runtime 9.1.0 (ACL 1.17.0). */
#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 17
#define ACL_PATCH_VERSION 0

/* Buffers for aclsysGetVersionStr and the parts of a package version. */
#define ACL_PKG_VERSION_MAX_SIZE 128
#define ACL_PKG_VERSION_PARTS_MAX_SIZE 64

#define ACL_EVENT_SYNC 0x00000001U
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x00000002U
#define ACL_EVENT_TIME_LINE 0x00000008U
#define ACL_EVENT_DEVICE_USE_ONLY 0x00000010U
#define ACL_EVENT_EXTERNAL 0x00000020U
#define ACL_EVENT_IPC 0x00000040U

/* How two devices are connected (aclrtGetDevicesTopo) */
#define ACL_RT_DEVS_TOPOLOGY_HCCS 0x01ULL
#define ACL_RT_DEVS_TOPOLOGY_PIX 0x02ULL
#define ACL_RT_DEVS_TOPOLOGY_PIB 0x04ULL
#define ACL_RT_DEVS_TOPOLOGY_PHB 0x08ULL
#define ACL_RT_DEVS_TOPOLOGY_SYS 0x10ULL
#define ACL_RT_DEVS_TOPOLOGY_SIO 0x20ULL
#define ACL_RT_DEVS_TOPOLOGY_HCCS_SW 0x40ULL

/* aclrtHostRegisterV2 flags */
#define ACL_HOST_REG_MAPPED 0x2UL
#define ACL_HOST_REG_IOMEMORY 0x4UL
#define ACL_HOST_REG_READONLY 0x8UL
#define ACL_HOST_REG_PINNED 0x10000000UL
/* aclrtMemAllocManaged flag */
#define ACL_RT_MEM_ATTACH_GLOBAL 0x01U

#define ACL_DEV_FEATURE_SUPPORT 0x00000001
#define ACL_DEV_FEATURE_NOT_SUPPORT 0x00000000

#define ACL_STREAM_FAST_LAUNCH 0x00000001U
#define ACL_STREAM_FAST_SYNC 0x00000002U
#define ACL_STREAM_PERSISTENT 0x00000004U
#define ACL_STREAM_HUGE 0x00000008U
/* A stream whose tasks the device itself drives; aclrtStreamStop takes only these, and
 * aclrtStreamAbort never does (CANN, A2/A3). Otherwise a plain stream. */
#define ACL_STREAM_DEVICE_USE_ONLY 0x00000020U

/* aclrtSetStreamFailureMode */
/* aclrtValueWait conditions on the 8 bytes at devAddr (v): */
#define ACL_STREAM_WAIT_VALUE_GEQ                                                                 \
  0x00000000U                                 /* v >= value (signed, as CANN's condition program) \
                                               */
#define ACL_STREAM_WAIT_VALUE_EQ 0x00000001U  /* v == value */
#define ACL_STREAM_WAIT_VALUE_AND 0x00000002U /* (v & value) != 0 */
#define ACL_STREAM_WAIT_VALUE_NOR 0x00000003U /* ~(v | value) != 0 */

#define ACL_CONTINUE_ON_FAILURE 0x00000000U
#define ACL_STOP_ON_FAILURE 0x00000001U

typedef enum aclrtRunMode {
  ACL_DEVICE = 0,
  ACL_HOST = 1,
} aclrtRunMode;

typedef enum aclrtTsId {
  ACL_TS_ID_AICORE = 0,
  ACL_TS_ID_AIVECTOR = 1,
  ACL_TS_ID_RESERVED = 2,
} aclrtTsId;

typedef enum aclrtEventStatus {
  ACL_EVENT_STATUS_COMPLETE = 0,
  ACL_EVENT_STATUS_NOT_READY = 1,
  ACL_EVENT_STATUS_RESERVED = 2,
} aclrtEventStatus;

typedef enum aclrtEventRecordedStatus {
  ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
  ACL_EVENT_RECORDED_STATUS_COMPLETE = 1,
} aclrtEventRecordedStatus;

typedef enum aclrtEventWaitStatus {
  ACL_EVENT_WAIT_STATUS_COMPLETE = 0,
  ACL_EVENT_WAIT_STATUS_NOT_READY = 1,
  ACL_EVENT_WAIT_STATUS_RESERVED = 0xffff,
} aclrtEventWaitStatus;

typedef enum aclrtStreamStatus {
  ACL_STREAM_STATUS_COMPLETE = 0,
  ACL_STREAM_STATUS_NOT_READY = 1,
  ACL_STREAM_STATUS_RESERVED = 0xffff,
} aclrtStreamStatus;

typedef enum aclrtCallbackBlockType {
  ACL_CALLBACK_NO_BLOCK = 0,
  ACL_CALLBACK_BLOCK = 1,
} aclrtCallbackBlockType;

typedef enum aclrtMemcpyKind {
  ACL_MEMCPY_HOST_TO_HOST = 0,
  ACL_MEMCPY_HOST_TO_DEVICE = 1,
  ACL_MEMCPY_DEVICE_TO_HOST = 2,
  ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
  ACL_MEMCPY_DEFAULT = 4,
  ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE = 5,
  ACL_MEMCPY_INNER_DEVICE_TO_DEVICE = 6,
  ACL_MEMCPY_INTER_DEVICE_TO_DEVICE = 7,
} aclrtMemcpyKind;

typedef enum {
  ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM = 10,
  ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX = 11,
  ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN = 12,
  ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL = 13,
} aclrtReduceKind;

typedef enum aclrtMemMallocPolicy {
  ACL_MEM_MALLOC_HUGE_FIRST = 0,
  ACL_MEM_MALLOC_HUGE_ONLY = 1,
  ACL_MEM_MALLOC_NORMAL_ONLY = 2,
  ACL_MEM_MALLOC_HUGE_FIRST_P2P = 3,
  ACL_MEM_MALLOC_HUGE_ONLY_P2P = 4,
  ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5,
  ACL_MEM_MALLOC_HUGE1G_ONLY = 6,
  ACL_MEM_MALLOC_HUGE1G_ONLY_P2P = 7,
  ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
  ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
} aclrtMemMallocPolicy;

typedef enum aclrtMemAttr {
  ACL_DDR_MEM = 0,
  ACL_HBM_MEM = 1,
  ACL_DDR_MEM_HUGE = 2,
  ACL_DDR_MEM_NORMAL = 3,
  ACL_HBM_MEM_HUGE = 4,
  ACL_HBM_MEM_NORMAL = 5,
  ACL_DDR_MEM_P2P_HUGE = 6,
  ACL_DDR_MEM_P2P_NORMAL = 7,
  ACL_HBM_MEM_P2P_HUGE = 8,
  ACL_HBM_MEM_P2P_NORMAL = 9,
} aclrtMemAttr;

/* Why a device last failed (aclrtGetErrorVerbose). */
typedef enum {
  ACL_RT_NO_ERROR = 0,
  ACL_RT_ERROR_MEMORY = 1,
  ACL_RT_ERROR_L2 = 2,
  ACL_RT_ERROR_AICORE = 3,
  ACL_RT_ERROR_LINK = 4,
  ACL_RT_ERROR_L3_PORT = 5,
  ACL_RT_ERROR_OTHERS = 0xFFFF,
} aclrtErrorType;

typedef enum aclrtAicoreErrorType {
  ACL_RT_AICORE_ERROR_UNKNOWN,
  ACL_RT_AICORE_ERROR_SW,
  ACL_RT_AICORE_ERROR_HW_LOCAL,
} aclrtAicoreErrorType;

#define UCE_INFO_RESERVED_SIZE 14
typedef struct aclrtMemUceInfo {
  void* addr;
  size_t len;
  size_t reserved[UCE_INFO_RESERVED_SIZE];
} aclrtMemUceInfo;

#define ACL_RT_MEM_UCE_INFO_MAX_NUM 20
typedef struct {
  size_t arraySize;
  aclrtMemUceInfo memUceInfoArray[ACL_RT_MEM_UCE_INFO_MAX_NUM];
} aclrtMemUceInfoArray;

typedef union aclrtErrorInfoDetail {
  aclrtMemUceInfoArray uceInfo;
  aclrtAicoreErrorType aicoreErrType;
} aclrtErrorInfoDetail;

typedef struct aclrtErrorInfo {
  uint8_t tryRepair;
  uint8_t hasDetail;
  uint8_t reserved[2];
  aclrtErrorType errorType;
  aclrtErrorInfoDetail detail;
} aclrtErrorInfo;

/* A failed task, as an exception callback sees it (read it with the aclrtGet...FromExceptionInfo
 * getters; valid during the callback only). */
typedef struct rtExceptionInfo aclrtExceptionInfo;
typedef void (*aclrtExceptionInfoCallback)(aclrtExceptionInfo* exceptionInfo);

typedef void* aclrtBinHandle;
typedef void* aclrtFuncHandle;
typedef void* aclrtArgsHandle;
typedef void* aclrtParamHandle;

/* What aclrtSetStreamConfigOpt sets in a stream configuration (aclrtCreateStreamV2). */
typedef enum {
  ACL_RT_STREAM_WORK_ADDR_PTR = 0, /* model work memory: for model run instances, refused here */
  ACL_RT_STREAM_WORK_SIZE,         /* its size (size_t) */
  ACL_RT_STREAM_FLAG,     /* ACL_STREAM_* flags (size_t, or uint32_t as CANN's sample passes) */
  ACL_RT_STREAM_PRIORITY, /* 0 (greatest) .. 7 (least), uint32_t */
} aclrtStreamConfigAttr;

typedef struct aclrtStreamConfigHandle {
  void* workptr;
  size_t workSize;
  size_t flag;
  uint32_t priority;
} aclrtStreamConfigHandle;

typedef enum {
  ACL_RT_STREAM_STATE_CREATE_POST = 1,
  ACL_RT_STREAM_STATE_DESTROY_PRE,
} aclrtStreamState;
typedef void (*aclrtStreamStateCallback)(aclrtStream stm, aclrtStreamState state, void* args);

typedef enum aclrtDeviceStatus {
  ACL_RT_DEVICE_STATUS_NORMAL = 0,
  ACL_RT_DEVICE_STATUS_ABNORMAL,
  ACL_RT_DEVICE_STATUS_END = 0xFFFF,
} aclrtDeviceStatus;

/* How floating-point results that overflow come out (aclrtSetDeviceSatMode). */
typedef enum aclrtFloatOverflowMode {
  ACL_RT_OVERFLOW_MODE_SATURATION = 0,
  ACL_RT_OVERFLOW_MODE_INFNAN,
  ACL_RT_OVERFLOW_MODE_UNDEF,
} aclrtFloatOverflowMode;

typedef struct aclrtUtilizationExtendInfo aclrtUtilizationExtendInfo;
typedef struct aclrtUtilizationInfo {
  int32_t cubeUtilization;
  int32_t vectorUtilization;
  int32_t aicpuUtilization;
  int32_t memoryUtilization;
  aclrtUtilizationExtendInfo* utilizationExtend; /* reserved: must be NULL */
} aclrtUtilizationInfo;

typedef enum {
  ACL_DEV_ATTR_AICPU_CORE_NUM = 1,
  ACL_DEV_ATTR_AICORE_CORE_NUM = 101,
  ACL_DEV_ATTR_CUBE_CORE_NUM = 102,
  ACL_DEV_ATTR_VECTOR_CORE_NUM = 201,
  ACL_DEV_ATTR_WARP_SIZE = 202,
  ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE = 203,
  ACL_DEV_ATTR_LOCAL_MEM_PER_VECTOR_CORE = 204,
  ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE = 204,
  ACL_DEV_ATTR_MAX_GRID_DIM_X = 205,
  ACL_DEV_ATTR_MAX_GRID_DIM_Y = 206,
  ACL_DEV_ATTR_MAX_GRID_DIM_Z = 207,
  ACL_DEV_ATTR_MAX_BLOCK_PER_GRID = 208,
  ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK = 209,
  ACL_DEV_ATTR_MAX_BLOCK_DIM_X = 210,
  ACL_DEV_ATTR_MAX_BLOCK_DIM_Y = 211,
  ACL_DEV_ATTR_MAX_BLOCK_DIM_Z = 212,
  ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE = 301,
  ACL_DEV_ATTR_L2_CACHE_SIZE = 302,
  ACL_DEV_ATTR_SMP_ID = 401U,
  ACL_DEV_ATTR_PHY_CHIP_ID = 402U,
  ACL_DEV_ATTR_SUPER_POD_DEVIDE_ID = 403U,
  ACL_DEV_ATTR_SUPER_POD_DEVICE_ID = 403U,
  ACL_DEV_ATTR_SUPER_POD_SERVER_ID = 404U,
  ACL_DEV_ATTR_SUPER_POD_ID = 405U,
  ACL_DEV_ATTR_CUST_OP_PRIVILEGE = 406U,
  ACL_DEV_ATTR_MAINBOARD_ID = 407U,
  ACL_DEV_ATTR_HD_CONNECT_TYPE = 408U,
  ACL_DEV_ATTR_DEVICE_FORM_FACTOR = 409U,
  ACL_DEV_ATTR_IS_VIRTUAL = 501U,
  ACL_DEV_ATTR_NPU_ARCH = 601U,
} aclrtDevAttr;

typedef enum {
  ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV = 1,
  ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV = 21,
} aclrtDevFeatureType;

typedef enum {
  ACL_RT_DEV_RES_CUBE_CORE = 0,
  ACL_RT_DEV_RES_VECTOR_CORE,
} aclrtDevResLimitType;

typedef enum {
  ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD = 1,
  ACL_RT_BINARY_LOAD_OPT_LAZY_MAGIC = 2,
  ACL_RT_BINARY_LOAD_OPT_MAGIC = 2,
  ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE = 3,
} aclrtBinaryLoadOptionType;
typedef union aclrtBinaryLoadOptionValue {
  uint32_t isLazyLoad;
  uint32_t magic;
  int32_t cpuKernelMode;
  uint32_t rsv[4];
} aclrtBinaryLoadOptionValue;
typedef struct {
  aclrtBinaryLoadOptionType type;
  aclrtBinaryLoadOptionValue value;
} aclrtBinaryLoadOption;
typedef struct aclrtBinaryLoadOptions {
  aclrtBinaryLoadOption* options;
  size_t numOpt;
} aclrtBinaryLoadOptions;

typedef enum {
  ACL_RT_ENGINE_TYPE_AIC = 0,
  ACL_RT_ENGINE_TYPE_AIV,
} aclrtEngineType;
typedef enum aclrtLaunchKernelAttrId {
  ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE = 1,
  ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE = 2,
  ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE = 3,
  ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET = 4,
  ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH = 5,
  ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP = 6,
  ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT = 7,
  ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US = 8,
  ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING = 9,
} aclrtLaunchKernelAttrId;
typedef struct {
  uint32_t timeoutLow;
  uint32_t timeoutHigh;
} aclrtTimeoutUs;
typedef union aclrtLaunchKernelAttrValue {
  uint8_t schemMode;
  uint32_t dynUBufSize;
  aclrtEngineType engineType;
  uint32_t blockDimOffset;
  uint8_t isBlockTaskPrefetch;
  uint8_t isDataDump;
  uint16_t timeout;
  aclrtTimeoutUs timeoutUs;
  uint8_t enableProfiling;
  uint32_t rsv[4];
} aclrtLaunchKernelAttrValue;
typedef struct aclrtLaunchKernelAttr {
  aclrtLaunchKernelAttrId id;
  aclrtLaunchKernelAttrValue value;
} aclrtLaunchKernelAttr;
typedef struct aclrtLaunchKernelCfg {
  aclrtLaunchKernelAttr* attrs;
  size_t numAttrs;
} aclrtLaunchKernelCfg;

typedef enum {
  ACL_HOST_REGISTER_MAPPED = 0,
  ACL_HOST_REGISTER_IOMEMORY = 0x04,
  ACL_HOST_REGISTER_READONLY = 0x08
} aclrtHostRegisterType;

/* Attributes of aclrtMallocHostWithCfg (host memory takes MODULE_ID and VA_FLAG). */
typedef enum {
  ACL_RT_MEM_ATTR_RSV = 0,
  ACL_RT_MEM_ATTR_MODULE_ID,
  ACL_RT_MEM_ATTR_DEVICE_ID,
  ACL_RT_MEM_ATTR_VA_FLAG,
} aclrtMallocAttrType;
typedef union {
  uint16_t moduleId;
  uint32_t deviceId;
  uint32_t vaFlag;
  uint8_t rsv[8];
} aclrtMallocAttrValue;
typedef struct {
  aclrtMallocAttrType attr;
  aclrtMallocAttrValue value;
} aclrtMallocAttribute;
typedef struct {
  aclrtMallocAttribute* attrs;
  size_t numAttrs;
} aclrtMallocConfig;

typedef enum aclrtMemLocationType {
  ACL_MEM_LOCATION_TYPE_HOST = 0,
  ACL_MEM_LOCATION_TYPE_DEVICE,
  ACL_MEM_LOCATION_TYPE_UNREGISTERED,
  ACL_MEM_LOCATION_TYPE_MANAGED,
  ACL_MEM_LOCATION_TYPE_HOST_NUMA = 4,
} aclrtMemLocationType;
typedef struct aclrtMemLocation {
  uint32_t id;
  aclrtMemLocationType type;
} aclrtMemLocation;
typedef enum aclrtMemAllocationType {
  ACL_MEM_ALLOCATION_TYPE_PINNED = 0,
} aclrtMemAllocationType;
typedef enum aclrtMemHandleType {
  ACL_MEM_HANDLE_TYPE_NONE = 0,
  ACL_MEM_HANDLE_TYPE_POSIX = 2,
} aclrtMemHandleType;
typedef struct aclrtPhysicalMemProp {
  aclrtMemHandleType handleType;
  aclrtMemAllocationType allocationType;
  aclrtMemAttr memAttr;
  aclrtMemLocation location;
  uint64_t reserve;
} aclrtPhysicalMemProp;
typedef enum aclrtMemGranularityOptions {
  ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM,
  ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
  ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF = 0xFFFF,
} aclrtMemGranularityOptions;
typedef void* aclrtDrvMemHandle;
typedef enum {
  ACL_RT_MEM_ACCESS_FLAGS_NONE = 0x0,
  ACL_RT_MEM_ACCESS_FLAGS_READ = 0x1,
  ACL_RT_MEM_ACCESS_FLAGS_READWRITE = 0x3,
} aclrtMemAccessFlags;
typedef struct {
  aclrtMemAccessFlags flags;
  aclrtMemLocation location;
  uint8_t rsv[12];
} aclrtMemAccessDesc;

typedef void (*aclrtCallback)(void* userData);
typedef void (*aclrtHostFunc)(void* args);

/* Device */
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);
/* Resets the device however many aclrtSetDevice calls (of any thread) hold it. */
ACL_FUNC_VISIBILITY aclError aclrtResetDeviceForce(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t* deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t* count);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);
ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode* runMode);
ACL_FUNC_VISIBILITY aclError aclrtDeviceCanAccessPeer(int32_t* canAccessPeer, int32_t deviceId,
                                                      int32_t peerDeviceId);
ACL_FUNC_VISIBILITY aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags);
ACL_FUNC_VISIBILITY aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDevicesTopo(uint32_t deviceId, uint32_t otherDeviceId,
                                                 uint64_t* value);
ACL_FUNC_VISIBILITY aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t* free, size_t* total);

/* Kernel binaries: what ascendc_fatbin_library builds (install prefix fatbin/NAME/NAME.o). Load one
 * (a file that is not such a binary: ACL_ERROR_RT_FILE_OPEN; options: NULL or none), find a kernel
 * defined in it by name (none: ACL_ERROR_RT_KERNEL_LOOKUP), put its arguments together (each
 * appended at the next multiple of 8 bytes, as CANN places AI Core kernels' arguments; their total
 * must be what the kernel takes) and launch it on numBlocks blocks: a KERNEL_AICORE task, as a
 * <<<...>>> launch. Launch attributes (cfg) are not simulated: a cfg with any is refused
 * (ACL_ERROR_RT_FEATURE_NOT_SUPPORT). Unloading with launches still queued is fine: the binary
 * stays open until they end. */
ACL_FUNC_VISIBILITY aclError aclrtBinaryLoadFromFile(const char* binPath,
                                                     aclrtBinaryLoadOptions* options,
                                                     aclrtBinHandle* binHandle);
ACL_FUNC_VISIBILITY aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle);
ACL_FUNC_VISIBILITY aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle,
                                                    const char* kernelName,
                                                    aclrtFuncHandle* funcHandle);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle,
                                                 aclrtArgsHandle* argsHandle);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void* param,
                                                   size_t paramSize, aclrtParamHandle* paramHandle);
/* A placeholder parameter: 8 bytes that hold, at launch, the device address of the data the
 * program writes into aclrtKernelArgsGetPlaceHolderBuffer's host buffer (copied to device memory
 * with each launch's arguments). No parameter may be appended after a buffer was taken. */
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsAppendPlaceHolder(aclrtArgsHandle argsHandle,
                                                              aclrtParamHandle* paramHandle);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsGetPlaceHolderBuffer(aclrtArgsHandle argsHandle,
                                                                 aclrtParamHandle paramHandle,
                                                                 size_t dataSize,
                                                                 void** bufferAddr);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle);
ACL_FUNC_VISIBILITY aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle,
                                                         uint32_t numBlocks, aclrtStream stream,
                                                         aclrtLaunchKernelCfg* cfg,
                                                         aclrtArgsHandle argsHandle, void* reserve);

/* Device queries. Core counts as CANN counts them: on A2/A3 SoCs (Ascend910B*, Ascend910_93*)
 * ai_core.cores vector cores and half as many cube cores (AI_CORE_NUM = CUBE_CORE_NUM); elsewhere
 * ai_core.cores AI Cores, each with both units. UBUF_PER_VECTOR_CORE: 192 KiB on A2/A3, 256 KiB
 * elsewhere (the Unified Buffer an Ascend C kernel's TPipe may take). TOTAL_GLOBAL_MEM_SIZE is the
 * device memory's capacity, PHY_CHIP_ID the device id, IS_VIRTUAL 0; attributes the machine does
 * not describe (AI CPUs, L2, SIMT sizes, pods, boards): ACL_ERROR_RT_FEATURE_NOT_SUPPORT. */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr,
                                                int64_t* value);
/* 1 when a model built for `socVersion` runs on the machine's devices: the same SoC family
 * (Ascend910B3 and Ascend910B4 both Ascend910B; Ascend910_9362 and Ascend910_9392 both
 * Ascend910_93; otherwise the same name), else 0. */
ACL_FUNC_VISIBILITY aclError aclrtCheckArchCompatibility(const char* socVersion,
                                                         int32_t* canCompatible);
/* ACL_RT_DEVICE_STATUS_ABNORMAL once a task faulted on the device (an AI Core exception, a kernel
 * trap), until the device is reset (aclrtResetDevice of its last reference, aclrtResetDeviceForce);
 * else ACL_RT_DEVICE_STATUS_NORMAL. */
ACL_FUNC_VISIBILITY aclError aclrtQueryDeviceStatus(int32_t deviceId,
                                                    aclrtDeviceStatus* deviceStatus);
/* Percent of the simulated time since the machine started (the first aclInit of the process)
 * that the device's cores ran kernels (vectorUtilization), that its AI Cores did (cubeUtilization,
 * CANN's AI Core share: on A2/A3 SoCs kernels run on the vector cores and this is 0; elsewhere they
 * run on the AI Cores and both are the same) and that its memory was busy (memoryUtilization); AI
 * CPU work is not simulated: 0. utilizationExtend must be NULL. */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceUtilizationRate(int32_t deviceId,
                                                           aclrtUtilizationInfo* utilizationInfo);
/* Cores kernels of this process may use on the device: 1..the device's count (else
 * ACL_ERROR_RT_PARAM_INVALID). A vector core limit caps the cores every kernel launched on the
 * device afterwards runs on (its timing); so does a cube core limit on SoCs whose kernels run on
 * the AI Cores (910A, 310P), while on A2/A3 nothing simulated runs on the cube cores. Reset
 * restores the full counts. */
ACL_FUNC_VISIBILITY aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type,
                                                    uint32_t value);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type,
                                                    uint32_t* value);
ACL_FUNC_VISIBILITY aclError aclrtResetDeviceResLimit(int32_t deviceId);
/* The limit that applies to the calling thread: its current context's device's. */
ACL_FUNC_VISIBILITY aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t* value);
/* Optional runtime features, per SoC: ACL_DEV_FEATURE_SUPPORT for both kinds CANN defines (AI
 * Core task update, cross-device memory-queue events) on A2/A3 SoCs, ACL_DEV_FEATURE_NOT_SUPPORT
 * elsewhere; another devFeatureType: ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCapability(int32_t deviceId,
                                                      aclrtDevFeatureType devFeatureType,
                                                      int32_t* value);
/* The floating-point overflow mode: Set changes the process's and the current device's, which
 * streams made on that device afterwards take; Get answers the process's. In saturation a
 * stream's floating results that are Inf become the type's largest value, NaN 0. A2/A3 SoCs take
 * both modes (Inf/NaN by default), the 950 only Inf/NaN, the 910A, 310P and 310B only saturation;
 * another mode of the SoC: ACL_ERROR_RT_FEATURE_NOT_SUPPORT; another value:
 * ACL_ERROR_RT_PARAM_INVALID. */
ACL_FUNC_VISIBILITY aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode* mode);

/* Context */
ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext* context);
/* The current context's default stream (what a NULL stream means). */
ACL_FUNC_VISIBILITY aclError aclrtCtxGetCurrentDefaultStream(aclrtStream* stream);

/* Stream */
ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream* stream);
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority,
                                                         uint32_t flag);
/* A zeroed stream configuration (NULL if out of host memory); destroy it with
 * aclrtDestroyStreamConfigHandle (a handle not made here: ACL_ERROR_INVALID_PARAM). */
ACL_FUNC_VISIBILITY aclrtStreamConfigHandle* aclrtCreateStreamConfigHandle(void);
ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle* handle);
/* Sets one attribute; a wrong valueSize, priority above 7 or unknown attr: ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle* handle,
                                                     aclrtStreamConfigAttr attr,
                                                     const void* attrValue, size_t valueSize);
/* aclrtCreateStreamWithConfig(stream, handle->priority, handle->flag); NULL handle: a plain stream.
 * Model work memory (workptr or workSize set): ACL_ERROR_RT_FEATURE_NOT_SUPPORT. */
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamV2(aclrtStream* stream,
                                                 const aclrtStreamConfigHandle* handle);
/* The stream's id on its device (the default stream's too: NULL means it), its flags as created
 * (the ones CANN knows) and its priority. */
ACL_FUNC_VISIBILITY aclError aclrtStreamGetId(aclrtStream stream, int32_t* streamId);
ACL_FUNC_VISIBILITY aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t* flags);
ACL_FUNC_VISIBILITY aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t* priority);
/* Priorities run from 7 (least) to 0 (greatest): among tasks ready at the same moment, the one of
 * the stream with the greater priority takes a free DMA channel or the AI Cores first. */
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetStreamPriorityRange(int32_t* leastPriority,
                                                               int32_t* greatestPriority);
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);
/* Destroys the stream without running what is queued on it: its tasks, the running one included,
 * are dropped (no data they would move arrives). */
ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamForce(aclrtStream stream);
/* Discards every task of the stream that has not ended (queued ones never run, a running one's
 * data effect is dropped). Stop: for ACL_STREAM_DEVICE_USE_ONLY streams only (else
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT); the stream then takes no task and every synchronisation of
 * it fails with ACL_ERROR_RT_INTERNAL_ERROR, as CANN's sample shows: destroy it. Abort: not for
 * device-use-only streams; the next synchronisation fails once with ACL_ERROR_RT_STREAM_ABORT
 * and the stream is usable again. */
ACL_FUNC_VISIBILITY aclError aclrtStreamStop(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtStreamAbort(aclrtStream stream);
/* Calls `callback(stream, state, args)` after each stream the program creates
 * (ACL_RT_STREAM_STATE_CREATE_POST) and before each it destroys (DESTROY_PRE), in the calling
 * thread, outside the runtime's lock. One registration per name; a NULL callback removes it. */
ACL_FUNC_VISIBILITY aclError aclrtRegStreamStateCallback(const char* regName,
                                                         aclrtStreamStateCallback callback,
                                                         void* args);
/* ACL_CONTINUE_ON_FAILURE (default) or ACL_STOP_ON_FAILURE: after a task of a stream of the
 * context fails, skip that stream's later tasks and refuse new ones. Stop cannot go back to
 * continue (ACL_ERROR_RT_FEATURE_NOT_SUPPORT). NULL: the default stream. */
ACL_FUNC_VISIBILITY aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status);
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);

/* Event */
/* Notifies: a flag on the device. aclrtRecordNotify queues a task that sets it;
 * aclrtWaitAndResetNotify queues one that waits until it is set and clears it (several records
 * before one wait count once). flag must be 0; timeout 0 waits for ever (other timeouts:
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT). */
ACL_FUNC_VISIBILITY aclError aclrtCreateNotify(aclrtNotify* notify, uint64_t flag);
ACL_FUNC_VISIBILITY aclError aclrtDestroyNotify(aclrtNotify notify);
ACL_FUNC_VISIBILITY aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream,
                                                     uint32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t* notifyId);
/* A notify shared with other processes by key (as IPC memory: 65 bytes with its NUL, a list of
 * importing pids unless exported with DISABLE_PID_VALIDATION). The import is a notify of its own
 * (aclrtDestroyNotify closes it) on the exporter's flag. */
#define ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x02UL
#define ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS 0x02UL
ACL_FUNC_VISIBILITY aclError aclrtNotifyGetExportKey(aclrtNotify notify, char* key, size_t len,
                                                     uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtNotifyImportByKey(aclrtNotify* notify, const char* key,
                                                    uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t* pid, size_t num);
/* An event made with ACL_EVENT_IPC shared with other processes: the handle names it; opening it
 * gives an event of the opener's own (aclrtDestroyEvent closes it) whose records and waits are the
 * exporter's event's. */
#define ACL_IPC_EVENT_HANDLE_SIZE 64U
typedef struct aclrtIpcEventHandle {
  char reserved[ACL_IPC_EVENT_HANDLE_SIZE];
} aclrtIpcEventHandle;
ACL_FUNC_VISIBILITY aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle* handle);
ACL_FUNC_VISIBILITY aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent* event);

/* The stream writes `value` (8 bytes, little-endian) to device memory at devAddr; flag must be 0.
 * The stream waits until the 8 bytes at devAddr meet `flag` (ACL_STREAM_WAIT_VALUE_*) against
 * `value`; any stream, copy or kernel of any device may change them meanwhile. NULL devAddr:
 * ACL_ERROR_INVALID_PARAM; host memory, a range leaving its allocation or a bad flag:
 * ACL_ERROR_RT_PARAM_INVALID. */
ACL_FUNC_VISIBILITY aclError aclrtValueWrite(void* devAddr, uint64_t value, uint32_t flag,
                                             aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtValueWait(void* devAddr, uint64_t value, uint32_t flag,
                                            aclrtStream stream);

/* dst = dst kind src, element by element, over `count` bytes of device memory of the stream's
 * device: the DMA engine reduces as it copies (SDMA reduce). The types and kinds allowed depend on
 * the SoC (docs/runtime.md); others fail with ACL_ERROR_RT_FEATURE_NOT_SUPPORT. */
ACL_FUNC_VISIBILITY aclError aclrtReduceAsync(void* dst, const void* src, uint64_t count,
                                              aclrtReduceKind kind, aclDataType type,
                                              aclrtStream stream, void* reserve);

/* Random-number tasks (aclrtRandomNumAsync), CANN's layout. A parameter is a value of the task's
 * data type (isAddr 0, `size` its bytes) or the address of one in device memory (isAddr 1). */
typedef struct {
  uint8_t isAddr;
  uint8_t valueOrAddr[8];
  uint8_t size;
  uint8_t rsv[6];
} aclrtRandomParaInfo;

typedef struct {
  aclrtRandomParaInfo dropoutRation;
} aclrtDropoutBitmaskInfo;

typedef struct {
  aclrtRandomParaInfo min;
  aclrtRandomParaInfo max;
} aclrtUniformDisInfo;

typedef struct {
  aclrtRandomParaInfo mean;
  aclrtRandomParaInfo stddev;
} aclrtNormalDisInfo;

typedef enum {
  ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK = 0,
  ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,
  ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS,
  ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS,
} aclrtRandomNumFuncType;

typedef struct {
  aclrtRandomNumFuncType funcType;
  union {
    aclrtDropoutBitmaskInfo dropoutBitmaskInfo;
    aclrtUniformDisInfo uniformDisInfo;
    aclrtNormalDisInfo normalDisInfo;
  } paramInfo;
} aclrtRandomNumFuncParaInfo;

typedef struct {
  aclDataType dataType;
  aclrtRandomNumFuncParaInfo randomNumFuncParaInfo;
  void* randomParaAddr;
  void* randomResultAddr;
  void* randomCounterAddr;
  aclrtRandomParaInfo randomSeed;
  aclrtRandomParaInfo randomNum;
  uint8_t rsv[8];
} aclrtRandomNumTaskInfo;

/* Writes `randomNum` random numbers of `dataType` (uniform: FLOAT, FLOAT16, BF16, INT32, INT64,
 * UINT32, UINT64; normal and truncated normal: FLOAT, FLOAT16, BF16) or a dropout bit mask to
 * randomResultAddr, a task of the stream (Philox4x32-10 keyed by the seed, its 128-bit counter at
 * randomCounterAddr, advanced by the task). A2/A3 SoCs only (else
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT); see docs/runtime.md for the codes. */
ACL_FUNC_VISIBILITY aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo* taskInfo,
                                                 const aclrtStream stream, void* reserve);

ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent* event);
ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag);
/* An event that can be recorded again at once ("reused naturally"): each wait takes the record
 * queued before it. Same flags as aclrtCreateEventWithFlag. */
ACL_FUNC_VISIBILITY aclError aclrtCreateEventExWithFlag(aclrtEvent* event, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event);
ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream);
ACL_DEPRECATED_MESSAGE("aclrtQueryEvent is deprecated, use aclrtQueryEventStatus instead")
ACL_FUNC_VISIBILITY aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status);
ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event,
                                                   aclrtEventRecordedStatus* status);
ACL_FUNC_VISIBILITY aclError aclrtQueryEventWaitStatus(aclrtEvent event,
                                                       aclrtEventWaitStatus* status);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent,
                                                   aclrtEvent endEvent);
/* When the event's latest record ended, in microseconds since the device started. */
ACL_FUNC_VISIBILITY aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t* timestamp);

/* Memory */
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy);
ACL_FUNC_VISIBILITY aclError aclrtMallocCached(void** devPtr, size_t size,
                                               aclrtMemMallocPolicy policy);
ACL_FUNC_VISIBILITY aclError aclrtMallocAlign32(void** devPtr, size_t size,
                                                aclrtMemMallocPolicy policy);
ACL_FUNC_VISIBILITY aclError aclrtFree(void* devPtr);
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void** hostPtr, size_t size);
ACL_FUNC_VISIBILITY aclError aclrtMallocHostWithCfg(void** ptr, uint64_t size,
                                                    aclrtMallocConfig* cfg);
/* Host registration: [ptr, ptr + size) of the program's host memory becomes pinned for copies and,
 * with ACL_HOST_REG_MAPPED (aclrtHostRegister: any type), reachable by kernels at the device
 * pointer aclrtHostGetDevicePointer gives (the host address itself: kernels run on the host).
 * A range that overlaps a registered one: ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED; unregistering
 * what is not a registration's start: ACL_ERROR_HOST_MEMORY_NOT_REGISTERED. IOMEMORY is refused
 * (ACL_ERROR_RT_FEATURE_NOT_SUPPORT: there is no device I/O memory to map); READONLY is kept as a
 * flag. Kernels' accesses to mapped host memory cross PCIe: every page touched is read over the
 * link, every page changed written back. */
ACL_FUNC_VISIBILITY aclError aclrtHostRegister(void* ptr, uint64_t size, aclrtHostRegisterType type,
                                               void** devPtr);
ACL_FUNC_VISIBILITY aclError aclrtHostRegisterV2(void* ptr, uint64_t size, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtHostGetDevicePointer(void* pHost, void** pDevice, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtHostUnregister(void* ptr);
/* Managed (unified) memory, on A2/A3 SoCs (others: ACL_ERROR_RT_FEATURE_NOT_SUPPORT, as CANN):
 * one address the host and kernels both use, freed with aclrtFree; flag ACL_RT_MEM_ATTACH_GLOBAL.
 * It lives in host memory (copies treat it as pinned); kernels reach it over PCIe, page by page
 * (it is not migrated to the device). */
ACL_FUNC_VISIBILITY aclError aclrtMemAllocManaged(void** ptr, uint64_t size, uint32_t flag);
/* Virtual memory management. Granularity 2 MiB (minimum and recommended): sizes, addresses and
 * offsets are multiples of it (else ACL_ERROR_INVALID_PARAM). A reservation takes addresses of
 * the current device and no capacity; physical memory (handleType NONE, PINNED, on a device
 * location) takes capacity (full: ACL_ERROR_RT_MEMORY_ALLOCATION); a mapping makes
 * [virPtr, virPtr + size) device memory holding that physical memory's bytes from `offset` on,
 * reachable by copies, memsets and kernels, until aclrtUnmapMem (the bytes stay with the physical
 * memory). Several mappings of one physical memory, in one process or several, hold the same
 * bytes. No mapping onto another device's reservation (ACL_ERROR_RT_FEATURE_NOT_SUPPORT). Access
 * is read-write for the mapping's device (aclrtMemSetAccess with READWRITE; other flags or
 * devices: ACL_ERROR_RT_FEATURE_NOT_SUPPORT). Freeing physical memory a mapping made through the
 * handle still uses, or releasing a reservation with mappings: ACL_ERROR_INVALID_PARAM; a handle
 * of another process: ACL_ERROR_INVALID_PARAM. Unmap only after the work that uses the range has
 * ended. */
ACL_FUNC_VISIBILITY aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp* prop,
                                                              aclrtMemGranularityOptions option,
                                                              size_t* granularity);
ACL_FUNC_VISIBILITY aclError aclrtReserveMemAddress(void** virPtr, size_t size, size_t alignment,
                                                    void* expectPtr, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtReleaseMemAddress(void* virPtr);
ACL_FUNC_VISIBILITY aclError aclrtMallocPhysical(aclrtDrvMemHandle* handle, size_t size,
                                                 const aclrtPhysicalMemProp* prop, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtFreePhysical(aclrtDrvMemHandle handle);
ACL_FUNC_VISIBILITY aclError aclrtMapMem(void* virPtr, size_t size, size_t offset,
                                         aclrtDrvMemHandle handle, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtUnmapMem(void* virPtr);
ACL_FUNC_VISIBILITY aclError aclrtMemSetAccess(void* virPtr, size_t size, aclrtMemAccessDesc* desc,
                                               size_t count);
/* Shareable handles carry physical memory to another process on the same machine (between
 * processes: `ascendsim exec --shared`, docs/multiprocess.md). Export (handleType NONE, else
 * ACL_ERROR_INVALID_PARAM; flags above DISABLE_PID_VALIDATION: ACL_ERROR_RT_PARAM_INVALID) gives
 * one number per physical memory; only processes named by aclrtMemSetPidToShareableHandle (ids
 * of aclrtDeviceGetBareTgid) or, with DISABLE_PID_VALIDATION, any process may import it (else
 * ACL_ERROR_RT_NO_PERMISSION, as the one naming importers must be the exporter); an unknown or
 * withdrawn number: ACL_ERROR_RT_PARAM_INVALID. An import is a handle of the importing process to
 * the same memory, which stays until the last handle to it is freed; the exporter's
 * aclrtFreePhysical withdraws the number. Importing needs a current context (else
 * ACL_ERROR_RT_CONTEXT_NULL) and a device that exists (ACL_ERROR_RT_INVALID_DEVICEID). */
#define ACL_RT_VMM_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x1UL
ACL_FUNC_VISIBILITY aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle,
                                                             aclrtMemHandleType handleType,
                                                             uint64_t flags,
                                                             uint64_t* shareableHandle);
ACL_FUNC_VISIBILITY aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle,
                                                               int32_t deviceId,
                                                               aclrtDrvMemHandle* handle);
ACL_FUNC_VISIBILITY aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t* pid,
                                                             size_t pidNum);
/* The calling process's id as the driver knows it (its thread group id). */
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetBareTgid(int32_t* pid);
/* Sharing device memory with another process by key (65 bytes with its NUL). The exporter names
 * the processes that may import (aclrtDeviceGetBareTgid ids) unless it exports with
 * DISABLE_PID_VALIDATION; an import is the exporter's memory, which outlives the exporter's
 * aclrtFree until every importer has closed the key. Between processes this needs one machine for
 * the job: `ascendsim exec --shared` (docs/multiprocess.md). */
#define ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x1UL
#define ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS 0x1UL
ACL_FUNC_VISIBILITY aclError aclrtIpcMemGetExportKey(void* devPtr, size_t size, char* key,
                                                     size_t len, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtIpcMemSetImportPid(const char* key, int32_t* pid, size_t num);
ACL_FUNC_VISIBILITY aclError aclrtIpcMemImportByKey(void** devPtr, const char* key, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtIpcMemClose(const char* key);
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void* hostPtr);
ACL_FUNC_VISIBILITY aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value,
                                         size_t count);
ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value,
                                              size_t count, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                                         aclrtMemcpyKind kind);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src,
                                              size_t count, aclrtMemcpyKind kind,
                                              aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsyncWithCondition(void* dst, size_t destMax,
                                                           const void* src, size_t count,
                                                           aclrtMemcpyKind kind,
                                                           aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemcpy2d(void* dst, size_t dpitch, const void* src, size_t spitch,
                                           size_t width, size_t height, aclrtMemcpyKind kind);
ACL_FUNC_VISIBILITY aclError aclrtMemcpy2dAsync(void* dst, size_t dpitch, const void* src,
                                                size_t spitch, size_t width, size_t height,
                                                aclrtMemcpyKind kind, aclrtStream stream);

/* Callbacks */
ACL_FUNC_VISIBILITY aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtLaunchCallback(aclrtCallback fn, void* userData,
                                                 aclrtCallbackBlockType blockType,
                                                 aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtProcessReport(int32_t timeout);
/* Host functions: run by the thread subscribed with aclrtSubscribeHostFunc (which calls
 * aclrtProcessHostFunc), or, when none is, by a thread the runtime starts for the stream; the
 * stream waits for each to return. */
ACL_FUNC_VISIBILITY aclError aclrtSubscribeHostFunc(uint64_t hostFuncThreadId,
                                                    aclrtStream exeStream);
ACL_FUNC_VISIBILITY aclError aclrtProcessHostFunc(int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeHostFunc(uint64_t hostFuncThreadId,
                                                      aclrtStream exeStream);
ACL_FUNC_VISIBILITY aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void* args);
ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream);

/* Init (declared here as in the newest CANN headers; acl.h includes this file) */
ACL_FUNC_VISIBILITY aclError aclInit(const char* configPath);
ACL_FUNC_VISIBILITY aclError aclFinalize(void);
ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion,
                                             int32_t* patchVersion);
ACL_FUNC_VISIBILITY const char* aclGetRecentErrMsg(void);
/* The SoC version of the machine's NPUs ("Ascend910B4"; the device's `soc` setting), or NULL
 * before aclInit or when the machine does not name one (aclGetRecentErrMsg says which). */
ACL_FUNC_VISIBILITY const char* aclrtGetSocName(void);
typedef enum aclrtLastErrLevel {
  ACL_RT_THREAD_LEVEL = 0,
} aclrtLastErrLevel;
/* The code of the calling thread's last failed call (ACL_SUCCESS if none since it was cleared);
 * aclrtGetLastError also clears it. */
ACL_FUNC_VISIBILITY aclError aclrtPeekAtLastError(aclrtLastErrLevel level);
ACL_FUNC_VISIBILITY aclError aclrtGetLastError(aclrtLastErrLevel level);
/* The version of an installed CANN package by name ("runtime"), as text ("9.1.0") or as
 * major x 10000000 + minor x 100000 + patch x 1000. Unknown package: ACL_ERROR_INVALID_FILE. */
/* The device's last task failure: an AI Core exception (trap, out-of-bounds access) is
 * ACL_RT_ERROR_AICORE with detail ACL_RT_AICORE_ERROR_SW; ACL_RT_NO_ERROR if none since the
 * device was set. tryRepair is 0: nothing AscendSim reports can be repaired. */
ACL_FUNC_VISIBILITY aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo* errorInfo);
/* Exception callbacks: called once for every task that fails (an AI Core exception), from the
 * host thread whose call ran the simulation to the failure, before that call returns and outside
 * the runtime's lock (a callback may call AscendCL). aclrtSetExceptionInfoCallback sets the one
 * legacy callback (NULL clears it); Register adds one (the same pointer twice counts once),
 * Unregister removes one (not registered: no effect). */
ACL_FUNC_VISIBILITY aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback);
ACL_FUNC_VISIBILITY aclError
aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback);
ACL_FUNC_VISIBILITY aclError
aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback);
/* The failed task's fields; 0xFFFFFFFF when info is NULL. The thread id is the submitting
 * thread's Linux thread id; the error code the aclError its stream's synchronisation returns. */
ACL_FUNC_VISIBILITY uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo* info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo* info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo* info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo* info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo* info);
/* The failed kernel's arguments as it received them (host memory in AscendSim) and their size. */
ACL_FUNC_VISIBILITY aclError aclrtGetArgsFromExceptionInfo(const aclrtExceptionInfo* info,
                                                           void** devArgsPtr, uint32_t* devArgsLen);
/* The failed kernel's function handle (the one aclrtBinaryGetFunction gives for its name). */
ACL_FUNC_VISIBILITY aclError aclrtGetFuncHandleFromExceptionInfo(const aclrtExceptionInfo* info,
                                                                 aclrtFuncHandle* func);
/* The id of the last task the calling thread submitted (what aclrtGetTaskIdFromExceptionInfo
 * names a failed one by); 0 before its first. */
ACL_FUNC_VISIBILITY aclError aclrtGetThreadLastTaskId(uint32_t* taskId);
ACL_FUNC_VISIBILITY aclError aclsysGetVersionStr(char* pkgName, char* versionStr);
ACL_FUNC_VISIBILITY aclError aclsysGetVersionNum(char* pkgName, int32_t* versionNum);

/* ---- Model run instances (aclmdlRI): task graphs built on persistent streams or captured from
 * a stream, replayed as one launch (docs/runtime.md, "Model run instances"). */
typedef void* aclmdlRI;
typedef void* aclmdlRICondHandle;

typedef enum {
  ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0,
  ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL,
  ACL_MODEL_RI_CAPTURE_MODE_RELAXED,
} aclmdlRICaptureMode;

typedef enum {
  ACL_MODEL_RI_CAPTURE_STATUS_NONE = 0,
  ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE,
  ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED,
} aclmdlRICaptureStatus;

typedef enum {
  ACL_RT_EQUAL = 0,
  ACL_RT_NOT_EQUAL,
  ACL_RT_GREATER,
  ACL_RT_GREATER_OR_EQUAL,
  ACL_RT_LESS,
  ACL_RT_LESS_OR_EQUAL
} aclrtCondition;

typedef enum {
  ACL_RT_SWITCH_INT32 = 0,
  ACL_RT_SWITCH_INT64 = 1,
} aclrtCompareDataType;

typedef enum {
  ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT = 1,
} aclmdlRICondHandleFlag;

typedef enum {
  ACL_MODEL_RI_COND_TYPE_IF = 0,
  ACL_MODEL_RI_COND_TYPE_WHILE = 1,
  ACL_MODEL_RI_COND_TYPE_SWITCH = 2,
} aclmdlRICondTaskType;

typedef struct tagAclmdlRICondTaskParams {
  aclmdlRICondHandle handle;
  aclmdlRICondTaskType type;
  uint32_t size;          /* entries of modelRIArray: 1 or 2 (IF), 1 (WHILE), at least 1 (SWITCH) */
  aclmdlRI* modelRIArray; /* the branches' models, made by aclmdlRIAddCondTask */
} aclmdlRICondTaskParams;

#define ACL_MODEL_STREAM_FLAG_HEAD 0x00000000U
#define ACL_MODEL_STREAM_FLAG_DEFAULT 0x7FFFFFFFU
#define ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY 0x0UL
#define ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE 0x1UL
#define ACL_EVENT_RECORD_DEFAULT 0x0U
#define ACL_EVENT_RECORD_EXTERNAL 0x01U
#define ACL_EVENT_WAIT_DEFAULT 0x0U
#define ACL_EVENT_WAIT_EXTERNAL 0x01U

ACL_FUNC_VISIBILITY aclError aclmdlRIBuildBegin(aclmdlRI* modelRI, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream,
                                                uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void* reserve);
ACL_FUNC_VISIBILITY aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclmdlRIDestroy(aclmdlRI modelRI);
ACL_FUNC_VISIBILITY aclError aclmdlRISetName(aclmdlRI modelRI, const char* name);
ACL_FUNC_VISIBILITY aclError aclmdlRIGetName(aclmdlRI modelRI, uint32_t maxLen, char* name);
ACL_FUNC_VISIBILITY aclError aclmdlRIGetId(aclmdlRI modelRI, uint32_t* modelRIId);
ACL_FUNC_VISIBILITY aclError aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream* streams,
                                                uint32_t* numStreams);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureGetInfo(aclrtStream stream,
                                                    aclmdlRICaptureStatus* status,
                                                    aclmdlRI* modelRI);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI* modelRI);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode* mode);
ACL_FUNC_VISIBILITY aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char* path,
                                                    uint32_t flags);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp* handle);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream,
                                                            aclrtTaskGrp handle);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue,
                                                      aclmdlRICondHandleFlag flag,
                                                      aclmdlRICondHandle* handle);
ACL_FUNC_VISIBILITY aclError aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle,
                                                          uint64_t** ptr);
ACL_FUNC_VISIBILITY aclError aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream,
                                                 uint32_t flags);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureToModelRIBegin(aclrtStream stream, aclmdlRI modelRI,
                                                           aclmdlRICaptureMode mode);
/* Streams of a model being built: activation and switching (CANN's stream active / stream switch
 * tasks), labels (in-stream jumps). */
ACL_FUNC_VISIBILITY aclError aclrtActiveStream(aclrtStream activeStream, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtSwitchStream(void* leftValue, aclrtCondition cond,
                                               void* rightValue, aclrtCompareDataType dataType,
                                               aclrtStream trueStream, aclrtStream falseStream,
                                               aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtCreateLabel(aclrtLabel* label);
ACL_FUNC_VISIBILITY aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtDestroyLabel(aclrtLabel label);
ACL_FUNC_VISIBILITY aclError aclrtCreateLabelList(aclrtLabel* labels, size_t num,
                                                  aclrtLabelList* labelList);
ACL_FUNC_VISIBILITY aclError aclrtDestroyLabelList(aclrtLabelList labelList);
ACL_FUNC_VISIBILITY aclError aclrtSwitchLabelByIndex(void* ptr, uint32_t maxValue,
                                                     aclrtLabelList labelList, aclrtStream stream);
/* Records and waits with an operation flag: ACL_EVENT_RECORD_EXTERNAL / ACL_EVENT_WAIT_EXTERNAL
 * mark a model's synchronisation with work outside it (the wait takes the next record). */
ACL_FUNC_VISIBILITY aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream,
                                                      uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event,
                                                          uint32_t timeout, uint32_t flag);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_RT_H_ */
