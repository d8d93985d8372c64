#include "runtime/core/thread_activity.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <string>

namespace ascendsim::runtime {

pid_t currentTid() {
  return static_cast<pid_t>(syscall(SYS_gettid));
}

int64_t threadCpuNs(pthread_t thread) {
  clockid_t clock{};
  if (pthread_getcpuclockid(thread, &clock) != 0) return -1;
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) return -1;
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

int64_t ownCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

namespace {
bool statSaysSleeping(const std::string& path);
}  // namespace

bool threadSleeps(pid_t tid) {
  return statSaysSleeping("/proc/self/task/" + std::to_string(tid) + "/stat");
}

bool threadSleeps(pid_t pid, pid_t tid) {
  return statSaysSleeping("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) +
                          "/stat");
}

int64_t threadCpuNs(pid_t pid, pid_t tid) {
  // Asked at the end of every call a served program's thread makes: the file stays open (each
  // read from offset 0 is fresh), which saves an open and a close of /proc (a path walk with
  // permission checks), a third of the server's work per call. A file whose thread has gone
  // reads nothing; it is opened again once (the numbers may have been given to another).
  static std::mutex mutex;
  static std::map<std::pair<pid_t, pid_t>, int> files;
  char buf[128];
  ssize_t n = -1;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = files.find({pid, tid});
    if (it != files.end()) {
      n = ::pread(it->second, buf, sizeof buf - 1, 0);
      if (n <= 0) {
        ::close(it->second);
        files.erase(it);
      }
    }
    if (n <= 0) {
      const std::string path =
          "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/schedstat";
      const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) return -1;
      n = ::pread(fd, buf, sizeof buf - 1, 0);
      if (n <= 0) {
        ::close(fd);
        return -1;
      }
      if (files.size() >= 1024) {  // (threads come and go: the lowest pid and tid go first)
        ::close(files.begin()->second);
        files.erase(files.begin());
      }
      files[{pid, tid}] = fd;
    }
  }
  buf[n] = '\0';
  return std::strtoll(buf, nullptr, 10);  // the first field: ns spent on a CPU
}

namespace {
bool statSaysSleeping(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  char buf[512];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return true;
  buf[n] = '\0';
  // "tid (comm) S ...": the name may hold spaces and parentheses, so the state follows the last
  // ')'.
  const char* close = std::strrchr(buf, ')');
  if (!close || close[1] != ' ') return true;
  const char state = close[2];
  return state == 'S' || state == 'T' || state == 't' || state == 'Z' || state == 'X';
}
}  // namespace

namespace {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr double kSanitizerSlowdown = 3;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr double kSanitizerSlowdown = 3;
#else
constexpr double kSanitizerSlowdown = 1;
#endif
#else
constexpr double kSanitizerSlowdown = 1;
#endif

double loadPerCore() {
  double load = 0;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = 0;
    std::fclose(f);
  }
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores > 0 ? load / static_cast<double>(cores) : 1;
}
}  // namespace

double cpuLoad() {
  static std::mutex mutex;
  static auto readAt = std::chrono::steady_clock::time_point{};
  static double load = 1;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto now = std::chrono::steady_clock::now();
  if (now - readAt >= std::chrono::milliseconds(100)) {
    load = std::max(1.0, loadPerCore());
    readAt = now;
  }
  return load;
}

double cpuStarvation() {
  return cpuLoad() * kSanitizerSlowdown;
}

}  // namespace ascendsim::runtime
