// libFuzzer target: any bytes as the trace `ascendsim view` puts into its page (issues #32, #34).
// A trace it reads must give columns that hold together: every slice's kind, argument members,
// every flow's tracks within their tables, slices and samples in time order; a trace read whole
// must be JSON. The page's header must hold no '<'
// once script-safe (no "</script" or "<!--<script" can end or change its element) and parse to
// the same JSON; every column the header points to must lie inside the binary block; and the
// block's base64 must decode back to it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tools/viewer_input.h"

namespace {

using ascendsim::tools::TraceRead;
using ascendsim::tools::ViewerTrace;

void check(bool ok) {
  if (!ok) std::abort();
}

template <typename T>
bool sorted(const std::vector<T>& v) {
  for (size_t i = 1; i < v.size(); ++i) {
    if (v[i] < v[i - 1]) return false;
  }
  return true;
}

std::string decode64(const std::string& text) {
  std::string out;
  uint32_t bits = 0;
  int have = 0;
  for (char c : text) {
    int v = -1;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    if (c >= '0' && c <= '9') v = c - '0' + 52;
    if (c == '+') v = 62;
    if (c == '/') v = 63;
    if (v < 0) continue;
    bits = bits << 6 | static_cast<uint32_t>(v);
    have += 6;
    if (have >= 8) {
      have -= 8;
      out += static_cast<char>((bits >> have) & 0xff);
    }
  }
  return out;
}

// A column of `count` values of `width` bytes at `at` lies inside the block, 8-byte aligned.
void inside(const nlohmann::json& at, const nlohmann::json& count, size_t width, size_t bytes) {
  const size_t offset = at.get<size_t>();
  check(offset % 8 == 0 && offset + count.get<size_t>() * width <= bytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  std::istringstream in(bytes);
  ViewerTrace trace;
  const TraceRead read = ascendsim::tools::readTrace(in, size, trace);
  if (read == TraceRead::NotATrace) return 0;
  if (read == TraceRead::Whole) check(nlohmann::json::accept(bytes));
  for (const auto& t : trace.tracks) {
    check(sorted(t.ts));
    for (size_t i = 0; i < t.ts.size(); ++i) {
      check(t.kind[i] < trace.kinds.size());
      check(t.argStart[i] + t.argCount[i] <= trace.members.size());
    }
  }
  for (const auto& c : trace.counters) check(sorted(c.ts) && c.ts.size() == c.value.size());
  for (const auto& f : trace.flows) {
    check(f.fromTrack < trace.tracks.size() && f.toTrack < trace.tracks.size());
  }
  for (const auto& [name, cat] : trace.kinds) {
    check(name < trace.strings.size() && cat < trace.strings.size());
  }
  for (uint32_t m : trace.members) check(m < trace.strings.size());

  std::string header, binary;
  ascendsim::tools::viewerData(trace, header, binary);
  const std::string safe = ascendsim::tools::scriptSafe(header);
  check(safe.find('<') == std::string::npos);
  nlohmann::json h;
  try {
    h = nlohmann::json::parse(header);
    check(nlohmann::json::parse(safe) == h);
  } catch (const nlohmann::json::exception&) {
    std::abort();  // the header is not JSON
  }
  check(h["bytes"].get<size_t>() == binary.size());
  for (const auto& t : h["tracks"]) {
    for (const char* column : {"ts", "dur"}) inside(t[column], t["n"], 8, binary.size());
    for (const char* column : {"kind", "argStart", "argCount"}) {
      inside(t[column], t["n"], 4, binary.size());
    }
  }
  for (const auto& c : h["counters"]) {
    for (const char* column : {"ts", "value"}) inside(c[column], c["n"], 8, binary.size());
  }
  const auto& f = h["flows"];
  for (const char* column : {"fromTs", "toTs"}) inside(f[column], f["n"], 8, binary.size());
  for (const char* column : {"fromTrack", "toTrack"}) inside(f[column], f["n"], 4, binary.size());
  inside(h["members"]["at"], h["members"]["n"], 4, binary.size());
  std::string encoded = "x";  // appended to, not replaced
  ascendsim::tools::appendBase64(encoded, binary.data(), binary.size());
  check(encoded.size() == 1 + (binary.size() + 2) / 3 * 4 && decode64(encoded.substr(1)) == binary);
  return 0;
}
