// Host callbacks on streams.

#include "runtime/api/api_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

extern "C" {

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream) {
  return run("aclrtSubscribeReport", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().subscribeReport(t, threadId, stream); });
}

aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream) {
  return run("aclrtUnSubscribeReport", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().unsubscribeReport(t, threadId, stream); });
}

aclError aclrtLaunchCallback(aclrtCallback fn, void* userData, aclrtCallbackBlockType blockType, aclrtStream stream) {
  return run("aclrtLaunchCallback", &ApiOverheads::event,
             [&](HostThread& t) { rt().launchCallback(t, fn, userData, rawEnum(blockType), stream); });
}

aclError aclrtProcessReport(int32_t timeout) {
  return run("aclrtProcessReport", &ApiOverheads::defaultCall, [&](HostThread& t) { rt().processReport(t, timeout); });
}

}  // extern "C"
