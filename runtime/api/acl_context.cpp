// Contexts.

#include "runtime/api/api_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

extern "C" {

aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  ASCENDSIM_FORWARD(aclrtCreateContext, context, deviceId);
  return run("aclrtCreateContext", &ApiOverheads::streamCreate, [&](HostThread& t) {
    needPointer(context, "context");
    *context = rt().devices().createContext(t, deviceId);
  });
}

aclError aclrtDestroyContext(aclrtContext context) {
  ASCENDSIM_FORWARD(aclrtDestroyContext, context);
  return run("aclrtDestroyContext", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().devices().destroyContext(t, context); });
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  ASCENDSIM_FORWARD(aclrtSetCurrentContext, context);
  return run("aclrtSetCurrentContext", &ApiOverheads::defaultCall,
             [&](HostThread& t) { rt().devices().setCurrentContext(t, context); });
}

aclError aclrtGetCurrentContext(aclrtContext* context) {
  ASCENDSIM_FORWARD(aclrtGetCurrentContext, context);
  return run("aclrtGetCurrentContext", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(context, "context");
    *context = rt().devices().currentContext(t);
  });
}

aclError aclrtCtxGetCurrentDefaultStream(aclrtStream* stream) {
  ASCENDSIM_FORWARD(aclrtCtxGetCurrentDefaultStream, stream);
  return run("aclrtCtxGetCurrentDefaultStream", &ApiOverheads::defaultCall, [&](HostThread& t) {
    needPointer(stream, "stream");
    *stream = const_cast<Stream*>(&rt().streams().stream(t, nullptr));
  });
}

}  // extern "C"
