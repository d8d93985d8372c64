// Memory allocation, copies and memsets.

#include "runtime/api/api_call.h"
#include "runtime/api/model_served.h"
#include "runtime/core/soc_cores.h"
#include "runtime/remote/program_pages.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

namespace {
// A served program's registration: the range's pages are shared with the server first
// (runtime/remote/program_pages.h), and given back if the server refuses it.
template <class Send>
aclError registerServed(const char* name, void* ptr, uint64_t size, Send send) {
  std::string why;
  if (!ascendsim::remote::sharePagesOf(ptr, size, why)) {
    ascendsim::remote::setServedError(std::string(name) + ": " + why);
    return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
  }
  const aclError code = send();
  ascendsim::remote::settleRegistration(ptr, size, code == ACL_SUCCESS);
  return code;
}

// What aclrtMallocHostWithCfg refuses before it allocates, as CANN's runtime checks it
// (ApiImpl::HostMallocWithCfg): host memory takes the MODULE_ID attribute (any module) and
// VA_FLAG (0 or 1; 1 only on the A2 and A3 parts, the ones the documentation says support it);
// any other attribute, or a config without its attribute array, is an invalid value. Empty when
// the call may go on.
struct Refusal {
  aclError code = ACL_SUCCESS;
  std::string text;
};
template <class Soc>
Refusal checkHostConfig(void** ptr, uint64_t size, const aclrtMallocConfig* cfg, Soc soc) {
  if (!ptr) return {ACL_ERROR_INVALID_PARAM, "ptr is NULL"};
  if (size == 0) return {ACL_ERROR_INVALID_PARAM, "size is 0"};
  if (!cfg) return {};
  if (!cfg->attrs) return {ACL_ERROR_RT_PARAM_INVALID, "cfg->attrs is NULL"};
  for (size_t i = 0; i < cfg->numAttrs; ++i) {
    const aclrtMallocAttribute& a = cfg->attrs[i];
    const std::string which = "cfg->attrs[" + std::to_string(i) + "]";
    const int32_t attr = rawEnum(a.attr);
    if (attr == ACL_RT_MEM_ATTR_MODULE_ID) continue;
    if (attr != ACL_RT_MEM_ATTR_VA_FLAG) {
      return {ACL_ERROR_RT_PARAM_INVALID,
              which + ".attr " + std::to_string(attr) +
                  " is not an attribute of host memory: expected ACL_RT_MEM_ATTR_MODULE_ID (1) "
                  "or ACL_RT_MEM_ATTR_VA_FLAG (3)"};
    }
    if (a.value.vaFlag > 1) {
      return {ACL_ERROR_RT_PARAM_INVALID,
              which + ".value.vaFlag " + std::to_string(a.value.vaFlag) + " is neither 0 nor 1"};
    }
    if (a.value.vaFlag == 1) {
      const std::string part = soc();
      if (!isA2OrA3(part)) {
        return {ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                which +
                    ": VA consistency (vaFlag 1) is supported on Atlas A2 and A3 parts only, "
                    "not on " +
                    (part.empty() ? std::string("a machine that names no SoC") : part)};
      }
    }
  }
  return {};
}
}  // namespace

extern "C" {

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  ASCENDSIM_FORWARD(aclrtMalloc, devPtr, size, policy);
  return run("aclrtMalloc", &ApiOverheads::malloc, [&](HostThread& t) {
    t.callArgs = {arg("size", size), arg("policy", static_cast<uint64_t>(rawEnum(policy)))};
    needPointer(devPtr, "devPtr");
    *devPtr = rt().malloc(t, size, rawEnum(policy), false);
    t.callArgs.push_back(ptrArg("devPtr", *devPtr));
  });
}

aclError aclrtMallocCached(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  ASCENDSIM_FORWARD(aclrtMallocCached, devPtr, size, policy);
  return run("aclrtMallocCached", &ApiOverheads::malloc, [&](HostThread& t) {
    needPointer(devPtr, "devPtr");
    *devPtr = rt().malloc(t, size, rawEnum(policy), false);
  });
}

aclError aclrtMallocAlign32(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  ASCENDSIM_FORWARD(aclrtMallocAlign32, devPtr, size, policy);
  return run("aclrtMallocAlign32", &ApiOverheads::malloc, [&](HostThread& t) {
    needPointer(devPtr, "devPtr");
    *devPtr = rt().malloc(t, size, rawEnum(policy), true);
  });
}

