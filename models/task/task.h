#pragma once
// A unit of work on a stream: a copy, a memset, a kernel, an event record or wait, or a host
// callback.
// Models move sizes and addresses; the bytes move in `effect`, applied at the completion instant.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "spec/units.h"

namespace ascendsim::models {

using spec::Picoseconds;

// Where the bytes of one side of a transfer live.
struct MemoryPlace {
  enum class Kind { HostPinned, HostPageable, Device };
  Kind kind = Kind::HostPageable;
  int device = -1;       // for Kind::Device
  uint64_t address = 0;  // simulated device address or host address
  // Host memory: the socket (NUMA node) its pages are on, when known (an aclrtMallocHost buffer
  // with `host.memory_socket: thread`); -1: as `host.memory_socket` says for the copy.
  int socket = -1;
};

// ValueWrite / ValueWait: aclrtValueWrite / aclrtValueWait, done by the task scheduler itself.
enum class TaskKind {
  Copy,
  Memset,
  EventRecord,
  EventWait,
  EventReset,
  Callback,
  Kernel,
  ValueWrite,
  ValueWait,
  // A model run instance's control task (stream switch and activation, label switch, condition,
  // end of graph), done by the task scheduler itself: `control` names it.
  Control
};

// What a compute task (KERNEL_AICORE) asks of the AI Cores: the bytes it streams from and to
// device memory and the element operations its vector units perform.
struct KernelWork {
  std::string name;  // "aclnnAdd", or a workload's label
  uint64_t bytesRead = 0;
  uint64_t bytesWritten = 0;
  uint64_t ops = 0;      // element operations
  uint32_t opBytes = 4;  // width of one operation's elements (float32: 4, float16: 2)
  // Scalar instructions (Ascend C kernels' scalar code), run by `blocks` cores at most (0: all).
  uint64_t scalarOps = 0;
  uint32_t blocks = 0;
  // Ascend C kernels: the cores' time from the cost model of what their blocks did
  // (models/compute/ascendc_cost.h), in cycles over all the cores; when `costed`, it replaces the
  // rates above for the cores (the traffic still goes through device memory).
  bool costed = false;
  uint64_t coreCycles = 0;
  // Where in device memory the reads and writes go, in order (empty for timing-only kernels): only
  // the DRAM statistics use them.
  struct Range {
    uint64_t address, bytes;
  };
  std::vector<Range> readRanges, writeRanges;
  // Host memory the kernel reads and writes in place (registered or managed memory, zero copy):
  // it crosses the device's PCIe link like a DMA read of the host and posted writes to it.
  uint64_t hostBytesRead = 0;
  uint64_t hostBytesWritten = 0;
  uint64_t hostAddress = 0;  // where (the first page touched), for the host memory's timing
  // How the reads and writes walk their ranges (memories timed burst by burst see the difference):
  // in order; one burst every `stride` bytes (wrapping, one burst further on each wrap); or one
  // burst at a uniformly random place, the same places for the writes as for the reads (in place).
  enum class Access { Sequential, Strided, Random };
  Access access = Access::Sequential;
  uint64_t stride = 0;  // Strided: bytes between consecutive bursts
  uint64_t seed = 0;    // Random: the places drawn (the runtime uses the task's id)
  // Strided and random: bytes of one access (a gather's element), a multiple of kAccessGrain;
  // 0: one burst of the memory.
  uint64_t accessBytes = 0;
  static constexpr uint64_t kAccessGrain = 32;
};

const char* taskKindName(TaskKind kind);  // Ascend profiler names: MEMCPY_ASYNC, EVENT_RECORD, ...

// The model side of an AscendCL event: how many records were issued and how many completed.
struct SyncPoint {
  uint64_t recordsSubmitted = 0;
  uint64_t recordsCompleted = 0;
  Picoseconds lastRecordTime = -1;  // completion time of the latest completed record
  bool recorded = false;            // cleared by a reset task
  uint64_t waitsSubmitted = 0;      // stream waits on it (aclrtStreamWaitEvent) queued
  uint64_t waitsCompleted = 0;      // and the ones that have ended
  // A notify (aclrtCreateNotify) is a flag: records set it, a wait waits for it and clears it.
  // Records up to here were cleared by a wait.
  uint64_t consumedUpTo = 0;
};

struct Task {
  uint64_t id = 0;
  TaskKind kind = TaskKind::Copy;
  Picoseconds submitTime = 0;  // when it entered its stream's queue (host virtual time)
  MemoryPlace src, dst;        // Copy: both; Memset: dst
  uint64_t bytes = 0;          // Kernel: bytesRead + bytesWritten of `kernel`
  // A shaped copy (aclrtMemcpy2d): `bytes` is `rows` rows of `rowBytes`, each its own run of
  // packets; rowBytes 0 means one contiguous row.
  uint64_t rowBytes = 0;
  uint64_t rows = 1;
  uint64_t srcPitch = 0,
           dstPitch = 0;  // shaped copy: bytes from one row's start to the next (0: rowBytes)
  int hostThread = 0;     // the host thread that submitted it (stages its pageable copies)
  // Its number within its process, which host.thread_sockets places on a socket (in a served job
  // `hostThread` numbers the threads of every process together).
  int hostThreadInProcess = 0;
  KernelWork kernel;                // Kernel; dst.device is the device that runs it
  std::shared_ptr<SyncPoint> sync;  // EventRecord / EventWait / EventReset (outlives its event)
  uint64_t waitForRecord = 0;       // EventWait: ready once sync->recordsCompleted reaches this
  bool resetsFlag = false;  // EventWait of a notify: ready once a record not yet cleared ended
  bool completesExternally = false;  // Callback (blocking): ended by the host after it ran
  std::function<bool()> condition;   // ValueWait: ready once it holds (device memory meets it)
  std::function<void()> onStart;     // Callback: hands the report to the host
  // Kernel: runs as the task starts, before its timing is laid out (an Ascend C kernel runs its
  // blocks then and fills in `kernel` with what they did).
  std::function<void(Task&)> prepare;
  std::function<void()> effect;  // data effect, applied when the task completes
  // A task replayed from a model run instance: the model (and label) it came from, for the trace.
  std::string model;
  std::string control;            // Control: what it does ("STREAM_SWITCH", "LABEL_SWITCH", ...)
  std::function<void()> release;  // runs when it ends whatever happened (after the effect)
  // Set (by the runtime) when the task must not act: its stream stopped on a failure. It still
  // takes its place in the timeline; its effect and `prepare` are skipped.
  std::shared_ptr<const bool> cancelled;
  bool isCancelled() const { return cancelled && *cancelled; }
  Picoseconds startTime = -1;
  Picoseconds endTime = -1;
  int channel = -1;  // DMA channel that ran it, or -1 (kernels run on the AI Cores)
};

}  // namespace ascendsim::models
