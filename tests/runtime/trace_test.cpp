// The timing trace: tracks, events, flows and durations of a small fixed program (a golden
// summary), byte-identical output for identical runs, and a well-formed file after SIGINT.
// Each run is a child process: SystemC elaborates once per process, and the trace is completed
// when the process ends.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

#include "acl_fixture.h"
#include "ascendsim/compute.h"

namespace {

// The fixed program: 64 MiB up and back down on one stream of the default machine.
void fixedProgram(bool interrupt) {
  const size_t n = 64 << 20;
  void *h = nullptr, *d = nullptr;
  aclrtStream s = nullptr;
  if (aclInit(nullptr) || aclrtSetDevice(0) || aclrtCreateStream(&s)) std::exit(2);
  if (aclrtMallocHost(&h, n) || aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST)) std::exit(2);
  if (aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, s)) std::exit(2);
  if (aclrtMemcpyAsync(h, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST, s)) std::exit(2);
  if (aclrtSynchronizeStream(s)) std::exit(2);
  if (interrupt) std::raise(SIGINT);  // never calls aclFinalize
  aclrtFree(d);
  aclrtFreeHost(h);
  aclrtDestroyStream(s);
  aclrtResetDevice(0);
  aclFinalize();
}

// In a child: the fixed program with its trace going to `path`; never returns.
[[noreturn]] void runChildBody(const std::string& path, bool interrupt = false) {
  setenv("ASCENDSIM_TRACE", path.c_str(), 1);
  unsetenv("ASCENDSIM_CONFIG");
  fixedProgram(interrupt);
  std::exit(0);  // runs the exit handlers that end the trace
}

// Runs the fixed program in a child with its trace going to `path`; returns the wait status.
int runChild(const std::string& path, bool interrupt) {
  const pid_t pid = fork();
  if (pid == 0) runChildBody(path, interrupt);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Trace, GoldenSummaryOfAFixedProgram) {
  const std::string path = ::testing::TempDir() + "/golden-trace.json";
  const int status = runChild(path, false);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const nlohmann::json trace = nlohmann::json::parse(slurp(path));
  ASSERT_TRUE(trace.is_array());
  std::map<std::string, int> names, phases;
  std::map<std::pair<int, int>, std::string> tracks;
  std::map<uint64_t, int> flowStarts, flowEnds;
  double h2dMicros = 0;
  for (const auto& e : trace) {
    phases[e["ph"]]++;
    if (e["ph"] == "M" && e["name"] == "thread_name")
      tracks[{e["pid"], e["tid"]}] = e["args"]["name"];
    if (e["ph"] == "M" && e["name"] == "process_name")
      names["process " + e["args"]["name"].get<std::string>()]++;
    if (e["ph"] == "X") names[e["name"]]++;
    if (e["ph"] == "s") flowStarts[e["id"]]++;
    if (e["ph"] == "f") flowEnds[e["id"]]++;
    if (e["ph"] == "X" && e["name"] == "host (pinned) -> npu0") h2dMicros = e["dur"];
  }
  EXPECT_EQ(names["process Host (single-npu)"], 1);
  EXPECT_EQ(names["process npu0 (Ascend 910B4)"], 1);
  EXPECT_EQ((tracks[{0, 1}]), "Thread 0 (main)");
  // Stream ids count the runtime's synchronous-copy stream (0) and the default stream (1) first.
  EXPECT_EQ((tracks[{1, 1002}]), "Stream 2");
  EXPECT_EQ((tracks[{1, 100000}]), "DMA channel 0");
  EXPECT_EQ(names["MEMCPY_ASYNC"], 2);
  EXPECT_EQ(names["aclrtMemcpyAsync"], 2);
  EXPECT_EQ(names["npu0 -> host (pinned)"], 1);
  EXPECT_EQ(names["aclFinalize"], 1);
  // Every arrow has both ends: call -> task and task -> transfer for both copies.
  EXPECT_EQ(flowStarts.size(), 4u);
  EXPECT_EQ(flowStarts, flowEnds);
  // The H2D transfer: 64 MiB at Gen4 x16's completion-limited 26.37 GB/s = 2545 us, plus the
  // DMA setup and a round trip.
  EXPECT_NEAR(h2dMicros, 67108864.0 / 26.365e9 * 1e6, 0.01 * h2dMicros);
  // Bandwidth counters: npu0's down link runs at its TLP rate, 28.43 GB/s of wire bytes, while
  // busy.
  double peakDown = 0;
  int samples = 0;
  for (const auto& e : trace) {
    if (e["ph"] == "C" && e["name"] == "npu0.link.down") {
      peakDown = std::max(peakDown, e["args"]["GB/s"].get<double>());
      ++samples;
    }
  }
  EXPECT_GE(samples, 255);  // the 2.55 ms H2D (D2H uses the up direction), sampled every 10 us
  EXPECT_NEAR(peakDown, 28.43, 0.05);
  // Device memory held by allocations, in MiB: the 64 MiB buffer reserves its size rounded up to
  // 32 B plus 32 B (CANN's rule) = 67108896 B = 64.00003 MiB while allocated, and 0 once freed.
  std::vector<double> held;
  for (const auto& e : trace) {
    if (e["ph"] == "C" && e["name"] == "npu0.memory allocated")
      held.push_back(e["args"]["MiB"].get<double>());
  }
  ASSERT_FALSE(held.empty());
  EXPECT_NEAR(*std::max_element(held.begin(), held.end()), 67108896.0 / (1 << 20), 1e-4);
  EXPECT_EQ(held.back(), 0.0);
  // Complete events on one track never overlap (they nest, here: follow one another).
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
  for (const auto& e : trace) {
    if (e["ph"] == "X")
      slices[{e["pid"], e["tid"]}].push_back(
          {e["ts"], e["ts"].get<double>() + e["dur"].get<double>()});
  }
  for (auto& [track, v] : slices) {
    std::sort(v.begin(), v.end());
    for (size_t i = 1; i < v.size(); ++i)
      EXPECT_LE(v[i - 1].second, v[i].first + 1e-6) << track.first << "/" << track.second;
  }
}

