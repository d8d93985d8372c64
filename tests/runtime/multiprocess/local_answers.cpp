// Calls a served program answers itself once the machine has answered them (#29): the thread's
// device, context and default stream, the device count, run mode, SoC name and versions, a
// device's static attributes. Run under `ascendsim exec --shared --config atlas-800t-a2` (8
// devices). Each step states the answer CANN gives (docs/multiprocess.md, "Answers the program
// gives itself"); whatever was answered in the program, the machine ran the call too and would
// return a disagreement from the thread's next call that waits, which each thread makes last.
//   local_answers single    one thread: devices set, reset and set twice, contexts made,
//                           switched and destroyed, each followed by the queries
//   local_answers threads   two threads on devices 0 and 1 asking at once; a context made in
//                           one thread, made current in another, then destroyed by the first
// Prints "local answers ok" on success, else what differed.

#include <acl/acl.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <string>
#include <thread>

namespace {

std::atomic<int> failures{0};

void expect(bool ok, const std::string& what) {
  if (ok) return;
  ++failures;
  std::printf("FAIL: %s (%s)\n", what.c_str(), aclGetRecentErrMsg());
}

void expectCode(aclError got, aclError want, const std::string& what) {
  expect(got == want, what + ": " + std::to_string(got) + ", expected " + std::to_string(want));
}

// The thread's device, context and default stream, asked `times` times: the machine answers the
// first, the program the rest; all must be the same, and the device `device`.
void askCurrent(int32_t device, int times, const std::string& where) {
  aclrtContext firstContext = nullptr;
  aclrtStream firstStream = nullptr;
  for (int i = 0; i < times; ++i) {
    int32_t id = -1;
    aclrtContext context = nullptr;
    aclrtStream stream = nullptr;
    expectCode(aclrtGetDevice(&id), ACL_SUCCESS, where + ": aclrtGetDevice");
    expect(id == device,
           where + ": device " + std::to_string(id) + ", expected " + std::to_string(device));
    expectCode(aclrtGetCurrentContext(&context), ACL_SUCCESS, where + ": aclrtGetCurrentContext");
    expectCode(aclrtCtxGetCurrentDefaultStream(&stream), ACL_SUCCESS,
               where + ": aclrtCtxGetCurrentDefaultStream");
    if (i == 0) {
      firstContext = context;
      firstStream = stream;
    }
    expect(context != nullptr && context == firstContext, where + ": the same context");
    expect(stream != nullptr && stream == firstStream, where + ": the same default stream");
  }
}

// Machine facts that do not change: atlas-800t-a2 has 8 NPUs (configs/atlas-800t-a2.yaml), a
// program runs on the host (ACL_HOST), the SoC is an Ascend910B (CANN's name for the A2's chips
// starts so), the runtime's version and an attribute are the same every time they are asked.
void askMachine(const std::string& where) {
  int64_t firstCores = -1;
  for (int i = 0; i < 3; ++i) {
    uint32_t count = 0;
    aclrtRunMode mode = ACL_DEVICE;
    expectCode(aclrtGetDeviceCount(&count), ACL_SUCCESS, where + ": aclrtGetDeviceCount");
    expect(count == 8, where + ": 8 devices, got " + std::to_string(count));
    expectCode(aclrtGetRunMode(&mode), ACL_SUCCESS, where + ": aclrtGetRunMode");
    expect(mode == ACL_HOST, where + ": run mode ACL_HOST");
    const char* soc = aclrtGetSocName();
    expect(soc && std::strncmp(soc, "Ascend910B", 10) == 0, where + ": SoC name");
    int32_t major = -1, minor = -1, patch = -1;
    expectCode(aclrtGetVersion(&major, &minor, &patch), ACL_SUCCESS, where + ": aclrtGetVersion");
    expect(major == ACL_MAJOR_VERSION && minor == ACL_MINOR_VERSION && patch == ACL_PATCH_VERSION,
           where + ": version");
    int64_t cores = -1;
    expectCode(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &cores), ACL_SUCCESS,
               where + ": aclrtGetDeviceInfo");
    if (i == 0) firstCores = cores;
    expect(cores > 0 && cores == firstCores, where + ": the same AI Core count");
  }
  // Bad arguments are the machine's to refuse, every time, with CANN's codes.
  int64_t value = 0;
  for (int i = 0; i < 2; ++i) {
    expectCode(aclrtGetDeviceInfo(8, ACL_DEV_ATTR_AICORE_CORE_NUM, &value),
               ACL_ERROR_RT_INVALID_DEVICEID, where + ": aclrtGetDeviceInfo of device 8");
    expectCode(aclrtGetDevice(nullptr), ACL_ERROR_INVALID_PARAM, where + ": aclrtGetDevice(NULL)");
  }
}

