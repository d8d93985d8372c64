/* Loads the library given (constructor_thread_library) with dlopen and exits with what its
 * constructor's AscendCL calls returned: 0 when they all succeeded (issue #34). */
#include <dlfcn.h>
#include <stdio.h>

#include "acl/acl.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  void* library = dlopen(argv[1], RTLD_NOW);
  if (!library) {
    fprintf(stderr, "%s\n", dlerror());
    return 2;
  }
  const int* result = (const int*)dlsym(library, "constructorResult");
  if (!result) return 2;
  printf("the constructor's calls returned %d\n", *result);
  if (*result != 0) return 1;
  return aclFinalize() == ACL_SUCCESS ? 0 : 1;
}
