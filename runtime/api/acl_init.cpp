// aclInit, aclFinalize, aclrtGetVersion, aclGetRecentErrMsg.

#include "runtime/api/api_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

extern "C" {

aclError aclInit(const char* configPath) {
  return rt().call("aclInit", &ApiOverheads::defaultCall, false, [&](HostThread&) { rt().init(configPath); });
}

aclError aclFinalize(void) {
  return rt().call("aclFinalize", &ApiOverheads::defaultCall, false, [&](HostThread& t) { rt().finalize(t); });
}

aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion, int32_t* patchVersion) {
  return rt().call("aclrtGetVersion", &ApiOverheads::defaultCall, false, [&](HostThread&) {
    needPointer(majorVersion, "majorVersion");
    needPointer(minorVersion, "minorVersion");
    needPointer(patchVersion, "patchVersion");
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
  });
}

const char* aclGetRecentErrMsg(void) { return rt().takeRecentError(); }

}  // extern "C"
