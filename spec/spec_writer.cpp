#include "spec/spec_writer.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <system_error>

#include "spec/machine_settings.h"

namespace ascendsim::spec {
namespace {

template <class Spec>
void writeMap(YAML::Emitter& out, const Settings<Spec>& settings, const Spec& spec) {
  out << YAML::BeginMap;
  writeSettings(settings, out, spec);
  out << YAML::EndMap;
}

// A device as its group would give it, with its own name and port.
void writeDevice(YAML::Emitter& out, const DeviceSpec& d) {
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << d.name;
  if (!d.port.empty()) out << YAML::Key << "port" << YAML::Value << d.port;
  writeSettings(deviceSettings(), out, d);
  out << YAML::EndMap;
}

}  // namespace

std::string formatReal(double value) {
  char text[64];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  return ec == std::errc() ? std::string(text, end) : std::to_string(value);
}

std::string writeMemorySpecYaml(const DramSpec& memory) {
  YAML::Emitter out;
  writeMemorySection(out, memory);
  return std::string(out.c_str()) + "\n";
}

namespace {
void writeTrace(YAML::Emitter& out, const TraceSpec& trace) {
  out << YAML::Key << "trace" << YAML::Value;
  writeMap(out, traceSettings(), trace);
}

// A cluster as its file gives it: each server the whole machine it is (no `extends` left).
std::string writeClusterYaml(const SystemSpec& sys) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  if (!sys.name.empty()) out << YAML::Key << "name" << YAML::Value << sys.name;
  if (!sys.description.empty()) out << YAML::Key << "description" << YAML::Value << sys.description;
  writeTrace(out, sys.trace);
  const ClusterSpec& c = sys.cluster;
  out << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "nic" << YAML::Value << YAML::Flow;
  writeMap(out, nicSettings(), c.nic);
  out << YAML::Key << "switch" << YAML::Value << YAML::Flow;
  writeMap(out, networkSwitchSettings(), c.networkSwitch);
  out << YAML::Key << "servers" << YAML::Value << YAML::BeginSeq;
  for (const ServerSpec& server : c.servers) {
    YAML::Node machine = YAML::Load(writeSystemSpecYaml(*server.machine));
    machine.remove("trace");  // a server's trace settings are the cluster's
    machine["name"] = server.name;
    out << machine;
  }
  out << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}
}  // namespace

std::string writeSystemSpecYaml(const SystemSpec& sys) {
  if (sys.cluster.active()) return writeClusterYaml(sys);
  YAML::Emitter out;
  out << YAML::BeginMap;
  if (!sys.name.empty()) out << YAML::Key << "name" << YAML::Value << sys.name;
  if (!sys.description.empty()) out << YAML::Key << "description" << YAML::Value << sys.description;
  out << YAML::Key << "run_mode" << YAML::Value << toString(sys.runMode);
  out << YAML::Key << "host" << YAML::Value;
  writeMap(out, hostSettings(), sys.host);
  out << YAML::Key << "pcie" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "root_complex" << YAML::Value;
  writeMap(out, rootComplexSettings(), sys.rootComplex);
  out << YAML::Key << "switches" << YAML::Value << YAML::BeginSeq;
  for (const PcieSwitchSpec& sw : sys.switches) writeMap(out, switchSettings(), sw);
  out << YAML::EndSeq << YAML::EndMap;
  writeTrace(out, sys.trace);
  out << YAML::Key << "devices" << YAML::Value << YAML::BeginSeq;
  for (const DeviceSpec& d : sys.devices) writeDevice(out, d);
  out << YAML::EndSeq;
  if (!sys.deviceLinks.empty()) {
    out << YAML::Key << "device_links" << YAML::Value << YAML::BeginSeq;
    for (const DeviceLinkSpec& l : sys.deviceLinks) {
      out << YAML::Flow << YAML::BeginMap;
      out << YAML::Key << "devices" << YAML::Value << YAML::Flow << YAML::BeginSeq << l.a << l.b
          << YAML::EndSeq;
      writeSettings(deviceLinkSettings(), out, l);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace ascendsim::spec