aclError aclrtFree(void* devPtr) {
  ASCENDSIM_FORWARD(aclrtFree, devPtr);
  return run("aclrtFree", &ApiOverheads::free, [&](HostThread& t) {
    t.callArgs = {ptrArg("devPtr", devPtr)};
    rt().free(t, devPtr, AllocationApi::Malloc);
  });
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  ASCENDSIM_FORWARD(aclrtMallocHost, hostPtr, size);
  return run("aclrtMallocHost", &ApiOverheads::mallocHost, [&](HostThread& t) {
    t.callArgs = {arg("size", size)};
    needPointer(hostPtr, "hostPtr");
    *hostPtr = rt().mallocHost(t, size);
    t.callArgs.push_back(ptrArg("hostPtr", *hostPtr));
  });
}

// The pages land on the NUMA node of the calling thread (first touch, `host.memory_socket:
// thread`); vaFlag 1 needs nothing more: the device reaches pinned memory at its host address.
aclError aclrtMallocHostWithCfg(void** ptr, uint64_t size, aclrtMallocConfig* cfg) {
  if (ascendsim::remote::clientActive()) {
    const Refusal refused = checkHostConfig(ptr, size, cfg, [] {
      const char* soc = aclrtGetSocName();
      return std::string(soc ? soc : "");
    });
    if (refused.code != ACL_SUCCESS) {
      ascendsim::remote::setServedError("aclrtMallocHostWithCfg: " + refused.text);
      return refused.code;
    }
    return aclrtMallocHost(ptr, size);
  }
  return run("aclrtMallocHostWithCfg", &ApiOverheads::mallocHost, [&](HostThread& t) {
    t.callArgs = {arg("size", size)};
    const Refusal refused = checkHostConfig(ptr, size, cfg, [] {
      const auto& devices = rt().system().devices;
      return devices.empty() ? std::string() : devices.front().soc;
    });
    if (refused.code != ACL_SUCCESS) fail(refused.code, refused.text);
    *ptr = rt().mallocHost(t, size);
    t.callArgs.push_back(ptrArg("ptr", *ptr));
  });
}

aclError aclrtFreeHost(void* hostPtr) {
  ASCENDSIM_FORWARD(aclrtFreeHost, hostPtr);
  return run("aclrtFreeHost", &ApiOverheads::free,
             [&](HostThread& t) { rt().free(t, hostPtr, AllocationApi::MallocHost); });
}

aclError acldvppMalloc(void** devPtr, size_t size) {
  ASCENDSIM_FORWARD(acldvppMalloc, devPtr, size);
  return run("acldvppMalloc", &ApiOverheads::malloc, [&](HostThread& t) {
    needPointer(devPtr, "devPtr");
    *devPtr = rt().dvppMalloc(t, size);
  });
}

aclError acldvppFree(void* devPtr) {
  ASCENDSIM_FORWARD(acldvppFree, devPtr);
  return run("acldvppFree", &ApiOverheads::free,
             [&](HostThread& t) { rt().free(t, devPtr, AllocationApi::Dvpp); });
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  ASCENDSIM_FORWARD(aclrtMemset, devPtr, maxCount, value, count);
  return run("aclrtMemset", &ApiOverheads::memset, [&](HostThread& t) {
    t.callArgs = {ptrArg("devPtr", devPtr), arg("count", count),
                  arg("value", static_cast<uint64_t>(value & 0xFF))};
    rt().memset(t, devPtr, maxCount, value, count, std::nullopt);
  });
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream) {
  ASCENDSIM_FORWARD(aclrtMemsetAsync, devPtr, maxCount, value, count, stream);
  return run("aclrtMemsetAsync", &ApiOverheads::memsetAsync, [&](HostThread& t) {
    t.callArgs = {ptrArg("devPtr", devPtr), arg("count", count),
                  arg("value", static_cast<uint64_t>(value & 0xFF)), streamArg(stream)};
    rt().memset(t, devPtr, maxCount, value, count, stream);
  });
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind) {
  ASCENDSIM_FORWARD(aclrtMemcpy, dst, destMax, src, count, kind);
  return run("aclrtMemcpy", &ApiOverheads::memcpy, [&](HostThread& t) {
    t.callArgs = {ptrArg("dst", dst), ptrArg("src", src), arg("count", count),
                  arg("kind", static_cast<uint64_t>(rawEnum(kind)))};
    rt().memcpy(t, dst, destMax, src, count, rawEnum(kind), std::nullopt);
  });
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream) {
  if (ascendsim::remote::clientActive()) {
    if (const aclError code = ascendsim::remote::shareRecordedCopy("aclrtMemcpyAsync", stream, dst,
                                                                   count, src, count))
      return code;
  }
  ASCENDSIM_FORWARD(aclrtMemcpyAsync, dst, destMax, src, count, kind, stream);
  return run("aclrtMemcpyAsync", &ApiOverheads::memcpyAsync, [&](HostThread& t) {
    t.callArgs = {ptrArg("dst", dst), ptrArg("src", src), arg("count", count),
                  arg("kind", static_cast<uint64_t>(rawEnum(kind))), streamArg(stream)};
    rt().memcpy(t, dst, destMax, src, count, rawEnum(kind), stream);
  });
}