// A stream that waits for another's event: an arrow from the record task (its stream's track,
// inside the record's slice) to the wait task (the waiting stream's track, at the moment the wait
// was released), one per wait; and each wait a slice of the time its stream was blocked.
TEST(Trace, ArrowsLeadFromAnEventsRecordToItsWaits) {
  const double kTaskLaunchUs = 1.0;  // configs/default.yaml: scheduler.task_launch
  const std::string path = ::testing::TempDir() + "/event-arrows.json";
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("ASCENDSIM_TRACE", path.c_str(), 1);
    unsetenv("ASCENDSIM_CONFIG");
    const size_t n = 16 << 20;
    void* d = nullptr;
    aclrtStream a = nullptr, b = nullptr;
    aclrtEvent e = nullptr;
    if (aclInit(nullptr) || aclrtSetDevice(0) || aclrtCreateStream(&a) || aclrtCreateStream(&b) ||
        aclrtCreateEvent(&e) || aclrtMalloc(&d, 2 * n, ACL_MEM_MALLOC_HUGE_FIRST))
      std::exit(2);
    if (aclrtMemsetAsync(d, n, 1, n, a) || aclrtRecordEvent(e, a) || aclrtStreamWaitEvent(b, e) ||
        aclrtMemcpyAsync(static_cast<char*>(d) + n, n, d, n, ACL_MEMCPY_DEVICE_TO_DEVICE, b) ||
        aclrtStreamWaitEvent(b, e) || aclrtSynchronizeDevice())
      std::exit(2);
    aclFinalize();
    std::exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const nlohmann::json trace = nlohmann::json::parse(slurp(path));
  nlohmann::json record, starts = nlohmann::json::array(), ends = nlohmann::json::array();
  std::vector<nlohmann::json> waits;
  for (const auto& ev : trace) {
    if (ev["ph"] == "X" && ev["name"] == "EVENT_RECORD") record = ev;
    if (ev["ph"] == "X" && ev["name"] == "EVENT_WAIT") waits.push_back(ev);
  }
  ASSERT_FALSE(record.is_null());
  ASSERT_EQ(waits.size(), 2u);
  for (const auto& w : waits) {
    const uint64_t id = (uint64_t{2} << 40) + w["args"]["task_id"].get<uint64_t>();
    int found = 0;
    for (const auto& ev : trace) {
      if (!ev.contains("id") || ev["id"] != id) continue;
      if (ev["ph"] == "s") {
        EXPECT_EQ(ev["tid"], record["tid"]);
        EXPECT_GE(ev["ts"].get<double>(), record["ts"].get<double>());
        EXPECT_LE(ev["ts"].get<double>(), record["ts"].get<double>() + record["dur"].get<double>());
        ++found;
      }
      if (ev["ph"] == "f") {
        // At the moment the wait was released: the end of its slice less the task launch.
        EXPECT_EQ(ev["tid"], w["tid"]);
        EXPECT_NEAR(ev["ts"].get<double>(),
                    w["ts"].get<double>() + w["dur"].get<double>() - kTaskLaunchUs, 1e-3);
        ++found;
      }
    }
    EXPECT_EQ(found, 2) << "wait task " << w["args"]["task_id"];
  }
  // Waits are slices of the time their stream was blocked. The first, queued on an idle stream at
  // once, blocks from its submission until the record on stream a (behind a 16 MiB memset) has
  // ended, then takes the default machine's task launch (configs/default.yaml: 1 us): it begins
  // before the record and ends 1 us after it, and `blocked_us` is the rest. The second reaches the
  // head of stream b when the copy before it ends, long after the record: not blocked, 1 us.
  const double recordEnd = record["ts"].get<double>() + record["dur"].get<double>();
  const nlohmann::json& first = waits[0]["ts"] < waits[1]["ts"] ? waits[0] : waits[1];
  const nlohmann::json& second = waits[0]["ts"] < waits[1]["ts"] ? waits[1] : waits[0];
  EXPECT_LT(first["ts"].get<double>(), record["ts"].get<double>());
  EXPECT_NEAR(first["ts"].get<double>() + first["dur"].get<double>(), recordEnd + kTaskLaunchUs,
              1e-3);
  EXPECT_NEAR(first["args"]["blocked_us"].get<double>(), first["dur"].get<double>() - kTaskLaunchUs,
              1e-3);
  EXPECT_NEAR(second["dur"].get<double>(), kTaskLaunchUs, 1e-3);
  EXPECT_EQ(second["args"]["blocked_us"].get<double>(), 0.0);
}

