// Lookups every service of the runtime shares: a device by id, the calling thread's context, and
// the refusal of calls that would wait for the callback the thread is running.

#include "runtime/core/objects.h"

#include "runtime/core/errors.h"
#include "runtime/core/host_thread.h"

namespace ascendsim::runtime {

Device& deviceById(const Devices& devices, int32_t id) {
  if (id < 0 || static_cast<size_t>(id) >= devices.size()) {
    fail(ACL_ERROR_RT_INVALID_DEVICEID, "device id " + std::to_string(id) +
                                            " is out of range; this machine has " +
                                            std::to_string(devices.size()) + " device(s), 0 to " +
                                            std::to_string(static_cast<int>(devices.size()) - 1));
  }
  return *devices[static_cast<size_t>(id)];
}

Context& requireContext(HostThread& t) {
  if (!t.current)
    fail(ACL_ERROR_RT_CONTEXT_NULL,
         "this thread has no current context: call aclrtSetDevice or aclrtSetCurrentContext first");
  return *t.current;
}

void refuseInsideCallback(const HostThread& t, const Device* d, const char* what) {
  const Stream* running = t.inCallbackOf;
  if (!running || (d && running->device != d)) return;
  fail(ACL_ERROR_RT_STREAM_NOT_COMPLETE,
       std::string("deadlock: ") + what + " from inside a callback or host function of stream " +
           std::to_string(running->queue.id()) + " of device " +
           std::to_string(running->device->id) +
           " would wait for that stream, which goes on only when the function returns; "
           "call it after the function has returned");
}

}  // namespace ascendsim::runtime
