// Profiling (acl/acl_prof.h: aclprofInit, aclprofFinalize, aclprofCreateConfig,
// aclprofDestroyConfig, aclprofStart, aclprofStop) over the runtime's Profiling service
// (runtime/core/profiling.h), and the floating-point overflow mode (aclrtSetDeviceSatMode,
// aclrtGetDeviceSatMode of acl/acl_rt.h).

#include <mutex>
#include <set>
#include <string>

#include "runtime/api/acl_prof_config.h"
#include "runtime/api/api_call.h"
#include "runtime/core/soc_cores.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

namespace {

// The configurations this process made and has not destroyed, so that a stale one is refused.
std::mutex configsMutex;
std::set<const aclprofConfig*> configs;

bool madeHere(const aclprofConfig* config) {
  std::lock_guard<std::mutex> lock(configsMutex);
  return configs.count(config) > 0;
}

// What a configuration asks for, checked to be one this process made (a program on a served
// machine sends a copy of its own, checked there).
Profiling::Collection collection(HostThread& t, const aclprofConfig* config) {
  needPointer(config, "profilerConfig");
  if (t.remotePid == 0 && !madeHere(config))
    fail(ACL_ERROR_INVALID_PARAM,
         "profilerConfig was not made by aclprofCreateConfig or was destroyed");
  if (config->deviceCount > aclprofConfig::kMaxDevices)
    fail(ACL_ERROR_INVALID_PARAM, "profilerConfig names more than 64 devices");
  Profiling::Collection c;
  c.devices.assign(config->devices, config->devices + config->deviceCount);
  c.aicoreMetrics = config->aicoreMetrics;
  c.dataTypes = config->dataTypes;
  return c;
}

aclprofConfig* refuseConfig(const std::string& why) {
  rt().refuseArgument("aclprofCreateConfig", ACL_ERROR_INVALID_PARAM, why);
  return nullptr;
}

constexpr size_t kMaxPathLength = 4096;  // CANN's: a path of 1 to 4095 bytes

}  // namespace

extern "C" {

aclError aclprofInit(const char* profilerResultPath, size_t length) {
  ASCENDSIM_FORWARD(aclprofInit, profilerResultPath, length);
  return run("aclprofInit", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(profilerResultPath, "profilerResultPath");
    t.callArgs = {arg("length", length)};
    if (length == 0 || length >= kMaxPathLength)
      fail(ACL_ERROR_INVALID_PARAM,
           "length " + std::to_string(length) + " is outside 1 .. 4095 (bytes of the path)");
    if (std::strlen(profilerResultPath) != length)
      fail(ACL_ERROR_INVALID_PARAM, "length " + std::to_string(length) +
                                        " is not the path's length (" +
                                        std::to_string(std::strlen(profilerResultPath)) + ")");
    t.callArgs.push_back(arg("profilerResultPath", std::string(profilerResultPath)));
    rt().profiling().init(t.track.process, profilerResultPath);
  });
}

aclError aclprofFinalize(void) {
  ASCENDSIM_FORWARD_NO_ARGUMENTS(aclprofFinalize);
  return run("aclprofFinalize", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().profiling().finalize(t.track.process); });
}

aclprofConfig* aclprofCreateConfig(uint32_t* deviceIdList, uint32_t deviceNums,
                                   aclprofAicoreMetrics aicoreMetrics,
                                   const aclprofAicoreEvents* aicoreEvents,
                                   uint64_t dataTypeConfig) {
  if (ascendsim::remote::clientActive()) ascendsim::remote::takeServedError();
  if (deviceNums != 0 && !deviceIdList) return refuseConfig("deviceIdList is NULL");
  if (aicoreEvents) return refuseConfig("aicoreEvents must be NULL");
  if (deviceNums > aclprofConfig::kMaxDevices)
    return refuseConfig("deviceNums " + std::to_string(deviceNums) + " is more than 64");
  // The machine's devices (asked of the served machine in a program sharing one).
  uint32_t count = 0;
  if (ascendsim::remote::clientActive() ? aclrtGetDeviceCount(&count) != ACL_SUCCESS
                                        : !rt().initialized())
    return refuseConfig("the device count is not known: call aclInit first");
  if (!ascendsim::remote::clientActive()) count = rt().deviceCount();
  if (deviceNums > count)
    return refuseConfig("deviceNums " + std::to_string(deviceNums) + " is more than the " +
                        std::to_string(count) + " devices there are");
  if (deviceNums == 0 && (dataTypeConfig & ACL_PROF_MSPROFTX) == 0)
    return refuseConfig("deviceNums is 0");
  std::set<uint32_t> seen;
  for (uint32_t i = 0; i < deviceNums; ++i) {
    const uint32_t d = deviceIdList[i];
    if (d >= count)
      return refuseConfig("device " + std::to_string(d) + " does not exist (there are " +
                          std::to_string(count) + ")");
    if (!seen.insert(d).second)
      return refuseConfig("device " + std::to_string(d) + " is named twice");
  }
  auto* config = new (std::nothrow) aclprofConfig;
  if (!config) return refuseConfig("out of host memory");
  config->deviceCount = deviceNums;
  for (uint32_t i = 0; i < deviceNums; ++i) config->devices[i] = deviceIdList[i];
  config->aicoreMetrics = rawEnum(aicoreMetrics);
  config->dataTypes = dataTypeConfig;
  std::lock_guard<std::mutex> lock(configsMutex);
  configs.insert(config);
  return config;
}

