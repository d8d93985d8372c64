/* Misuse of AscendCL as a C program would commit it, with the exact code CANN returns (or the
 * runtime documents, docs/runtime.md) for each. Runs under ASan and UBSan in CI: beyond the
 * codes, nothing may read or write memory it should not. Exit status: the number of mismatches. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "expect.h"

int main(void) {
  char stackBuffer[64];
  void *host = NULL, *dev = NULL, *dev2 = NULL, *ptr = NULL;
  aclrtStream stream = NULL;
  aclrtEvent event = NULL;
  uint32_t count = 0;

  expect(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE, "a call before aclInit");
  expect(aclrtGetDeviceCount(&count), ACL_SUCCESS, "aclrtGetDeviceCount before aclInit (as CANN)");
  expect(aclInit(NULL), ACL_SUCCESS, "aclInit");
  expect(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE, "aclInit twice");
  expect(aclrtMalloc(&ptr, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL,
         "aclrtMalloc with no device set");
  expect(aclrtSetDevice(99), ACL_ERROR_RT_INVALID_DEVICEID, "a device that does not exist");
  expect(aclrtSetDevice(0), ACL_SUCCESS, "aclrtSetDevice(0)");

  /* Allocation */
  expect(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM,
         "aclrtMalloc into NULL");
  expect(aclrtMalloc(&ptr, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM,
         "aclrtMalloc of 0 bytes");
  expect(aclrtMallocHost(&ptr, SIZE_MAX), ACL_ERROR_RT_MEMORY_ALLOCATION,
         "aclrtMallocHost(SIZE_MAX)");
  expect(aclrtMallocHost(&host, 4096), ACL_SUCCESS, "aclrtMallocHost");
  expect(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS, "aclrtMalloc");
  expect(aclrtMalloc(&dev2, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS, "aclrtMalloc again");

  /* Frees */
  expect(aclrtFree(stackBuffer), ACL_ERROR_RT_MEMORY_FREE, "aclrtFree of a stack buffer");
  expect(aclrtFree(host), ACL_ERROR_RT_MEMORY_FREE, "aclrtFree of aclrtMallocHost memory");
  expect(aclrtFreeHost(dev), ACL_ERROR_RT_MEMORY_FREE, "aclrtFreeHost of device memory");
  expect(aclrtFree((char*)dev + 32), ACL_ERROR_RT_MEMORY_FREE, "aclrtFree of an interior pointer");
  expect(aclrtFree(dev2), ACL_SUCCESS, "aclrtFree");
  expect(aclrtFree(dev2), ACL_ERROR_RT_MEMORY_FREE, "aclrtFree twice");

  /* Copies */
  expect(aclrtMemcpy(dev, 4096, host, 8192, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID,
         "count above destMax");
  expect(aclrtMemcpy(dev, 8192, host, 8192, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID,
         "a copy past both allocations");
  expect(aclrtMemcpy(host, 4096, dev, 4096, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID,
         "a kind that does not match the pointers");
  expect(aclrtMemcpy(dev2, 4096, host, 4096, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID,
         "a copy into freed device memory");
  expect(aclrtMemcpy(NULL, 4096, host, 4096, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
         "a copy to NULL");
  expect(aclrtMemcpy(dev, 4096, host, 4096, (aclrtMemcpyKind)77), ACL_ERROR_INVALID_PARAM,
         "an unknown copy kind");
  expect(aclrtMemcpy(dev, SIZE_MAX, host, SIZE_MAX, ACL_MEMCPY_HOST_TO_DEVICE),
         ACL_ERROR_RT_PARAM_INVALID, "SIZE_MAX bytes");
  expect(aclrtMemset(host, SIZE_MAX, 0, SIZE_MAX), ACL_ERROR_RT_PARAM_INVALID,
         "a pinned memset of SIZE_MAX bytes");
  expect(aclrtMemcpy(dev, 64, (char*)host + 4096, 64, ACL_MEMCPY_HOST_TO_DEVICE),
         ACL_ERROR_RT_PARAM_INVALID, "a copy from the end of a pinned buffer");

  /* Streams and events */
  expect(aclrtCreateStream(&stream), ACL_SUCCESS, "aclrtCreateStream");
  expect(aclrtDestroyStream(stream), ACL_SUCCESS, "aclrtDestroyStream");
  expect(aclrtSynchronizeStream(stream), ACL_ERROR_RT_INVALID_HANDLE, "a destroyed stream");
  expect(aclrtDestroyStream(stream), ACL_ERROR_RT_INVALID_HANDLE, "a stream destroyed twice");
  expect(aclrtDestroyStream((aclrtStream)stackBuffer), ACL_ERROR_RT_INVALID_HANDLE,
         "a made-up stream handle");
  expect(aclrtCreateEvent(&event), ACL_SUCCESS, "aclrtCreateEvent");
  expect(aclrtSynchronizeEvent(event), ACL_ERROR_RT_EVENT_NOT_COMPLETE,
         "waiting for an event nobody records");
  expect(aclrtDestroyEvent(event), ACL_SUCCESS, "aclrtDestroyEvent");
  expect(aclrtRecordEvent(event, NULL), ACL_ERROR_RT_INVALID_HANDLE, "recording a destroyed event");

  /* Event and stream flags */
  {
    aclrtEvent untimed = NULL, plain = NULL;
    uint64_t stamp = 0;
    float ms = 0;
    expect(aclrtCreateEventWithFlag(&event, 0), ACL_ERROR_RT_PARAM_INVALID,
           "an event with no flag");
    expect(aclrtCreateEventWithFlag(&event, 0x80000000U), ACL_ERROR_RT_PARAM_INVALID,
           "an unknown event flag");
    expect(aclrtCreateEventWithFlag(&event, ACL_EVENT_DEVICE_USE_ONLY),
           ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "a device-only event");
    expect(aclrtCreateEventWithFlag(&untimed, ACL_EVENT_SYNC), ACL_SUCCESS,
           "an event without timestamps");
    expect(aclrtCreateEvent(&plain), ACL_SUCCESS, "a default event");
    expect(aclrtEventGetTimestamp(plain, &stamp), ACL_ERROR_RT_INTERNAL_ERROR,
           "the timestamp of an event never recorded");
    expect(aclrtEventGetTimestamp(plain, NULL), ACL_ERROR_INVALID_PARAM, "a timestamp into NULL");
    expect(aclrtStreamWaitEvent(NULL, plain), ACL_ERROR_RT_PARAM_INVALID,
           "waiting for a default event before its record");
    expect(aclrtRecordEvent(plain, NULL), ACL_SUCCESS, "recording the default event");
    expect(aclrtRecordEvent(untimed, NULL), ACL_SUCCESS, "recording the event without timestamps");
    expect(aclrtSynchronizeEvent(untimed), ACL_SUCCESS, "waiting for both records");
    expect(aclrtEventElapsedTime(&ms, plain, untimed), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
           "timing to an event without timestamps");
    expect(aclrtEventGetTimestamp(untimed, &stamp), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
           "the timestamp of an event without them");
    expect(aclrtDestroyEvent(untimed), ACL_SUCCESS, "aclrtDestroyEvent");
    expect(aclrtDestroyEvent(plain), ACL_SUCCESS, "aclrtDestroyEvent");
    expect(aclrtCreateStreamWithConfig(&stream, 0, ACL_STREAM_PERSISTENT), ACL_SUCCESS,
           "a persistent stream");
    expect(aclrtDestroyStream(stream), ACL_SUCCESS, "destroying the persistent stream");
    expect(aclrtCreateStreamWithConfig(&stream, 8, 0), ACL_ERROR_INVALID_PARAM,
           "stream priority 8");
  }
  expect(aclrtDeviceCanAccessPeer(NULL, 0, 0), ACL_ERROR_INVALID_PARAM, "peer query into NULL");
  /* Today's runtime API: made-up handles, NULLs and values out of range */
  {
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle fn = NULL;
    aclrtArgsHandle args = NULL;
    aclrtParamHandle param = NULL;
    aclrtDrvMemHandle physical = NULL;
    void* va = NULL;
    int32_t value = 0;
    int64_t info = 0;
    uint32_t limit = 0;
    void* argsPtr = NULL;
    uint32_t argsLen = 0;
    expect(aclrtBinaryLoadFromFile(NULL, NULL, &bin), ACL_ERROR_INVALID_PARAM,
           "a binary from NULL");
    expect(aclrtBinaryLoadFromFile("/nonexistent/kernels.o", NULL, &bin), ACL_ERROR_RT_FILE_OPEN,
           "a binary that is not there");
    expect(aclrtBinaryGetFunction((aclrtBinHandle)stackBuffer, "K", &fn),
           ACL_ERROR_RT_INVALID_HANDLE, "a made-up binary");
    expect(aclrtBinaryUnLoad((aclrtBinHandle)stackBuffer), ACL_ERROR_RT_INVALID_HANDLE,
           "unloading a made-up binary");
    expect(aclrtKernelArgsInit((aclrtFuncHandle)stackBuffer, &args), ACL_ERROR_RT_INVALID_HANDLE,
           "a made-up kernel");
    expect(aclrtKernelArgsAppend((aclrtArgsHandle)stackBuffer, &value, sizeof value, &param),
           ACL_ERROR_RT_INVALID_HANDLE, "appending to made-up arguments");
    expect(aclrtLaunchKernelWithConfig((aclrtFuncHandle)stackBuffer, 1, NULL, NULL,
                                       (aclrtArgsHandle)stackBuffer, NULL),
           ACL_ERROR_RT_INVALID_HANDLE, "launching a made-up kernel");
    expect(aclrtHostRegisterV2(stackBuffer, 0, ACL_HOST_REG_MAPPED), ACL_ERROR_INVALID_PARAM,
           "registering 0 bytes");
    expect(aclrtHostRegisterV2(stackBuffer, sizeof stackBuffer, ACL_HOST_REG_MAPPED), ACL_SUCCESS,
           "registering a stack buffer");
    expect(aclrtHostRegisterV2(stackBuffer + 8, 8, ACL_HOST_REG_MAPPED),
           ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "registering inside a registered range");
    expect(aclrtHostGetDevicePointer(stackBuffer, &ptr, 1), ACL_ERROR_INVALID_PARAM,
           "a device pointer with flag 1");
    expect(aclrtHostUnregister(stackBuffer + 8), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,
           "unregistering inside a range");
    expect(aclrtHostUnregister(stackBuffer), ACL_SUCCESS, "aclrtHostUnregister");
    expect(aclrtHostGetDevicePointer(stackBuffer, &ptr, 0), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,
           "unregistered memory");
    expect(aclrtMemAllocManaged(&ptr, 64, 0), ACL_ERROR_INVALID_PARAM,
           "managed memory with flag 0");
    expect(aclrtMemAllocManaged(&ptr, 64, ACL_RT_MEM_ATTACH_GLOBAL), ACL_SUCCESS, "managed memory");
    expect(aclrtFreeHost(ptr), ACL_ERROR_RT_MEMORY_FREE,
           "managed memory released by aclrtFreeHost");
    expect(aclrtFree(ptr), ACL_SUCCESS, "managed memory released by aclrtFree");
    expect(aclrtFree(ptr), ACL_ERROR_RT_MEMORY_FREE, "managed memory released twice");
    expect(aclrtMemAllocManaged(&ptr, SIZE_MAX, ACL_RT_MEM_ATTACH_GLOBAL),
           ACL_ERROR_RT_MEMORY_ALLOCATION, "SIZE_MAX bytes of managed memory");
    expect(aclrtFreePhysical((aclrtDrvMemHandle)stackBuffer), ACL_ERROR_INVALID_PARAM,
           "freeing made-up physical memory");
    expect(aclrtMapMem(stackBuffer, 2u << 20, 0, (aclrtDrvMemHandle)stackBuffer, 0),
           ACL_ERROR_INVALID_PARAM, "mapping made-up physical memory");
    expect(aclrtMallocPhysical(&physical, 2u << 20, NULL, 0), ACL_ERROR_INVALID_PARAM,
           "physical memory without properties");
    expect(aclrtUnmapMem(stackBuffer), ACL_ERROR_INVALID_PARAM, "unmapping what is not mapped");
    expect(aclrtReleaseMemAddress(stackBuffer), ACL_ERROR_INVALID_PARAM,
           "releasing what is not reserved");
    expect(aclrtReserveMemAddress(&va, 4096, 0, NULL, 0), ACL_ERROR_INVALID_PARAM,
           "a reservation below the granularity");
    expect(aclrtGetDeviceInfo(0, (aclrtDevAttr)12345, &info), ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
           "an unknown device attribute");
    expect(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 100000),
           ACL_ERROR_RT_PARAM_INVALID, "more cores than there are");
    expect(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, NULL), ACL_ERROR_INVALID_PARAM,
           "a limit into NULL");
    expect(aclrtDestroyStreamConfigHandle((aclrtStreamConfigHandle*)stackBuffer),
           ACL_ERROR_INVALID_PARAM, "a made-up stream configuration");
    expect(aclrtStreamGetPriority((aclrtStream)stackBuffer, &limit), ACL_ERROR_RT_INVALID_HANDLE,
           "a made-up stream's priority");
    expect(aclrtValueWrite(stackBuffer, 1, 0, NULL), ACL_ERROR_RT_PARAM_INVALID,
           "a value written to host memory");
    expect(aclrtValueWait(NULL, 1, 0, NULL), ACL_ERROR_INVALID_PARAM, "a value waited for at NULL");
    expect((aclError)aclrtGetTaskIdFromExceptionInfo((const aclrtExceptionInfo*)stackBuffer),
           (aclError)0xFFFFFFFF, "a made-up exception info");
    expect(
        aclrtGetArgsFromExceptionInfo((const aclrtExceptionInfo*)stackBuffer, &argsPtr, &argsLen),
        ACL_ERROR_INVALID_PARAM, "the arguments of a made-up exception info");
    expect(aclrtStreamAbort((aclrtStream)stackBuffer), ACL_ERROR_RT_INVALID_HANDLE,
           "aborting a made-up stream");
    expect(aclrtIpcMemClose("key"), ACL_ERROR_INVALID_PARAM, "a made-up IPC key");
    expect(aclrtDestroyNotify((aclrtNotify)stackBuffer), ACL_ERROR_RT_INVALID_HANDLE,
           "a made-up notify");
  }

  /* The end */
  expect(aclrtFree(dev), ACL_SUCCESS, "aclrtFree");
  expect(aclrtFreeHost(host), ACL_SUCCESS, "aclrtFreeHost");
  expect(aclrtResetDevice(0), ACL_SUCCESS, "aclrtResetDevice");
  expect(aclFinalize(), ACL_SUCCESS, "aclFinalize");
  expect(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE, "aclFinalize twice");
  printf("%d mismatch(es)\n", failures);
  return failures;
}
