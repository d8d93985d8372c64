// One process of a job on a served machine that profiles its own copies: PROGRAM DIR (the rank
// from ASCENDSIM_RANK picks the device). Prints "rank R ok" when its collection holds its two
// copies made between aclprofStart and aclprofStop (not the one before) and their two tasks.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_prof.h"

namespace {
int failed(const char* what, int code) {
  std::printf("%s: %d %s\n", what, code, aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");
  return 1;
}
int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const char* rankText = std::getenv("ASCENDSIM_RANK");
  const int rank = rankText ? std::atoi(rankText) : 0;
  const std::string dir = std::string(argv[1]) + "/rank" + std::to_string(rank);
  const size_t bytes = 1 << 20;
  std::vector<char> host(bytes, 3);
  void* dev = nullptr;
  int rc = 0;
  if ((rc = aclInit(nullptr))) return failed("aclInit", rc);
  if ((rc = aclrtSetDevice(rank))) return failed("aclrtSetDevice", rc);
  if ((rc = aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST))) return failed("aclrtMalloc", rc);
  if ((rc = aclrtMemcpy(dev, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE)))
    return failed("aclrtMemcpy", rc);
  if ((rc = aclprofInit(dir.c_str(), dir.size()))) return failed("aclprofInit", rc);
  uint32_t device = static_cast<uint32_t>(rank);
  aclprofConfig* config = aclprofCreateConfig(&device, 1, ACL_AICORE_PIPE_UTILIZATION, nullptr,
                                              ACL_PROF_ACL_API | ACL_PROF_TASK_TIME);
  if (!config) return failed("aclprofCreateConfig", 0);
  if ((rc = aclprofStart(config))) return failed("aclprofStart", rc);
  if ((rc = aclrtMemcpy(dev, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE)))
    return failed("aclrtMemcpy", rc);
  if ((rc = aclrtMemcpy(host.data(), bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST)))
    return failed("aclrtMemcpy", rc);
  if ((rc = aclprofStop(config))) return failed("aclprofStop", rc);
  if ((rc = aclprofDestroyConfig(config))) return failed("aclprofDestroyConfig", rc);
  if ((rc = aclprofFinalize())) return failed("aclprofFinalize", rc);
  aclrtFree(dev);
  aclrtResetDevice(rank);
  aclFinalize();

  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& prof : fs::directory_iterator(dir)) {
    const fs::path output = prof.path() / "mindstudio_profiler_output";
    if (prof.path().filename().string().rfind("PROF_", 0) != 0 || !fs::is_directory(output))
      continue;
    for (const auto& f : fs::directory_iterator(output)) files.push_back(f.path());
  }
  if (files.size() != 1) return failed("result files", static_cast<int>(files.size()));
  std::ifstream in(files[0]);
  std::stringstream text;
  text << in.rdbuf();
  const int calls = count(text.str(), "\"name\":\"aclrtMemcpy\"");
  const int tasks = count(text.str(), "\"cat\":\"task\"");
  if (calls != 2 || tasks != 2) {
    std::printf("rank %d: %d copies and %d tasks in %s\n", rank, calls, tasks, files[0].c_str());
    return 1;
  }
  std::printf("rank %d ok\n", rank);
  return 0;
}
