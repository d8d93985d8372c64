#include "tools/compare/run_metrics.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tools/csv_table.h"

namespace ascendsim::tools {
namespace {

constexpr uintmax_t kMostInputBytes = 256ull << 20;

// Entries of arrays are named by their "name" (resources, memories) or "device"/"stream" fields
// (streams), else by their index; per-copy rows are left out (the totals and percentiles carry
// them).
std::string entryName(const nlohmann::json& e, size_t index) {
  if (e.is_object() && e.contains("name") && e["name"].is_string()) return e["name"];
  if (e.is_object() && e.contains("device") && e.contains("stream")) {
    const auto& d = e["device"];
    return (d.is_string() ? d.get<std::string>() : d.dump()) + ".stream" + e["stream"].dump();
  }
  return std::to_string(index);
}

void flatten(const nlohmann::json& j, const std::string& prefix, RunMetrics& out) {
  if (j.is_number()) {
    out.emplace_back(prefix, j.get<double>());
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (prefix.empty() && (it.key() == "copies" || it.key() == "warnings")) continue;
      flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) flatten(j[i], prefix + "." + entryName(j[i], i), out);
  }
}

bool numeric(const std::string& text, double& v) {
  if (text.empty()) return false;
  char* end = nullptr;
  v = std::strtod(text.c_str(), &end);
  return end && *end == '\0';
}

bool fromCsv(const std::string& path, RunMetrics& out, std::string& why) {
  Row header;
  std::vector<Row> rows;
  if (!readCsv(path, header, rows, &why)) return false;
  for (const Row& row : rows) {
    std::string key;
    for (size_t c = 0; c < row.size() && c < header.size(); ++c) {
      double v = 0;
      if (!numeric(row[c], v)) key += (key.empty() ? "" : ",") + header[c] + "=" + row[c];
    }
    for (size_t c = 0; c < row.size() && c < header.size(); ++c) {
      double v = 0;
      if (numeric(row[c], v)) out.emplace_back((key.empty() ? "" : key + ".") + header[c], v);
    }
  }
  return true;
}

}  // namespace

bool readRunMetrics(const std::string& path, RunMetrics& out, std::string& why) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    why = "'" + path + "' is not a regular file";
    return false;
  }
  if (std::filesystem::file_size(path, ec) > kMostInputBytes) {
    why = "'" + path + "' is larger than 256 MiB";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  const std::string text = s.str();
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_discarded() && j.is_object()) {
    flatten(j, "", out);
  } else if (!fromCsv(path, out, why)) {
    why = "'" + path + "' is neither a run report (JSON) nor a table (CSV): " + why;
    return false;
  }
  if (out.empty()) {
    why = "'" + path + "' holds no figure to compare";
    return false;
  }
  return true;
}

}  // namespace ascendsim::tools
