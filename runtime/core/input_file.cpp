#include "runtime/core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ascendsim::runtime {
namespace {

// Opens without waiting for a FIFO's writer; -1 and `why` unless it is a regular file.
int openRegular(const std::string& path, struct stat& st, std::string& why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    why = std::strerror(errno);
    return -1;
  }
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    why = S_ISFIFO(st.st_mode)  ? "a FIFO, not a regular file"
          : S_ISCHR(st.st_mode) ? "a character device, not a regular file"
          : S_ISDIR(st.st_mode) ? "a directory, not a regular file"
                                : "not a regular file";
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

bool readRegularFile(const std::string& path, uint64_t largest, std::string& text,
                     std::string& why) {
  struct stat st {};
  const int fd = openRegular(path, st, why);
  if (fd < 0) return false;
  if (static_cast<uint64_t>(st.st_size) > largest) {
    why = "larger than " + std::to_string(largest) + " bytes (" + std::to_string(st.st_size) + ")";
    ::close(fd);
    return false;
  }
  text.clear();
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      why = std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > largest) {  // (it grew while being read)
      why = "larger than " + std::to_string(largest) + " bytes";
      ::close(fd);
      return false;
    }
  }
  ::close(fd);
  return true;
}

bool isRegularFile(const std::string& path, std::string& why) {
  struct stat st {};
  const int fd = openRegular(path, st, why);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

}  // namespace ascendsim::runtime
