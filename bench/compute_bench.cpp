// Speed of the compute path: how fast the simulator runs kernels, for the two ends of its use.
//  1. Many small kernels on one stream (a launch-bound operator stream, as frameworks issue):
//     kernels simulated per second of wall time.
//  2. One large HBM-bound kernel: tiles simulated per second and the kernel's simulated rate.
// Both through the device scheduler and the PCIe/HBM fabric, as the runtime drives them.
// Usage: compute_bench [--kernels N] [--bytes SIZE_IN_BYTES] [--machine PRESET]

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "models/compute/ai_core_work.h"
#include "models/system/simulated_system.h"
#include "spec/system_loader.h"

using namespace ascendsim;

namespace {

double wallSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::unique_ptr<models::Task> kernel(uint64_t read, uint64_t written, uint64_t ops) {
  auto t = std::make_unique<models::Task>();
  t->kind = models::TaskKind::Kernel;
  t->dst = {models::MemoryPlace::Kind::Device, 0, 0};
  t->kernel.name = "bench";
  t->kernel.bytesRead = read;
  t->kernel.bytesWritten = written;
  t->kernel.ops = ops;
  t->bytes = read + written;
  return t;
}

}  // namespace

namespace {
const char* kUsage =
    "usage: compute_bench [--kernels N] [--bytes BYTES] [--machine PRESET]\n"
    "Wall time of N (100000) small kernels, then of one kernel over BYTES (1 GiB), on the first\n"
    "device of PRESET (default).\n";

uint64_t wholeNumber(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end || errno)
    throw std::invalid_argument(option + ": '" + text + "' is not a whole number");
  return v;
}
}  // namespace

int main(int argc, char** argv) {
  uint64_t kernels = 100000, bytes = 1ull << 30;
  std::string machine = "default";
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string option = argv[i];
      if (option == "--help" || option == "-h") {
        std::fputs(kUsage, stdout);
        return 0;
      }
      if (i + 1 >= argc) throw std::invalid_argument(option + ": a value must follow");
      const std::string value = argv[++i];
      if (option == "--kernels") {
        kernels = wholeNumber(option, value);
      } else if (option == "--bytes") {
        bytes = wholeNumber(option, value);
      } else if (option == "--machine") {
        machine = value;
      } else {
        throw std::invalid_argument("unknown option '" + option + "'");
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "compute_bench: %s\n%s", e.what(), kUsage);
    return 2;
  }
  const spec::SystemSpec sys = spec::loadSystemSpec(machine);
  models::SimulatedSystem system(sys);
  models::StreamQueue stream(0, 1u << 30);
  models::DeviceScheduler& device = system.device(0);
  device.attach(stream);

  // 1. Small kernels: 64 KiB in, 32 KiB out, one float32 op per output element, back to back.
  auto t0 = std::chrono::steady_clock::now();
  const models::Picoseconds start = system.now();
  for (uint64_t i = 0; i < kernels; ++i) device.submit(stream, kernel(64 << 10, 32 << 10, 8192));
  system.runUntil([&] { return stream.idle(); });
  double wall = wallSince(t0);
  std::printf("%-34s %12llu kernels  %8.3f s wall  %10.0f kernels/s  %8.2f us simulated each\n",
              "small kernels (64 KiB + 32 KiB)", static_cast<unsigned long long>(kernels), wall,
              static_cast<double>(kernels) / wall,
              static_cast<double>(system.now() - start) / 1e6 / static_cast<double>(kernels));

  // 2. One large add: 2 x bytes in, bytes out.
  t0 = std::chrono::steady_clock::now();
  const models::Picoseconds begin = system.now();
  device.submit(stream, kernel(2 * bytes, bytes, bytes / 4));
  system.runUntil([&] { return stream.idle(); });
  wall = wallSince(t0);
  const double simulated = static_cast<double>(system.now() - begin) * 1e-12;
  const double tiles = static_cast<double>(3 * bytes) /
                       static_cast<double>(models::kernelStepBytes(sys.devices[0].aicore));
  std::printf("%-34s %12.0f tiles    %8.3f s wall  %10.0f tiles/s    %8.2f GB/s simulated\n",
              "one large add (3 x bytes traffic)", tiles, wall, tiles / wall,
              3.0 * static_cast<double>(bytes) / simulated / 1e9);
  return 0;
}
