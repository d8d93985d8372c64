#include "models/link/link.h"

namespace ascendsim::models {

Link::Link(std::string name, int endA, int endB, ResourceTable& table, const std::string& abName,
           const std::string& baName)
    : name_(std::move(name)), ends_{endA, endB}, wires_{&table.add(abName), &table.add(baName)} {}

Stage Link::carry(int direction, Traffic traffic, const Shape& shape, const Framing& framing) {
  const uint64_t wire = shape.rows * wireBytes(traffic, shape.rowBytes, framing);
  Stage st{wires_[direction], transferTime(wire, wireRate(framing)), latency(), wire};
  st.interleaved = traffic == Traffic::ReadRequest;  // small request packets slip between data
  return st;
}

double Link::payloadRate(Traffic traffic, uint64_t piece, const Framing& framing) const {
  return wireRate(framing) * static_cast<double>(piece) /
         static_cast<double>(wireBytes(traffic, piece, framing));
}

std::unique_ptr<Link> makeDeviceLink(const spec::DeviceLinkSpec& spec, int endA, int endB,
                                     ResourceTable& table) {
  return kinds::Registry<DeviceLinkFactory>::instance().at("device link", spec.model)(spec, endA,
                                                                                      endB, table);
}

}  // namespace ascendsim::models
