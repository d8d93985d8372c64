// Notifies: device flags set by a stream's record and cleared by another stream's wait.

#include "runtime/api/api_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

extern "C" {

aclError aclrtCreateNotify(aclrtNotify* notify, uint64_t flag) {
  return run("aclrtCreateNotify", &ApiOverheads::event, [&](HostThread& t) {
    needPointer(notify, "notify");
    *notify = rt().createNotify(t, flag);
  });
}

aclError aclrtDestroyNotify(aclrtNotify notify) {
  return run("aclrtDestroyNotify", &ApiOverheads::event,
             [&](HostThread& t) { rt().destroyNotify(t, notify); });
}

aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream) {
  return run("aclrtRecordNotify", &ApiOverheads::event, [&](HostThread& t) {
    t.callArgs = {streamArg(stream)};
    rt().recordNotify(t, notify, stream);
  });
}

aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout) {
  return run("aclrtWaitAndResetNotify", &ApiOverheads::event, [&](HostThread& t) {
    t.callArgs = {streamArg(stream), arg("timeout", timeout)};
    rt().waitAndResetNotify(t, notify, stream, timeout);
  });
}

aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t* notifyId) {
  return run("aclrtGetNotifyId", &ApiOverheads::defaultCall, [&](HostThread&) {
    needPointer(notifyId, "notifyId");
    *notifyId = rt().notifyId(notify);
  });
}

}  // extern "C"
