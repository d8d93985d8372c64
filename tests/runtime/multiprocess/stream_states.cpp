// Stream state callbacks and allocator registrations are their process's own on one machine
// served by `ascendsim exec --shared` (docs/multiprocess.md), as on hardware, where each process's
// runtime keeps its own.
//   first: registers a state callback "job" before aclrtSetDevice, creates stream A on its main
//     thread and stream B on a second thread (whose aclrtSetDevice makes no new default stream),
//     registers an allocator (object: its own variable) on A, writes A's handle to a file and waits
//     for the second process. Then A's allocator is still its own, and after it destroys A and B
//     (main thread) its callback has seen exactly five states: the device's default stream created
//     (main thread, by aclrtSetDevice, as CANN's RawDevice::Start sets it up), A created (main
//     thread), B created (second thread), A and B about to go (main thread), in that order.
//   second: registers a state callback under the same name "job" (names are per process; a second
//     registration in the same process is refused with 107000), finds no allocator of its own on
//     A (100000), registers one there and gets its own back, unregisters it (100000 again); cannot
//     destroy A, a stream of the other process's context (107003), and its callback sees nothing
//     of it; creates and destroys a stream C: its callback has seen exactly C created and C about
//     to go.
// Prints "first ok" / "second ok", or what went wrong.
//   stream_states first|second DIR

#include <acl/acl.h>
#include <acl/acl_rt_allocator.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "job_process.h"

