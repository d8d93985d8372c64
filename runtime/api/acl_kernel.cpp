// Kernel binaries and launches by handle: aclrtBinaryLoadFromFile, aclrtBinaryGetFunction,
// aclrtKernelArgs*, aclrtLaunchKernelWithConfig.

#include <cstring>
#include <string>

#include "runtime/api/api_call.h"
#include "runtime/ascendc/ascendc_launch.h"
#include "runtime/core/input_file.h"
#include "runtime/core/kernel_library.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

namespace {
// The most bytes of a kernel binary a program on a served machine sends to it.
constexpr uint64_t kLargestBinary = 1ull << 30;

aclError loadBinary(const char* binPath, const aclrtBinaryLoadOptions* options,
                    aclrtBinHandle* binHandle, const BinaryImage* image) {
  return run("aclrtBinaryLoadFromFile", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(binHandle, "binHandle");
    if (options && options->numOpt > 0) {
      fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
           "binary load options (lazy load, magic, CPU kernels) are not simulated");
    }
    t.callArgs = {arg("path", std::string(binPath ? binPath : ""))};
    *binHandle = rt().kernels().loadBinary(binPath, image);
  });
}
}  // namespace

extern "C" {

aclError ascendsimBinaryLoad(const char* binPath, const void* image, uint64_t imageBytes,
                             const char* unreadable, aclrtBinaryLoadOptions* options,
                             aclrtBinHandle* binHandle) {
  ASCENDSIM_FORWARD(ascendsimBinaryLoad, binPath, image, imageBytes, unreadable, options,
                    binHandle);
  const BinaryImage loaded{image, imageBytes, unreadable ? unreadable : ""};
  return loadBinary(binPath, options, binHandle, &loaded);
}

aclError aclrtBinaryLoadFromFile(const char* binPath, aclrtBinaryLoadOptions* options,
                                 aclrtBinHandle* binHandle) {
  if (ascendsim::remote::clientActive()) {
    // The path is the program's (its working directory): the program reads the file and the
    // machine loads its bytes.
    std::string bytes, why;
    if (binPath && *binPath) {
      const std::string file = std::strchr(binPath, '/') ? binPath : std::string("./") + binPath;
      if (!readRegularFile(file, kLargestBinary, bytes, why)) bytes.clear();
    }
    return ascendsimBinaryLoad(binPath, bytes.empty() ? nullptr : bytes.data(), bytes.size(),
                               why.empty() ? nullptr : why.c_str(), options, binHandle);
  }
  return loadBinary(binPath, options, binHandle, nullptr);
}

aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle) {
  ASCENDSIM_FORWARD(aclrtBinaryUnLoad, binHandle);
  return run("aclrtBinaryUnLoad", &ApiOverheads::defaultCall,
             [&](HostThread&) { rt().kernels().unloadBinary(binHandle); });
}

aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char* kernelName,
                                aclrtFuncHandle* funcHandle) {
  ASCENDSIM_FORWARD(aclrtBinaryGetFunction, binHandle, kernelName, funcHandle);
  return run("aclrtBinaryGetFunction", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(funcHandle, "funcHandle");
    *funcHandle = rt().kernels().binaryFunction(binHandle, kernelName);
  });
}

aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle, aclrtArgsHandle* argsHandle) {
  ASCENDSIM_FORWARD(aclrtKernelArgsInit, funcHandle, argsHandle);
  return run("aclrtKernelArgsInit", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(argsHandle, "argsHandle");
    *argsHandle = rt().kernels().createArgs(funcHandle);
  });
}

aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void* param, size_t paramSize,
                               aclrtParamHandle* paramHandle) {
  ASCENDSIM_FORWARD(aclrtKernelArgsAppend, argsHandle, param, paramSize, paramHandle);
  return run("aclrtKernelArgsAppend", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(paramHandle, "paramHandle");
    *paramHandle = rt().kernels().append(argsHandle, param, paramSize);
  });
}

aclError aclrtKernelArgsAppendPlaceHolder(aclrtArgsHandle argsHandle,
                                          aclrtParamHandle* paramHandle) {
  ASCENDSIM_FORWARD(aclrtKernelArgsAppendPlaceHolder, argsHandle, paramHandle);
  return run("aclrtKernelArgsAppendPlaceHolder", &ApiOverheads::defaultCall, [&](HostThread&) {
    if (!argsHandle) fail(ACL_ERROR_INVALID_PARAM, "argsHandle is NULL");
    needPointer(paramHandle, "paramHandle");
    *paramHandle = rt().kernels().appendPlaceholder(argsHandle);
  });
}

aclError aclrtKernelArgsGetPlaceHolderBuffer(aclrtArgsHandle argsHandle,
                                             aclrtParamHandle paramHandle, size_t dataSize,
                                             void** bufferAddr) {
  ASCENDSIM_FORWARD(aclrtKernelArgsGetPlaceHolderBuffer, argsHandle, paramHandle, dataSize,
                    bufferAddr);
  return run("aclrtKernelArgsGetPlaceHolderBuffer", &ApiOverheads::defaultCall, [&](HostThread&) {
    if (!argsHandle) fail(ACL_ERROR_INVALID_PARAM, "argsHandle is NULL");
    needPointer(paramHandle, "paramHandle");
    if (dataSize == 0) fail(ACL_ERROR_INVALID_PARAM, "dataSize must be positive");
    needPointer(bufferAddr, "bufferAddr");
    *bufferAddr = rt().kernels().placeholderBuffer(argsHandle, paramHandle, dataSize);
  });
}

aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle) {
  ASCENDSIM_FORWARD(aclrtKernelArgsFinalize, argsHandle);
  return run("aclrtKernelArgsFinalize", &ApiOverheads::defaultCall,
             [&](HostThread&) { rt().kernels().finalizeArgs(argsHandle); });
}

aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                     aclrtStream stream, aclrtLaunchKernelCfg* cfg,
                                     aclrtArgsHandle argsHandle, void* reserve) {
  ASCENDSIM_FORWARD(aclrtLaunchKernelWithConfig, funcHandle, numBlocks, stream, cfg, argsHandle,
                    reserve);
  (void)reserve;  // reserved by CANN
  return run("aclrtLaunchKernelWithConfig", &ApiOverheads::kernelLaunch, [&](HostThread& t) {
    t.callArgs = {arg("blockDim", numBlocks), streamArg(stream)};
    ServicePort port(rt());
    launchFunction(port, t, funcHandle, numBlocks, stream, cfg, argsHandle);
  });
}

}  // extern "C"
