#pragma once
// What the test programs that run as several processes of one job share: their role, named in
// every failure they print before they end, and checks of codes and messages.

#include <acl/acl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace job {

inline const char* role = "?";  // the process's part in the job, set from its arguments

// Prints "<role> failed: what (the recent error message)" and ends the process at once.
[[noreturn]] inline void die(const std::string& what) {
  const char* msg = aclGetRecentErrMsg();
  std::printf("%s failed: %s (%s)\n", role, what.c_str(), msg ? msg : "");
  std::fflush(stdout);
  std::_Exit(1);
}

inline void check(aclError code, const char* what) {
  if (code != ACL_SUCCESS) die(std::string(what) + ": " + std::to_string(code));
}

inline void expectCode(aclError code, aclError expected, const char* what) {
  if (code != expected)
    die(std::string(what) + " gave " + std::to_string(code) + ", expected " +
        std::to_string(expected));
}

// `code` must be `expected`, with a message holding `words`.
inline void refused(aclError code, aclError expected, const char* words, const char* what) {
  expectCode(code, expected, what);
  const char* msg = aclGetRecentErrMsg();
  if (!msg || !std::strstr(msg, words)) die(std::string(what) + ": the message lacks: " + words);
}

// Waits (outside AscendCL, up to a minute) for a file another process of the job writes.
inline bool waitForFile(const std::string& path) {
  for (int i = 0; i < 600; ++i) {
    if (access(path.c_str(), F_OK) == 0) return true;
    usleep(100000);
  }
  return false;
}

}  // namespace job
