#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "spec/field_reader.h"
#include "tools/run/workload.h"

namespace ascendsim::tools {
namespace {

using spec::ConfigNode;
using spec::Diagnostics;
using spec::FieldReader;

struct Names {
  std::set<std::string> buffers, streams, events;
};

void checkName(FieldReader& r, const std::string& key, const std::string& value,
               const std::set<std::string>& known, const char* what) {
  if (value.empty() || known.count(value)) return;
  r.error(key,
          "no " + std::string(what) + " called '" + value + "'" +
              FieldReader::suggestion(value, std::vector<std::string>(known.begin(), known.end())));
}

std::vector<WorkloadStep> readSteps(const ConfigNode& node, const std::string& path,
                                    Diagnostics& diag, const Names& names);

WorkloadStep readStep(const ConfigNode& node, const std::string& path, Diagnostics& diag,
                      const Names& names) {
  WorkloadStep s;
  s.where = node.where();
  if (!node.isMap() || node.entries().size() != 1) {
    diag.error(node.where(), path,
               "a step is one of: alloc, free, memcpy, memset, compute, record, wait, sync, "
               "peer_access, repeat, "
               "written as `memcpy: { dst: d0, src: h0 }`");
    return s;
  }
  const ConfigNode::Entry& e = node.entries().front();
  const std::string step = path + "." + e.key;
  // Short forms: `free: d0`, `alloc: d0`, `sync: device`.
  if (e.value.isScalar()) {
    if (e.key == "free" || e.key == "alloc") {
      s.op = e.key == "free" ? WorkloadStep::Op::Free : WorkloadStep::Op::Alloc;
      s.dst = e.value.value();
      if (!names.buffers.count(s.dst))
        diag.error(e.value.where(), step, "no buffer called '" + s.dst + "'");
      return s;
    }
    if (e.key == "sync" && e.value.value() == "device") {
      s.op = WorkloadStep::Op::SyncDevice;
      return s;
    }
  }
  FieldReader r(e.value, step, diag);
  if (e.key == "memcpy" || e.key == "memset") {
    s.op = e.key == "memcpy" ? WorkloadStep::Op::Memcpy : WorkloadStep::Op::Memset;
    r.text("dst", s.dst, true);
    checkName(r, "dst", s.dst, names.buffers, "buffer");
    if (s.op == WorkloadStep::Op::Memcpy) {
      r.text("src", s.src, true);
      checkName(r, "src", s.src, names.buffers, "buffer");
      r.bytes("src_offset", s.srcOffset, 0, uint64_t{1} << 50);
    } else {
      uint32_t v = 0;
      r.integer("value", v, 0, 255);
      s.value = static_cast<int>(v);
    }
    r.bytes("size", s.size, 1, uint64_t{1} << 50);
    r.bytes("dst_offset", s.dstOffset, 0, uint64_t{1} << 50);
    r.boolean("async", s.async);
    r.text("stream", s.stream);
    checkName(r, "stream", s.stream, names.streams, "stream");
  } else if (e.key == "compute") {
    s.op = WorkloadStep::Op::Compute;
    s.name = "compute";
    r.text("name", s.name);
    r.bytes("read", s.bytesRead, 0, uint64_t{1} << 50);
    r.bytes("written", s.bytesWritten, 0, uint64_t{1} << 50);
    r.integer("ops", s.ops, 0, int64_t{1} << 60);
    r.integerOneOf("op_bytes", s.opBytes, {1, 2, 4, 8});
    r.text("buffer", s.computeBuffer);
    checkName(r, "buffer", s.computeBuffer, names.buffers, "buffer");
    r.choice("access", s.access, {{"sequential", 0}, {"strided", 1}, {"random", 2}});
    r.bytes("stride", s.stride, 1, uint64_t{1} << 40);
    r.bytes("access_size", s.accessBytes, 32, uint64_t{1} << 40);
    if (s.computeBuffer.empty() && (e.value.find("access") || e.value.find("stride"))) {
      r.error("access",
              "'access' and 'stride' place the traffic in a device buffer: name it with 'buffer'");
    }
    if (s.access == 1 && s.stride == 0)
      r.error("access", "access: strided needs a stride (e.g. stride: 4KiB)");
    if (s.access != 1 && e.value.find("stride"))
      r.error("stride", "stride goes with access: strided");
    if (s.access == 0 && e.value.find("access_size"))
      r.error("access_size", "access_size goes with access: strided or random (a gather's size)");
    if (s.accessBytes % 32 != 0) {
      r.error("access_size",
              "access_size must be a multiple of 32 bytes (the AI Core's data "
              "block), e.g. 64B");
    }
    r.text("stream", s.stream);
    checkName(r, "stream", s.stream, names.streams, "stream");
  } else if (e.key == "record" || e.key == "wait") {
    s.op = e.key == "record" ? WorkloadStep::Op::Record : WorkloadStep::Op::Wait;
    r.text("event", s.event, true);
    checkName(r, "event", s.event, names.events, "event");
    r.text("stream", s.stream);
    checkName(r, "stream", s.stream, names.streams, "stream");
  } else if (e.key == "sync") {
    const bool hasEvent = e.value.isMap() && e.value.find("event");
    const bool hasDevice = e.value.isMap() && e.value.find("device");
    s.op = hasEvent    ? WorkloadStep::Op::SyncEvent
           : hasDevice ? WorkloadStep::Op::SyncDevice
                       : WorkloadStep::Op::SyncStream;
    r.text("stream", s.stream);
    checkName(r, "stream", s.stream, names.streams, "stream");
    r.text("event", s.event);
    checkName(r, "event", s.event, names.events, "event");
    uint32_t dev = 0;
    if (r.integer("device", dev, 0, 1023)) s.device = static_cast<int>(dev);
  } else if (e.key == "peer_access") {
    s.op = WorkloadStep::Op::PeerAccess;
    uint32_t peer = 0;
    if (r.integer("peer", peer, 0, 1023, true)) s.device = static_cast<int>(peer);
  } else if (e.key == "repeat") {
    s.op = WorkloadStep::Op::Repeat;
    r.integer("times", s.times, 1, 1000000, true);
    if (const ConfigNode* body = r.require("steps"))
      s.body = readSteps(*body, step + ".steps", diag, names);
  } else {
    const std::vector<std::string> ops{"alloc",  "free", "memcpy", "memset",      "compute",
                                       "record", "wait", "sync",   "peer_access", "repeat"};
    diag.error(e.keyWhere, step,
               "unknown step" + FieldReader::suggestion(e.key, ops) +
                   "; steps: " + FieldReader::join(ops));
    return s;
  }
  r.finish();
  return s;
}

std::vector<WorkloadStep> readSteps(const ConfigNode& node, const std::string& path,
                                    Diagnostics& diag, const Names& names) {
  std::vector<WorkloadStep> steps;
  if (!node.isList()) {
    diag.error(node.where(), path, "expected a list of steps");
    return steps;
  }
  for (size_t i = 0; i < node.items().size(); ++i) {
    steps.push_back(readStep(node.items()[i], path + "[" + std::to_string(i) + "]", diag, names));
  }
  return steps;
}

void readObjects(const ConfigNode* list, const std::string& path, Diagnostics& diag,
                 std::vector<WorkloadObject>& out, std::set<std::string>& names) {
  if (!list) return;
  if (!list->isList()) {
    diag.error(list->where(), path, "expected a list such as [ { name: s0, device: 0 } ]");
    return;
  }
  for (size_t i = 0; i < list->items().size(); ++i) {
    FieldReader r(list->items()[i], path + "[" + std::to_string(i) + "]", diag);
    WorkloadObject o;
    r.text("name", o.name, true);
    uint32_t d = 0;
    if (r.integer("device", d, 0, 1023)) o.device = static_cast<int>(d);
    if (!o.name.empty() && !names.insert(o.name).second)
      r.error("name", "'" + o.name + "' is declared twice");
    r.finish();
    out.push_back(o);
  }
}

}  // namespace

Workload readWorkloadText(const std::string& text, const std::string& fileName) {
  Diagnostics diag;
  const ConfigNode root = spec::parseYaml(text, fileName, diag);
  Workload w;
  w.source = fileName;
  if (!diag.empty()) throw spec::ConfigError(diag.items());
  FieldReader r(root, "", diag);
  if (!r.isMap()) throw spec::ConfigError(diag.items());
  r.text("name", w.name);
  r.text("description", w.description);
  Names names;
  if (const ConfigNode* bufs = r.require("buffers")) {
    if (!bufs->isList()) {
      r.error("buffers", "expected a list of buffers");
    } else {
      for (size_t i = 0; i < bufs->items().size(); ++i) {
        FieldReader b(bufs->items()[i], "buffers[" + std::to_string(i) + "]", diag);
        WorkloadBuffer buf;
        b.text("name", buf.name, true);
        b.choice("memory", buf.memory,
                 {{"device", WorkloadBuffer::Memory::Device},
                  {"pinned", WorkloadBuffer::Memory::Pinned},
                  {"pageable", WorkloadBuffer::Memory::Pageable}},
                 true);
        uint32_t d = 0;
        if (b.integer("device", d, 0, 1023)) buf.device = static_cast<int>(d);
        b.bytes("size", buf.size, 1, uint64_t{1} << 46, true);
        b.boolean("allocated", buf.allocated);
        if (!buf.name.empty() && !names.buffers.insert(buf.name).second)
          b.error("name", "'" + buf.name + "' is declared twice");
        b.finish();
        w.buffers.push_back(buf);
      }
    }
  }
  readObjects(r.take("streams"), "streams", diag, w.streams, names.streams);
  readObjects(r.take("events"), "events", diag, w.events, names.events);
  const ConfigNode* steps = r.take("steps");
  const ConfigNode* threads = r.take("threads");
  if (steps && threads)
    r.error("threads", "give either `steps` (one thread) or `threads`, not both");
  if (!steps && !threads) r.errorAtMap("missing `steps` (or `threads` with steps each)");
  if (steps) {
    uint32_t d = 0;
    WorkloadThread main{"main", 0, {}};
    if (r.integer("device", d, 0, 1023)) main.device = static_cast<int>(d);
    main.steps = readSteps(*steps, "steps", diag, names);
    w.threads.push_back(main);
  } else if (threads) {
    if (!threads->isList()) {
      r.error("threads", "expected a list of threads");
    } else {
      for (size_t i = 0; i < threads->items().size(); ++i) {
        const std::string path = "threads[" + std::to_string(i) + "]";
        FieldReader t(threads->items()[i], path, diag);
        WorkloadThread th{"thread" + std::to_string(i), 0, {}};
        t.text("name", th.name);
        uint32_t d = 0;
        if (t.integer("device", d, 0, 1023)) th.device = static_cast<int>(d);
        if (const ConfigNode* s = t.require("steps"))
          th.steps = readSteps(*s, path + ".steps", diag, names);
        t.finish();
        w.threads.push_back(th);
      }
    }
  }
  r.finish();
  if (!diag.empty()) throw spec::ConfigError(diag.items());
  return w;
}

Workload readWorkload(const std::string& path) {
  // A regular file of a sensible size: a device or FIFO (/dev/zero) is refused, not read for ever.
  constexpr uintmax_t kLargest = 64ull << 20;
  std::error_code ec;
  const bool regular = std::filesystem::is_regular_file(path, ec);
  const uintmax_t size = regular ? std::filesystem::file_size(path, ec) : 0;
  std::ifstream in(path);
  if (!regular || !in || size > kLargest) {
    Diagnostics diag;
    diag.error({path, 0, 0}, "",
               !regular ? "the workload is not a regular file"
               : size > kLargest
                   ? "the workload is larger than 64 MiB; a workload script is a few KiB of YAML"
                   : "cannot read the workload file");
    throw spec::ConfigError(diag.items());
  }
  std::stringstream text;
  text << in.rdbuf();
  return readWorkloadText(text.str(), path);
}

}  // namespace ascendsim::tools
