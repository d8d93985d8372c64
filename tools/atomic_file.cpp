#include "tools/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace ascendsim::tools {

bool writeFileAtomically(const std::string& path, const std::string& content, std::string& why) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << content;
    out.flush();
    if (!out) {
      why = "cannot write '" + path + "': " + std::strerror(errno);
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    why = "cannot write '" + path + "': " + std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

bool writeOutput(const std::string& path, const std::string& content, const char* command) {
  std::string why;
  if (writeFileAtomically(path, content, why)) return true;
  std::fprintf(stderr, "ascendsim %s: %s\n", command, why.c_str());
  return false;
}

}  // namespace ascendsim::tools
