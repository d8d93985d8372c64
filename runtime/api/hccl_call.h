#pragma once
// Shared by HCCL's C entry points: run a call on the Runtime (its lock, its order of host threads,
// its API overhead) and turn what failed into an HcclResult. HCCL's own failures leave their text
// for aclGetRecentErrMsg (and print it when ASCEND_SLOG_PRINT_TO_STDOUT=1, as CANN's logs do);
// a failed runtime call underneath is HCCL_E_RUNTIME.

#include <cstdio>
#include <cstdlib>
#include <string>

#include "hccl/hccl_types.h"
#include "runtime/api/api_call.h"
#include "runtime/api/hccl_served.h"
#include "runtime/core/service_port.h"
#include "runtime/hccl/collectives.h"

namespace ascendsim::runtime::api {

inline hccl::Collectives& collectives() {
  return hccl::Collectives::instance();
}

template <class Body>
HcclResult runHccl(const char* name, Overhead overhead, Body&& body) {
  HcclResult result = HCCL_SUCCESS;
  const aclError code = rt().call(name, overhead, true, [&](HostThread& t) {
    ServicePort port(rt());
    try {
      body(port, t);
    } catch (const hccl::HcclFailure& f) {
      result = static_cast<HcclResult>(f.code);
      t.error = std::string(name) + ": " + f.message;
      t.callArgs.push_back(arg("hccl_result", static_cast<uint64_t>(f.code)));
      const char* print = std::getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
      if (print && std::string(print) == "1") {
        std::fprintf(stderr, "[ERROR] HCCL %s: %s (%d): %s\n", name, hccl::errorString(f.code),
                     f.code, f.message.c_str());
      }
    }
  });
  if (result != HCCL_SUCCESS) return result;
  return code == ACL_SUCCESS ? HCCL_SUCCESS : HCCL_E_RUNTIME;
}

}  // namespace ascendsim::runtime::api

// HCCL's C functions: exported, whatever the library's default visibility.
#define HCCL_API extern "C" __attribute__((visibility("default")))
