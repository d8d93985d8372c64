#include "tools/csv_table.h"

#include <fstream>
#include <sstream>

#include "runtime/core/input_file.h"

namespace ascendsim::tools {

std::string csvField(const std::string& f) {
  if (f.find_first_of(",\"\n") == std::string::npos) return f;
  std::string q = "\"";
  for (char c : f) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

Row parseCsvLine(const std::string& line) {
  Row row;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  row.push_back(field);
  return row;
}

bool readCsv(const std::string& path, Row& header, std::vector<Row>& rows, std::string* why) {
  // A regular file of a sensible size (a sweep's 100,000 points take some tens of MiB): a FIFO
  // or /dev/zero is refused, not waited for or read for ever.
  constexpr uint64_t kLargest = 256ull << 20;
  std::string text, whyNot;
  if (!runtime::readRegularFile(path, kLargest, text, whyNot)) {
    if (why) *why = whyNot;
    return false;
  }
  std::istringstream in(text);
  std::string line;
  // Files written on Windows end their lines in CR LF.
  auto next = [&] {
    if (!std::getline(in, line)) return false;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  };
  if (!next()) return false;
  header = parseCsvLine(line);
  while (next()) {
    if (!line.empty()) rows.push_back(parseCsvLine(line));
  }
  return true;
}

std::string csvText(const Row& header, const std::vector<Row>& rows) {
  std::string out;
  auto line = [&](const Row& r) {
    for (size_t i = 0; i < r.size(); ++i) out += (i ? "," : "") + csvField(r[i]);
    out += "\n";
  };
  line(header);
  for (const Row& r : rows) line(r);
  return out;
}

}  // namespace ascendsim::tools
