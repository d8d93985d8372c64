// Processes of a served job running callbacks and host functions (runtime.shared_machine.callbacks,
// docs/multiprocess.md). Each subscribes its main thread to a stream of its own on device 0,
// queues a blocking callback and a memset behind it, and runs the callback from
// aclrtProcessReport; then a host function with no subscribed thread. Started without address
// randomisation (setarch -R), every process's main thread has the same pthread_t: each callback
// must still run once, in its own process, on its own thread, before the memset (it sees the
// first byte, 1, and the stream then writes 2).
//   callback_pair run   prints "run ok"
//   callback_pair die   its blocking callback kills its own process (SIGKILL) while the stream
//                       waits for it: the server lets the stream go, the others finish.
#include <acl/acl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace {
struct Seen {
  pid_t pid = 0;
  pthread_t thread{};
  int calls = 0;
  uint8_t* device = nullptr;
  uint8_t byte = 0;
};

void record(void* p) {
  auto* seen = static_cast<Seen*>(p);
  seen->pid = getpid();
  seen->thread = pthread_self();
  ++seen->calls;
  aclrtMemcpy(&seen->byte, 1, seen->device, 1, ACL_MEMCPY_DEVICE_TO_HOST);  // (a call from it)
}

void die(void*) {
  raise(SIGKILL);
}

void count(void* p) {
  ++*static_cast<int*>(p);
}
}  // namespace

#define CHECK(expr)                                                                  \
  do {                                                                               \
    const aclError e_ = (expr);                                                      \
    if (e_ != ACL_SUCCESS) {                                                         \
      std::printf("%s: %d %s\n", #expr, static_cast<int>(e_), aclGetRecentErrMsg()); \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "run";
  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  aclrtStream s = nullptr;
  CHECK(aclrtCreateStream(&s));
  Seen seen;
  CHECK(aclrtMalloc(reinterpret_cast<void**>(&seen.device), 64, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMemset(seen.device, 64, 1, 64));
  const auto self = static_cast<uint64_t>(pthread_self());
  CHECK(aclrtSubscribeReport(self, s));
  CHECK(aclrtLaunchCallback(mode == "die" ? die : record, &seen, ACL_CALLBACK_BLOCK, s));
  CHECK(aclrtMemsetAsync(seen.device, 64, 2, 64, s));
  CHECK(aclrtProcessReport(-1));
  CHECK(aclrtSynchronizeStream(s));
  uint8_t after = 0;
  CHECK(aclrtMemcpy(&after, 1, seen.device, 1, ACL_MEMCPY_DEVICE_TO_HOST));
  int functions = 0;
  CHECK(aclrtLaunchHostFunc(s, count, &functions));
  CHECK(aclrtLaunchHostFunc(s, count, &functions));
  CHECK(aclrtSynchronizeStream(s));
  if (seen.calls != 1 || seen.pid != getpid() || !pthread_equal(seen.thread, pthread_self()) ||
      seen.byte != 1 || after != 2 || functions != 2) {
    std::printf("calls %d in pid %d (mine %d) on my thread %d, saw %d then %d, functions %d\n",
                seen.calls, static_cast<int>(seen.pid), static_cast<int>(getpid()),
                pthread_equal(seen.thread, pthread_self()) ? 1 : 0, seen.byte, after, functions);
    return 1;
  }
  CHECK(aclrtUnSubscribeReport(self, s));
  CHECK(aclrtFree(seen.device));
  CHECK(aclrtDestroyStream(s));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  std::printf("%s ok\n", mode.c_str());
  return 0;
}
