#pragma once
// A memory of the machine graph (host DDR of one NUMA node, a device's HBM or LPDDR) as the
// transfers and kernels see it: a port that serves one piece at a time, and the time a piece's
// reads and writes take. Implementations are chosen by name (`memory.timing`) and register
// themselves from their own files (MemoryRegistration).

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "models/resource/resource.h"
#include "models/task/shape.h"
#include "spec/kind_registry.h"
#include "spec/system_spec.h"

namespace ascendsim::models {

class Memory {
 public:
  Memory(std::string name, int observerIndex, ResourceTable& table);
  virtual ~Memory() = default;
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

  const std::string& name() const { return name_; }
  Resource& port() { return *port_; }
  // MemoryTrafficObserver's index: kHostMemory or the device's.
  int observerIndex() const { return observerIndex_; }

  // The stage of reading and/or writing `shape` (rows narrower than a burst still move a whole
  // burst each); the piece's head moves on after `latency`.
  virtual Stage access(const Shape& shape, bool reads, bool writes, Picoseconds latency) = 0;
  // Sustained bytes/s of long sequential reads and writes, and the idle latency of a read.
  virtual double readRate() const = 0;
  virtual double writeRate() const = 0;
  virtual Picoseconds readLatency() const = 0;
  // Bytes/s, reads and writes together, it sustains for several streams reading and writing it at
  // once with `readShare` of the bytes read; 0 when it times mixed traffic burst by burst itself.
  virtual double mixedRate(double readShare) const {
    (void)readShare;
    return 0;
  }

 private:
  std::string name_;
  int observerIndex_;
  Resource* port_;
};

// Memory timing implementations by name.
using MemoryFactory =
    std::function<std::unique_ptr<Memory>(const std::string& name, const spec::DramSpec& spec,
                                          double share, int observerIndex, ResourceTable& table)>;
using MemoryRegistration = kinds::Registration<MemoryFactory>;
// Builds the memory `spec.timing` names.
std::unique_ptr<Memory> makeMemory(const std::string& name, const spec::DramSpec& spec,
                                   double share, int observerIndex, ResourceTable& table);

}  // namespace ascendsim::models
