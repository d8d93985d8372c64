// ascendsimLaunchComputeTask: a timing-only kernel (AscendSim extension, ascendsim/compute.h).

#include "ascendsim/compute.h"
#include "models/compute/kernel_access.h"
#include "runtime/api/api_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;
using ascendsim::spec::ApiOverheads;

namespace {
// A kernel with no arithmetic: its bytes and operations only.
KernelLaunch timingOnly(const char* name, uint64_t bytesRead, uint64_t bytesWritten, uint64_t ops,
                        uint32_t opBytes) {
  KernelLaunch k;
  k.work.name = name;
  k.work.bytesRead = bytesRead;
  k.work.bytesWritten = bytesWritten;
  k.work.ops = ops;
  k.work.opBytes = opBytes;
  return k;
}
aclError placedKernel(const char* api, const char* name, void* region, uint64_t regionBytes,
                      int32_t pattern, uint64_t stride, uint64_t accessBytes, uint64_t bytesRead,
                      uint64_t bytesWritten, uint64_t ops, uint32_t opBytes, aclrtStream stream);
}  // namespace

extern "C" {

aclError ascendsimLaunchComputeTask(const char* name, uint64_t bytesRead, uint64_t bytesWritten,
                                    uint64_t ops, uint32_t opBytes, aclrtStream stream) {
  ASCENDSIM_FORWARD(ascendsimLaunchComputeTask, name, bytesRead, bytesWritten, ops, opBytes,
                    stream);
  return run("ascendsimLaunchComputeTask", &ApiOverheads::kernelLaunch, [&](HostThread& t) {
    needPointer(name, "name");
    if (opBytes == 0) fail(ACL_ERROR_INVALID_PARAM, "opBytes is 0");
    t.callArgs = {arg("kernel", std::string(name)), arg("bytes_read", bytesRead),
                  arg("bytes_written", bytesWritten), arg("ops", ops), streamArg(stream)};
    rt().launchKernel(t, stream, timingOnly(name, bytesRead, bytesWritten, ops, opBytes));
  });
}

aclError ascendsimLaunchComputeTaskIn(const char* name, void* region, uint64_t regionBytes,
                                      int32_t pattern, uint64_t stride, uint64_t bytesRead,
                                      uint64_t bytesWritten, uint64_t ops, uint32_t opBytes,
                                      aclrtStream stream) {
  ASCENDSIM_FORWARD(ascendsimLaunchComputeTaskIn, name, region, regionBytes, pattern, stride,
                    bytesRead, bytesWritten, ops, opBytes, stream);
  return placedKernel("ascendsimLaunchComputeTaskIn", name, region, regionBytes, pattern, stride, 0,
                      bytesRead, bytesWritten, ops, opBytes, stream);
}

aclError ascendsimLaunchComputeTaskSized(const char* name, void* region, uint64_t regionBytes,
                                         int32_t pattern, uint64_t stride, uint64_t accessBytes,
                                         uint64_t bytesRead, uint64_t bytesWritten, uint64_t ops,
                                         uint32_t opBytes, aclrtStream stream) {
  ASCENDSIM_FORWARD(ascendsimLaunchComputeTaskSized, name, region, regionBytes, pattern, stride,
                    accessBytes, bytesRead, bytesWritten, ops, opBytes, stream);
  return placedKernel("ascendsimLaunchComputeTaskSized", name, region, regionBytes, pattern, stride,
                      accessBytes, bytesRead, bytesWritten, ops, opBytes, stream);
}

}  // extern "C"

namespace {

aclError placedKernel(const char* api, const char* name, void* region, uint64_t regionBytes,
                      int32_t pattern, uint64_t stride, uint64_t accessBytes, uint64_t bytesRead,
                      uint64_t bytesWritten, uint64_t ops, uint32_t opBytes, aclrtStream stream) {
  return run(api, &ApiOverheads::kernelLaunch, [&](HostThread& t) {
    needPointer(name, "name");
    needPointer(region, "region");
    if (regionBytes == 0) fail(ACL_ERROR_INVALID_PARAM, "regionBytes is 0");
    if (opBytes == 0) fail(ACL_ERROR_INVALID_PARAM, "opBytes is 0");
    using Access = ascendsim::models::KernelWork::Access;
    Access access;
    switch (pattern) {
      case ASCENDSIM_ACCESS_SEQUENTIAL: access = Access::Sequential; break;
      case ASCENDSIM_ACCESS_STRIDED: access = Access::Strided; break;
      case ASCENDSIM_ACCESS_RANDOM: access = Access::Random; break;
      default: fail(ACL_ERROR_INVALID_PARAM, "unknown access pattern " + std::to_string(pattern));
    }
    if (access == Access::Strided && stride == 0)
      fail(ACL_ERROR_INVALID_PARAM, "a strided pattern needs a stride above 0");
    constexpr uint64_t grain = ascendsim::models::KernelWork::kAccessGrain;
    if (accessBytes % grain != 0) {
      fail(ACL_ERROR_INVALID_PARAM, "accessBytes " + std::to_string(accessBytes) +
                                        " is not a multiple of " + std::to_string(grain) +
                                        " (the AI Core's 32-byte data block)");
    }
    if (accessBytes > 0 && access == Access::Sequential)
      fail(ACL_ERROR_INVALID_PARAM, "accessBytes goes with a strided or random pattern");
    if (accessBytes > regionBytes) {
      fail(ACL_ERROR_INVALID_PARAM, "accessBytes " + std::to_string(accessBytes) +
                                        " is larger than the region (" +
                                        std::to_string(regionBytes) + " bytes)");
    }
    t.callArgs = {arg("kernel", std::string(name)),
                  ptrArg("region", region),
                  arg("region_bytes", regionBytes),
                  arg("access", std::string(ascendsim::models::accessName(access))),
                  arg("bytes_read", bytesRead),
                  arg("bytes_written", bytesWritten),
                  arg("ops", ops),
                  streamArg(stream)};
    if (accessBytes > 0) t.callArgs.push_back(arg("access_bytes", accessBytes));
    KernelLaunch k = timingOnly(name, bytesRead, bytesWritten, ops, opBytes);
    k.work.access = access;
    k.work.stride = stride;
    k.work.accessBytes = accessBytes;
    if (bytesRead > 0) k.reads.push_back({region, regionBytes, "region"});
    if (bytesWritten > 0) k.writes.push_back({region, regionBytes, "region"});
    rt().launchKernel(t, stream, std::move(k));
  });
}

}  // namespace
