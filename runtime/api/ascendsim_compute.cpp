// ascendsimLaunchComputeTask: a timing-only kernel (AscendSim extension, ascendsim/compute.h).

#include "ascendsim/compute.h"
#include "runtime/api/api_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

extern "C" {

aclError ascendsimLaunchComputeTask(const char* name, uint64_t bytesRead, uint64_t bytesWritten, uint64_t ops,
                                    uint32_t opBytes, aclrtStream stream) {
  return run("ascendsimLaunchComputeTask", &ApiOverheads::kernelLaunch, [&](HostThread& t) {
    needPointer(name, "name");
    if (opBytes == 0) fail(ACL_ERROR_INVALID_PARAM, "opBytes is 0");
    t.callArgs = arg("kernel", std::string(name)) + "," + arg("bytes_read", bytesRead) + "," +
                 arg("bytes_written", bytesWritten) + "," + arg("ops", ops) + "," + streamArg(stream);
    KernelLaunch k;
    k.work.name = name;
    k.work.bytesRead = bytesRead;
    k.work.bytesWritten = bytesWritten;
    k.work.ops = ops;
    k.work.opBytes = opBytes;
    rt().launchKernel(t, stream, std::move(k));
  });
}

}  // extern "C"