namespace {
using job::check;
using job::die;
using job::role;
using job::waitForFile;
const auto expect = job::expectCode;

struct State {
  aclrtStream stream;
  aclrtStreamState state;
  pthread_t thread;
};
std::mutex gMutex;
std::vector<State> gStates;
int gArgs = 0;  // the callback's argument

void stateCallback(aclrtStream stream, aclrtStreamState state, void* args) {
  if (args != &gArgs) die("the state callback's argument is not the one registered");
  std::lock_guard<std::mutex> lock(gMutex);
  gStates.push_back({stream, state, pthread_self()});
}

// The states seen must be exactly `expected`.
void expectStates(const std::vector<State>& expected) {
  std::lock_guard<std::mutex> lock(gMutex);
  if (gStates.size() != expected.size())
    die(std::to_string(gStates.size()) + " states seen, expected " +
        std::to_string(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    if (gStates[i].stream != expected[i].stream || gStates[i].state != expected[i].state)
      die("state " + std::to_string(i) + " is of another stream or state");
    if (!pthread_equal(gStates[i].thread, expected[i].thread))
      die("state " + std::to_string(i) + " ran on another thread");
  }
}

void* blockOf(aclrtAllocator, size_t) {
  return nullptr;
}
void freeBlock(aclrtAllocator, aclrtAllocatorBlock) {}
void* addressOf(aclrtAllocatorBlock block) {
  return block;
}

aclrtAllocatorDesc describe(void* object) {
  aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
  if (!desc) die("aclrtAllocatorCreateDesc gave NULL");
  check(aclrtAllocatorSetObjToDesc(desc, object), "set object");
  check(aclrtAllocatorSetAllocFuncToDesc(desc, blockOf), "set alloc");
  check(aclrtAllocatorSetFreeFuncToDesc(desc, freeBlock), "set free");
  check(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, addressOf), "set get address");
  return desc;
}

// The object of this process's allocator on `stream` (the call must succeed).
aclrtAllocator objectOn(aclrtStream stream) {
  aclrtAllocatorDesc desc = nullptr;
  aclrtAllocator object = nullptr;
  check(aclrtAllocatorGetByStream(stream, &desc, &object, nullptr, nullptr, nullptr, nullptr),
        "aclrtAllocatorGetByStream");
  return object;
}

int first(const std::string& dir) {
  int object = 0;
  check(aclrtRegStreamStateCallback("job", stateCallback, &gArgs), "register");
  check(aclInit(nullptr), "aclInit");
  check(aclrtSetDevice(0), "aclrtSetDevice");
  aclrtStream d = nullptr, a = nullptr, b = nullptr;
  check(aclrtCtxGetCurrentDefaultStream(&d), "the default stream");
  check(aclrtCreateStream(&a), "create A");
  pthread_t second{};
  std::thread([&] {
    second = pthread_self();
    check(aclrtSetDevice(0), "aclrtSetDevice (second thread)");
    check(aclrtCreateStream(&b), "create B");
  }).join();
  aclrtAllocatorDesc desc = describe(&object);
  check(aclrtAllocatorRegister(a, desc), "register allocator");
  {
    std::ofstream out(dir + "/stream.tmp");
    out << reinterpret_cast<uintptr_t>(a) << '\n';
  }
  std::rename((dir + "/stream.tmp").c_str(), (dir + "/stream").c_str());
  if (!waitForFile(dir + "/done")) die("the second process never finished");
  if (objectOn(a) != &object) die("A's allocator is not this process's any more");
  check(aclrtAllocatorUnregister(a), "unregister allocator");
  check(aclrtAllocatorDestroyDesc(desc), "destroy description");
  check(aclrtDestroyStream(a), "destroy A");
  check(aclrtDestroyStream(b), "destroy B");
  const pthread_t self = pthread_self();
  expectStates({{d, ACL_RT_STREAM_STATE_CREATE_POST, self},
                {a, ACL_RT_STREAM_STATE_CREATE_POST, self},
                {b, ACL_RT_STREAM_STATE_CREATE_POST, second},
                {a, ACL_RT_STREAM_STATE_DESTROY_PRE, self},
                {b, ACL_RT_STREAM_STATE_DESTROY_PRE, self}});
  check(aclrtResetDevice(0), "reset");
  check(aclFinalize(), "finalize");
  std::printf("first ok\n");
  return 0;
}

int second(const std::string& dir) {
  int object = 0;
  if (!waitForFile(dir + "/stream")) die("no stream from the first process");
  uintptr_t bits = 0;
  {
    std::ifstream in(dir + "/stream");
    in >> bits;
  }
  auto a = reinterpret_cast<aclrtStream>(bits);
  check(aclInit(nullptr), "aclInit");
  check(aclrtSetDevice(0), "aclrtSetDevice");
  check(aclrtRegStreamStateCallback("job", stateCallback, &gArgs), "register the same name");
  expect(aclrtRegStreamStateCallback("job", stateCallback, &gArgs), ACL_ERROR_RT_PARAM_INVALID,
         "a second registration of a name");
  aclrtAllocatorDesc found = nullptr;
  expect(aclrtAllocatorGetByStream(a, &found, nullptr, nullptr, nullptr, nullptr, nullptr),
         ACL_ERROR_INVALID_PARAM, "the other process's allocator");
  aclrtAllocatorDesc desc = describe(&object);
  check(aclrtAllocatorRegister(a, desc), "register an allocator on A");
  if (objectOn(a) != &object) die("A's allocator for this process is not its own");
  check(aclrtAllocatorUnregister(a), "unregister");
  expect(aclrtAllocatorGetByStream(a, &found, nullptr, nullptr, nullptr, nullptr, nullptr),
         ACL_ERROR_INVALID_PARAM, "after unregistering");
  check(aclrtAllocatorDestroyDesc(desc), "destroy description");
  expect(aclrtDestroyStream(a), ACL_ERROR_RT_STREAM_CONTEXT, "destroying the other's stream");
  aclrtStream c = nullptr;
  check(aclrtCreateStream(&c), "create C");
  check(aclrtDestroyStream(c), "destroy C");
  const pthread_t self = pthread_self();
  expectStates(
      {{c, ACL_RT_STREAM_STATE_CREATE_POST, self}, {c, ACL_RT_STREAM_STATE_DESTROY_PRE, self}});
  check(aclrtResetDevice(0), "reset");
  check(aclFinalize(), "finalize");
  std::ofstream(dir + "/done") << "done\n";
  std::printf("second ok\n");
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  role = argv[1];
  if (std::strcmp(role, "first") == 0) return first(argv[2]);
  if (std::strcmp(role, "second") == 0) return second(argv[2]);
  return 2;
}