TEST(Trace, IdenticalRunsGiveByteIdenticalTraces) {
  const std::string a = ::testing::TempDir() + "/trace-a.json",
                    b = ::testing::TempDir() + "/trace-b.json";
  ASSERT_EQ(runChild(a, false), 0);
  ASSERT_EQ(runChild(b, false), 0);
  const std::string ta = slurp(a), tb = slurp(b);
  EXPECT_GT(ta.size(), 1000u);
  EXPECT_EQ(ta, tb);
}

TEST(Trace, WellFormedWhenTheProgramIsInterrupted) {
  const std::string path = ::testing::TempDir() + "/interrupted-trace.json";
  const int status = runChild(path, true);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  nlohmann::json trace;
  ASSERT_NO_THROW(trace = nlohmann::json::parse(slurp(path)));
  int copies = 0;
  for (const auto& e : trace) copies += e["ph"] == "X" && e["name"] == "MEMCPY_ASYNC";
  EXPECT_EQ(copies, 2);
}

}  // namespace

namespace {

// A program that gives the report something to say: copies of each kind, an asynchronous copy
// from pageable memory, a read of never-written device memory, and an allocation never freed.
int runReportChild(const std::string& path) {
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("ASCENDSIM_REPORT", path.c_str(), 1);
    setenv("ASCENDSIM_SUMMARY", "0", 1);
    unsetenv("ASCENDSIM_TRACE");
    unsetenv("ASCENDSIM_CONFIG");
    const size_t n = 64 << 20;
    void *h = nullptr, *d = nullptr, *leak = nullptr;
    std::vector<unsigned char> pageable(4096);
    if (aclInit(nullptr) || aclrtSetDevice(0)) std::exit(2);
    if (aclrtMallocHost(&h, n) || aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMalloc(&leak, 4096, ACL_MEM_MALLOC_HUGE_FIRST))
      std::exit(2);
    if (aclrtMemcpyAsync(pageable.data(), 4096, leak, 4096, ACL_MEMCPY_DEVICE_TO_HOST, nullptr))
      std::exit(2);
    if (aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, nullptr)) std::exit(2);
    if (aclrtMemcpyAsync(h, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST, nullptr)) std::exit(2);
    if (aclrtSynchronizeStream(nullptr)) std::exit(2);
    aclrtFree(d);
    aclrtFreeHost(h);
    aclFinalize();  // without aclrtResetDevice and with `leak` still allocated
    std::exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

}  // namespace

