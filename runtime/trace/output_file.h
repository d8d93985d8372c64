#pragma once
// The files a run writes (trace, report, summary, the tools' tables and plots) are written whole
// or not at all, and never replace what is not a regular file: an existing directory, FIFO or
// socket is refused, and a character device (/dev/null, /dev/stdout) is written in place where a
// whole file is written at once.

#include <signal.h>

#include <atomic>
#include <cstddef>
#include <string>

namespace ascendsim::runtime {

enum class OutputTarget { File, CharacterDevice, Refused };

// What `path` is as an output; `why` says why it is refused.
OutputTarget outputTarget(const std::string& path, std::string& why);

// Writes `content` to `path` whole (to PATH.partial, then renamed), or in place to a character
// device. False with `why` when it cannot.
bool writeOutputFile(const std::string& path, const std::string& content, std::string& why);

// Before an output is written through `partial` (PATH.partial): an existing one that no process
// holds locked was left by a run that was killed (SIGKILL) or crashed before it could finish; it
// is named on stderr and replaced. Returns whether one was found.
bool reportStalePartial(const std::string& partial);
// Marks `fd`, an open PATH.partial, as being written by this process (an advisory lock, gone with
// the process), so that another run does not take it for a stale one.
void holdPartial(int fd);

// Writes all `n` bytes to `fd` (again after an interrupted write). False, with errno, when the file
// system refuses them (a full disk).
bool writeAll(int fd, const char* data, size_t n);

// While a thread changes a streamed output's file or buffer: SIGINT, SIGTERM and SIGHUP wait on
// that thread, and `busy` tells a handler on another thread to wait for it (the sinks'
// closeFromSignal).
class SignalsHeld {
 public:
  explicit SignalsHeld(std::atomic<bool>& busy);
  ~SignalsHeld();
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  std::atomic<bool>& busy_;
  sigset_t old_;
};

// Part `part` of a trace split by rotation: `path` itself for part 0, then NAME.1.EXT, NAME.2.EXT
// (NAME.1`bareExtension`, ... for a path without an extension).
std::string rotatedPartPath(const std::string& path, int part,
                            const std::string& bareExtension = ".json");

// True when `a` and `b` name the same existing file (an output must not overwrite an input).
bool sameFile(const std::string& a, const std::string& b);

}  // namespace ascendsim::runtime