aclError aclrtMemcpyAsyncWithCondition(void* dst, size_t destMax, const void* src, size_t count,
                                       aclrtMemcpyKind kind, aclrtStream stream) {
  if (ascendsim::remote::clientActive()) {
    if (const aclError code = ascendsim::remote::shareRecordedCopy("aclrtMemcpyAsyncWithCondition",
                                                                   stream, dst, count, src, count))
      return code;
  }
  ASCENDSIM_FORWARD(aclrtMemcpyAsyncWithCondition, dst, destMax, src, count, kind, stream);
  // Asynchronous when the host side is pinned, synchronous otherwise: what aclrtMemcpyAsync does
  // here.
  return run("aclrtMemcpyAsyncWithCondition", &ApiOverheads::memcpyAsync, [&](HostThread& t) {
    rt().memcpy(t, dst, destMax, src, count, rawEnum(kind), stream);
  });
}

aclError aclrtMemcpy2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                       size_t height, aclrtMemcpyKind kind) {
  ASCENDSIM_FORWARD(aclrtMemcpy2d, dst, dpitch, src, spitch, width, height, kind);
  return run("aclrtMemcpy2d", &ApiOverheads::memcpy, [&](HostThread& t) {
    rt().memcpy2d(t, dst, dpitch, src, spitch, width, height, rawEnum(kind), std::nullopt);
  });
}

aclError aclrtMemcpy2dAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                            size_t height, aclrtMemcpyKind kind, aclrtStream stream) {
  if (ascendsim::remote::clientActive()) {
    if (const aclError code = ascendsim::remote::shareRecordedCopy(
            "aclrtMemcpy2dAsync", stream, dst, ascendsim::remote::rowsSpan(dpitch, width, height),
            src, ascendsim::remote::rowsSpan(spitch, width, height)))
      return code;
  }
  ASCENDSIM_FORWARD(aclrtMemcpy2dAsync, dst, dpitch, src, spitch, width, height, kind, stream);
  return run("aclrtMemcpy2dAsync", &ApiOverheads::memcpyAsync, [&](HostThread& t) {
    rt().memcpy2d(t, dst, dpitch, src, spitch, width, height, rawEnum(kind), stream);
  });
}

aclError aclrtHostRegisterV2(void* ptr, uint64_t size, uint32_t flag) {
  if (ascendsim::remote::clientActive()) {
    return registerServed("aclrtHostRegisterV2", ptr, size, [&] {
      return ascendsim::remote::forward<&aclrtHostRegisterV2>(ptr, size, flag);
    });
  }
  return run("aclrtHostRegisterV2", &ApiOverheads::defaultCall,
             [&](HostThread&) { rt().hosts().registerRange(ptr, size, flag); });
}

aclError aclrtHostRegister(void* ptr, uint64_t size, aclrtHostRegisterType type, void** devPtr) {
  if (ascendsim::remote::clientActive()) {
    return registerServed("aclrtHostRegister", ptr, size, [&] {
      return ascendsim::remote::forward<&aclrtHostRegister>(ptr, size, type, devPtr);
    });
  }
  return run("aclrtHostRegister", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(devPtr, "devPtr");
    const int32_t kind = rawEnum(type);
    if (kind != ACL_HOST_REGISTER_MAPPED && kind != ACL_HOST_REGISTER_IOMEMORY &&
        kind != ACL_HOST_REGISTER_READONLY) {
      fail(ACL_ERROR_INVALID_PARAM,
           "type " + std::to_string(kind) + " is not an aclrtHostRegisterType");
    }
    // Every type maps the range (MAPPED is 0); IOMEMORY and READONLY add their flag.
    rt().hosts().registerRange(ptr, size, ACL_HOST_REG_MAPPED | static_cast<uint32_t>(kind));
    *devPtr = rt().hosts().devicePointer(ptr, 0);
  });
}

