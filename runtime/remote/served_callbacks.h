#pragma once
// Callbacks and host functions of a program on a served machine: their code is the program's, so
// the program's own thread runs them. The thread subscribed with aclrtSubscribeReport (or
// aclrtSubscribeHostFunc) asks the server for its next report (aclrtProcessReport waits there for
// the simulated time its stream reaches it), runs the function here, and tells the server it
// returned, which lets a blocking function's stream go on. A stream's host functions without a
// subscribed thread get a thread of the program's, started here, as CANN's callback thread.

#include <cstdint>
#include <functional>

#include "acl/acl.h"

namespace ascendsim::remote {

class Session;
class WireReader;
class WireWriter;

// The program's end.
// aclrtProcessReport (hostFuncStream 0) or, for the thread a stream's host functions run on,
// aclrtProcessHostFunc.
aclError processReports(const char* name, int32_t timeoutMs, uint64_t hostFuncStream = 0);
aclError launchHostFunc(aclrtStream stream, aclrtHostFunc fn, void* args);

// Exception callbacks: while the program has one registered (watchServedExceptions after each
// successful aclrtSetExceptionInfoCallback, aclrtExceptionInfoCallbackRegister or ...Unregister),
// after each call that waited the thread takes the failures of its tasks the server kept for it
// and runs the callbacks here, before the call returns (so before a failed synchronisation
// returns, as on a machine of its own). With none left, calls no longer ask.
enum class CallbackChange { Set, Register, Unregister };
void watchServedExceptions(CallbackChange change, aclrtExceptionInfoCallback callback);
void runServedExceptionCallbacks();

// Stream state callbacks (aclrtRegStreamStateCallback) are the program's, as CANN's are the
// process's: kept here, run by the thread that created or destroys the stream, after a creation
// the machine made (ACL_RT_STREAM_STATE_CREATE_POST) and before a destruction it will make
// (ACL_RT_STREAM_STATE_DESTROY_PRE: the machine is asked first whether the stream passes
// aclrtDestroyStream's checks, as the callbacks run in-process only after them).
void registerStreamStateCallback(const char* name, aclrtStreamStateCallback callback, void* args);
// `code`, after a served creation of `*stream` returned it.
aclError streamCreated(aclError code, aclrtStream* stream);
void streamAboutToGo(aclrtStream stream);
// Default streams and the streams a teardown releases, as CANN announces them
// (runtime/core/device_contexts.cpp): `code`, after a served aclrtSetDevice or aclrtCreateContext
// returned it, once the default stream it made (if any) is announced (CREATE_POST); and the served
// aclrtDestroyContext and aclrtResetDevice(Force), which first announce the streams the machine
// says the call will release, in CANN's order (DESTROY_PRE; in-process each stream's callbacks
// run just before it goes, here all of them before the call is sent). A callback that tears down
// again the context or device being torn down is refused with ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
// as in-process. (`send` sends the call.)
aclError defaultStreamMade(aclError code);
aclError destroyContext(aclrtContext context, const std::function<aclError()>& send);
aclError resetDevice(int32_t deviceId, bool force, const std::function<aclError()>& send);

// The server's end.
aclError serveTakeExceptions(Session& s, WireReader& in, WireWriter& out);
aclError serveTakeReport(Session& s, WireReader& in, WireWriter& out);
aclError serveEndReport(Session& s, WireReader& in, WireWriter& out);
aclError serveLaunchHostFunc(Session& s, WireReader& in, WireWriter& out);
aclError serveHostFuncStream(Session& s, WireReader& in, WireWriter& out);
aclError serveAdoptHostFuncStream(Session& s, WireReader& in, WireWriter& out);
aclError serveStreamDestroyable(Session& s, WireReader& in, WireWriter& out);
aclError serveStreamStates(Session& s, WireReader& in, WireWriter& out);

}  // namespace ascendsim::remote
