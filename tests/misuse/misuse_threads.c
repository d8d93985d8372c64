/* Misuse of AscendCL across host threads, with the exact code for each: a thread with no context,
 * objects destroyed or freed by one thread under another's work, waits another thread could have
 * ended but did not, callbacks without a subscriber. Runs under ASan and UBSan in CI, like
 * misuse.c. Every step runs in the order the main thread hands it out, so the codes do not depend
 * on the OS scheduler. Exit status: the number of mismatches. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "expect.h"

struct Shared {
  aclrtContext ctx;
  aclrtStream stream;
  aclrtEvent event;
  void* dev;
  void* host;
};

static const size_t kBytes = 16u << 20;

/* A new thread has no current context until it sets one. */
static void* noContext(void* arg) {
  void* p = NULL;
  aclrtStream s = NULL;
  (void)arg;
  expect(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL,
         "aclrtMalloc in a thread with no context");
  expect(aclrtCreateStream(&s), ACL_ERROR_RT_CONTEXT_NULL,
         "aclrtCreateStream in a thread with no context");
  expect(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE,
         "aclrtProcessReport in a thread nothing is subscribed to");
  return NULL;
}

/* Frees the memory and destroys the stream the main thread's copy is still using. */
static void* freeUnderCopy(void* arg) {
  struct Shared* sh = (struct Shared*)arg;
  expect(aclrtSetCurrentContext(sh->ctx), ACL_SUCCESS, "aclrtSetCurrentContext in a second thread");
  expect(aclrtFree(sh->dev), ACL_SUCCESS,
         "aclrtFree of memory a queued copy of another thread uses");
  expect(aclrtFree(sh->dev), ACL_ERROR_RT_MEMORY_FREE, "aclrtFree of it again");
  expect(aclrtDestroyStream(sh->stream), ACL_SUCCESS,
         "aclrtDestroyStream of another thread's busy stream (waits)");
  return NULL;
}

/* Destroys the event the main thread is about to wait for. */
static void* destroyEvent(void* arg) {
  struct Shared* sh = (struct Shared*)arg;
  expect(aclrtSetCurrentContext(sh->ctx), ACL_SUCCESS, "aclrtSetCurrentContext in a third thread");
  expect(aclrtDestroyEvent(sh->event), ACL_SUCCESS,
         "aclrtDestroyEvent of an event another thread waits for");
  return NULL;
}

static void runThread(void* (*body)(void*), void* arg) {
  pthread_t thread;
  if (pthread_create(&thread, NULL, body, arg) != 0) {
    printf("MISMATCH pthread_create failed\n");
    ++failures;
    return;
  }
  pthread_join(thread, NULL);
}

int main(void) {
  struct Shared sh;
  memset(&sh, 0, sizeof sh);
  expect(aclInit(NULL), ACL_SUCCESS, "aclInit");
  expect(aclrtSetDevice(0), ACL_SUCCESS, "aclrtSetDevice(0)");
  expect(aclrtGetCurrentContext(&sh.ctx), ACL_SUCCESS, "aclrtGetCurrentContext");
  runThread(noContext, NULL);

  expect(aclrtCreateStream(&sh.stream), ACL_SUCCESS, "aclrtCreateStream");
  expect(aclrtMalloc(&sh.dev, kBytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS, "aclrtMalloc");
  expect(aclrtMallocHost(&sh.host, kBytes), ACL_SUCCESS, "aclrtMallocHost");
  memset(sh.host, 0x5a, kBytes);
  expect(aclrtMemcpyAsync(sh.dev, kBytes, sh.host, kBytes, ACL_MEMCPY_HOST_TO_DEVICE, sh.stream),
         ACL_SUCCESS, "aclrtMemcpyAsync");
  runThread(freeUnderCopy, &sh);
  expect(aclrtSynchronizeStream(sh.stream), ACL_ERROR_RT_INVALID_HANDLE,
         "synchronising the stream another thread destroyed");
  expect(aclrtMemcpy(sh.host, kBytes, sh.dev, kBytes, ACL_MEMCPY_DEVICE_TO_HOST),
         ACL_ERROR_RT_PARAM_INVALID, "copying from memory another thread freed");

  expect(aclrtCreateEventWithFlag(&sh.event, ACL_EVENT_SYNC), ACL_SUCCESS,
         "aclrtCreateEventWithFlag(SYNC)");
  runThread(destroyEvent, &sh);
  expect(aclrtSynchronizeEvent(sh.event), ACL_ERROR_RT_INVALID_HANDLE,
         "waiting for an event another thread destroyed");
  expect(aclrtStreamWaitEvent(NULL, sh.event), ACL_ERROR_RT_INVALID_HANDLE, "a stream wait on it");

  expect(aclrtFreeHost(sh.host), ACL_SUCCESS, "aclrtFreeHost");
  expect(aclrtResetDevice(0), ACL_SUCCESS, "aclrtResetDevice");
  expect(aclFinalize(), ACL_SUCCESS, "aclFinalize");
  printf("%d mismatch(es)\n", failures);
  return failures;
}
