// Devices, run mode, peer access, memory information.

#include "runtime/api/api_call.h"
#include "runtime/remote/served_callbacks.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

extern "C" {

aclError aclrtSetDevice(int32_t deviceId) {
  // (On a served machine the stream state callbacks are the program's: served_callbacks.h.)
  if (ascendsim::remote::clientActive())
    return ascendsim::remote::defaultStreamMade(
        ascendsim::remote::forward<&aclrtSetDevice>(deviceId));
  return run("aclrtSetDevice", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().devices().set(t, deviceId); });
}

aclError aclrtResetDevice(int32_t deviceId) {
  if (ascendsim::remote::clientActive()) {
    return ascendsim::remote::resetDevice(
        deviceId, false, [&] { return ascendsim::remote::forward<&aclrtResetDevice>(deviceId); });
  }
  return run("aclrtResetDevice", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().devices().reset(t, deviceId); });
}

aclError aclrtResetDeviceForce(int32_t deviceId) {
  if (ascendsim::remote::clientActive()) {
    return ascendsim::remote::resetDevice(deviceId, true, [&] {
      return ascendsim::remote::forward<&aclrtResetDeviceForce>(deviceId);
    });
  }
  return run("aclrtResetDeviceForce", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().devices().reset(t, deviceId, true); });
}

aclError aclrtGetDevice(int32_t* deviceId) {
  ASCENDSIM_FORWARD(aclrtGetDevice, deviceId);
  return run("aclrtGetDevice", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(deviceId, "deviceId");
    *deviceId = rt().devices().current(t);
  });
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  ASCENDSIM_FORWARD(aclrtGetDeviceCount, count);
  // No aclInit needed: CANN's answer is the driver's (hccl_test asks before aclInit).
  return rt().call("aclrtGetDeviceCount", &ApiOverheads::defaultCall, false, [&](HostThread&) {
    needPointer(count, "count");
    *count = rt().machineDeviceCount();
  });
}

aclError aclrtSynchronizeDevice(void) {
  ASCENDSIM_FORWARD_NO_ARGUMENTS(aclrtSynchronizeDevice);
  return run("aclrtSynchronizeDevice", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().devices().synchronize(t); });
}

aclError aclrtGetRunMode(aclrtRunMode* runMode) {
  ASCENDSIM_FORWARD(aclrtGetRunMode, runMode);
  // No aclInit needed, as on CANN (the vendor's runtime-only samples ask before aclInit).
  return rt().call("aclrtGetRunMode", &ApiOverheads::defaultCall, false, [&](HostThread&) {
    needPointer(runMode, "runMode");
    *runMode = rt().runMode();
  });
}

aclError aclrtDeviceCanAccessPeer(int32_t* canAccessPeer, int32_t deviceId, int32_t peerDeviceId) {
  ASCENDSIM_FORWARD(aclrtDeviceCanAccessPeer, canAccessPeer, deviceId, peerDeviceId);
  return run("aclrtDeviceCanAccessPeer", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(canAccessPeer, "canAccessPeer");
    *canAccessPeer = rt().devices().canAccessPeer(deviceId, peerDeviceId) ? 1 : 0;
  });
}

aclError aclrtGetDevicesTopo(uint32_t deviceId, uint32_t otherDeviceId, uint64_t* value) {
  ASCENDSIM_FORWARD(aclrtGetDevicesTopo, deviceId, otherDeviceId, value);
  return run("aclrtGetDevicesTopo", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(value, "value");
    // Ids past INT32_MAX name no device; the range check in devicesTopology() reports them.
    const auto id = [](uint32_t v) { return v > 0x7FFFFFFFu ? -1 : static_cast<int32_t>(v); };
    *value = rt().devices().topology(id(deviceId), id(otherDeviceId));
  });
}

aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags) {
  ASCENDSIM_FORWARD(aclrtDeviceEnablePeerAccess, peerDeviceId, flags);
  return run("aclrtDeviceEnablePeerAccess", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().devices().enablePeerAccess(t, peerDeviceId, flags); });
}

aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId) {
  ASCENDSIM_FORWARD(aclrtDeviceDisablePeerAccess, peerDeviceId);
  return run("aclrtDeviceDisablePeerAccess", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().devices().disablePeerAccess(t, peerDeviceId); });
}

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t* free, size_t* total) {
  ASCENDSIM_FORWARD(aclrtGetMemInfo, attr, free, total);
  return run("aclrtGetMemInfo", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(free, "free");
    needPointer(total, "total");
    rt().devices().memInfo(t, rawEnum(attr), free, total);
  });
}

aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t* value) {
  ASCENDSIM_FORWARD(aclrtGetDeviceInfo, deviceId, attr, value);
  return run("aclrtGetDeviceInfo", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(value, "value");
    *value = rt().devices().info(static_cast<int32_t>(deviceId), rawEnum(attr));
  });
}

aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus* deviceStatus) {
  ASCENDSIM_FORWARD(aclrtQueryDeviceStatus, deviceId, deviceStatus);
  return run("aclrtQueryDeviceStatus", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(deviceStatus, "deviceStatus");
    *deviceStatus = rt().devices().status(deviceId);
  });
}

aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo* utilizationInfo) {
  ASCENDSIM_FORWARD(aclrtGetDeviceUtilizationRate, deviceId, utilizationInfo);
  return run("aclrtGetDeviceUtilizationRate", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(utilizationInfo, "utilizationInfo");
    if (utilizationInfo->utilizationExtend)
      fail(ACL_ERROR_INVALID_PARAM, "utilizationExtend is reserved: it must be NULL");
    *utilizationInfo = rt().devices().utilization(deviceId);
  });
}

aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value) {
  ASCENDSIM_FORWARD(aclrtSetDeviceResLimit, deviceId, type, value);
  return run("aclrtSetDeviceResLimit", &ApiOverheads::defaultCall,
             [&](HostThread&) { rt().devices().setResourceLimit(deviceId, rawEnum(type), value); });
}

aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t* value) {
  ASCENDSIM_FORWARD(aclrtGetDeviceResLimit, deviceId, type, value);
  return run("aclrtGetDeviceResLimit", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(value, "value");
    *value = rt().devices().resourceLimit(deviceId, rawEnum(type));
  });
}

aclError aclrtResetDeviceResLimit(int32_t deviceId) {
  ASCENDSIM_FORWARD(aclrtResetDeviceResLimit, deviceId);
  return run("aclrtResetDeviceResLimit", &ApiOverheads::defaultCall,
             [&](HostThread&) { rt().devices().resetResourceLimits(deviceId); });
}

aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t* value) {
  ASCENDSIM_FORWARD(aclrtGetResInCurrentThread, type, value);
  return run("aclrtGetResInCurrentThread", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(value, "value");
    *value = rt().devices().resourceLimit(rt().devices().current(t), rawEnum(type));
  });
}

aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType,
                                  int32_t* value) {
  ASCENDSIM_FORWARD(aclrtGetDeviceCapability, deviceId, devFeatureType, value);
  return run("aclrtGetDeviceCapability", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(value, "value");
    *value = rt().devices().capability(deviceId, rawEnum(devFeatureType));
  });
}

}  // extern "C"
