#pragma once
// A link of the machine graph: two ends (graph nodes), one Resource per direction, and the
// protocol arithmetic that turns a transfer's payload into time on the wire. PCIe links, device
// links (HCCS) and the CPU sockets' link are kinds of Link; a device-link kind registers itself
// by the name YAML uses (`device_links[].model`).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "models/resource/resource.h"
#include "models/task/shape.h"
#include "spec/kind_registry.h"
#include "spec/system_spec.h"

namespace ascendsim::models {

// What crosses a link: posted writes, read requests (no data), or completions carrying read data.
enum class Traffic { Write, ReadRequest, Completion };

// How the path splits traffic into packets: the smallest payload size on it, the read request
// size, where completions split, and whether TLPs carry an ECRC. Links that are not PCIe use
// their own packet size and ignore these.
struct Framing {
  uint64_t payload = 256;
  uint64_t request = 512;
  uint64_t completionSplit = 256;
  bool ecrc = false;
};

class Link {
 public:
  // `abName` and `baName` name the two directions' resources ("npu0.link.up", "hccs.npu0>npu1").
  Link(std::string name, int endA, int endB, ResourceTable& table, const std::string& abName,
       const std::string& baName);
  virtual ~Link() = default;
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  const std::string& name() const { return name_; }
  int end(int side) const { return ends_[side]; }
  // The direction that leaves graph node `from`: 0 from end A to B, 1 from B to A.
  int directionFrom(int node) const { return node == ends_[0] ? 0 : 1; }
  Resource& wire(int direction) { return *wires_[direction]; }

  // The stage of carrying `traffic` of `shape` in `direction`.
  Stage carry(int direction, Traffic traffic, const Shape& shape, const Framing& framing);
  // Payload bytes per second a long stream of `traffic` in `piece`-byte pieces gets.
  double payloadRate(Traffic traffic, uint64_t piece, const Framing& framing) const;

  virtual const char* kind() const = 0;      // "pcie", "hccs", "socket"
  virtual Picoseconds latency() const = 0;   // one way, end to end
  virtual double bandwidth() const = 0;      // raw bytes/s per direction (for tables)
  virtual std::string describe() const = 0;  // "Gen4 x16, 31.51 GB/s, MPS 256"
  // How CANN names two devices joined by this link (aclrtGetDevicesTopo's ACL_RT_DEVS_TOPOLOGY_*
  // bit: HCCS 0x01, SIO 0x20, HCCS_SW 0x40); 0 for links that do not join two devices.
  virtual uint64_t topologyBit() const { return 0; }
  // The most one DMA queue's transfer gets over the link, bytes/s; 0: no limit of its own.
  virtual double transferRate() const { return 0; }
  // The largest TLP payload the link takes (PCIe MPS); 0 for links that frame traffic their own
  // way.
  virtual uint64_t payloadLimit() const { return 0; }

 protected:
  // Bytes on the wire for one row of `rowBytes` of `traffic`, and the rate those bytes move at.
  virtual uint64_t wireBytes(Traffic traffic, uint64_t rowBytes, const Framing& framing) const = 0;
  virtual double wireRate(const Framing& framing) const = 0;

 private:
  std::string name_;
  int ends_[2];
  Resource* wires_[2];
};

// Device-link kinds by name: each implementation registers itself from its own file (see
// hccs_link.cpp) with the highest per-lane rate the kind runs at (limit "max_lane_rate", which the
// configuration checks `speed` against).
using DeviceLinkFactory = std::function<std::unique_ptr<Link>(const spec::DeviceLinkSpec&, int endA,
                                                              int endB, ResourceTable& table)>;
using DeviceLinkRegistration = kinds::Registration<DeviceLinkFactory>;
std::unique_ptr<Link> makeDeviceLink(const spec::DeviceLinkSpec& spec, int endA, int endB,
                                     ResourceTable& table);

}  // namespace ascendsim::models
