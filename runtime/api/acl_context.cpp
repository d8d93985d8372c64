// Contexts.

#include "runtime/api/api_call.h"
#include "runtime/remote/served_callbacks.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

extern "C" {

aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  // (On a served machine the stream state callbacks are the program's: served_callbacks.h.)
  if (ascendsim::remote::clientActive()) {
    return ascendsim::remote::defaultStreamMade(
        ascendsim::remote::forward<&aclrtCreateContext>(context, deviceId));
  }
  return run("aclrtCreateContext", &ApiOverheads::streamCreate, [&](HostThread& t) {
    needPointer(context, "context");
    *context = rt().devices().createContext(t, deviceId);
  });
}

aclError aclrtDestroyContext(aclrtContext context) {
  if (ascendsim::remote::clientActive()) {
    return ascendsim::remote::destroyContext(
        context, [&] { return ascendsim::remote::forward<&aclrtDestroyContext>(context); });
  }
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
