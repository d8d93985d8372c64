// How much longer a whole single-process program takes on a machine served by
// `ascendsim exec --shared` than on a machine of its own (docs/performance.md, #29):
//   build/release/bench/program_bench [ITERATIONS] [--ascendsim PATH]
// runs the same program as a child, in-process and under `ascendsim exec --shared` (the
// ascendsim beside this bench's folder unless PATH is given), and prints each run's wall time and
// CPU time (the child's and everything it waited for: the served machine's process too) with
// the ratios, for buffers of 64 KiB (a program whose time goes mostly to its copies and kernels)
// and of 512 bytes (mostly to its AscendCL calls). The program is a vendor sample's loop: on a
// device set once, with a stream, device buffers and pinned host buffers, each iteration asks for
// its device and context (the samples' helpers check them), copies the buffer in, runs a kernel
// over it, copies it out, waits for the stream and checks the result;
// `--child ITERATIONS BYTES` runs the program alone.

#include <acl/acl.h>
#include <ascendsim/ascendc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr uint32_t kBlocks = 8;

// The kernel: each block adds 1 to its share of the input's bytes into the output.
struct AddOne {
  const uint8_t* in;
  uint8_t* out;
  uint64_t bytes;
};

void addOneBlock(void* closure) {
  const auto* k = static_cast<const AddOne*>(closure);
  const uint64_t share = k->bytes / kBlocks;
  const uint64_t from = static_cast<uint64_t>(ascendsimAscendCBlockIdx()) * share;
  for (uint64_t i = from; i < from + share; ++i) k->out[i] = static_cast<uint8_t>(k->in[i] + 1);
}

int fail(const char* what) {
  std::fprintf(stderr, "program_bench: %s failed: %s\n", what, aclGetRecentErrMsg());
  return 1;
}

