#include "runtime/core/profiling.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <set>
#include <system_error>

#include "acl/acl_base.h"
#include "runtime/core/errors.h"

namespace ascendsim::runtime {
namespace {

namespace fs = std::filesystem;

// The ACL_PROF_* bits of acl/acl_prof.h (repeated here: the engine does not see the C API).
constexpr uint64_t kAclApi = 0x0001, kTaskTime = 0x0002, kHcclTrace = 0x0020, kRuntimeApi = 0x0100,
                   kTaskTimeL0 = 0x0800, kTaskTimeL2 = 0x2000, kTaskTimeL3 = 0x8000;
constexpr uint64_t kKnownTypes = 0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040 |
                                 0x0080 | 0x0100 | 0x0200 | 0x0800 | 0x1000 | 0x2000 | 0x4000 |
                                 0x8000 | 0x01000000 | 0x400000000 | 0x800000000;
constexpr uint64_t kCallTypes = kAclApi | kRuntimeApi;
constexpr uint64_t kTaskTypes = kTaskTime | kTaskTimeL0 | kTaskTimeL2 | kTaskTimeL3 | kHcclTrace;

// Local wall-clock time as msprof stamps its folders and files: yyyymmddhhmmss and milliseconds.
std::string stamp(bool millis) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm local{};
  localtime_r(&seconds, &local);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%d%H%M%S", &local);
  std::string out = text;
  if (millis) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch());
    std::snprintf(text, sizeof text, "%03d", static_cast<int>(ms.count() % 1000));
    out += text;
  }
  return out;
}

std::string devicesText(const std::vector<uint32_t>& devices) {
  std::string out;
  for (uint32_t d : devices) out += (out.empty() ? "" : ", ") + std::to_string(d);
  return out;
}

}  // namespace

void Profiling::init(int program, const std::string& path) {
  if (programs_.count(program))
    fail(ACL_ERROR_REPEAT_INITIALIZE,
         "profiling is already initialised (aclprofInit); call aclprofFinalize first");
  std::error_code ec;
  const fs::path dir = fs::absolute(path, ec);
  if (ec) fail(ACL_ERROR_INVALID_FILE, "'" + path + "': " + ec.message());
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    fail(ACL_ERROR_INVALID_FILE,
         "the profiling result folder '" + dir.string() +
             "' cannot be created: " + (ec ? ec.message() : std::string("not a directory")));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    fail(ACL_ERROR_INVALID_FILE, "the profiling result folder '" + dir.string() +
                                     "' cannot be written to: " + std::strerror(errno));
  programs_[program] = dir.string();
}

void Profiling::finalize(int program) {
  if (!programs_.count(program))
    fail(ACL_ERROR_PROF_NOT_RUN, "profiling is not initialised: call aclprofInit first");
  // As CANN's, finalising ends the program's running collections; they are written first.
  std::string failed;
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if ((*it)->program != program) {
      ++it;
      continue;
    }
    std::string why;
    if (!end(**it, why)) failed = why;
    it = sessions_.erase(it);
  }
  programs_.erase(program);
  if (!failed.empty()) fail(ACL_ERROR_PROFILING_FAILURE, failed);
}

void Profiling::check(const Collection& what) const {
  const size_t count = spec_ ? spec_->devices.size() : 0;
  if (what.devices.empty()) fail(ACL_ERROR_INVALID_PARAM, "the configuration names no device");
  std::set<uint32_t> seen;
  for (uint32_t d : what.devices) {
    if (d >= count)
      fail(ACL_ERROR_INVALID_PARAM, "device " + std::to_string(d) +
                                        " does not exist (the machine has " +
                                        std::to_string(count) + ")");
    if (!seen.insert(d).second)
      fail(ACL_ERROR_INVALID_PARAM, "device " + std::to_string(d) + " is named twice");
  }
  if (what.dataTypes == 0) fail(ACL_ERROR_INVALID_PARAM, "dataTypeConfig is 0: nothing to collect");
  if ((what.dataTypes & ~kKnownTypes) != 0) {
    char text[64];
    std::snprintf(text, sizeof text, "0x%llx",
                  static_cast<unsigned long long>(what.dataTypes & ~kKnownTypes));
    fail(ACL_ERROR_PROF_MODULES_UNSUPPORTED,
         std::string("dataTypeConfig asks for data no ACL_PROF_* flag names: ") + text);
  }
  const int32_t m = what.aicoreMetrics;
  if (!((m >= 0 && m <= 8) || m == 0xFF))
    fail(ACL_ERROR_INVALID_PARAM,
         "aicoreMetrics " + std::to_string(m) + " is not an aclprofAicoreMetrics value");
}

Profiling::Session* Profiling::find(int program, const Collection& what) {
  const std::set<uint32_t> wanted(what.devices.begin(), what.devices.end());
  for (auto& s : sessions_) {
    if (s->program == program &&
        std::set<uint32_t>(s->what.devices.begin(), s->what.devices.end()) == wanted)
      return s.get();
  }
  return nullptr;
}

