#pragma once
// The model run instance calls (aclmdlRI*: building, capture, launches, task groups and updates,
// conditions), labels, stream activation and switching, records and waits with a flag, and
// random-number tasks that a program sharing a machine served by `ascendsim exec --shared` sends
// to it (docs/multiprocess.md), with how each parameter travels (runtime/remote/marshal.h).
// Models, labels, label lists, condition handles and task groups live in the machine and are the
// process's own: another process's handle is refused with the code a stale one gets (107000), and
// a process that goes without destroying its models and labels has them destroyed.
// Registered by model_served.cpp.

#include <cstdint>
#include <string>

#include "acl/acl.h"
#include "runtime/remote/marshal.h"

// What a served program's calls that fill in an array or a struct's array send instead:
// aclmdlRIAddCondTask (the parameters' fields; the branches come back in `modelRIArray`, `size` of
// them), aclmdlRIGetStreams (at most `capacity` streams come back).
extern "C" {
aclError ascendsimAddCondTask(aclmdlRICondHandle handle, int32_t type, uint32_t size,
                              aclmdlRI* modelRIArray, aclrtStream stream, uint32_t flags);
aclError ascendsimModelGetStreams(aclmdlRI modelRI, aclrtStream* streams, uint32_t capacity,
                                  uint32_t* numStreams);
}

namespace ascendsim::runtime::api {
// The model the calling thread's last aclmdlRICaptureBegin made, or its last
// aclmdlRICaptureTaskGrpEnd's group belongs to (the server keeps it with the process).
const void* modelOfLastCall();
}  // namespace ascendsim::runtime::api

namespace ascendsim::remote {

// models: building, launching, naming
ASCENDSIM_SERVED(aclmdlRIBuildBegin, Out, Val)
ASCENDSIM_SERVED(aclmdlRIBindStream, Val, Val, Val)
ASCENDSIM_SERVED(aclmdlRIUnbindStream, Val, Val)
ASCENDSIM_SERVED(aclmdlRIEndTask, Val, Val)
ASCENDSIM_SERVED(aclmdlRIBuildEnd, Val, Val)
ASCENDSIM_SERVED_ASYNC(aclmdlRIExecuteAsync, Val, Val)
ASCENDSIM_SERVED(aclmdlRIExecute, Val, Val)
ASCENDSIM_SERVED(aclmdlRIDestroy, Val)
ASCENDSIM_SERVED(aclmdlRISetName, Val, Str)
ASCENDSIM_SERVED(aclmdlRIGetName, Val, Val, OutText<1>)
ASCENDSIM_SERVED(aclmdlRIGetId, Val, Out)
ASCENDSIM_SERVED(ascendsimModelGetStreams, Val, OutArray<2>, Val, InOut)
ASCENDSIM_SERVED(aclmdlRIDebugJsonPrint, Val, Str, Val)  // (the path made absolute: the program's)
// capture, task groups and updates
ASCENDSIM_SERVED(aclmdlRICaptureBegin, Val, Val)
ASCENDSIM_SERVED(aclmdlRICaptureToModelRIBegin, Val, Val, Val)
ASCENDSIM_SERVED(aclmdlRICaptureGetInfo, Val, Out, Out)
ASCENDSIM_SERVED(aclmdlRICaptureEnd, Val, Out)
ASCENDSIM_SERVED(aclmdlRICaptureThreadExchangeMode, InOut)
ASCENDSIM_SERVED(aclmdlRICaptureTaskGrpBegin, Val)
ASCENDSIM_SERVED(aclmdlRICaptureTaskGrpEnd, Val, Out)
ASCENDSIM_SERVED(aclmdlRICaptureTaskUpdateBegin, Val, Val)
ASCENDSIM_SERVED(aclmdlRICaptureTaskUpdateEnd, Val)
// conditions
ASCENDSIM_SERVED(aclmdlRICondHandleCreate, Val, Val, Val, Out)
ASCENDSIM_SERVED(aclmdlRICondHandleGetCondPtr, Val, Out)
ASCENDSIM_SERVED(ascendsimAddCondTask, Val, Val, Val, OutArray<2>, Val, Val)
// streams of a model
ASCENDSIM_SERVED(aclrtActiveStream, Val, Val)
ASCENDSIM_SERVED(aclrtSwitchStream, Val, Val, Val, Val, Val, Val, Val)
// labels
ASCENDSIM_SERVED(aclrtCreateLabel, Out)
ASCENDSIM_SERVED(aclrtSetLabel, Val, Val)
ASCENDSIM_SERVED(aclrtDestroyLabel, Val)
ASCENDSIM_SERVED(aclrtCreateLabelList, InArray<1>, Val, Out)
ASCENDSIM_SERVED(aclrtDestroyLabelList, Val)
ASCENDSIM_SERVED(aclrtSwitchLabelByIndex, Val, Val, Val, Val)
// records and waits with a flag (they only queue work, as aclrtRecordEvent and
// aclrtStreamWaitEvent)
ASCENDSIM_SERVED_ASYNC(aclrtRecordEventWithFlag, Val, Val, Val)
ASCENDSIM_SERVED_ASYNC(aclrtStreamWaitEventWithFlag, Val, Val, Val, Val)
// random-number tasks (the task's description travels whole)
ASCENDSIM_SERVED_ASYNC(aclrtRandomNumAsync, In, Val, Val)

// ---- the program's side
// Streams that record a model (captured, bound to a model being built, or updating a task group),
// as this process's own successful calls left them: a copy of the program's own memory queued on
// one becomes a step every launch of the model replays, reading or writing that memory when the
// launch runs, so the memory's pages are shared with the machine first (as a registration's are:
// runtime/remote/program_pages.h) instead of being staged, until the last model recording a copy
// of them is destroyed (or the process's aclFinalize).
// `model`: what the stream records for (a model, or the task group it updates; NULL while it
// captures, its model not known yet).
void streamRecords(aclrtStream stream, const void* model);
// The stream records no more; `model`: the model its capture made (NULL: none).
void streamRecordsNoMore(aclrtStream stream, const void* model = nullptr);
// The model's build ended (its streams record no more), or it was destroyed (`destroyed`: the
// pages shared for its copies alone go back). `upTo`: recordedSoFar() before the destroy was
// sent; what was recorded later (for a model another thread made at the freed address meanwhile)
// stays.
void modelRecordsNoMore(const void* model, bool destroyed, uint64_t upTo = UINT64_MAX);
uint64_t recordedSoFar();
// Before a copy of `bytes` at `p` is queued on `stream`: its pages shared if the stream records
// and `p` is the program's own memory. False, with the reason in `why`, when they cannot be.
bool shareForRecording(aclrtStream stream, const void* p, uint64_t bytes, std::string& why);
// After the process's aclFinalize (which lets the process's queued work end first, model launches
// included): the pages shared for recorded copies become the program's private memory again, with
// their bytes.
void unshareRecordedPages();
// The same for both ends of a copy (`name`'s): 0, or ACL_ERROR_RT_FEATURE_NOT_SUPPORT with the
// reason as the call's message.
aclError shareRecordedCopy(const char* name, aclrtStream stream, const void* dst, uint64_t dstBytes,
                           const void* src, uint64_t srcBytes);

}  // namespace ascendsim::remote