// No current context: aclrtGetDevice and the others are refused with ACL_ERROR_RT_CONTEXT_NULL
// (107002), every time.
void expectNoContext(const std::string& where) {
  for (int i = 0; i < 2; ++i) {
    int32_t id = -1;
    aclrtContext context = nullptr;
    aclrtStream stream = nullptr;
    expectCode(aclrtGetDevice(&id), ACL_ERROR_RT_CONTEXT_NULL, where + ": aclrtGetDevice");
    expectCode(aclrtGetCurrentContext(&context), ACL_ERROR_RT_CONTEXT_NULL,
               where + ": aclrtGetCurrentContext");
    expectCode(aclrtCtxGetCurrentDefaultStream(&stream), ACL_ERROR_RT_CONTEXT_NULL,
               where + ": aclrtCtxGetCurrentDefaultStream");
  }
}

void single() {
  expectNoContext("before any device");
  askMachine("one thread");
  expectCode(aclrtSetDevice(2), ACL_SUCCESS, "aclrtSetDevice(2)");
  askCurrent(2, 50, "device 2");
  // Set again (sent without waiting: it changes nothing), then a context of device 3 made current.
  expectCode(aclrtSetDevice(2), ACL_SUCCESS, "aclrtSetDevice(2) again");
  askCurrent(2, 5, "device 2 set twice");
  aclrtContext defaultOf2 = nullptr, made = nullptr, current = nullptr;
  expectCode(aclrtGetCurrentContext(&defaultOf2), ACL_SUCCESS, "the default context of device 2");
  expectCode(aclrtCreateContext(&made, 3), ACL_SUCCESS, "aclrtCreateContext(3)");
  askCurrent(3, 5, "a made context of device 3");
  expectCode(aclrtGetCurrentContext(&current), ACL_SUCCESS, "the made context");
  expect(current == made, "the made context is current");
  expectCode(aclrtSetCurrentContext(defaultOf2), ACL_SUCCESS, "back to device 2's default");
  askCurrent(2, 5, "device 2's default again");
  // aclrtSetDevice(2) after a context switch is a change again: device 2's default context.
  expectCode(aclrtSetCurrentContext(made), ACL_SUCCESS, "the made context again");
  expectCode(aclrtSetDevice(2), ACL_SUCCESS, "aclrtSetDevice(2) after a switch");
  expectCode(aclrtGetCurrentContext(&current), ACL_SUCCESS, "after aclrtSetDevice(2)");
  expect(current == defaultOf2, "aclrtSetDevice makes the device's default context current");
  expectCode(aclrtSetCurrentContext(made), ACL_SUCCESS, "the made context once more");
  expectCode(aclrtDestroyContext(made), ACL_SUCCESS, "aclrtDestroyContext");
  expectNoContext("the current context destroyed");
  // Set twice, reset once: CANN needs one reset (Device.SetDeviceTwiceNeedsOneReset), after
  // which the thread has no context.
  expectCode(aclrtSetDevice(2), ACL_SUCCESS, "aclrtSetDevice(2) before the reset");
  askCurrent(2, 3, "device 2 before the reset");
  expectCode(aclrtResetDevice(2), ACL_SUCCESS, "aclrtResetDevice(2)");
  expectNoContext("device 2 reset");
  expectCode(aclrtSetDevice(5), ACL_SUCCESS, "aclrtSetDevice(5)");
  askCurrent(5, 3, "device 5");
  expectCode(aclrtResetDeviceForce(5), ACL_SUCCESS, "aclrtResetDeviceForce(5)");
  expectNoContext("device 5 reset by force");
  // The last call waits: a disagreement of the machine with an answer given here comes back now.
  expectCode(aclrtSetDevice(0), ACL_SUCCESS, "the last call, which waits");
  expectCode(aclrtResetDevice(0), ACL_SUCCESS, "aclrtResetDevice(0)");
}

