#include "tools/collectives/setting_sweep.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "tools/atomic_file.h"
#include "tools/csv_table.h"
#include "tools/exit_codes.h"
#include "tools/sweep/sweep_grid.h"

namespace ascendsim::tools {
namespace {

// A file name for one point's rows, made unique by the process id and the point's number.
std::string pointFile(size_t index) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/ascendsim-collectives-" +
         std::to_string(getpid()) + "-" + std::to_string(index) + ".csv";
}

// Runs `point` in a child process and returns its exit code.
int inChild(const SweepPoint& point, const std::vector<std::string>& sets, const std::string& csv) {
  std::cout.flush();
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return kExitFailure;
  if (pid == 0) {
    const int code = point(sets, csv);
    std::cout.flush();
    std::fflush(nullptr);
    _exit(code);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) return kExitFailure;
  return WEXITSTATUS(status);
}

// One line per row: the settings, then the figures hccl_test prints.
void printSummary(size_t keys, const Row& header, const std::vector<Row>& rows) {
  std::vector<size_t> columns;
  for (size_t k = 0; k <= keys; ++k) columns.push_back(k);
  for (const char* name : {"data_size_bytes", "avg_time_us", "alg_bandwidth_GBps",
                           "bus_bandwidth_GBps", "check_result"}) {
    for (size_t c = keys + 1; c < header.size(); ++c) {
      if (header[c] == name) columns.push_back(c);
    }
  }
  auto print = [&](const Row& r) {
    std::string line;
    for (size_t c : columns) line += (line.empty() ? "" : " | ") + r[c];
    std::cout << line << "\n";
  };
  std::cout << "== every point\n";
  print(header);
  for (const Row& r : rows) print(r);
}

}  // namespace

int runSettingSweep(const std::vector<std::string>& sweeps, const SweepPoint& point,
                    const std::string& csvOut) {
  std::vector<SweepParameter> params;
  std::string why;
  for (const std::string& text : sweeps) {
    const auto p = parseSet(text, why);
    if (!p) {
      std::cerr << "ascendsim collectives: --sweep " << text << ": " << why << "\n";
      return kExitUsage;
    }
    params.push_back(*p);
  }
  if (!gridWithinLimit(params, why)) {
    std::cerr << "ascendsim collectives: " << why << "\n";
    return kExitUsage;
  }
  const std::vector<std::vector<std::string>> grid = crossProduct(params);
  Row header;
  for (const SweepParameter& p : params) header.push_back(p.key);
  header.push_back("status");
  std::vector<Row> rows;
  int result = kExitOk;
  for (size_t i = 0; i < grid.size(); ++i) {
    std::vector<std::string> sets;
    std::string title;
    for (size_t k = 0; k < params.size(); ++k) {
      sets.push_back(params[k].key + "=" + grid[i][k]);
      title += (k ? ", " : "") + sets.back();
    }
    std::cout << "== point " << i + 1 << " of " << grid.size() << ": " << title << "\n";
    const std::string csv = pointFile(i);
    const int code = inChild(point, sets, csv);
    Row pointHeader;
    std::vector<Row> pointRows;
    const bool read = code == kExitOk && readCsv(csv, pointHeader, pointRows);
    std::remove(csv.c_str());
    if (header.size() == params.size() + 1 && read) {
      header.insert(header.end(), pointHeader.begin(), pointHeader.end());
    }
    if (!read) {
      if (result == kExitOk) result = code == kExitOk ? kExitFailure : code;
      Row failed = grid[i];
      failed.push_back("failed (exit " + std::to_string(code) + ")");
      rows.push_back(failed);
      continue;
    }
    for (const Row& r : pointRows) {
      Row row = grid[i];
      row.push_back("ok");
      row.insert(row.end(), r.begin(), r.end());
      rows.push_back(row);
    }
  }
  for (Row& r : rows) r.resize(header.size());
  printSummary(params.size(), header, rows);
  if (!csvOut.empty() && !writeOutput(csvOut, csvText(header, rows), "collectives"))
    return kExitFailure;
  return result;
}

}  // namespace ascendsim::tools
