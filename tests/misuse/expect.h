/* The misuse programs' check: one call's code against the one expected, printed either way;
 * `failures` counts the mismatches (the program's exit status). Thread-safe enough for programs
 * whose threads take turns. */
#ifndef ASCENDSIM_MISUSE_EXPECT_H
#define ASCENDSIM_MISUSE_EXPECT_H

#include <stdio.h>

#include "acl/acl.h"

static int failures = 0;

static void expect(aclError got, aclError want, const char* what) {
  if (got != want) {
    const char* msg = aclGetRecentErrMsg();
    printf("MISMATCH %s: returned %d, expected %d (%s)\n", what, got, want, msg ? msg : "");
    ++failures;
  } else {
    (void)aclGetRecentErrMsg(); /* clear the thread's message */
    printf("ok %s: %d\n", what, got);
  }
}

#endif
