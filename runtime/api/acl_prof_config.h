#pragma once
// What an aclprofConfig holds (acl/acl_prof.h declares it opaque). Plain data, so that a program
// on a served machine sends it whole with aclprofStart / aclprofStop (served_calls.h).

#include <cstdint>

#include "acl/acl_prof.h"

struct aclprofConfig {
  static constexpr uint32_t kMaxDevices = 64;  // as CANN's profiler
  uint32_t deviceCount = 0;
  uint32_t devices[kMaxDevices] = {};
  int32_t aicoreMetrics = 0;  // aclprofAicoreMetrics, as the caller passed it
  uint64_t dataTypes = 0;     // ACL_PROF_* bits
};
