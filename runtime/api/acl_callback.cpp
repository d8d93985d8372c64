// Host callbacks on streams.

#include "runtime/api/api_call.h"
#include "runtime/remote/served_callbacks.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

extern "C" {

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream) {
  ASCENDSIM_FORWARD(aclrtSubscribeReport, threadId, stream);
  return run("aclrtSubscribeReport", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().subscribeReport(t, threadId, stream); });
}

aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream) {
  ASCENDSIM_FORWARD(aclrtUnSubscribeReport, threadId, stream);
  return run("aclrtUnSubscribeReport", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().unsubscribeReport(t, threadId, stream); });
}

aclError aclrtLaunchCallback(aclrtCallback fn, void* userData, aclrtCallbackBlockType blockType,
                             aclrtStream stream) {
  ASCENDSIM_FORWARD(aclrtLaunchCallback, fn, userData, blockType, stream);
  return run("aclrtLaunchCallback", &ApiOverheads::event, [&](HostThread& t) {
    rt().launchCallback(t, fn, userData, rawEnum(blockType), stream);
  });
}

aclError aclrtProcessReport(int32_t timeout) {
  if (ascendsim::remote::clientActive())
    return ascendsim::remote::processReports("aclrtProcessReport", timeout);
  return run("aclrtProcessReport", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().processReport(t, timeout); });
}

aclError aclrtSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream) {
  ASCENDSIM_FORWARD(aclrtSubscribeHostFunc, hostFuncThreadId, exeStream);
  return run("aclrtSubscribeHostFunc", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().subscribeHostFunc(t, hostFuncThreadId, exeStream); });
}

aclError aclrtProcessHostFunc(int32_t timeout) {
  if (ascendsim::remote::clientActive())
    return ascendsim::remote::processReports("aclrtProcessHostFunc", timeout);
  return run("aclrtProcessHostFunc", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().processReport(t, timeout); });
}

aclError aclrtUnSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream) {
  ASCENDSIM_FORWARD(aclrtUnSubscribeHostFunc, hostFuncThreadId, exeStream);
  return run("aclrtUnSubscribeHostFunc", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().unsubscribeHostFunc(t, hostFuncThreadId, exeStream); });
}

aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void* args) {
  if (ascendsim::remote::clientActive()) return ascendsim::remote::launchHostFunc(stream, fn, args);
  return run("aclrtLaunchHostFunc", &ApiOverheads::event,
             [&](HostThread& t) { rt().launchHostFunc(t, stream, fn, args); });
}

}  // extern "C"