aclError aclprofDestroyConfig(const aclprofConfig* profilerConfig) {
  if (ascendsim::remote::clientActive()) ascendsim::remote::takeServedError();
  if (!profilerConfig)
    return rt().refuseArgument("aclprofDestroyConfig", ACL_ERROR_INVALID_PARAM,
                               "profilerConfig is NULL");
  {
    std::lock_guard<std::mutex> lock(configsMutex);
    if (configs.erase(profilerConfig) == 0)
      return rt().refuseArgument("aclprofDestroyConfig", ACL_ERROR_INVALID_PARAM,
                                 "profilerConfig was not made by aclprofCreateConfig or was "
                                 "already destroyed");
  }
  delete profilerConfig;
  return ACL_SUCCESS;
}

aclError aclprofStart(const aclprofConfig* profilerConfig) {
  ASCENDSIM_FORWARD(aclprofStart, profilerConfig);
  return run("aclprofStart", &ApiOverheads::defaultCall, [&](HostThread& t) {
    const Profiling::Collection c = collection(t, profilerConfig);
    t.callArgs = {arg("devices", c.devices.size()), arg("dataTypeConfig", c.dataTypes)};
    rt().profiling().start(t.track.process, c);
  });
}

aclError aclprofStop(const aclprofConfig* profilerConfig) {
  ASCENDSIM_FORWARD(aclprofStop, profilerConfig);
  return run("aclprofStop", &ApiOverheads::defaultCall, [&](HostThread& t) {
    const Profiling::Collection c = collection(t, profilerConfig);
    t.callArgs = {arg("devices", c.devices.size()), arg("dataTypeConfig", c.dataTypes)};
    rt().profiling().stop(t.track.process, c);
  });
}

// The floating-point overflow mode, as CANN's runtime keeps it: the process's, and the current
// device's, which streams made on it afterwards take. A2/A3 SoCs take both modes (Inf/NaN by
// default), the 950 only Inf/NaN, the others only saturation.
aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode) {
  ASCENDSIM_FORWARD(aclrtSetDeviceSatMode, mode);
  return run("aclrtSetDeviceSatMode", &ApiOverheads::defaultCall, [&](HostThread& t) {
    const int32_t raw = rawEnum(mode);
    t.callArgs = {arg("mode", static_cast<uint64_t>(static_cast<uint32_t>(raw)))};
    if (raw != ACL_RT_OVERFLOW_MODE_SATURATION && raw != ACL_RT_OVERFLOW_MODE_INFNAN)
      fail(ACL_ERROR_RT_PARAM_INVALID, "mode " + std::to_string(raw) +
                                           " is neither ACL_RT_OVERFLOW_MODE_SATURATION (0) nor "
                                           "ACL_RT_OVERFLOW_MODE_INFNAN (1)");
    const std::string soc = rt().socName();
    const bool infNan = takesInfNan(soc), saturation = soc.rfind("Ascend950", 0) != 0;
    if (raw == ACL_RT_OVERFLOW_MODE_INFNAN && !infNan)
      fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
           "the " + soc + " takes only the saturation mode, not the Inf/NaN mode");
    if (raw == ACL_RT_OVERFLOW_MODE_SATURATION && !saturation)
      fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
           "the " + soc + " takes only the Inf/NaN mode, not the saturation mode");
    rt().setOverflowMode(t, raw);
  });
}

aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode* mode) {
  ASCENDSIM_FORWARD(aclrtGetDeviceSatMode, mode);
  return run("aclrtGetDeviceSatMode", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(mode, "mode");
    *mode = static_cast<aclrtFloatOverflowMode>(rt().overflowMode());
  });
}

}  // extern "C"
