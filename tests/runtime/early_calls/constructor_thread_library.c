/* A library whose constructor starts a thread that makes AscendCL calls and joins it (issue #34).
 * Loaded with dlopen, the constructor runs while the dynamic loader holds its lock: the thread's
 * first call used to wait for that lock for ever (the runtime registered a thread_local destructor,
 * which takes it). Expected: every call returns 0 (constructorResult 0), within seconds. */
#include <pthread.h>
#include <stdio.h>

#include "acl/acl.h"

int constructorResult = -1;

static void* calls(void* unused) {
  (void)unused;
  void* p = NULL;
  aclError r = aclInit(NULL);
  if (r == ACL_SUCCESS) r = aclrtSetDevice(0);
  if (r == ACL_SUCCESS) r = aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST);
  if (r == ACL_SUCCESS) r = aclrtMemset(p, 4096, 1, 4096);
  if (r == ACL_SUCCESS) r = aclrtFree(p);
  constructorResult = r;
  return NULL;
}

__attribute__((constructor)) static void early(void) {
  pthread_t thread;
  if (pthread_create(&thread, NULL, calls, NULL) != 0) return;
  pthread_join(thread, NULL);
}
