#pragma once
// The files a run writes (trace, report, summary, the tools' tables and plots) are written whole
// or not at all, and never replace what is not a regular file: an existing directory, FIFO or
// socket is refused, and a character device (/dev/null, /dev/stdout) is written in place where a
// whole file is written at once.

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

// True when `a` and `b` name the same existing file (an output must not overwrite an input).
bool sameFile(const std::string& a, const std::string& b);

}  // namespace ascendsim::runtime
