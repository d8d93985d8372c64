// aclInit, aclFinalize, aclrtGetVersion, aclGetRecentErrMsg, aclrtGetLastError/PeekAtLastError,
// aclsysGetVersionStr/Num.

#include "runtime/api/api_call.h"
#include "runtime/api/model_served.h"
#include "runtime/remote/program_pages.h"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace {

struct PackageVersion {
  int majorPart, minorPart, patchPart;
};

// The packages AscendSim stands in for. Its runtime implements the API of CANN's runtime 9.1.0
// (whose headers say ACL 1.17.0); CANN also accepts '-' and '_' for each other in names.
const PackageVersion& installedPackage(const char* name) {
  static const PackageVersion runtime{9, 1, 0};
  std::string n(name);
  for (char& c : n) c = c == '_' ? '-' : c;
  if (n == "runtime" || n == "npu-runtime") return runtime;
  ascendsim::runtime::fail(ACL_ERROR_INVALID_FILE,
                           "no version information for package '" + std::string(name) +
                               "': AscendSim provides the 'runtime' package only");
}

}  // namespace

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

extern "C" {

aclError aclInit(const char* configPath) {
  if (ascendsim::remote::clientActive()) {
    // The server reads the file: name it so from any working directory.
    char resolved[PATH_MAX];
    const bool found = configPath && *configPath && realpath(configPath, resolved);
    return ascendsim::remote::forward<&aclInit>(found ? resolved : configPath);
  }
  return rt().call("aclInit", &ApiOverheads::defaultCall, false,
                   [&](HostThread&) { rt().init(configPath); });
}

aclError aclFinalize(void) {
  if (ascendsim::remote::clientActive()) {
    // The machine lets the process's queued work end (copies and model launches reading and
    // writing the pages it shares with the machine), then lets go of what it holds; the pages
    // then become the program's private memory again, with their bytes.
    const aclError code = ascendsim::remote::forward<&aclFinalize>();
    if (code == ACL_SUCCESS) {
      ascendsim::remote::unshareRecordedPages();
      ascendsim::remote::unshareAllPages();
    }
    return code;
  }
  return rt().call("aclFinalize", &ApiOverheads::defaultCall, false,
                   [&](HostThread& t) { rt().finalize(t); });
}

aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion, int32_t* patchVersion) {
  ASCENDSIM_FORWARD(aclrtGetVersion, majorVersion, minorVersion, patchVersion);
  return rt().call("aclrtGetVersion", &ApiOverheads::defaultCall, false, [&](HostThread&) {
    needPointer(majorVersion, "majorVersion");
    needPointer(minorVersion, "minorVersion");
    needPointer(patchVersion, "patchVersion");
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
  });
}

const char* aclGetRecentErrMsg(void) {
  if (const char* served = ascendsim::remote::takeServedError()) return served;
  return rt().takeRecentError();
}

namespace {
// A level other than the thread's is refused with its own message, so that aclGetRecentErrMsg
// describes this failure and not an older one.
aclError lastErrorAt(const char* api, int32_t level, bool clear) {
  if (level == ACL_RT_THREAD_LEVEL) return rt().lastError(clear);
  return rt().refuseArgument(
      api, ACL_ERROR_INVALID_PARAM,
      "level " + std::to_string(level) + " is not ACL_RT_THREAD_LEVEL, the only level there is");
}
}  // namespace

aclError aclrtPeekAtLastError(aclrtLastErrLevel level) {
  ASCENDSIM_FORWARD(aclrtPeekAtLastError, level);
  return lastErrorAt("aclrtPeekAtLastError", rawEnum(level), false);
}

aclError aclrtGetLastError(aclrtLastErrLevel level) {
  ASCENDSIM_FORWARD(aclrtGetLastError, level);
  return lastErrorAt("aclrtGetLastError", rawEnum(level), true);
}

