// Notifies: device flags set by a stream's record and cleared by another stream's wait.

#include "runtime/api/api_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

extern "C" {

aclError aclrtCreateNotify(aclrtNotify* notify, uint64_t flag) {
  ASCENDSIM_FORWARD(aclrtCreateNotify, notify, flag);
  return run("aclrtCreateNotify", &ApiOverheads::event, [&](HostThread& t) {
    needPointer(notify, "notify");
    *notify = rt().events().createNotify(t, flag);
  });
}

aclError aclrtDestroyNotify(aclrtNotify notify) {
  ASCENDSIM_FORWARD(aclrtDestroyNotify, notify);
  return run("aclrtDestroyNotify", &ApiOverheads::event,
             [&](HostThread&) { rt().events().destroyNotify(notify); });
}

aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream) {
  ASCENDSIM_FORWARD(aclrtRecordNotify, notify, stream);
  return run("aclrtRecordNotify", &ApiOverheads::event, [&](HostThread& t) {
    t.callArgs = {streamArg(stream)};
    rt().events().recordNotify(t, notify, stream);
  });
}

aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout) {
  ASCENDSIM_FORWARD(aclrtWaitAndResetNotify, notify, stream, timeout);
  return run("aclrtWaitAndResetNotify", &ApiOverheads::event, [&](HostThread& t) {
    t.callArgs = {streamArg(stream), arg("timeout", timeout)};
    rt().events().waitAndResetNotify(t, notify, stream, timeout);
  });
}

aclError aclrtNotifyGetExportKey(aclrtNotify notify, char* key, size_t len, uint64_t flags) {
  ASCENDSIM_FORWARD(aclrtNotifyGetExportKey, notify, key, len, flags);
  return run("aclrtNotifyGetExportKey", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(notify, "notify");
    needPointer(key, "key");
    if (len == 0) fail(ACL_ERROR_INVALID_PARAM, "len is 0");
    t.callArgs = {arg("flags", flags)};
    rt().events().notifyExportKey(t, notify, key, len, flags);
    t.callArgs.push_back(arg("key", std::string(key)));
  });
}

aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t* pid, size_t num) {
  ASCENDSIM_FORWARD(aclrtNotifySetImportPid, notify, pid, num);
  return run("aclrtNotifySetImportPid", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(notify, "notify");
    needPointer(pid, "pid");
    if (num == 0) fail(ACL_ERROR_INVALID_PARAM, "num is 0");
    rt().events().notifyAllowProcesses(t, notify, pid, num);
  });
}

aclError aclrtNotifyImportByKey(aclrtNotify* notify, const char* key, uint64_t flags) {
  ASCENDSIM_FORWARD(aclrtNotifyImportByKey, notify, key, flags);
  return run("aclrtNotifyImportByKey", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(notify, "notify");
    needPointer(key, "key");
    t.callArgs = {arg("key", std::string(key)), arg("flags", flags)};
    *notify = rt().events().notifyImport(t, key, flags);
  });
}

aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t* notifyId) {
  ASCENDSIM_FORWARD(aclrtGetNotifyId, notify, notifyId);
  return run("aclrtGetNotifyId", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(notifyId, "notifyId");
    *notifyId = rt().events().notifyId(notify);
  });
}

}  // extern "C"
