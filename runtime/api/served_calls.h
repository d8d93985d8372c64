#pragma once
// The AscendCL calls a program sharing a machine served by `ascendsim exec --shared` sends to it
// (docs/multiprocess.md), with how each parameter travels (runtime/remote/marshal.h). A call not
// listed here is refused in such a program with ACL_ERROR_RT_FEATURE_NOT_SUPPORT and a message.
// _LEARNED calls are answered in the program once the machine has answered them (the same
// arguments, nothing changed since); every call that can change what they answer (the thread's
// device or context, initialisation) must be _CHANGES or _REPEATS (marshal.h).

#include "acl/acl.h"
#include "acl/acl_rt_allocator.h"
#include "ascendsim/ascendc.h"
#include "ascendsim/compute.h"
#include "runtime/remote/marshal.h"

// aclrtGetSocName for a served program (it returns a pointer, not a code): the name copied into
// `name`, which holds `length` bytes.
extern "C" aclError ascendsimGetSocName(char* name, size_t length);
// aclrtQueryEvent (deprecated in CANN), served under a name of its own.
extern "C" aclError ascendsimQueryEvent(aclrtEvent event, aclrtEventStatus* status);
// aclCreateDataBuffer and the aclDataBuffer getters for a served program (the handle or the value
// comes back through the last argument; getters: 0 the address, 1 the size, 2 the 32-bit size).
extern "C" aclError ascendsimCreateDataBuffer(void* data, size_t size, aclDataBuffer** dataBuffer);
extern "C" aclError ascendsimDataBufferGet(const aclDataBuffer* dataBuffer, uint32_t which,
                                           uint64_t* value);
// aclrtBinaryLoadFromFile for a served program: the file's bytes, as the program read them from
// its path (`unreadable`: why it could not), loaded by the machine.
extern "C" aclError ascendsimBinaryLoad(const char* binPath, const void* image, uint64_t imageBytes,
                                        const char* unreadable, aclrtBinaryLoadOptions* options,
                                        aclrtBinHandle* binHandle);

// aclrtAllocatorRegister for a served program: the description lives in the program, which sends
// a copy of it (`copy` NULL: `allocatorDesc` names none of the program's descriptions).
namespace ascendsim::runtime {
struct AllocatorDesc;
}
extern "C" aclError ascendsimAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc,
                                               const ascendsim::runtime::AllocatorDesc* copy);

