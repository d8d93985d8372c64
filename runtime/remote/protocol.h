#pragma once
// The messages between a program (client) and `ascendsim exec --shared` (server). Every change
// to a message changes kProtocolVersion; a client and server of different versions refuse each
// other at the handshake with both versions named.
//
// client -> server                          server -> client
// Hello: version, pid, tid, rank, world     HelloReply: version, ok, error text,
//        size, thread number, program name    (then the shared memory's descriptor, if ok)
// Call: name, arguments                     CallReply: code, error text, results
// Post: name, arguments (an asynchronous call sent without waiting: no reply; a failure is
//       returned by the thread's next Call)
// Stage: slot, bytes                        StageReply: address of a shared buffer of that size

#include <cstdint>

namespace ascendsim::remote {

constexpr uint32_t kProtocolVersion = 2;

enum class MessageKind : uint8_t { Hello = 1, Call = 2, Stage = 3, Post = 4 };

// The environment variable that names the server's socket; set by `ascendsim exec --shared` for
// the processes it starts, inherited by theirs.
constexpr const char* kSocketVariable = "ASCENDSIM_MACHINE_SOCKET";

}  // namespace ascendsim::remote
