#include "tools/topology_tree.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

namespace ascendsim::tools {
namespace {

using spec::DeviceSpec;
using spec::PcieLinkSpec;
using spec::PcieSwitchSpec;
using spec::SystemSpec;

std::string linkText(const PcieLinkSpec& l) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "Gen%u x%u, %s, MPS %llu", l.generation, l.lanes,
                spec::describeBandwidth(l.lineBandwidth()).c_str(),
                static_cast<unsigned long long>(l.mps));
  return buf;
}

std::string memoryText(const spec::DramSpec& m) {
  return m.standard + " " + spec::describeBytes(m.capacity) + ", " +
         spec::describeBandwidth(m.peakBandwidth());
}

struct Child {
  uint32_t port;
  const PcieSwitchSpec* sw = nullptr;
  const DeviceSpec* dev = nullptr;
};

class TreeDrawer {
 public:
  explicit TreeDrawer(const SystemSpec& sys) : sys_(sys) {
    for (const PcieSwitchSpec& sw : sys.switches) add(sw.upstream, Child{0, &sw, nullptr});
    for (const DeviceSpec& d : sys.devices) {
      if (!d.port.empty()) add(d.port, Child{0, nullptr, &d});
    }
  }

  std::string draw() {
    out_ = "host  " + memoryText(sys_.host.memory) + "\n";
    if (sys_.runMode == spec::RunMode::Device && children_.empty()) {
      out_ += "└─ run mode device: the program runs on the device's own CPU; no PCIe hop\n";
      for (const DeviceSpec& d : sys_.devices) out_ += "   └─ " + deviceText(d) + "\n";
      return out_;
    }
    out_ += "└─ rc  root complex, " + std::to_string(sys_.rootComplex.ports) + " ports, " +
            spec::formatDuration(sys_.rootComplex.latency) + " to memory\n";
    drawChildren("rc", "   ");
    for (const DeviceSpec& d : sys_.devices) {
      if (d.port.empty()) out_ += "(on chip) " + deviceText(d) + "\n";
    }
    drawDeviceLinks();
    drawNetwork();
    return out_;
  }

 private:
  // A cluster's network: its servers, the NIC beside each NPU and the switch joining them.
  void drawNetwork() {
    const spec::ClusterSpec& c = sys_.cluster;
    if (!c.active()) return;
    char text[256];
    std::snprintf(text, sizeof text,
                  "network  %s switch, %.0f Gb/s per port, %s port to port\n"
                  "  a %s NIC per NPU, %.0f Gb/s, MTU %llu, %s one way\n",
                  c.networkSwitch.model.c_str(), c.networkSwitch.portRate * 8 / 1e9,
                  spec::formatDuration(c.networkSwitch.latency).c_str(), c.nic.model.c_str(),
                  c.nic.rate * 8 / 1e9, static_cast<unsigned long long>(c.nic.mtu),
                  spec::formatDuration(c.nic.latency).c_str());
    out_ += text;
    for (const spec::ServerSpec& server : c.servers) {
      out_ += "  server " + server.name + ": " + sys_.devices[server.firstDevice].name + " .. " +
              sys_.devices[server.firstDevice + server.devices - 1].name + "\n";
    }
  }

  // Device links, one line per device: its peers and each link's rate.
  void drawDeviceLinks() {
    if (sys_.deviceLinks.empty()) return;
    out_ += "device links\n";
    for (const DeviceSpec& d : sys_.devices) {
      std::string line;
      for (const spec::DeviceLinkSpec& l : sys_.deviceLinks) {
        if (l.a != d.name && l.b != d.name) continue;
        char rate[64];
        std::snprintf(rate, sizeof rate, " %s x%u %.1f GB/s", l.model.c_str(), l.lanes,
                      l.bandwidth() / 1e9);
        line += (line.empty() ? "" : ",") + std::string(" ") + (l.a == d.name ? l.b : l.a) + rate;
      }
      if (!line.empty()) out_ += "  " + d.name + " ══" + line + "\n";
    }
  }

  void add(const std::string& portText, Child c) {
    auto ref = spec::parsePortRef(portText);
    if (!ref) return;
    c.port = ref->index;
    children_[ref->owner].push_back(c);
  }

  static std::string deviceText(const DeviceSpec& d) {
    return d.name + (d.model.empty() ? "" : "  " + d.model) + "  [" + memoryText(d.memory) + "]";
  }

  // A switch's further uplinks (it is drawn under its first).
  static std::string alsoUp(const spec::PcieSwitchSpec& sw) {
    std::string text;
    for (const std::string& p : sw.moreUpstreams) text += (text.empty() ? "" : ", ") + p;
    return text.empty() ? "" : ", also up through " + text;
  }

  void drawChildren(const std::string& owner, const std::string& indent) {
    std::vector<Child> kids = children_[owner];
    std::sort(kids.begin(), kids.end(),
              [](const Child& a, const Child& b) { return a.port < b.port; });
    for (size_t i = 0; i < kids.size(); ++i) {
      const bool last = i + 1 == kids.size();
      const Child& c = kids[i];
      const std::string branch = last ? "└─ " : "├─ ";
      const std::string port = "port " + std::to_string(c.port) + " ── ";
      if (c.sw) {
        out_ += indent + branch + port + linkText(c.sw->link) + " ── " + c.sw->name +
                "  PCIe switch, " + std::to_string(c.sw->ports) + " ports, " +
                spec::formatDuration(c.sw->latency) + alsoUp(*c.sw) + "\n";
        drawChildren(c.sw->name, indent + (last ? "   " : "│  "));
      } else {
        out_ += indent + branch + port + linkText(c.dev->link) + " ── " + deviceText(*c.dev) + "\n";
      }
    }
  }

  const SystemSpec& sys_;
  std::map<std::string, std::vector<Child>> children_;
  std::string out_;
};

}  // namespace

std::string drawTopologyTree(const SystemSpec& sys) {
  return TreeDrawer(sys).draw();
}

}  // namespace ascendsim::tools