TEST(Report, JsonReportOfARun) {
  const std::string path = ::testing::TempDir() + "/report.json";
  ASSERT_EQ(runReportChild(path), 0);
  const nlohmann::json r = nlohmann::json::parse(slurp(path));
  EXPECT_EQ(r["schema"], "ascendsim-report/1");
  EXPECT_EQ(r["machine"], "single-npu");
  ASSERT_EQ(r["copies"].size(), 3u);
  EXPECT_EQ(r["copies_total"], 3);
  // The 64 MiB H2D: Gen4 x16 completion-limited, 28.43 GB/s x 256 / 276 = 26.37 GB/s.
  const auto& h2d = r["copies"][1];
  EXPECT_EQ(h2d["kind"], "H2D");
  EXPECT_EQ(h2d["bytes"], 64 << 20);
  EXPECT_NEAR(h2d["GBps"].get<double>(), 26.37, 0.3);
  EXPECT_EQ(r["copy_totals"]["D2H"]["count"], 2);
  bool linkSeen = false;
  for (const auto& x : r["resources"]) {
    if (x["name"] == "npu0.link.down") {
      linkSeen = true;
      EXPECT_GT(x["utilisation"].get<double>(), 0.4);
      EXPECT_NEAR(x["busy_GBps"].get<double>(), 28.43, 0.1);  // the link's TLP rate while busy
    }
  }
  EXPECT_TRUE(linkSeen);
  std::set<std::string> kinds;
  for (const auto& w : r["warnings"]) kinds.insert(w["kind"]);
  EXPECT_TRUE(kinds.count("pageable-async-copy"));
  EXPECT_TRUE(kinds.count("unwritten-read"));
  EXPECT_TRUE(kinds.count("memory-not-freed"));
}

// The same run's report in the other formats, chosen by the file's extension or by
// ASCENDSIM_REPORT_FORMAT whatever the name: CSV (a row per kind of copy, device, stream and busy
// resource, with the JSON's figures: one 64 MiB H2D at the link's 26.37 GB/s, 28.43 GB/s x
// 256 / 276, and two D2H) and the readable summary.
TEST(Report, CsvAndTextFormatsOfTheSameRun) {
  const std::string csv = ::testing::TempDir() + "/report.csv";
  ASSERT_EQ(runReportChild(csv), 0);
  std::map<std::string, std::vector<std::string>> rows;  // "section/name" -> fields
  std::istringstream in(slurp(csv));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "section,name,count,bytes,time_us,GBps,p50_us,p99_us,utilisation");
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    ASSERT_GE(f.size(), 6u) << line;
    rows[f[0] + "/" + f[1]] = f;
  }
  ASSERT_TRUE(rows.count("copies/H2D"));
  EXPECT_EQ(rows["copies/H2D"][2], "1");
  EXPECT_EQ(rows["copies/H2D"][3], std::to_string(64 << 20));
  EXPECT_NEAR(std::stod(rows["copies/H2D"][5]), 26.37, 0.3);
  // 64 MiB at 26.37 GB/s: 67108864 / 26.37e9 s = 2544.9 us.
  EXPECT_NEAR(std::stod(rows["copies/H2D"][4]), 2544.9, 30);
  EXPECT_EQ(rows["copies/D2H"][2], "2");
  EXPECT_EQ(rows["copies/D2H"][3], std::to_string((64 << 20) + 4096));
  EXPECT_EQ(rows["device/npu0"][2], "3");
  ASSERT_TRUE(rows.count("resource/npu0.link.down"));
  EXPECT_NEAR(std::stod(rows["resource/npu0.link.down"][5]), 28.43, 0.1);
  EXPECT_GT(std::stod(rows["resource/npu0.link.down"][8]), 0.4);
  bool stream = false;
  for (const auto& [key, f] : rows) stream = stream || key.rfind("stream/npu0/", 0) == 0;
  EXPECT_TRUE(stream);

  const std::string text = ::testing::TempDir() + "/report-as-text.out";
  setenv("ASCENDSIM_REPORT_FORMAT", "text", 1);
  const int status = runReportChild(text);
  unsetenv("ASCENDSIM_REPORT_FORMAT");
  ASSERT_EQ(status, 0);
  const std::string summary = slurp(text);
  EXPECT_EQ(summary.rfind("AscendSim report (single-npu): 3 copies and memsets", 0), 0u) << summary;
  EXPECT_NE(summary.find("warning (memory-not-freed)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\n  busiest resources "), std::string::npos) << summary;
}