// A folder of its own per collection: PROF_<n>_<time to the millisecond>_<16 letters>, the
// letters from the process and the count, so processes writing to one folder never collide.
std::string Profiling::newFolder(const std::string& dir) {
  ++folders_;
  uint64_t h = (static_cast<uint64_t>(::getpid()) << 20) ^ folders_ ^
               static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  std::string letters;
  for (int i = 0; i < 16; ++i) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 29;
    letters += static_cast<char>('A' + h % 26);
  }
  char n[16];
  std::snprintf(n, sizeof n, "%06u", folders_);
  return (fs::path(dir) / ("PROF_" + std::string(n) + "_" + stamp(true) + "_" + letters)).string();
}

void Profiling::start(int program, const Collection& what) {
  const auto dir = programs_.find(program);
  if (dir == programs_.end())
    fail(ACL_ERROR_PROF_NOT_RUN, "profiling is not initialised: call aclprofInit first");
  check(what);
  for (auto& s : sessions_) {
    if (s->program != program) continue;
    for (uint32_t d : what.devices) {
      if (std::find(s->what.devices.begin(), s->what.devices.end(), d) != s->what.devices.end())
        fail(ACL_ERROR_PROF_ALREADY_RUN,
             "device " + std::to_string(d) + " is already being profiled (aclprofStart)");
    }
  }
  auto s = std::make_unique<Session>();
  s->program = program;
  s->what = what;
  s->calls = (what.dataTypes & kCallTypes) != 0;
  s->tasks = (what.dataTypes & kTaskTypes) != 0;
  const fs::path output = fs::path(newFolder(dir->second)) / "mindstudio_profiler_output";
  std::error_code ec;
  fs::create_directories(output, ec);
  if (ec)
    fail(ACL_ERROR_INVALID_FILE, "the profiling result folder '" + output.string() +
                                     "' cannot be created: " + ec.message());
  s->file = (output / ("msprof_" + stamp(false) + ".json")).string();
  std::set<int> devices;
  for (uint32_t d : what.devices) devices.insert(static_cast<int>(d));
  s->trace.onlyDevices(devices);
  s->trace.useMsprofNames(true);
  std::string why;
  if (!s->trace.open(s->file, "chrome-json", *spec_, why)) fail(ACL_ERROR_INVALID_FILE, why);
  sessions_.push_back(std::move(s));
}

bool Profiling::end(Session& s, std::string& why) {
  if (s.trace.close()) return true;
  why = "the profiling result '" + s.file + "' could not be written";
  return false;
}

void Profiling::stop(int program, const Collection& what) {
  if (!programs_.count(program))
    fail(ACL_ERROR_PROF_NOT_RUN, "profiling is not initialised: call aclprofInit first");
  check(what);
  Session* s = find(program, what);
  if (!s)
    fail(ACL_ERROR_PROF_NOT_RUN,
         "no collection of devices " + devicesText(what.devices) + " was started (aclprofStart)");
  if (s->what.dataTypes != what.dataTypes)
    fail(ACL_ERROR_INVALID_PROFILING_CONFIG,
         "dataTypeConfig differs from the one its aclprofStart was given");
  std::string why;
  const bool ok = end(*s, why);
  sessions_.erase(std::find_if(sessions_.begin(), sessions_.end(),
                               [s](const auto& p) { return p.get() == s; }));
  if (!ok) fail(ACL_ERROR_PROFILING_FAILURE, why);
}

void Profiling::startWholeRun(const std::string& dir, uint64_t dataTypes) {
  if (wholeRunActive()) return;
  Collection all;
  for (size_t d = 0; spec_ && d < spec_->devices.size(); ++d)
    all.devices.push_back(static_cast<uint32_t>(d));
  all.dataTypes = dataTypes;
  init(kWholeRun, dir);
  try {
    start(kWholeRun, all);
  } catch (...) {
    programs_.erase(kWholeRun);
    throw;
  }
}

void Profiling::apiCall(const HostTrack& who, const char* name, spec::Picoseconds start,
                        spec::Picoseconds end, int code, TraceArgs& args,
                        const std::vector<uint64_t>& tasks) {
  for (auto& s : sessions_) {
    if (s->calls && (s->program == who.process || s->program == kWholeRun))
      s->trace.apiCall(who, name, start, end, code, args, tasks);
  }
}

void Profiling::taskStarted(int device, const models::StreamQueue& stream,
                            const models::Task& task) {
  for (auto& s : sessions_) {
    if (s->tasks) s->trace.taskStarted(device, stream, task);
  }
}

void Profiling::taskEnded(int device, const models::StreamQueue& stream, const models::Task& task) {
  for (auto& s : sessions_) {
    if (s->tasks) s->trace.taskEnded(device, stream, task);
  }
}

void Profiling::closeAll() {
  for (auto& s : sessions_) {
    std::string why;
    if (!end(*s, why)) std::fprintf(stderr, "ascendsim: %s\n", why.c_str());
  }
  sessions_.clear();
  programs_.erase(kWholeRun);  // a program that initialises again is profiled again
}

void Profiling::closeFromSignal() {
  for (auto& s : sessions_) s->trace.closeFromSignal();
}

}  // namespace ascendsim::runtime
