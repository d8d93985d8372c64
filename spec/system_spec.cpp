#include "spec/system_spec.h"

#include <algorithm>

#include <cmath>

namespace ascendsim::spec {

uint64_t DramSpec::rows() const {
  const uint64_t perRow =
      uint64_t{independentChannels()} * ranks * bankGroups * banksPerGroup * pageSize;
  return perRow == 0 ? 0 : capacity / perRow;
}

uint64_t DramSpec::burstBytes() const {
  return uint64_t{busWidth} / 8 * burstLength;
}

uint32_t DramSpec::independentChannels() const {
  return stacks * channels * pseudoChannels;
}

double DramSpec::peakBandwidth() const {
  return static_cast<double>(independentChannels()) * busWidth / 8.0 * dataRate;
}

uint64_t unifiedBufferDefault(const std::string& soc) {
  for (const char* family : {"Ascend910B", "Ascend910_93"}) {
    if (soc.rfind(family, 0) == 0) return 192 * 1024;
  }
  return 256 * 1024;
}

Picoseconds DramSpec::tCK() const {
  return static_cast<Picoseconds>(std::llround(1e12 / clock));
}

double pcieGenerationRate(uint32_t generation) {
  static const double rates[] = {0, 2.5e9, 5e9, 8e9, 16e9, 32e9, 64e9};
  return generation >= 1 && generation <= 6 ? rates[generation] : 0;
}

double PcieLinkSpec::lineBandwidth() const {
  double encoding = 128.0 / 130.0;
  if (rate <= 5e9) encoding = 8.0 / 10.0;                        // Gen1/Gen2 speeds
  if (generation >= 6 && rate > 32e9) encoding = 242.0 / 256.0;  // FLIT mode (approximation)
  return rate * lanes * encoding / 8.0;
}

std::optional<PortRef> parsePortRef(const std::string& text) {
  const auto dot = text.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == text.size()) return std::nullopt;
  const std::string digits = text.substr(dot + 1);
  if (digits.size() > 4) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return PortRef{text.substr(0, dot), static_cast<uint32_t>(std::stoul(digits))};
}

const PcieSwitchSpec* SystemSpec::findSwitch(const std::string& switchName) const {
  for (const PcieSwitchSpec& s : switches) {
    if (s.name == switchName) return &s;
  }
  return nullptr;
}

int SystemSpec::findDevice(const std::string& deviceName) const {
  for (size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].name == deviceName) return static_cast<int>(i);
  }
  return -1;
}

uint32_t RootComplexSpec::sockets() const {
  uint32_t n = 1;
  for (uint32_t s : portSockets) n = std::max(n, s + 1);
  return n;
}

double RootComplexSpec::bridgeRate(bool inbound) const {
  double rate = bridgeBandwidth;
  const double own = inbound ? bridgeInboundBandwidth : bridgeOutboundBandwidth;
  if (own > 0) rate = rate > 0 ? std::min(rate, own) : own;
  return rate;
}

const char* toString(PagePolicy p) {
  return p == PagePolicy::Open ? "open" : "closed";
}

const char* toString(CommandBusSharing c) {
  return c == CommandBusSharing::Standard ? "standard"
         : c == CommandBusSharing::Shared ? "shared"
                                          : "per-pseudo-channel";
}

const char* toString(RunMode m) {
  return m == RunMode::Host ? "host" : "device";
}

}  // namespace ascendsim::spec
