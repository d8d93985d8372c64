// CHECK(call): an AscendCL call that must succeed; otherwise the program says which, with the
// code and message, and main returns 1.
#pragma once

#include <cstdio>

#include "acl/acl.h"

#define CHECK(expr)                                                         \
  do {                                                                      \
    const aclError e_ = (expr);                                             \
    if (e_ != ACL_SUCCESS) {                                                \
      std::printf("%s failed: %d (%s)\n", #expr, e_, aclGetRecentErrMsg()); \
      return 1;                                                             \
    }                                                                       \
  } while (0)