aclError ascendsimGetSocName(char* name, size_t length) {
  ASCENDSIM_FORWARD(ascendsimGetSocName, name, length);
  return rt().call("aclrtGetSocName", &ApiOverheads::defaultCall, false, [&](HostThread&) {
    needPointer(name, "name");
    const std::string& soc = rt().socName();
    if (soc.size() >= length) fail(ACL_ERROR_INVALID_PARAM, "the SoC name does not fit");
    std::memcpy(name, soc.c_str(), soc.size() + 1);
  });
}

const char* aclrtGetSocName() {
  if (ascendsim::remote::clientActive()) {
    // The served machine's name, kept for the life of the process as CANN keeps its own.
    static char served[128];
    static std::mutex asking;
    std::lock_guard<std::mutex> lock(asking);
    return ascendsimGetSocName(served, sizeof served) == ACL_SUCCESS ? served : nullptr;
  }
  const char* soc = nullptr;
  rt().call("aclrtGetSocName", &ApiOverheads::defaultCall, false,
            [&](HostThread&) { soc = rt().socName().c_str(); });
  return soc;
}

aclError aclsysGetVersionStr(char* pkgName, char* versionStr) {
  ASCENDSIM_FORWARD(aclsysGetVersionStr, pkgName, versionStr);
  return rt().call("aclsysGetVersionStr", &ApiOverheads::defaultCall, false, [&](HostThread&) {
    needPointer(pkgName, "pkgName");
    needPointer(versionStr, "versionStr");
    const PackageVersion& v = installedPackage(pkgName);
    std::snprintf(versionStr, ACL_PKG_VERSION_MAX_SIZE, "%d.%d.%d", v.majorPart, v.minorPart,
                  v.patchPart);
  });
}

aclError aclsysGetVersionNum(char* pkgName, int32_t* versionNum) {
  ASCENDSIM_FORWARD(aclsysGetVersionNum, pkgName, versionNum);
  return rt().call("aclsysGetVersionNum", &ApiOverheads::defaultCall, false, [&](HostThread&) {
    needPointer(pkgName, "pkgName");
    needPointer(versionNum, "versionNum");
    const PackageVersion& v = installedPackage(pkgName);
    *versionNum = v.majorPart * 10000000 + v.minorPart * 100000 + v.patchPart * 1000;
  });
}

aclError aclGetCannAttributeList(const aclCannAttr** cannAttrList, size_t* num) {
  static const aclCannAttr kAll[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16,
                                     ACL_CANN_ATTR_JIT_COMPILE};
  auto list = [&] {
    needPointer(cannAttrList, "cannAttrList");
    needPointer(num, "num");
    *cannAttrList = kAll;
    *num = sizeof kAll / sizeof kAll[0];
  };
  if (ascendsim::remote::clientActive()) {
    // The list is this library's own (a served machine's address would mean nothing here).
    ascendsim::remote::takeServedError();
    try {
      list();
      return ACL_SUCCESS;
    } catch (const AclFailure& f) {
      return rt().refuseArgument("aclGetCannAttributeList", f.code, f.message);
    }
  }
  return rt().call("aclGetCannAttributeList", &ApiOverheads::defaultCall, false,
                   [&](HostThread&) { list(); });
}

aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t* value) {
  ASCENDSIM_FORWARD(aclGetCannAttribute, cannAttr, value);
  return rt().call("aclGetCannAttribute", &ApiOverheads::defaultCall, false, [&](HostThread&) {
    needPointer(value, "value");
    *value = rt().cannAttribute(rawEnum(cannAttr));
  });
}

aclError aclrtCheckArchCompatibility(const char* socVersion, int32_t* canCompatible) {
  ASCENDSIM_FORWARD(aclrtCheckArchCompatibility, socVersion, canCompatible);
  return rt().call("aclrtCheckArchCompatibility", &ApiOverheads::defaultCall, false,
                   [&](HostThread&) {
                     needPointer(socVersion, "socVersion");
                     needPointer(canCompatible, "canCompatible");
                     *canCompatible = rt().archCompatible(socVersion) ? 1 : 0;
                   });
}

}  // extern "C"
