#pragma once
// Output files are written whole or not at all: to a temporary name, then renamed; a character
// device is written in place, and a directory or FIFO is refused, never replaced
// (runtime/trace/output_file.h).

#include <string>

namespace ascendsim::tools {

// Returns false (with `why`) when the file cannot be written.
bool writeFileAtomically(const std::string& path, const std::string& content, std::string& why);
// The same, printing "ascendsim COMMAND: why" on stderr when it fails.
bool writeOutput(const std::string& path, const std::string& content, const char* command);

}  // namespace ascendsim::tools