// A report format nobody registered is refused at aclInit, naming the formats there are.
TEST(Report, UnknownReportFormatIsRefused) {
  const std::string path = ::testing::TempDir() + "/report.bogus";
  setenv("ASCENDSIM_REPORT_FORMAT", "yaml", 1);
  const int status = runReportChild(path);
  unsetenv("ASCENDSIM_REPORT_FORMAT");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << status;
  EXPECT_FALSE(std::ifstream(path).good());
}

// The report's per-kind statistics of copies of three sizes: 40 H2D copies of 4 KiB, 9 of
// 1 MiB and 1 of 64 MiB, one after another on one stream. Size classes are exact (counted here
// from the copies); the durations' percentiles come from 1/16-octave buckets, so each is at least
// the exact percentile of the copies' own durations (computed here by sorting them) and at most
// 6.25 % above it; the shortest and the longest are exact.
TEST(Report, CopyStatisticsBySizeAndDuration) {
  const std::string path = ::testing::TempDir() + "/statistics-report.json";
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("ASCENDSIM_REPORT", path.c_str(), 1);
    setenv("ASCENDSIM_SUMMARY", "0", 1);
    unsetenv("ASCENDSIM_TRACE");
    unsetenv("ASCENDSIM_CONFIG");
    void *h = nullptr, *d = nullptr;
    if (aclInit(nullptr) || aclrtSetDevice(0) || aclrtMallocHost(&h, 64 << 20) ||
        aclrtMalloc(&d, 64 << 20, ACL_MEM_MALLOC_HUGE_FIRST))
      std::exit(2);
    const std::pair<size_t, int> sizes[] = {{4096, 40}, {1 << 20, 9}, {64 << 20, 1}};
    for (const auto& [bytes, times] : sizes) {
      for (int i = 0; i < times; ++i) {
        if (aclrtMemcpyAsync(d, bytes, h, bytes, ACL_MEMCPY_HOST_TO_DEVICE, nullptr)) std::exit(2);
      }
    }
    if (aclrtSynchronizeStream(nullptr) || aclrtFree(d) || aclrtFreeHost(h) ||
        aclrtResetDevice(0) || aclFinalize())
      std::exit(2);
    std::exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_EQ(status, 0);
  const nlohmann::json r = nlohmann::json::parse(slurp(path));
  const auto& h2d = r["copy_totals"]["H2D"];
  ASSERT_EQ(h2d["count"], 50);
  ASSERT_EQ(h2d["sizes"].size(), 3u);
  const std::tuple<uint64_t, int> classes[] = {{4096, 40}, {1 << 20, 9}, {64 << 20, 1}};
  for (size_t i = 0; i < 3; ++i) {
    const auto& [upTo, count] = classes[i];
    EXPECT_EQ(h2d["sizes"][i]["up_to_bytes"], upTo);
    EXPECT_EQ(h2d["sizes"][i]["count"], count);
    EXPECT_EQ(h2d["sizes"][i]["bytes"], upTo * static_cast<uint64_t>(count));
  }
  // The 64 MiB copy's class: Gen4 x16 completion-limited, 28.43 GB/s x 256 / 276 = 26.37 GB/s
  // less its fixed costs (2.5 us of 2.55 ms).
  EXPECT_NEAR(h2d["sizes"][2]["GBps"].get<double>(), 26.37, 0.1);
  std::vector<double> durations;
  for (const auto& c : r["copies"])
    durations.push_back(c["end_us"].get<double>() - c["start_us"].get<double>());
  ASSERT_EQ(durations.size(), 50u);
  std::sort(durations.begin(), durations.end());
  const auto& d = h2d["duration_us"];
  EXPECT_NEAR(d["min"].get<double>(), durations.front(), 1e-6);
  EXPECT_NEAR(d["max"].get<double>(), durations.back(), 1e-6);
  const std::pair<const char*, double> percentiles[] = {{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}};
  for (const auto& [name, p] : percentiles) {
    // The rank-th shortest, rank = ceil(p x 50): p50 the 25th (a 4 KiB copy), p90 the 45th
    // (1 MiB), p99 the 50th (the 64 MiB copy).
    const double exact = durations[static_cast<size_t>(std::ceil(p * 50)) - 1];
    EXPECT_GE(d[name].get<double>(), exact - 1e-6) << name;
    EXPECT_LE(d[name].get<double>(), exact * 1.0625 + 1e-6) << name;
  }
}

