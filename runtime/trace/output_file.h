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

// True when `a` and `b` name the same existing file (an output must not overwrite an input).
bool sameFile(const std::string& a, const std::string& b);

}  // namespace ascendsim::runtime
