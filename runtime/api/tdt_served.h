#pragma once
// The data channel and queue calls (acl/acl_tdt.h, acl/acl_tdt_queue.h) a program sharing a
// machine served by `ascendsim exec --shared` sends to it (docs/multiprocess.md). Datasets, data
// items, queue attributes, routes, route lists and query infos are plain data built in the
// program; channels and queues live in the machine, named as on hardware: a channel by its device
// and name (its handle is its process's own), a queue by its device and id (any process on the
// device may use it). Bytes never travel through the socket: a send's items and an enqueue's data
// go through the calling thread's staging buffer (or are the device or shared memory they are), a
// receive's image comes back in the job's shared memory. Registered by acl_tdt.cpp and
// acl_tdt_queue.cpp.

#include <cstdint>
#include <vector>

#include "acl/acl_tdt.h"
#include "acl/acl_tdt_queue.h"
#include "runtime/api/tdt_wait.h"
#include "runtime/remote/machine_server.h"
#include "runtime/remote/marshal.h"

// What a served program's calls that make a channel send instead (the handle comes back through
// the last argument).
extern "C" aclError ascendsimTdtCreateChannel(uint32_t deviceId, const char* name,
                                              uint64_t capacity, uint32_t queueBacked,
                                              acltdtChannelHandle** handle);

namespace ascendsim::remote {

ASCENDSIM_SERVED(ascendsimTdtCreateChannel, Val, Str, Val, Val, Out)
ASCENDSIM_SERVED(acltdtStopChannel, Val)
ASCENDSIM_SERVED(acltdtCleanChannel, Val)
ASCENDSIM_SERVED(acltdtDestroyChannel, Val)
ASCENDSIM_SERVED(acltdtQueryChannelSize, Val, Out)
ASCENDSIM_SERVED(acltdtDestroyQueue, Val)
ASCENDSIM_SERVED(acltdtEnqueueData, Val, Src<2>, Val, InBytes<4>, Val, Val, Val)

// Serves a call that may wait for room or data (`Handler`) with the calling thread's connection
// named: a wait ends when the program's end of it closes (tdt_wait.h, CallerWatch).
template <ServedHandler Handler>
aclError serveWatched(Session& s, WireReader& in, WireWriter& out) {
  const runtime::api::CallerConnection caller(s.channel().socket().native_handle());
  return Handler(s, in, out);
}

}  // namespace ascendsim::remote

namespace ascendsim::runtime::api {

// Calls served with arguments and results of their own (sends and receives, dequeues, queue
// creation, routes): the call's name as the server knows it.
constexpr const char* kTdtSendCall = "acltdtSendTensor";
constexpr const char* kTdtReceiveCall = "acltdtReceiveTensor";
constexpr const char* kTdtReceivedCall = "ascendsimTdtReceived";  // a receive's image was taken
constexpr const char* kTdtCreateQueueCall = "acltdtCreateQueue";
constexpr const char* kTdtDequeueCall = "acltdtDequeueData";
constexpr const char* kTdtRoutesCall = "ascendsimTdtRoutes";
constexpr const char* kTdtUnsupportedCall = "ascendsimTdtUnsupported";

// Sends `name` with `arguments` to the served machine and waits: the code, with what the server
// wrote in `results` (also when the call failed: a dequeue's size, a bind's statuses).
aclError tdtServe(const char* name, const remote::WireWriter& arguments,
                  std::vector<uint8_t>& results);

}  // namespace ascendsim::runtime::api