TEST(Trace, ContinuesInNumberedFilesPastItsLimit) {
  // A 64 KiB limit from the machine's `trace` section: the fixed program's trace (about 200 KiB
  // with its counters) goes on in NAME.1.json, NAME.2.json, ..., each well-formed and naming its
  // tracks again.
  const std::string dir = ::testing::TempDir();
  const std::string machine = dir + "/limited.yaml";
  std::ofstream(machine) << "extends: default\ntrace: { path: " << dir
                         << "/limited-trace.json, max_size: 64KiB }\n";
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("ASCENDSIM_CONFIG", machine.c_str(), 1);
    unsetenv("ASCENDSIM_TRACE");
    setenv("ASCENDSIM_SUMMARY", "0", 1);
    fixedProgram(false);
    std::exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_EQ(status, 0);
  int files = 0, copies = 0;
  for (int part = 0; part < 100; ++part) {
    const std::string path = dir + (part == 0 ? "/limited-trace.json"
                                              : "/limited-trace." + std::to_string(part) + ".json");
    std::ifstream in(path);
    if (!in) break;
    const std::string text = slurp(path);
    EXPECT_LE(text.size(), 64u * 1024 + 4096) << path;
    nlohmann::json part_json;
    ASSERT_NO_THROW(part_json = nlohmann::json::parse(text)) << path;
    bool named = false;
    for (const auto& e : part_json) {
      named = named || (e["ph"] == "M" && e["name"] == "process_name");
      copies += e["ph"] == "X" && e["name"] == "MEMCPY_ASYNC";
    }
    EXPECT_TRUE(named) << path;
    ++files;
  }
  EXPECT_GE(files, 3);
  EXPECT_EQ(copies, 2);
}

TEST(Trace, NamesAreEscapedAndMadeValidUtf8) {
  // A kernel name with a quote, a backslash, a control character, an invalid byte and a valid
  // two-byte character (e9 in UTF-8: c3 a9). The trace must stay JSON (nlohmann's parser also
  // refuses invalid UTF-8) and carry the name with U+FFFD for the invalid byte.
  const std::string path = ::testing::TempDir() + "/escaped-trace.json";
  const std::string report = ::testing::TempDir() + "/escaped-report.json";
  const std::string name = std::string("k\"a\\b\x01") + "\xff" + "\xc3\xa9";
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("ASCENDSIM_TRACE", path.c_str(), 1);
    setenv("ASCENDSIM_REPORT", report.c_str(), 1);
    unsetenv("ASCENDSIM_CONFIG");
    if (aclInit(nullptr) || aclrtSetDevice(0)) std::exit(2);
    if (ascendsimLaunchComputeTask(name.c_str(), 4096, 4096, 1024, 4, nullptr)) std::exit(3);
    if (aclrtSynchronizeDevice()) std::exit(4);
    aclrtResetDevice(0);
    aclFinalize();
    std::exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const nlohmann::json trace = nlohmann::json::parse(slurp(path));
  bool found = false;
  for (const auto& e : trace) {  // the trace is a JSON array of events
    if (e.contains("args") && e["args"].contains("kernel")) {
      EXPECT_EQ(e["args"]["kernel"].get<std::string>(),
                std::string("k\"a\\b\x01") + "\xef\xbf\xbd" + "\xc3\xa9");
      found = true;
    }
  }
  EXPECT_TRUE(found);
  // The JSON report names the kernel too.
  EXPECT_NE(slurp(report).find("\xef\xbf\xbd"), std::string::npos);  // U+FFFD, in UTF-8
  EXPECT_NO_THROW(nlohmann::json::parse(slurp(report)));
}

