/* aclInit from a preinit function, which runs before any library's constructor (issue #34): the
 * simulator's objects do not exist yet, and the call used to crash (SIGSEGV in the C++ library's
 * unconstructed std::cerr). Expected: ACL_ERROR_UNINITIALIZE (100001) then, a line on stderr
 * saying why, and aclInit from main succeeds. Exit status: the number of mismatches. */
#include <stdio.h>

#include "acl/acl.h"

static aclError early = -1;

static void beforeEverything(int argc, char** argv, char** env) {
  (void)argc;
  (void)argv;
  (void)env;
  early = aclInit(NULL);
}

__attribute__((section(".preinit_array"),
               used)) static void (*const preinit)(int, char**, char**) = beforeEverything;

int main(void) {
  int wrong = 0;
  printf("aclInit from preinit: %d (expected %d)\n", early, ACL_ERROR_UNINITIALIZE);
  if (early != ACL_ERROR_UNINITIALIZE) ++wrong;
  const aclError later = aclInit(NULL);
  printf("aclInit from main: %d (expected 0)\n", later);
  if (later != ACL_SUCCESS) ++wrong;
  if (later == ACL_SUCCESS && aclFinalize() != ACL_SUCCESS) ++wrong;
  return wrong;
}
