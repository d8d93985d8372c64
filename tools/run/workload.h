#pragma once
// A workload script: named buffers, streams and events, and the steps one or more host threads
// take (format: traces/README.md). Read and validated from YAML, with file:line:column errors.

#include <cstdint>
#include <string>
#include <vector>

#include "spec/diagnostics.h"

namespace ascendsim::tools {

struct WorkloadBuffer {
  enum class Memory { Pinned, Pageable, Device };
  std::string name;
  Memory memory = Memory::Device;
  int device = 0;
  uint64_t size = 0;
  bool allocated = true;  // allocated before the first step (else by an `alloc` step)
};

struct WorkloadObject {  // a stream or an event
  std::string name;
  int device = 0;
};

struct WorkloadStep {
  enum class Op {
    Alloc,
    Free,
    Memcpy,
    Memset,
    Compute,
    Record,
    Wait,
    SyncStream,
    SyncEvent,
    SyncDevice,
    PeerAccess,
    Repeat
  };
  Op op = Op::SyncDevice;
  spec::SourceLocation where;
  std::string dst, src, event, stream;  // names; stream empty = the device's default stream
  uint64_t size = 0, dstOffset = 0, srcOffset = 0;  // size 0: as much as both buffers hold
  int value = 0;
  bool async = true;
  int device = -1;  // SyncDevice: -1 = the thread's device; PeerAccess: the peer
  uint32_t times = 1;
  // Compute: a modelled kernel (ascendsim/compute.h) with `name`, bytes read and written, ops.
  std::string name;
  uint64_t bytesRead = 0, bytesWritten = 0, ops = 0;
  uint32_t opBytes = 4;
  // Compute with `buffer` (a device buffer's name): the traffic lands in it, walked by `access`
  // (ascendsimLaunchComputeTaskIn); without, it is a timing-only stream.
  std::string computeBuffer;
  int access = 0;                  // ascendsimAccessPattern
  uint64_t stride = 0;             // access strided
  uint64_t accessBytes = 0;        // access strided or random: bytes per access (0: a burst)
  std::vector<WorkloadStep> body;  // Repeat
};

struct WorkloadThread {
  std::string name;
  int device = 0;
  std::vector<WorkloadStep> steps;
};

struct Workload {
  std::string name, description, source;
  std::vector<WorkloadBuffer> buffers;
  std::vector<WorkloadObject> streams, events;
  std::vector<WorkloadThread> threads;
};

// Throws spec::ConfigError with every problem found.
Workload readWorkload(const std::string& path);
Workload readWorkloadText(const std::string& text, const std::string& fileName);

}  // namespace ascendsim::tools
