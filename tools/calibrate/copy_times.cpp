#include "tools/calibrate/copy_times.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "runtime/core/input_file.h"
#include "spec/units.h"
#include "tools/csv_table.h"

namespace ascendsim::tools {
namespace {

std::string trimmedLower(std::string s) {
  s.erase(s.begin(),
          std::find_if(s.begin(), s.end(), [](unsigned char c) { return !std::isspace(c); }));
  s.erase(
      std::find_if(s.rbegin(), s.rend(), [](unsigned char c) { return !std::isspace(c); }).base(),
      s.end());
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool parseRow(const Row& fields, size_t sizeCol, size_t dirCol, size_t secCol, CopyTime& out,
              std::string& why) {
  if (std::max({sizeCol, dirCol, secCol}) >= fields.size()) {
    why = "expected " + std::to_string(std::max({sizeCol, dirCol, secCol}) + 1) +
          " fields, found " + std::to_string(fields.size());
    return false;
  }
  std::string unitWhy;
  const std::string sizeText = trimmedLower(fields[sizeCol]);
  const bool digits = !sizeText.empty() && std::all_of(sizeText.begin(), sizeText.end(), ::isdigit);
  const auto bytes = digits ? spec::parseInteger(sizeText, unitWhy).value_or(0) : 0;
  if (digits && bytes > 0) {
    out.size = static_cast<uint64_t>(bytes);
  } else if (auto b = spec::parseBytes(fields[sizeCol], unitWhy); b && *b > 0) {
    out.size = *b;
  } else {
    why = "size '" + fields[sizeCol] + "' is not a positive number of bytes";
    return false;
  }
  out.direction = trimmedLower(fields[dirCol]);
  if (out.direction != "h2d" && out.direction != "d2h") {
    why = "direction '" + fields[dirCol] + "' is not h2d or d2h";
    return false;
  }
  const std::string sec = trimmedLower(fields[secCol]);
  char* end = nullptr;
  out.seconds = std::strtod(sec.c_str(), &end);
  if (sec.empty() || *end != '\0' || !std::isfinite(out.seconds) || out.seconds <= 0) {
    why = "seconds '" + fields[secCol] + "' is not a positive number";
    return false;
  }
  return true;
}

}  // namespace

bool readCopyTimes(const std::string& path, std::vector<CopyTime>& rows, std::string& why) {
  // A regular file of at most 64 MiB: a FIFO or /dev/zero is refused, not waited for or read for
  // ever.
  std::string text, whyNot;
  if (!runtime::readRegularFile(path, 64ull << 20, text, whyNot)) {
    why = path + ": cannot read (" + whyNot + ")";
    return false;
  }
  std::istringstream in(text);
  std::string line;
  int lineNo = 0;
  size_t sizeCol = 0, dirCol = 0, secCol = 0;
  bool haveHeader = false;
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos ||
        line[line.find_first_not_of(" \t")] == '#')
      continue;
    const Row fields = parseCsvLine(line);
    if (!haveHeader) {
      auto column = [&](const char* name, size_t& col) {
        for (size_t i = 0; i < fields.size(); ++i) {
          if (trimmedLower(fields[i]) == name) {
            col = i;
            return true;
          }
        }
        why = path + ":" + std::to_string(lineNo) + ": the header has no '" + name +
              "' column (expected size,direction,seconds)";
        return false;
      };
      if (!column("size", sizeCol) || !column("direction", dirCol) || !column("seconds", secCol))
        return false;
      haveHeader = true;
      continue;
    }
    CopyTime row;
    std::string rowWhy;
    if (!parseRow(fields, sizeCol, dirCol, secCol, row, rowWhy)) {
      why = path + ":" + std::to_string(lineNo) + ": " + rowWhy;
      return false;
    }
    row.line = lineNo;
    rows.push_back(row);
  }
  if (!haveHeader || rows.empty()) {
    why =
        path + ": no measurements (expected a header size,direction,seconds and one row per copy)";
    return false;
  }
  return true;
}

}  // namespace ascendsim::tools
