#include "bench/dram_trace.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ascendsim::bench {
namespace {

bool parseAddress(const std::string& text, uint64_t& out) {
  if (text.empty()) return false;
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  char* end = nullptr;
  errno = 0;
  out = std::strtoull(text.c_str(), &end, hex ? 16 : 10);
  return errno == 0 && end && *end == '\0' && (!hex || text.size() > 2);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "31: read 0x400140" or "31:\tread\t0x400140\t<data>".
bool parseStl(const std::string& line, TraceRequest& r, std::string& why) {
  const size_t colon = line.find(':');
  if (colon == std::string::npos) {
    why = "expected 'CYCLE: read|write ADDRESS'";
    return false;
  }
  std::istringstream in(line.substr(colon + 1));
  std::string command, address;
  in >> command >> address;
  command = lower(command);
  if (command != "read" && command != "write") {
    why = "command '" + command + "' is not read or write";
    return false;
  }
  if (!parseAddress(address, r.address)) {
    why = "address '" + address + "' is not a number";
    return false;
  }
  r.write = command == "write";
  return true;
}

// "LD 0x400140" / "ST 0x400140".
bool parseRamulator(const std::string& line, TraceRequest& r, std::string& why) {
  std::istringstream in(line);
  std::string command, address, extra;
  in >> command >> address;
  if (in >> extra) {
    why = "unexpected '" + extra + "' after the address (expected 'LD|ST ADDRESS')";
    return false;
  }
  if (command != "LD" && command != "ST") {
    why = "command '" + command + "' is not LD or ST";
    return false;
  }
  if (!parseAddress(address, r.address)) {
    why = "address '" + address + "' is not a number";
    return false;
  }
  r.write = command == "ST";
  return true;
}

}  // namespace

bool readTrace(const std::string& path, TraceFormat format, std::vector<TraceRequest>& out,
               std::string& why) {
  std::ifstream in(path);
  if (!in) {
    why = path + ": cannot read";
    return false;
  }
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    if (format == TraceFormat::Detect)
      format = line.find(':') != std::string::npos ? TraceFormat::Stl : TraceFormat::Ramulator;
    TraceRequest r;
    std::string lineWhy;
    const bool ok = format == TraceFormat::Stl ? parseStl(line, r, lineWhy)
                                               : parseRamulator(line.substr(first), r, lineWhy);
    if (!ok) {
      why = path + ":" + std::to_string(lineNo) + ": " + lineWhy;
      return false;
    }
    out.push_back(r);
  }
  if (out.empty()) {
    why = path + ": no requests";
    return false;
  }
  return true;
}

}  // namespace ascendsim::bench
