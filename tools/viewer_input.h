#pragma once
// What `ascendsim view` makes of a trace before it goes into the page (tools/view_command.cpp):
// one streaming pass over the Chrome Trace Event JSON (nlohmann's SAX interface: no DOM of the
// trace is held, only its columns) and the page's data made from those columns. Apart so that
// the fuzzer (fuzz/viewer_fuzzer.cpp) can drive it with any bytes.
//
// The page's data is a small JSON header (strings, processes, tracks, counters) and one binary
// block of little-endian columns that the header points into by byte offset, each column 8-byte
// aligned so that the page can view it as a Float64Array or Uint32Array without copying:
//   a track's slices, by start time: ts, dur (f64, us), kind (u32, into `kinds`), argStart and
//     argCount (u32, a range of `members`);
//   a counter's samples, by time: ts, value (f64);
//   the flows (arrows), by start time: fromTs, toTs (f64), fromTrack, toTrack (u32, into tracks);
//   members (u32): each argument of each slice as a string id, its text `"key":value`.

#include <cstdint>
#include <istream>
#include <string>
#include <utility>
#include <vector>

namespace ascendsim::tools {

struct ViewerProcess {
  int64_t pid = 0;
  std::string name;
  int64_t sort = 0;
};

// One (pid, tid) track: its slices ("ph":"X"), sorted by start time.
struct ViewerTrack {
  int64_t pid = 0, tid = 0;
  std::string name;
  int64_t sort = 0;
  std::vector<double> ts, dur;
  std::vector<uint32_t> kind, argStart, argCount;
};

// One series of a counter ("ph":"C"): the series' key is its unit ("GB/s", "MiB", "%", "ns").
struct ViewerCounter {
  int64_t pid = 0;
  std::string name, unit;
  std::vector<double> ts, value;
};

// A flow arrow: from a point on one track to a point on another.
struct ViewerFlow {
  double fromTs = 0, toTs = 0;
  uint32_t fromTrack = 0, toTrack = 0;
};

struct ViewerTrace {
  std::vector<ViewerProcess> processes;
  std::vector<ViewerTrack> tracks;
  std::vector<ViewerCounter> counters;
  std::vector<ViewerFlow> flows;
  std::vector<std::string> strings;                  // interned
  std::vector<std::pair<uint32_t, uint32_t>> kinds;  // a slice's (name, category) string ids
  std::vector<uint32_t> members;                     // string ids, slice after slice
  uint64_t events = 0;                               // every event read, of any phase
  uint64_t unmatchedFlows = 0;                       // flow ends whose other end never came
  bool cutOff = false;                               // the file ended inside the trace
};

enum class TraceRead {
  Whole,      // the whole file is a trace
  CutOff,     // a trace cut off by a crash: the events before the cut are kept
  NotATrace,  // neither: not JSON, or JSON that is not an array of events or {"traceEvents": [..]}
};

// Reads `size` bytes of `in` as a trace into `out` in one pass.
TraceRead readTrace(std::istream& in, uint64_t size, ViewerTrace& out);

// A trace split by rotation (NAME.json, NAME.1.json, ...): its parts in order, read as one trace.
struct TracePart {
  std::istream* in;
  uint64_t size;
};
TraceRead readTrace(const std::vector<TracePart>& parts, ViewerTrace& out);

// The page's data for `trace`: the header as JSON (before scriptSafe) and the binary block. The
// columns are moved into the block one by one (freed as they go), so `trace` is left emptied.
void viewerData(ViewerTrace& trace, std::string& header, std::string& binary);

// Appends the base64 (RFC 4648, with padding) of `size` bytes at `data` to `out`.
void appendBase64(std::string& out, const char* data, size_t size);

// JSON to embed inside <script>: every '<' (only inside strings in JSON) becomes "\u003c", so no
// "</script" or "<!--<script" in a name can change how the page parses. The same JSON value.
std::string scriptSafe(const std::string& json);

}  // namespace ascendsim::tools