void threads() {
  // Two threads on two devices, asking at once.
  auto onDevice = [](int32_t device) {
    const std::string where = "thread on device " + std::to_string(device);
    expectCode(aclrtSetDevice(device), ACL_SUCCESS, where + ": aclrtSetDevice");
    askCurrent(device, 500, where);
    askMachine(where);
    expectCode(aclrtSynchronizeDevice(), ACL_SUCCESS, where + ": the last call, which waits");
  };
  std::thread a(onDevice, 0), b(onDevice, 1);
  a.join();
  b.join();
  // A context made in this thread, made current in another: it answers with the context's device;
  // destroyed here while the other waits, the other has no context any more.
  expectCode(aclrtSetDevice(6), ACL_SUCCESS, "aclrtSetDevice(6)");
  aclrtContext defaultOf6 = nullptr, made = nullptr;
  expectCode(aclrtGetCurrentContext(&defaultOf6), ACL_SUCCESS, "the default context of device 6");
  expectCode(aclrtCreateContext(&made, 4), ACL_SUCCESS, "aclrtCreateContext(4)");
  askCurrent(4, 3, "the first thread in the context it made");
  expectCode(aclrtSetCurrentContext(defaultOf6), ACL_SUCCESS, "back to device 6's default");
  std::promise<void> learned, destroyed;
  std::thread other([&] {
    expectCode(aclrtSetCurrentContext(made), ACL_SUCCESS, "another thread: aclrtSetCurrentContext");
    askCurrent(4, 20, "another thread in the made context");
    learned.set_value();
    destroyed.get_future().wait();
    expectNoContext("another thread, its context destroyed by the first");
    expectCode(aclrtSetDevice(7), ACL_SUCCESS, "another thread: the last call, which waits");
    expectCode(aclrtResetDevice(7), ACL_SUCCESS, "another thread: aclrtResetDevice(7)");
  });
  learned.get_future().wait();
  expectCode(aclrtDestroyContext(made), ACL_SUCCESS, "aclrtDestroyContext of the other's context");
  destroyed.set_value();
  other.join();
  askCurrent(6, 3, "the first thread, back on device 6's default");
  expectCode(aclrtResetDevice(6), ACL_SUCCESS, "aclrtResetDevice(6)");
  expectNoContext("the first thread after its reset");
  expectCode(aclrtSetDevice(0), ACL_SUCCESS, "the first thread: the last call, which waits");
  expectCode(aclrtResetDevice(0), ACL_SUCCESS, "aclrtResetDevice(0)");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "single" && mode != "threads") {
    std::fprintf(stderr, "usage: local_answers single|threads\n");
    return 2;
  }
  expectCode(aclInit(nullptr), ACL_SUCCESS, "aclInit");
  if (mode == "single") single();
  if (mode == "threads") threads();
  expectCode(aclFinalize(), ACL_SUCCESS, "aclFinalize");
  if (failures == 0) std::printf("local answers ok\n");
  return failures == 0 ? 0 : 1;
}
