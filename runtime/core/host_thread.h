#pragma once
// A host thread as the simulator sees it: its own virtual clock, current context, last error and
// the callback reports waiting for it.

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl_rt.h"
#include "spec/units.h"

namespace ascendsim::runtime {

struct Context;
struct Stream;

struct CallbackReport {
  aclrtCallback fn = nullptr;
  void* userData = nullptr;
  Stream* stream = nullptr;
  bool blocking = false;
  spec::Picoseconds readyAt = 0;  // simulated time the task reached its stream's head
};

struct HostThread {
  std::thread::id id;
  uint64_t pthreadId = 0;   // what aclrtSubscribeReport names threads by
  uint32_t index = 0;       // order of first API call: 0 is usually the main thread
  spec::Picoseconds now = 0;
  Context* current = nullptr;
  std::string error;        // pending aclGetRecentErrMsg text
  aclError lastError = ACL_SUCCESS;  // the last failed call's code (aclrtGetLastError)
  std::string returned;     // keeps the last returned text alive for the caller
  bool blocked = false;     // waiting for the simulation or another thread
  const std::function<bool()>* waitingOn = nullptr;  // what it waits for, while blocked
  bool exited = false;
  bool subscribed = false;  // has at least one stream subscribed to it
  std::deque<CallbackReport> reports;
  std::string callArgs;             // the current API call's arguments, for the trace
  std::vector<uint64_t> callTasks;  // tasks the current API call submitted
};

}  // namespace ascendsim::runtime
