// The server's end of the calls in served_calls.h: each is run by the AscendCL entry point on the
// connection's thread, which stands for the program's thread in the runtime. The process's
// aclInit / aclFinalize are its own (the machine starts with the first and ends with the job),
// and what a process allocates or creates is given back if it goes away without doing so.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "runtime/api/served_calls.h"
#include "runtime/ascendc/ascendc_launch.h"
#include "runtime/core/device_contexts.h"
#include "runtime/core/errors.h"
#include "runtime/core/model_runs.h"
#include "runtime/core/runtime.h"
#include "runtime/core/service_port.h"
#include "runtime/core/streams.h"
#include "runtime/remote/kernel_service.h"
#include "runtime/remote/machine_server.h"
#include "runtime/remote/program_pages.h"
#include "runtime/remote/protocol.h"
#include "runtime/remote/served_callbacks.h"
#include "runtime/remote/served_handlers.h"

namespace ascendsim::remote {
namespace {
using runtime::Runtime;

aclError serveInit(Session& s, WireReader& in, WireWriter&) {
  ServedCall<&aclInit> call;
  call.read(in);
  const char* path = call.arg<0>();
  Runtime& rt = Runtime::instance();
  // The first process to initialise starts the machine; the others join it (in the runtime's
  // order of calls, so which one starts it is the same on every run).
  const aclError code =
      rt.call("aclInit", &spec::ApiOverheads::defaultCall, false, [&](runtime::HostThread&) {
        if (s.process().initialized)
          runtime::fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit was already called by this process");
        if (!rt.initialized()) rt.init(path);
      });
  if (code == ACL_SUCCESS) s.process().initialized = true;
  return code;
}

// Waits, as the process's aclFinalize, until the work the process has queued has ended, as
// aclFinalize on a machine of its own lets every queued task end (CANN's resets the devices): the
// launches of its models, then the streams of its contexts (its default contexts and those it
// made). Only then does what it holds go back: its streams (destroyed with what they still hold),
// its memory, and the pages it shared, which queued copies and model launches read and write.
void drainProcess(Session& s, runtime::HostThread& t) {
  Runtime& rt = Runtime::instance();
  if (!rt.initialized()) return;
  std::vector<uint64_t> handles;
  {
    std::lock_guard<std::mutex> lock(s.process().heldMutex);
    for (const auto& h : s.process().held) handles.push_back(h.first);
  }
  runtime::ServicePort port(rt);
  for (const uint64_t h : handles) {
    if (runtime::ModelRI* m = rt.modelRuns().findModel(fromBits<const void*>(h))) {
      std::shared_ptr<uint32_t> running = m->running;
      port.waitUntil(t, [running] { return *running == 0; });  // (one that never ends: left)
    }
  }
  std::set<runtime::Context*> contexts;
  const int32_t pid = port.callerPid(t);
  for (uint32_t id = 0; id < rt.deviceCount(); ++id) {
    runtime::Device& d = rt.devices().device(static_cast<int32_t>(id));
    auto own = d.defaultContexts.find(pid);
    if (own != d.defaultContexts.end()) contexts.insert(own->second);
  }
  for (const uint64_t h : handles) {
    if (runtime::Context* c = rt.devices().findContext(fromBits<const void*>(h)))
      contexts.insert(c);
  }
  std::vector<runtime::Stream*> streams;
  for (runtime::Context* c : contexts)
    streams.insert(streams.end(), c->streams.begin(), c->streams.end());
  for (runtime::Stream* stream : streams) {
    // (Waiting lets other threads destroy streams: the gone are skipped, this one kept.)
    if (!rt.streams().find(stream)) continue;
    runtime::Streams::Use use(rt.streams(), *stream);
    if (port.waitUntil(t, [stream] { return stream->queue.idle(); }))
      t.now = std::max(t.now, stream->queue.lastCompletion());
  }
}

aclError serveFinalize(Session& s, WireReader&, WireWriter&) {
  const bool initialized = s.process().initialized;
  const aclError code = Runtime::instance().call(
      "aclFinalize", &spec::ApiOverheads::defaultCall, false, [&](runtime::HostThread& t) {
        if (!initialized)
          runtime::fail(ACL_ERROR_UNINITIALIZE, "AscendCL is not initialised: call aclInit first");
        drainProcess(s, t);
      });
  // The machine goes on for the job's other processes; this one's resources go back, its shared
  // pages when the program has taken their bytes back (program_pages.h).
  if (initialized) releaseAllButSharedPages(s.process());
  s.process().initialized = false;
  return code;
}

constexpr uint64_t kDeviceUse = 1ull << 63;  // a held aclrtSetDevice, by device id

aclError serveSetDevice(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<&aclrtSetDevice> call;
  call.read(in);
  call.run();
  call.write(out);
  const int32_t id = call.arg<0>();
  if (call.code == ACL_SUCCESS)
    s.process().hold(kDeviceUse | static_cast<uint32_t>(id), [id] { aclrtResetDevice(id); });
  return call.code;
}

template <auto Fn>
aclError serveResetDevice(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<Fn> call;
  call.read(in);
  call.run();
  call.write(out);
  if (call.code == ACL_SUCCESS)
    s.process().drop(kDeviceUse | static_cast<uint32_t>(call.template arg<0>()));
  return call.code;
}

// IPC keys a process exported or imported are closed for it if it goes without doing so.
uint64_t keyHandle(const char* key) {
  return std::hash<std::string>()(key);
}

template <auto Fn, size_t Key>
aclError serveKeyOpen(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<Fn> call;
  call.read(in);
  call.run();
  call.write(out);
  if (call.code == ACL_SUCCESS) {
    const std::string key = call.template arg<Key>();
    s.process().hold(keyHandle(key.c_str()), [key] { aclrtIpcMemClose(key.c_str()); });
  }
  return call.code;
}

aclError serveKeyClose(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<&aclrtIpcMemClose> call;
  call.read(in);
  call.run();
  call.write(out);
  if (call.code == ACL_SUCCESS) s.process().drop(keyHandle(call.arg<0>()));
  return call.code;
}

// A mapping a process made is undone if it goes without doing so (keyed apart from the
// reservation at the same address).
constexpr uint64_t kMapping = 1ull << 62;

aclError serveMap(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<&aclrtMapMem> call;
  call.read(in);
  call.run();
  call.write(out);
  if (call.code == ACL_SUCCESS) {
    void* at = call.arg<0>();
    s.process().hold(kMapping | bitsOf(at), [at] { aclrtUnmapMem(at); });
  }
  return call.code;
}

aclError serveUnmap(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<&aclrtUnmapMem> call;
  call.read(in);
  call.run();
  call.write(out);
  if (call.code == ACL_SUCCESS) s.process().drop(kMapping | bitsOf(call.arg<0>()));
  return call.code;
}

// A kernel launch: the task's blocks run in the program, through its kernel service, when the
// task starts; its arguments are the program's, released there when the task is gone.
aclError serveKernelLaunch(Session& s, WireReader& in, WireWriter&) {
  ServedCall<&ascendsimLaunchAscendCKernel> call;
  call.read(in);
  const char* name = call.arg<0>();
  const uint32_t blockDim = call.arg<1>();
  aclrtStream stream = call.arg<2>();
  const uint64_t entry = bitsOf(call.arg<3>()), closure = bitsOf(call.arg<4>());
  const uint32_t closureBytes = call.arg<5>();
  const uint64_t release = bitsOf(call.arg<6>());
  std::shared_ptr<KernelService> kernels = s.process().kernels;
  // Whatever happens to the launch, the program releases its arguments once it is gone.
  std::shared_ptr<void> arguments(nullptr, [kernels, release, closure](void*) {
    if (kernels) kernels->release(release, closure);
  });
  Runtime& rt = Runtime::instance();
  return rt.call("ascendsimLaunchAscendCKernel", &spec::ApiOverheads::kernelLaunch, true,
                 [&](runtime::HostThread& t) {
                   t.callArgs = {runtime::TraceArg::string("name", name ? name : ""),
                                 runtime::TraceArg::number("blockDim", blockDim),
                                 runtime::TraceArg::string("stream", rt.streamName(stream))};
                   if (!kernels)
                     runtime::fail(ACL_ERROR_RT_INTERNAL_ERROR,
                                   "the program has no kernel service to run the kernel in");
                   runtime::AscendCLaunch launch;
                   launch.name = name ? name : "kernel";
                   launch.blockDim = blockDim;
                   launch.closureBytes = closureBytes;
                   // (Never called or freed here: the address an exception callback is given as
                   // the kernel's arguments, which are the program's.)
                   launch.closure = fromBits<void*>(closure);
                   launch.keepAlive = arguments;
                   launch.runElsewhere = [kernels, entry, closure](const runtime::KernelRun& run,
                                                                   runtime::KernelStop& stop) {
                     return kernels->run(entry, closure, run, stop);
                   };
                   runtime::ServicePort port(rt);
                   runtime::launchAscendC(port, t, stream, std::move(launch));
                 });
}

// A registered host range is unregistered for a process that goes without doing so (after which
// its shared pages go: program_pages.h).
constexpr uint64_t kHostRange = 1ull << 60;

template <auto Fn>
aclError serveRegister(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<Fn> call;
  call.read(in);
  call.run();
  call.write(out);
  if (call.code == ACL_SUCCESS) {
    void* at = call.template arg<0>();
    s.process().hold(kHostRange | bitsOf(at), [at] { aclrtHostUnregister(at); });
  }
  return call.code;
}

aclError serveUnregister(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<&aclrtHostUnregister> call;
  call.read(in);
  call.run();
  call.write(out);
  if (call.code == ACL_SUCCESS) s.process().drop(kHostRange | bitsOf(call.arg<0>()));
  return call.code;
}

// Calls that name a thread of the program by its pthread_t: the runtime knows it by the job's
// number for it (servedThreadId).
template <auto Fn>
aclError serveNamingThread(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<Fn> call;
  call.read(in);
  call.template slot<0>().value = servedThreadId(s.process(), call.template arg<0>());
  call.run();
  call.write(out);
  return call.code;
}

// Kernel binaries, their functions and argument lists belong to the process that made them (on a
// machine of its own their handles are addresses in its memory): another process's handle is
// refused as a stale one is, with ACL_ERROR_RT_INVALID_HANDLE, through the runtime so that the
// refusal is traced and is the thread's last error. `Handles`: the arguments that hold handles.
// False, with the refusal's code, when one is another process's; else `owner` is the binary the
// first handle belongs to.
template <auto Fn, size_t... Handles>
bool ownHandles(Session& s, ServedCall<Fn>& call, aclError& code, uint64_t& owner) {
  const auto overhead = std::string(Served<Fn>::name) == "aclrtLaunchKernelWithConfig"
                            ? &spec::ApiOverheads::kernelLaunch
                            : &spec::ApiOverheads::defaultCall;
  owner = 0;
  for (const uint64_t handle : {bitsOf(call.template arg<Handles>())...}) {
    const uint64_t of = s.process().ownerOf(handle);
    if (handle != 0 && of == 0) {
      char text[48];
      std::snprintf(text, sizeof text, "handle 0x%llx", static_cast<unsigned long long>(handle));
      code = Runtime::instance().call(Served<Fn>::name, overhead, true, [&](runtime::HostThread&) {
        runtime::fail(ACL_ERROR_RT_INVALID_HANDLE,
                      std::string(text) +
                          " is not a live handle of this process (made by another process, or "
                          "released): kernel binaries, their functions and argument lists are "
                          "valid only in the process that made them");
      });
      return false;
    }
    if (!owner) owner = of;
  }
  return true;
}

// `Made`: the argument receiving a handle the call makes (-1: none), owned with the binary it
// belongs to.
template <auto Fn, int Made, size_t... Handles>
aclError serveKernelHandles(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<Fn> call;
  call.read(in);
  aclError code = ACL_SUCCESS;
  uint64_t owner = 0;
  if (!ownHandles<Fn, Handles...>(s, call, code, owner)) return code;
  call.run();
  call.write(out);
  if constexpr (Made >= 0) {
    if (call.code == ACL_SUCCESS && call.template arg<Made>())
      s.process().own(bitsOf(*call.template arg<Made>()), owner);
  }
  return call.code;
}

aclError serveBinaryLoad(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<&ascendsimBinaryLoad> call;
  call.read(in);
  call.run();
  call.write(out);
  if (call.code == ACL_SUCCESS && call.arg<5>()) {
    aclrtBinHandle binary = *call.arg<5>();
    s.process().own(bitsOf(binary), bitsOf(binary));
    s.process().hold(bitsOf(binary), [binary] { aclrtBinaryUnLoad(binary); });
  }
  return call.code;
}

aclError serveBinaryUnload(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<&aclrtBinaryUnLoad> call;
  call.read(in);
  aclError code = ACL_SUCCESS;
  uint64_t owner = 0;
  if (!ownHandles<&aclrtBinaryUnLoad, 0>(s, call, code, owner)) return code;
  const uint64_t owned = s.process().ownedSoFar();  // (a binary loaded here meanwhile stays owned)
  call.run();
  call.write(out);
  if (call.code == ACL_SUCCESS) {
    s.process().drop(bitsOf(call.arg<0>()));
    // Its functions and argument lists go with it.
    s.process().disown(bitsOf(call.arg<0>()), owned);
  }
  return call.code;
}

// An argument of more bytes than a call carries did not travel: refused as the runtime refuses
// one larger than the kernel's arguments.
aclError serveArgsAppend(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<&aclrtKernelArgsAppend> call;
  call.read(in);
  aclError code = ACL_SUCCESS;
  uint64_t owner = 0;
  if (!ownHandles<&aclrtKernelArgsAppend, 0>(s, call, code, owner)) return code;
  if (call.slot<1>().cut) {
    const uint64_t size = call.arg<2>();
    return Runtime::instance().call(
        "aclrtKernelArgsAppend", &spec::ApiOverheads::defaultCall, true, [&](runtime::HostThread&) {
          runtime::fail(ACL_ERROR_RT_PARAM_INVALID,
                        "an argument of " + std::to_string(size) +
                            " bytes is larger than any kernel's arguments (a call to the shared "
                            "machine carries " +
                            std::to_string(kMostArrayBytes) + ")");
        });
  }
  call.run();
  call.write(out);
  return call.code;
}

template <auto Fn>
void add(ServedHandler handler = &serve<Fn>) {
  addServed<Fn>(handler);
}

const bool kRegistered = [] {
  add<&aclInit>(&serveInit);
  add<&aclFinalize>(&serveFinalize);
  add<&aclrtGetVersion>();
  add<&aclrtPeekAtLastError>();
  add<&aclrtGetLastError>();
  add<&aclsysGetVersionStr>();
  add<&aclsysGetVersionNum>();
  add<&aclGetCannAttribute>();
  add<&aclrtCheckArchCompatibility>();
  add<&aclrtSetDevice>(&serveSetDevice);
  add<&aclrtResetDevice>(&serveResetDevice<&aclrtResetDevice>);
  add<&aclrtResetDeviceForce>(&serveResetDevice<&aclrtResetDeviceForce>);
  add<&aclrtGetDevice>();
  add<&aclrtGetDeviceCount>();
  add<&aclrtSynchronizeDevice>();
  add<&aclrtGetRunMode>();
  add<&ascendsimGetSocName>();
  add<&aclrtDeviceCanAccessPeer>();
  add<&aclrtGetDevicesTopo>();
  add<&aclrtDeviceEnablePeerAccess>();
  add<&aclrtDeviceDisablePeerAccess>();
  add<&aclrtGetMemInfo>();
  add<&aclrtCreateContext>(&serveAcquire<&aclrtCreateContext, &aclrtDestroyContext>);
  add<&aclrtDestroyContext>(&serveRelease<&aclrtDestroyContext>);
  add<&aclrtSetCurrentContext>();
  add<&aclrtGetCurrentContext>();
  add<&aclrtCreateStream>(&serveAcquire<&aclrtCreateStream, &aclrtDestroyStreamForce>);
  add<&aclrtCreateStreamWithConfig>(
      &serveAcquire<&aclrtCreateStreamWithConfig, &aclrtDestroyStreamForce>);
  add<&aclrtCreateStreamV2>(&serveAcquire<&aclrtCreateStreamV2, &aclrtDestroyStreamForce>);
  add<&aclrtDestroyStream>(&serveRelease<&aclrtDestroyStream>);
  add<&aclrtDestroyStreamForce>(&serveRelease<&aclrtDestroyStreamForce>);
  add<&aclrtSynchronizeStream>();
  add<&aclrtSynchronizeStreamWithTimeout>();
  add<&aclrtStreamQuery>();
  add<&aclrtSetStreamFailureMode>();
  add<&aclrtStreamWaitEvent>();
  add<&aclrtCreateEvent>(&serveAcquire<&aclrtCreateEvent, &aclrtDestroyEvent>);
  add<&aclrtCreateEventWithFlag>(&serveAcquire<&aclrtCreateEventWithFlag, &aclrtDestroyEvent>);
  add<&aclrtCreateEventExWithFlag>(&serveAcquire<&aclrtCreateEventExWithFlag, &aclrtDestroyEvent>);
  add<&aclrtDestroyEvent>(&serveRelease<&aclrtDestroyEvent>);
  add<&aclrtRecordEvent>();
  add<&aclrtResetEvent>();
  add<&aclrtQueryEventStatus>();
  add<&ascendsimQueryEvent>();
  add<&aclrtSynchronizeEvent>();
  add<&aclrtEventElapsedTime>();
  add<&aclrtEventGetTimestamp>();
  add<&aclrtIpcGetEventHandle>();
  add<&aclrtIpcOpenEventHandle>(&serveAcquire<&aclrtIpcOpenEventHandle, &aclrtDestroyEvent, 1>);
  add<&aclrtCreateNotify>(&serveAcquire<&aclrtCreateNotify, &aclrtDestroyNotify>);
  add<&aclrtDestroyNotify>(&serveRelease<&aclrtDestroyNotify>);
  add<&aclrtRecordNotify>();
  add<&aclrtWaitAndResetNotify>();
  add<&aclrtGetNotifyId>();
  add<&aclrtNotifyGetExportKey>();
  add<&aclrtNotifySetImportPid>();
  add<&aclrtNotifyImportByKey>(&serveAcquire<&aclrtNotifyImportByKey, &aclrtDestroyNotify>);
  add<&aclrtMalloc>(&serveAcquire<&aclrtMalloc, &aclrtFree>);
  add<&aclrtMallocCached>(&serveAcquire<&aclrtMallocCached, &aclrtFree>);
  add<&aclrtMallocAlign32>(&serveAcquire<&aclrtMallocAlign32, &aclrtFree>);
  add<&aclrtFree>(&serveRelease<&aclrtFree>);
  add<&aclrtMallocHost>(&serveAcquire<&aclrtMallocHost, &aclrtFreeHost>);
  add<&aclrtFreeHost>(&serveRelease<&aclrtFreeHost>);
  add<&aclrtMemset>();
  add<&aclrtMemsetAsync>();
  add<&aclrtMemcpy>();
  add<&aclrtMemcpyAsync>();
  add<&aclrtMemcpy2d>();
  add<&aclrtMemcpy2dAsync>();
  add<&aclrtGetDeviceInfo>();
  add<&aclrtQueryDeviceStatus>();
  add<&aclrtGetDeviceUtilizationRate>();
  add<&aclrtSetDeviceResLimit>();
  add<&aclrtGetDeviceResLimit>();
  add<&aclrtResetDeviceResLimit>();
  add<&aclrtGetResInCurrentThread>();
  add<&aclrtGetDeviceCapability>();
  add<&aclrtCtxGetCurrentDefaultStream>();
  add<&aclrtQueryEventWaitStatus>();
  add<&aclrtSynchronizeEventWithTimeout>();
  add<&aclrtGetErrorVerbose>();
  add<&aclrtGetThreadLastTaskId>();
  add<&aclrtStreamGetId>();
  add<&aclrtStreamGetFlags>();
  add<&aclrtStreamGetPriority>();
  add<&aclrtDeviceGetStreamPriorityRange>();
  add<&aclrtValueWrite>();
  add<&aclrtValueWait>();
  add<&aclrtStreamStop>();
  add<&aclrtStreamAbort>();
  add<&aclrtMemcpyAsyncWithCondition>();
  add<&aclrtReduceAsync>();
  add<&acldvppMalloc>(&serveAcquire<&acldvppMalloc, &acldvppFree>);
  add<&acldvppFree>(&serveRelease<&acldvppFree>);
  add<&aclrtMemGetAllocationGranularity>();
  add<&aclrtReserveMemAddress>(&serveAcquire<&aclrtReserveMemAddress, &aclrtReleaseMemAddress>);
  add<&aclrtReleaseMemAddress>(&serveRelease<&aclrtReleaseMemAddress>);
  add<&aclrtMallocPhysical>(&serveAcquire<&aclrtMallocPhysical, &aclrtFreePhysical>);
  add<&aclrtFreePhysical>(&serveRelease<&aclrtFreePhysical>);
  add<&aclrtMapMem>(&serveMap);
  add<&aclrtUnmapMem>(&serveUnmap);
  add<&aclrtMemSetAccess>();
  add<&aclrtMemExportToShareableHandle>();
  add<&aclrtMemSetPidToShareableHandle>();
  add<&aclrtMemImportFromShareableHandle>(
      &serveAcquire<&aclrtMemImportFromShareableHandle, &aclrtFreePhysical, 2>);
  add<&ascendsimLaunchAscendCKernel>(&serveKernelLaunch);
  add<&ascendsimLaunchComputeTask>();
  add<&ascendsimLaunchComputeTaskIn>();
  add<&ascendsimLaunchComputeTaskSized>();
  add<&aclrtHostRegister>(&serveRegister<&aclrtHostRegister>);
  add<&aclrtHostRegisterV2>(&serveRegister<&aclrtHostRegisterV2>);
  add<&aclrtHostGetDevicePointer>();
  add<&aclrtHostUnregister>(&serveUnregister);
  add<&aclrtMemAllocManaged>(&serveAcquire<&aclrtMemAllocManaged, &aclrtFree>);
  registerServedCall(kSharePagesCall, &serveSharePages);
  add<&aclrtSubscribeReport>(&serveNamingThread<&aclrtSubscribeReport>);
  add<&aclrtUnSubscribeReport>(&serveNamingThread<&aclrtUnSubscribeReport>);
  add<&aclrtSubscribeHostFunc>(&serveNamingThread<&aclrtSubscribeHostFunc>);
  add<&aclrtUnSubscribeHostFunc>(&serveNamingThread<&aclrtUnSubscribeHostFunc>);
  add<&aclrtLaunchCallback>();
  registerServedCall("aclrtLaunchHostFunc", &serveLaunchHostFunc);
  registerServedCall(kTakeReportCall, &serveTakeReport);
  registerServedCall(kEndReportCall, &serveEndReport);
  registerServedCall(kHostFuncStreamCall, &serveHostFuncStream);
  registerServedCall(kAdoptHostFuncCall, &serveAdoptHostFuncStream);
  add<&ascendsimBinaryLoad>(&serveBinaryLoad);
  add<&aclrtBinaryUnLoad>(&serveBinaryUnload);
  add<&aclrtBinaryGetFunction>(&serveKernelHandles<&aclrtBinaryGetFunction, 2, 0>);
  add<&aclrtKernelArgsInit>(&serveKernelHandles<&aclrtKernelArgsInit, 1, 0>);
  add<&aclrtKernelArgsAppend>(&serveArgsAppend);
  add<&aclrtKernelArgsAppendPlaceHolder>(
      &serveKernelHandles<&aclrtKernelArgsAppendPlaceHolder, -1, 0>);
  add<&aclrtKernelArgsGetPlaceHolderBuffer>(
      &serveKernelHandles<&aclrtKernelArgsGetPlaceHolderBuffer, -1, 0>);
  add<&aclrtKernelArgsFinalize>(&serveKernelHandles<&aclrtKernelArgsFinalize, -1, 0>);
  add<&aclrtLaunchKernelWithConfig>(&serveKernelHandles<&aclrtLaunchKernelWithConfig, -1, 0, 4>);
  add<&aclrtSetExceptionInfoCallback>();
  add<&aclrtExceptionInfoCallbackRegister>();
  add<&aclrtExceptionInfoCallbackUnregister>();
  registerServedCall(kTakeExceptionsCall, &serveTakeExceptions);
  add<&ascendsimAllocatorRegister>();
  add<&aclrtAllocatorGetByStream>();
  add<&aclrtAllocatorUnregister>();
  registerServedCall(kStreamDestroyableCall, &serveStreamDestroyable);
  registerServedCall(kStreamStatesCall, &serveStreamStates);
  add<&ascendsimCreateDataBuffer>();
  add<&ascendsimDataBufferGet>();
  add<&aclDestroyDataBuffer>();
  add<&aclUpdateDataBuffer>();
  add<&aclrtDeviceGetBareTgid>();
  add<&aclrtIpcMemGetExportKey>(&serveKeyOpen<&aclrtIpcMemGetExportKey, 2>);
  add<&aclrtIpcMemSetImportPid>();
  add<&aclrtIpcMemImportByKey>(&serveKeyOpen<&aclrtIpcMemImportByKey, 1>);
  add<&aclrtIpcMemClose>(&serveKeyClose);
  // profiling and saturation
  add<&aclprofInit>();
  add<&aclprofFinalize>();
  add<&aclprofStart>();
  add<&aclprofStop>();
  add<&aclrtSetDeviceSatMode>();
  add<&aclrtGetDeviceSatMode>();
  return true;
}();

}  // namespace
}  // namespace ascendsim::remote
