// Kernel binaries and launches by handle: aclrtBinaryLoadFromFile, aclrtBinaryGetFunction,
// aclrtKernelArgs*, aclrtLaunchKernelWithConfig.

#include "runtime/api/api_call.h"
#include "runtime/ascendc/ascendc_launch.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

extern "C" {

aclError aclrtBinaryLoadFromFile(const char* binPath, aclrtBinaryLoadOptions* options,
                                 aclrtBinHandle* binHandle) {
  return run("aclrtBinaryLoadFromFile", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(binHandle, "binHandle");
    if (options && options->numOpt > 0) {
      fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
           "binary load options (lazy load, magic, CPU kernels) are not simulated");
    }
    t.callArgs = {arg("path", std::string(binPath ? binPath : ""))};
    *binHandle = rt().kernels().loadBinary(binPath);
  });
}

aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle) {
  return run("aclrtBinaryUnLoad", &ApiOverheads::defaultCall,
             [&](HostThread&) { rt().kernels().unloadBinary(binHandle); });
}

aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char* kernelName,
                                aclrtFuncHandle* funcHandle) {
  return run("aclrtBinaryGetFunction", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(funcHandle, "funcHandle");
    *funcHandle = rt().kernels().binaryFunction(binHandle, kernelName);
  });
}

aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle, aclrtArgsHandle* argsHandle) {
  return run("aclrtKernelArgsInit", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(argsHandle, "argsHandle");
    *argsHandle = rt().kernels().createArgs(funcHandle);
  });
}

aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void* param, size_t paramSize,
                               aclrtParamHandle* paramHandle) {
  return run("aclrtKernelArgsAppend", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(paramHandle, "paramHandle");
    *paramHandle = rt().kernels().append(argsHandle, param, paramSize);
  });
}

aclError aclrtKernelArgsAppendPlaceHolder(aclrtArgsHandle argsHandle,
                                          aclrtParamHandle* paramHandle) {
  return run("aclrtKernelArgsAppendPlaceHolder", &ApiOverheads::defaultCall, [&](HostThread&) {
    if (!argsHandle) fail(ACL_ERROR_INVALID_PARAM, "argsHandle is NULL");
    needPointer(paramHandle, "paramHandle");
    *paramHandle = rt().kernels().appendPlaceholder(argsHandle);
  });
}

aclError aclrtKernelArgsGetPlaceHolderBuffer(aclrtArgsHandle argsHandle,
                                             aclrtParamHandle paramHandle, size_t dataSize,
                                             void** bufferAddr) {
  return run("aclrtKernelArgsGetPlaceHolderBuffer", &ApiOverheads::defaultCall, [&](HostThread&) {
    if (!argsHandle) fail(ACL_ERROR_INVALID_PARAM, "argsHandle is NULL");
    needPointer(paramHandle, "paramHandle");
    if (dataSize == 0) fail(ACL_ERROR_INVALID_PARAM, "dataSize must be positive");
    needPointer(bufferAddr, "bufferAddr");
    *bufferAddr = rt().kernels().placeholderBuffer(argsHandle, paramHandle, dataSize);
  });
}

aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle) {
  return run("aclrtKernelArgsFinalize", &ApiOverheads::defaultCall,
             [&](HostThread&) { rt().kernels().finalizeArgs(argsHandle); });
}

aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                     aclrtStream stream, aclrtLaunchKernelCfg* cfg,
                                     aclrtArgsHandle argsHandle, void* reserve) {
  (void)reserve;  // reserved by CANN
  return run("aclrtLaunchKernelWithConfig", &ApiOverheads::kernelLaunch, [&](HostThread& t) {
    t.callArgs = {arg("blockDim", numBlocks), streamArg(stream)};
    ServicePort port(rt());
    launchFunction(port, t, funcHandle, numBlocks, stream, cfg, argsHandle);
  });
}

}  // extern "C"
