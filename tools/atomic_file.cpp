#include "tools/atomic_file.h"

#include <cstdio>

#include "runtime/trace/output_file.h"

namespace ascendsim::tools {

bool writeFileAtomically(const std::string& path, const std::string& content, std::string& why) {
  return runtime::writeOutputFile(path, content, why);
}

bool writeOutput(const std::string& path, const std::string& content, const char* command) {
  std::string why;
  if (writeFileAtomically(path, content, why)) return true;
  std::fprintf(stderr, "ascendsim %s: %s\n", command, why.c_str());
  return false;
}

}  // namespace ascendsim::tools