namespace ascendsim::remote {

// init and errors
ASCENDSIM_SERVED_CHANGES(aclInit, Str)
ASCENDSIM_SERVED_CHANGES(aclFinalize, )
ASCENDSIM_SERVED_LEARNED(aclrtGetVersion, Out, Out, Out)
ASCENDSIM_SERVED(aclrtPeekAtLastError, Val)
ASCENDSIM_SERVED(aclrtGetLastError, Val)
ASCENDSIM_SERVED_LEARNED(aclsysGetVersionStr, Str, OutChars<ACL_PKG_VERSION_MAX_SIZE>)
ASCENDSIM_SERVED_LEARNED(aclsysGetVersionNum, Str, Out)
ASCENDSIM_SERVED_LEARNED(aclGetCannAttribute, Val, Out)
ASCENDSIM_SERVED_LEARNED(aclrtCheckArchCompatibility, Str, Out)
// devices and contexts
ASCENDSIM_SERVED_REPEATS(aclrtSetDevice, Val)
ASCENDSIM_SERVED_CHANGES(aclrtResetDevice, Val)
ASCENDSIM_SERVED_CHANGES(aclrtResetDeviceForce, Val)
ASCENDSIM_SERVED_LEARNED(aclrtGetDevice, Out)
ASCENDSIM_SERVED_LEARNED(aclrtGetDeviceCount, Out)
ASCENDSIM_SERVED(aclrtSynchronizeDevice, )
ASCENDSIM_SERVED_LEARNED(aclrtGetRunMode, Out)
ASCENDSIM_SERVED_LEARNED(ascendsimGetSocName, OutText<1>, Val)
ASCENDSIM_SERVED_LEARNED(aclrtDeviceCanAccessPeer, Out, Val, Val)
ASCENDSIM_SERVED_LEARNED(aclrtGetDevicesTopo, Val, Val, Out)
ASCENDSIM_SERVED(aclrtDeviceEnablePeerAccess, Val, Val)
ASCENDSIM_SERVED(aclrtDeviceDisablePeerAccess, Val)
ASCENDSIM_SERVED(aclrtGetMemInfo, Val, Out, Out)
ASCENDSIM_SERVED_CHANGES(aclrtCreateContext, Out, Val)
ASCENDSIM_SERVED_CHANGES(aclrtDestroyContext, Val)
ASCENDSIM_SERVED_CHANGES(aclrtSetCurrentContext, Val)
ASCENDSIM_SERVED_LEARNED(aclrtGetCurrentContext, Out)
// A successful aclrtSetDevice makes its device the thread's (DeviceContexts::set): aclrtGetDevice
// answers it without asking.
template <>
struct Teaches<&aclrtSetDevice> {
  template <class All>
  static void after(const All& all, uint64_t epoch) {
    learnOut<&aclrtGetDevice>(std::get<0>(all), epoch);
  }
};
// streams and events
ASCENDSIM_SERVED(aclrtCreateStream, Out)
ASCENDSIM_SERVED(aclrtCreateStreamWithConfig, Out, Val, Val)
ASCENDSIM_SERVED(aclrtCreateStreamV2, Out, In)  // (a configuration travels whole)
ASCENDSIM_SERVED(aclrtDestroyStream, Val)
ASCENDSIM_SERVED(aclrtDestroyStreamForce, Val)
ASCENDSIM_SERVED(aclrtSynchronizeStream, Val)
ASCENDSIM_SERVED(aclrtSynchronizeStreamWithTimeout, Val, Val)
ASCENDSIM_SERVED(aclrtStreamQuery, Val, Out)
ASCENDSIM_SERVED(aclrtSetStreamFailureMode, Val, Val)
ASCENDSIM_SERVED_ASYNC(aclrtStreamWaitEvent, Val, Val)
ASCENDSIM_SERVED(aclrtCreateEvent, Out)
ASCENDSIM_SERVED(aclrtCreateEventWithFlag, Out, Val)
ASCENDSIM_SERVED(aclrtCreateEventExWithFlag, Out, Val)
ASCENDSIM_SERVED(aclrtDestroyEvent, Val)
ASCENDSIM_SERVED_ASYNC(aclrtRecordEvent, Val, Val)
ASCENDSIM_SERVED_ASYNC(aclrtResetEvent, Val, Val)
ASCENDSIM_SERVED(aclrtQueryEventStatus, Val, Out)
ASCENDSIM_SERVED(ascendsimQueryEvent, Val, Out)
ASCENDSIM_SERVED(aclrtSynchronizeEvent, Val)
ASCENDSIM_SERVED(aclrtEventElapsedTime, Out, Val, Val)
ASCENDSIM_SERVED(aclrtEventGetTimestamp, Val, Out)
ASCENDSIM_SERVED(aclrtIpcGetEventHandle, Val, Out)
ASCENDSIM_SERVED(aclrtIpcOpenEventHandle, Whole, Out)
ASCENDSIM_SERVED(aclrtCreateNotify, Out, Val)
ASCENDSIM_SERVED(aclrtDestroyNotify, Val)
ASCENDSIM_SERVED_ASYNC(aclrtRecordNotify, Val, Val)
ASCENDSIM_SERVED_ASYNC(aclrtWaitAndResetNotify, Val, Val, Val)
ASCENDSIM_SERVED(aclrtGetNotifyId, Val, Out)
ASCENDSIM_SERVED(aclrtNotifyGetExportKey, Val, OutText<2>, Val, Val)
ASCENDSIM_SERVED(aclrtNotifySetImportPid, Val, InArray<2>, Val)
ASCENDSIM_SERVED(aclrtNotifyImportByKey, Out, Str, Val)
// memory
ASCENDSIM_SERVED(aclrtMalloc, Out, Val, Val)
ASCENDSIM_SERVED(aclrtMallocCached, Out, Val, Val)
ASCENDSIM_SERVED(aclrtMallocAlign32, Out, Val, Val)
ASCENDSIM_SERVED(aclrtFree, Val)
ASCENDSIM_SERVED(aclrtMallocHost, Out, Val)
ASCENDSIM_SERVED(aclrtFreeHost, Val)
ASCENDSIM_SERVED(aclrtMemset, Val, Val, Val, Val)
ASCENDSIM_SERVED_ASYNC(aclrtMemsetAsync, Val, Val, Val, Val, Val)
ASCENDSIM_SERVED(aclrtMemcpy, Dst<3>, Val, Src<3>, Val, Val)
ASCENDSIM_SERVED_ASYNC(aclrtMemcpyAsync, Dst<3>, Val, Src<3>, Val, Val, Val)
ASCENDSIM_SERVED(aclrtMemcpy2d, Dst2d<1, 4, 5>, Val, Src2d<3, 4, 5>, Val, Val, Val, Val)
ASCENDSIM_SERVED_ASYNC(aclrtMemcpy2dAsync, Dst2d<1, 4, 5>, Val, Src2d<3, 4, 5>, Val, Val, Val, Val,
                       Val)
// device, stream and event queries, limits, value writes and waits, reductions, DVPP memory
ASCENDSIM_SERVED_LEARNED(aclrtGetDeviceInfo, Val, Val, Out)
ASCENDSIM_SERVED(aclrtQueryDeviceStatus, Val, Out)
ASCENDSIM_SERVED(aclrtGetDeviceUtilizationRate, Val, InOut)
ASCENDSIM_SERVED(aclrtSetDeviceResLimit, Val, Val, Val)
ASCENDSIM_SERVED(aclrtGetDeviceResLimit, Val, Val, Out)
ASCENDSIM_SERVED(aclrtResetDeviceResLimit, Val)
ASCENDSIM_SERVED(aclrtGetResInCurrentThread, Val, Out)
ASCENDSIM_SERVED_LEARNED(aclrtGetDeviceCapability, Val, Val, Out)
ASCENDSIM_SERVED_LEARNED(aclrtCtxGetCurrentDefaultStream, Out)
ASCENDSIM_SERVED(aclrtQueryEventWaitStatus, Val, Out)
ASCENDSIM_SERVED(aclrtSynchronizeEventWithTimeout, Val, Val)
ASCENDSIM_SERVED(aclrtGetErrorVerbose, Val, Out)
ASCENDSIM_SERVED(aclrtGetThreadLastTaskId, Out)
ASCENDSIM_SERVED(aclrtStreamGetId, Val, Out)
ASCENDSIM_SERVED(aclrtStreamGetFlags, Val, Out)
ASCENDSIM_SERVED(aclrtStreamGetPriority, Val, Out)
ASCENDSIM_SERVED_LEARNED(aclrtDeviceGetStreamPriorityRange, Out, Out)
ASCENDSIM_SERVED_ASYNC(aclrtValueWrite, Val, Val, Val, Val)
ASCENDSIM_SERVED_ASYNC(aclrtValueWait, Val, Val, Val, Val)
ASCENDSIM_SERVED(aclrtStreamStop, Val)
ASCENDSIM_SERVED(aclrtStreamAbort, Val)
ASCENDSIM_SERVED_ASYNC(aclrtMemcpyAsyncWithCondition, Dst<3>, Val, Src<3>, Val, Val, Val)
ASCENDSIM_SERVED_ASYNC(aclrtReduceAsync, Val, Val, Val, Val, Val, Val, Val)
ASCENDSIM_SERVED(acldvppMalloc, Out, Val)
ASCENDSIM_SERVED(acldvppFree, Val)
// virtual memory management and shareable handles
ASCENDSIM_SERVED(aclrtMemGetAllocationGranularity, In, Val, Out)
ASCENDSIM_SERVED(aclrtReserveMemAddress, Out, Val, Val, Val, Val)
ASCENDSIM_SERVED(aclrtReleaseMemAddress, Val)
ASCENDSIM_SERVED(aclrtMallocPhysical, Out, Val, In, Val)
ASCENDSIM_SERVED(aclrtFreePhysical, Val)
ASCENDSIM_SERVED(aclrtMapMem, Val, Val, Val, Val, Val)
ASCENDSIM_SERVED(aclrtUnmapMem, Val)
ASCENDSIM_SERVED(aclrtMemSetAccess, Val, Val, InArray<3>, Val)
ASCENDSIM_SERVED(aclrtMemExportToShareableHandle, Val, Val, Val, Out)
ASCENDSIM_SERVED(aclrtMemSetPidToShareableHandle, Val, InArray<2>, Val)
ASCENDSIM_SERVED(aclrtMemImportFromShareableHandle, Val, Val, Out)
// registered host and managed memory (a registration's pages are shared first:
// runtime/remote/program_pages.h; managed memory lives in the job's shared memory)
ASCENDSIM_SERVED(aclrtHostRegister, Val, Val, Val, Out)
ASCENDSIM_SERVED(aclrtHostRegisterV2, Val, Val, Val)
ASCENDSIM_SERVED(aclrtHostGetDevicePointer, Val, Out, Val)
ASCENDSIM_SERVED(aclrtHostUnregister, Val)
ASCENDSIM_SERVED(aclrtMemAllocManaged, Out, Val, Val)
// callbacks and host functions (their code runs in the program: runtime/remote/served_callbacks.h)
ASCENDSIM_SERVED(aclrtSubscribeReport, Val, Val)
ASCENDSIM_SERVED(aclrtUnSubscribeReport, Val, Val)
ASCENDSIM_SERVED(aclrtSubscribeHostFunc, Val, Val)
ASCENDSIM_SERVED(aclrtUnSubscribeHostFunc, Val, Val)
ASCENDSIM_SERVED(aclrtLaunchCallback, Val, Val, Val, Val)
// Ascend C kernels (their blocks run in the program: runtime/remote/kernel_service.h; a launch,
// which only queues its task, is sent without waiting)
ASCENDSIM_SERVED_ASYNC(ascendsimLaunchAscendCKernel, Str, Val, Val, Val, Val, Val, Val)
// timing-only kernels (AscendSim's extension, ascendsim/compute.h: no code, so nothing runs in
// the program; a launch only queues its task)
ASCENDSIM_SERVED_ASYNC(ascendsimLaunchComputeTask, Str, Val, Val, Val, Val, Val)
ASCENDSIM_SERVED_ASYNC(ascendsimLaunchComputeTaskIn, Str, Val, Val, Val, Val, Val, Val, Val, Val,
                       Val)
ASCENDSIM_SERVED_ASYNC(ascendsimLaunchComputeTaskSized, Str, Val, Val, Val, Val, Val, Val, Val, Val,
                       Val, Val)
// kernels of binaries loaded at run time (loaded, and their blocks run, in the server; handles
// are the process's own: served_calls.cpp)
ASCENDSIM_SERVED(ascendsimBinaryLoad, Str, Src<2>, Val, Str, In, Out)
ASCENDSIM_SERVED(aclrtBinaryUnLoad, Val)
ASCENDSIM_SERVED(aclrtBinaryGetFunction, Val, Str, Out)
ASCENDSIM_SERVED(aclrtKernelArgsInit, Val, Out)
ASCENDSIM_SERVED(aclrtKernelArgsAppend, Val, InBytes<2>, Val, Out)
ASCENDSIM_SERVED(aclrtKernelArgsAppendPlaceHolder, Val, Out)
ASCENDSIM_SERVED(aclrtKernelArgsGetPlaceHolderBuffer, Val, Val, Val, Out)
ASCENDSIM_SERVED(aclrtKernelArgsFinalize, Val)
ASCENDSIM_SERVED(aclrtLaunchKernelWithConfig, Val, Val, Val, In, Val, Val)
// data buffer descriptors
ASCENDSIM_SERVED(ascendsimCreateDataBuffer, Val, Val, Out)
ASCENDSIM_SERVED(ascendsimDataBufferGet, Val, Val, Out)
ASCENDSIM_SERVED(aclDestroyDataBuffer, Val)
ASCENDSIM_SERVED(aclUpdateDataBuffer, Val, Val, Val)
// exception callbacks (their code runs in the program: runtime/remote/served_callbacks.h)
ASCENDSIM_SERVED(aclrtSetExceptionInfoCallback, Val)
ASCENDSIM_SERVED(aclrtExceptionInfoCallbackRegister, Val)
ASCENDSIM_SERVED(aclrtExceptionInfoCallbackUnregister, Val)
// the program's allocators (descriptions live in the program: runtime/api/acl_allocator.cpp; the
// machine keeps a stream's registration by process, and never calls its functions)
ASCENDSIM_SERVED(ascendsimAllocatorRegister, Val, Val, In)
ASCENDSIM_SERVED(aclrtAllocatorGetByStream, Val, Out, Out, Out, Out, Out, Out)
ASCENDSIM_SERVED(aclrtAllocatorUnregister, Val)
// sharing between processes
ASCENDSIM_SERVED_LEARNED(aclrtDeviceGetBareTgid, Out)
ASCENDSIM_SERVED(aclrtIpcMemGetExportKey, Val, Val, OutText<3>, Val, Val)
ASCENDSIM_SERVED(aclrtIpcMemSetImportPid, Str, InArray<2>, Val)
ASCENDSIM_SERVED(aclrtIpcMemImportByKey, Out, Str, Val)
ASCENDSIM_SERVED(aclrtIpcMemClose, Str)

}  // namespace ascendsim::remote

// profiling and saturation (a configuration travels whole: acl_prof_config.h; aclprofCreateConfig
// and aclprofDestroyConfig run in the program, asking the machine only for its device count)
#include "runtime/api/acl_prof_config.h"

namespace ascendsim::remote {
ASCENDSIM_SERVED(aclprofInit, Str, Val)
ASCENDSIM_SERVED(aclprofFinalize, )
ASCENDSIM_SERVED(aclprofStart, In)
ASCENDSIM_SERVED(aclprofStop, In)
ASCENDSIM_SERVED(aclrtSetDeviceSatMode, Val)
ASCENDSIM_SERVED(aclrtGetDeviceSatMode, Out)
}  // namespace ascendsim::remote