TEST(Trace, PerfettoWritesAnEventLargerThanItsBufferWhole) {
  // A kernel name of 1.5 MiB: the events that carry it are larger than the Perfetto sink's 1 MiB
  // buffer and go to the file on their own (#31). The file must still be a Trace, packet after
  // packet (key 0x0a, a varint length, that many bytes) to its last byte, and hold the name 4
  // times: the API call's "kernel" argument, the task slice's, the AI Core slice's, and that
  // slice's name, interned once.
  const std::string path = ::testing::TempDir() + "/large-event.pftrace";
  const std::string name = "kernel-" + std::string(1536 * 1024, 'x');
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("ASCENDSIM_TRACE", path.c_str(), 1);
    unsetenv("ASCENDSIM_CONFIG");
    unsetenv("ASCENDSIM_REPORT");
    if (aclInit(nullptr) || aclrtSetDevice(0)) std::exit(2);
    if (ascendsimLaunchComputeTask(name.c_str(), 4096, 4096, 1024, 4, nullptr)) std::exit(3);
    if (aclrtSynchronizeDevice()) std::exit(4);
    aclrtResetDevice(0);
    aclFinalize();
    std::exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const std::string trace = slurp(path);
  size_t at = 0, packets = 0, largest = 0;
  while (at < trace.size()) {
    ASSERT_EQ(trace[at++], '\x0a') << "not a Trace.packet field at byte " << at - 1;
    uint64_t length = 0;
    for (int shift = 0;; shift += 7) {
      ASSERT_LT(at, trace.size());
      const auto byte = static_cast<unsigned char>(trace[at++]);
      length |= uint64_t{byte & 0x7fu} << shift;
      if (byte < 0x80) break;
    }
    ASSERT_LE(length, trace.size() - at) << "a packet runs past the end of the file";
    at += length;
    largest = std::max<size_t>(largest, length);
    ++packets;
  }
  EXPECT_GT(largest, size_t{1} << 20);
  EXPECT_GT(packets, 4u);
  int copies = 0;
  for (size_t found = trace.find(name); found != std::string::npos;
       found = trace.find(name, found + name.size()))
    ++copies;
  EXPECT_EQ(copies, 4);
}

TEST(Trace, AFullDiskLeavesNoInvalidFileAndFailsTheRun) {
  // #16 item 12: the file system refuses writes past 64 KiB (RLIMIT_FSIZE, as a full disk would);
  // the fixed program's trace is about 200 KiB. The run must exit non-zero, say why, and leave no
  // file under the trace's name (nor the partial one), where it used to exit 0 with cut JSON.
  const std::string path = ::testing::TempDir() + "/full-disk-trace.json";
  std::remove(path.c_str());
  const pid_t pid = fork();
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);  // a refused write then fails with EFBIG instead of killing
    struct rlimit limit = {64 * 1024, 64 * 1024};
    setrlimit(RLIMIT_FSIZE, &limit);
    setenv("ASCENDSIM_SUMMARY", "0", 1);
    runChildBody(path);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_FALSE(std::ifstream(path).good());
  EXPECT_FALSE(std::ifstream(path + ".partial").good());
}

class ReportOnSignal : public ::testing::TestWithParam<int> {};

TEST_P(ReportOnSignal, WrittenWhenTheProgramIsTerminated) {
  // #16 item 11: SIGTERM (or SIGINT) used to leave no report; #34: SIGHUP (a closed terminal)
  // too. The process still ends by the signal, after the report and the trace are written.
  const int signal = GetParam();
  const std::string trace =
      ::testing::TempDir() + "/terminated-trace-" + std::to_string(signal) + ".json";
  const std::string report =
      ::testing::TempDir() + "/terminated-report-" + std::to_string(signal) + ".json";
  std::remove(report.c_str());
  std::remove(trace.c_str());
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("ASCENDSIM_REPORT", report.c_str(), 1);
    setenv("ASCENDSIM_SUMMARY", "0", 1);
    setenv("ASCENDSIM_TRACE", trace.c_str(), 1);
    unsetenv("ASCENDSIM_CONFIG");
    const size_t n = 1 << 20;
    void *h = nullptr, *d = nullptr;
    if (aclInit(nullptr) || aclrtSetDevice(0) || aclrtMallocHost(&h, n) ||
        aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST))
      std::exit(2);
    if (aclrtMemcpy(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE)) std::exit(2);
    std::raise(signal);
    std::exit(3);  // not reached: the signal ends the process
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), signal);
  nlohmann::json r;
  ASSERT_NO_THROW(r = nlohmann::json::parse(slurp(report)));
  EXPECT_EQ(r["machine"], "single-npu");
  ASSERT_NO_THROW(nlohmann::json::parse(slurp(trace)));
}

INSTANTIATE_TEST_SUITE_P(Signals, ReportOnSignal, ::testing::Values(SIGTERM, SIGHUP),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return p.param == SIGTERM ? "SIGTERM" : "SIGHUP";
                         });