aclError aclrtHostGetDevicePointer(void* pHost, void** pDevice, uint32_t flag) {
  ASCENDSIM_FORWARD(aclrtHostGetDevicePointer, pHost, pDevice, flag);
  return run("aclrtHostGetDevicePointer", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(pDevice, "pDevice");
    *pDevice = rt().hosts().devicePointer(pHost, flag);
  });
}

aclError aclrtHostUnregister(void* ptr) {
  if (ascendsim::remote::clientActive()) {
    const aclError code = ascendsim::remote::forward<&aclrtHostUnregister>(ptr);
    if (code == ACL_SUCCESS) ascendsim::remote::unsharePagesOf(ptr);
    return code;
  }
  return run("aclrtHostUnregister", &ApiOverheads::defaultCall,
             [&](HostThread&) { rt().hosts().unregisterRange(ptr); });
}

aclError aclrtMemAllocManaged(void** ptr, uint64_t size, uint32_t flag) {
  ASCENDSIM_FORWARD(aclrtMemAllocManaged, ptr, size, flag);
  return run("aclrtMemAllocManaged", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(ptr, "ptr");
    HostRegistry::checkManagedRequest(size, flag);
    *ptr = rt().hosts().allocateManaged(size, rt().socName());
  });
}

aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp* prop,
                                          aclrtMemGranularityOptions option, size_t* granularity) {
  ASCENDSIM_FORWARD(aclrtMemGetAllocationGranularity, prop, option, granularity);
  return run("aclrtMemGetAllocationGranularity", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(prop, "prop");
    needPointer(granularity, "granularity");
    const int32_t which = rawEnum(option);
    if (which != ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM &&
        which != ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED) {
      fail(ACL_ERROR_INVALID_PARAM,
           "option " + std::to_string(which) + " is not MINIMUM or RECOMMENDED");
    }
    *granularity = 2u << 20;
  });
}

aclError aclrtReserveMemAddress(void** virPtr, size_t size, size_t alignment, void* expectPtr,
                                uint64_t flags) {
  ASCENDSIM_FORWARD(aclrtReserveMemAddress, virPtr, size, alignment, expectPtr, flags);
  return run("aclrtReserveMemAddress", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(virPtr, "virPtr");
    *virPtr = rt().reserveAddresses(t, size, alignment, expectPtr, flags);
  });
}

aclError aclrtReleaseMemAddress(void* virPtr) {
  ASCENDSIM_FORWARD(aclrtReleaseMemAddress, virPtr);
  return run("aclrtReleaseMemAddress", &ApiOverheads::defaultCall,
             [&](HostThread&) { rt().virtualMemory().release(virPtr); });
}

aclError aclrtMallocPhysical(aclrtDrvMemHandle* handle, size_t size,
                             const aclrtPhysicalMemProp* prop, uint64_t flags) {
  ASCENDSIM_FORWARD(aclrtMallocPhysical, handle, size, prop, flags);
  return run("aclrtMallocPhysical", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(handle, "handle");
    *handle = rt().virtualMemory().allocatePhysical(rt().callerPid(t), size, prop, flags,
                                                    rt().system().rootComplex.sockets());
  });
}

aclError aclrtFreePhysical(aclrtDrvMemHandle handle) {
  ASCENDSIM_FORWARD(aclrtFreePhysical, handle);
  return run("aclrtFreePhysical", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().virtualMemory().freePhysical(rt().callerPid(t), handle); });
}

aclError aclrtMapMem(void* virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                     uint64_t flags) {
  ASCENDSIM_FORWARD(aclrtMapMem, virPtr, size, offset, handle, flags);
  return run("aclrtMapMem", &ApiOverheads::defaultCall, [&](HostThread& t) {
    rt().virtualMemory().map(rt().callerPid(t), virPtr, size, offset, handle, flags);
  });
}

aclError aclrtUnmapMem(void* virPtr) {
  ASCENDSIM_FORWARD(aclrtUnmapMem, virPtr);
  return run("aclrtUnmapMem", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().unmapMemory(t, virPtr); });
}

aclError aclrtMemSetAccess(void* virPtr, size_t size, aclrtMemAccessDesc* desc, size_t count) {
  ASCENDSIM_FORWARD(aclrtMemSetAccess, virPtr, size, desc, count);
  return run("aclrtMemSetAccess", &ApiOverheads::defaultCall,
             [&](HostThread&) { rt().virtualMemory().setAccess(virPtr, size, desc, count); });
}

}  // extern "C"