int runProgram(long iterations, uint32_t kBytes) {
  if (aclInit(nullptr) != ACL_SUCCESS) return fail("aclInit");
  if (aclrtSetDevice(0) != ACL_SUCCESS) return fail("aclrtSetDevice");
  aclrtStream stream = nullptr;
  void *devIn = nullptr, *devOut = nullptr, *hostIn = nullptr, *hostOut = nullptr;
  if (aclrtCreateStream(&stream) != ACL_SUCCESS) return fail("aclrtCreateStream");
  if (aclrtMalloc(&devIn, kBytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
      aclrtMalloc(&devOut, kBytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
    return fail("aclrtMalloc");
  if (aclrtMallocHost(&hostIn, kBytes) != ACL_SUCCESS ||
      aclrtMallocHost(&hostOut, kBytes) != ACL_SUCCESS)
    return fail("aclrtMallocHost");
  static AddOne kernel;
  kernel = {static_cast<const uint8_t*>(devIn), static_cast<uint8_t*>(devOut), kBytes};
  auto* in = static_cast<uint8_t*>(hostIn);
  auto* out = static_cast<uint8_t*>(hostOut);
  for (long i = 0; i < iterations; ++i) {
    int32_t device = -1;
    aclrtContext context = nullptr;
    if (aclrtGetDevice(&device) != ACL_SUCCESS || device != 0) return fail("aclrtGetDevice");
    if (aclrtGetCurrentContext(&context) != ACL_SUCCESS || !context)
      return fail("aclrtGetCurrentContext");
    in[0] = static_cast<uint8_t>(i);
    in[kBytes - 1] = static_cast<uint8_t>(i * 3);
    if (aclrtMemcpyAsync(devIn, kBytes, hostIn, kBytes, ACL_MEMCPY_HOST_TO_DEVICE, stream) !=
        ACL_SUCCESS)
      return fail("aclrtMemcpyAsync H2D");
    if (ascendsimLaunchAscendCKernel("add_one", kBlocks, stream, addOneBlock, &kernel,
                                     sizeof kernel, nullptr) != ACL_SUCCESS)
      return fail("the kernel's launch");
    if (aclrtMemcpyAsync(hostOut, kBytes, devOut, kBytes, ACL_MEMCPY_DEVICE_TO_HOST, stream) !=
        ACL_SUCCESS)
      return fail("aclrtMemcpyAsync D2H");
    if (aclrtSynchronizeStream(stream) != ACL_SUCCESS) return fail("aclrtSynchronizeStream");
    // The kernel added 1 to every byte.
    if (out[0] != static_cast<uint8_t>(in[0] + 1) ||
        out[kBytes - 1] != static_cast<uint8_t>(in[kBytes - 1] + 1)) {
      std::fprintf(stderr, "program_bench: iteration %ld: wrong bytes back\n", i);
      return 1;
    }
  }
  aclrtFreeHost(hostIn);
  aclrtFreeHost(hostOut);
  aclrtFree(devIn);
  aclrtFree(devOut);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}

double seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
}

struct Run {
  double wall = 0, cpu = 0;
};

// Runs `argv` to its end: its wall time, and the CPU time of it and everything it waited for.
bool timed(const std::vector<std::string>& args, Run& run) {
  rusage before{}, after{};
  getrusage(RUSAGE_CHILDREN, &before);
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child < 0) return false;
  if (child == 0) {
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    setenv("ASCENDSIM_SUMMARY", "0", 1);
    execv(argv[0], argv.data());
    std::perror(argv[0]);
    _exit(127);
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child) return false;
  run.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  getrusage(RUSAGE_CHILDREN, &after);
  run.cpu = seconds(after.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_utime) -
            seconds(before.ru_stime);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string besideThisProgram(const char* relative) {
  std::vector<char> self(4096);
  const ssize_t n = readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (n <= 0) return relative;
  std::string path(self.data(), static_cast<size_t>(n));
  return path.substr(0, path.rfind('/') + 1) + relative;
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "usage: program_bench [ITERATIONS] [--ascendsim PATH]\n"
      "       program_bench --child ITERATIONS BYTES\n"
      "A vendor sample's loop (queries, BYTES in, a kernel, BYTES out, a synchronisation),\n"
      "ITERATIONS (5000) times with 64 KiB and with 512 B, in-process and under\n"
      "ascendsim exec --shared, with the ratios.\n";
  long iterations = 5000;
  std::string ascendsim = besideThisProgram("../tools/ascendsim");
  auto number = [&](const char* text, long most) {
    char* end = nullptr;
    const long n = std::strtol(text, &end, 10);
    if (*end || n <= 0 || n > most) {
      std::fprintf(stderr, "program_bench: expected a number from 1 to %ld, got %s\n%s", most, text,
                   usage);
      std::exit(2);
    }
    return n;
  };
  if (argc == 4 && !std::strcmp(argv[1], "--child")) {
    const long bytes = number(argv[3], 64L << 20);
    if (bytes % kBlocks != 0) {
      std::fprintf(stderr, "program_bench: BYTES must be a multiple of %u\n", kBlocks);
      return 2;
    }
    return runProgram(number(argv[2], 100000000), static_cast<uint32_t>(bytes));
  }
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      return 0;
    }
    if (a == "--ascendsim" && i + 1 < argc) {
      ascendsim = argv[++i];
    } else {
      iterations = number(argv[i], 100000000);
    }
  }
  const std::string self = besideThisProgram("program_bench");
  const std::string count = std::to_string(iterations);
  for (const char* bytes : {"65536", "512"}) {
    Run own, served;
    if (!timed({self, "--child", count, bytes}, own)) {
      std::fprintf(stderr, "program_bench: the in-process run failed\n");
      return 1;
    }
    if (!timed({ascendsim, "exec", "--shared", "--", self, "--child", count, bytes}, served)) {
      std::fprintf(stderr, "program_bench: the served run (%s exec --shared) failed\n",
                   ascendsim.c_str());
      return 1;
    }
    std::printf("%6s B, own machine       %8ld iterations %8.3f s wall %8.3f cpu s\n", bytes,
                iterations, own.wall, own.cpu);
    std::printf("%6s B, served            %8ld iterations %8.3f s wall %8.3f cpu s\n", bytes,
                iterations, served.wall, served.cpu);
    std::printf("%6s B, served / own      %8.2f x wall %8.2f x cpu\n", bytes,
                served.wall / own.wall, served.cpu / own.cpu);
  }
  return 0;
}
