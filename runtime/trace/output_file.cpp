#include "runtime/trace/output_file.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace ascendsim::runtime {

OutputTarget outputTarget(const std::string& path, std::string& why) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return OutputTarget::File;  // a new file
  if (S_ISREG(st.st_mode)) return OutputTarget::File;
  if (S_ISCHR(st.st_mode)) return OutputTarget::CharacterDevice;
  const char* what = S_ISDIR(st.st_mode)    ? "a directory"
                     : S_ISFIFO(st.st_mode) ? "a FIFO"
                                            : "not a regular file";
  why = "'" + path + "' is " + what +
        "; outputs are written to regular files only, and it is left as it is";
  return OutputTarget::Refused;
}

namespace {
bool writeInPlace(const std::string& path, const std::string& content, std::string& why) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  size_t done = 0;
  while (fd >= 0 && done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    done += static_cast<size_t>(n);
  }
  const int error = errno;
  if (fd >= 0) ::close(fd);
  if (done == content.size()) return true;
  why = "cannot write '" + path + "': " + std::strerror(error);
  return false;
}
}  // namespace

bool writeOutputFile(const std::string& path, const std::string& content, std::string& why) {
  switch (outputTarget(path, why)) {
    case OutputTarget::Refused: return false;
    case OutputTarget::CharacterDevice: return writeInPlace(path, content, why);
    case OutputTarget::File: break;
  }
  const std::string partial = path + ".partial";
  reportStalePartial(partial);
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) {
      why = "cannot write '" + path + "': " + std::strerror(errno ? errno : EIO);
      std::remove(partial.c_str());
      return false;
    }
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    why = "cannot write '" + path + "': " + std::strerror(errno);
    std::remove(partial.c_str());
    return false;
  }
  return true;
}

bool reportStalePartial(const std::string& partial) {
  const int fd = ::open(partial.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  const bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  const bool held = flock(fd, LOCK_SH | LOCK_NB) != 0;  // another process is writing it now
  ::close(fd);
  if (!regular || held) return false;
  const std::string line = "ascendsim: '" + partial +
                           "' was left by an earlier run that ended before finishing it (killed "
                           "with SIGKILL, or crashed); this run's output replaces it\n";
  if (::write(2, line.data(), line.size()) < 0) return true;
  return true;
}

void holdPartial(int fd) {
  if (fd >= 0) flock(fd, LOCK_EX | LOCK_NB);
}

std::string rotatedPartPath(const std::string& path, int part, const std::string& bareExtension) {
  if (part == 0) return path;
  const auto dot = path.rfind('.');
  const bool ext = dot != std::string::npos && path.find('/', dot) == std::string::npos;
  return (ext ? path.substr(0, dot) : path) + "." + std::to_string(part) +
         (ext ? path.substr(dot) : bareExtension);
}

bool sameFile(const std::string& a, const std::string& b) {
  std::error_code ec;
  return !a.empty() && !b.empty() && std::filesystem::equivalent(a, b, ec) && !ec;
}

bool writeAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

SignalsHeld::SignalsHeld(std::atomic<bool>& busy) : busy_(busy) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, &old_);
  busy_.store(true);
}

SignalsHeld::~SignalsHeld() {
  busy_.store(false);
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

}  // namespace ascendsim::runtime
