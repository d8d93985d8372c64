// `ascendsim collectives OP`: hccl_test (hicann/oam-tools src/hccl_test) on the simulated machine,
// with hccl_test's flags, defaults, timing and table, the ranks running as threads of this
// process (hccl_test needs one MPI process per NPU).

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>

#include "acl/acl.h"
#include "runtime/hccl/data_types.h"
#include "spec/system_loader.h"
#include "spec/units.h"
#include "tools/atomic_file.h"
#include "tools/collectives/collective_bench.h"
#include "tools/collectives/collective_data.h"
#include "tools/collectives/collectives_report.h"
#include "tools/collectives/setting_sweep.h"
#include "tools/collectives/size_sweep.h"
#include "tools/exit_codes.h"
#include "tools/machine_options.h"
#include "tools/subcommand.h"

namespace ascendsim::tools {
namespace {

struct CollectivesOptions {
  MachineChoice machine;
  std::string op;
  int npus = 0;  // 0: every device of the machine
  std::string minBytes = "64M", maxBytes = "64M";
  int64_t stepBytes = 0;
  double stepFactor = 0;
  std::string reduceOp = "sum", dataType = "fp32";
  int root = 0, iters = 20, warmupIters = 10, check = 1;
  std::string csv, json, svg, trace;
  std::vector<std::string> sweeps;  // --sweep KEY=v1,v2,...: one run per point
  bool timingOnly = false;
  CLI::Option *checkGiven = nullptr, *stepBytesGiven = nullptr, *stepFactorGiven = nullptr,
              *reduceOpGiven = nullptr, *rootGiven = nullptr;
};

// hccl_test's -d names (int128 aside: HCCL moves it nowhere).
const std::vector<std::pair<std::string, HcclDataType>> kDataTypes = {
    {"int8", HCCL_DATA_TYPE_INT8},       {"uint8", HCCL_DATA_TYPE_UINT8},
    {"int16", HCCL_DATA_TYPE_INT16},     {"uint16", HCCL_DATA_TYPE_UINT16},
    {"int32", HCCL_DATA_TYPE_INT32},     {"uint32", HCCL_DATA_TYPE_UINT32},
    {"int64", HCCL_DATA_TYPE_INT64},     {"uint64", HCCL_DATA_TYPE_UINT64},
    {"fp16", HCCL_DATA_TYPE_FP16},       {"fp32", HCCL_DATA_TYPE_FP32},
    {"bfp16", HCCL_DATA_TYPE_BFP16},     {"fp64", HCCL_DATA_TYPE_FP64},
    {"fp8e5m2", HCCL_DATA_TYPE_FP8E5M2}, {"fp8e4m3", HCCL_DATA_TYPE_FP8E4M3},
    {"fp8e8m0", HCCL_DATA_TYPE_FP8E8M0}, {"hif8", HCCL_DATA_TYPE_HIF8}};

const std::vector<std::pair<std::string, HcclReduceOp>> kReduceOps = {{"sum", HCCL_REDUCE_SUM},
                                                                      {"prod", HCCL_REDUCE_PROD},
                                                                      {"max", HCCL_REDUCE_MAX},
                                                                      {"min", HCCL_REDUCE_MIN}};

template <class T>
std::vector<std::string> namesOf(const std::vector<std::pair<std::string, T>>& table) {
  std::vector<std::string> out;
  for (const auto& [name, value] : table) out.push_back(name);
  return out;
}

int usageError(const std::string& message) {
  std::cerr << "ascendsim collectives: " << message << "\n";
  return kExitUsage;
}

// The sizes -b, -e, -i and -f ask for, or a message saying what is wrong.
std::optional<SizeSweepRequest> sizeRequest(const CollectivesOptions& o, std::string& why) {
  SizeSweepRequest r;
  const auto minBytes = parseHcclTestBytes(o.minBytes), maxBytes = parseHcclTestBytes(o.maxBytes);
  if (!minBytes || *minBytes == 0 || !maxBytes || *maxBytes == 0) {
    why =
        "-b/--minbytes and -e/--maxbytes take a byte count above 0 with an optional K, M or G "
        "(as 8K, 64M, 1G), got '" +
        (!minBytes || *minBytes == 0 ? o.minBytes : o.maxBytes) + "'";
    return std::nullopt;
  }
  if (*maxBytes < *minBytes) {
    why = "-e/--maxbytes (" + o.maxBytes + ") is below -b/--minbytes (" + o.minBytes + ")";
    return std::nullopt;
  }
  r.minBytes = *minBytes;
  r.maxBytes = *maxBytes;
  if (o.stepBytesGiven->count() > 0) {
    if (o.stepBytes < 0) {
      why = "-i/--stepbytes must be 0 or more, got " + std::to_string(o.stepBytes);
      return std::nullopt;
    }
    r.stepBytes = static_cast<uint64_t>(o.stepBytes);
  }
  if (o.stepFactorGiven->count() > 0) {
    if (!(o.stepFactor > 1.0)) {
      why = "-f/--stepfactor must be above 1, got " + o.stepFactorGiven->as<std::string>();
      return std::nullopt;
    }
    r.stepFactor = o.stepFactor;
  }
  return r;
}

// Every size must fit on every rank's device beside HCCL's two staging buffers.
std::string memoryProblem(const spec::SystemSpec& sys, const BenchSettings& s) {
  uint64_t staging = 200;  // HCCL_BUFFSIZE in MB, HCCL's default
  if (const char* env = std::getenv("HCCL_BUFFSIZE")) staging = std::strtoull(env, nullptr, 10);
  staging = 2 * staging * (1ull << 20);
  const uint32_t size = runtime::hccl::elementSize(s.dataType);
  for (uint64_t dataSize : s.sizes) {
    const CollectiveLayout l = s.collective.layout(dataSize, size, s.ranks);
    const uint64_t need = l.sendBytes + l.recvBytes + staging;
    for (uint32_t r = 0; r < s.ranks; ++r) {
      const auto& device = sys.devices[r];
      if (need <= device.memory.capacity) continue;
      return "data size " + std::to_string(dataSize) + " needs " + spec::describeBytes(need) +
             " on each rank (send " + spec::describeBytes(l.sendBytes) + ", receive " +
             spec::describeBytes(l.recvBytes) + ", HCCL's staging buffers " +
             spec::describeBytes(staging) + "); " + device.name + " has " +
             spec::describeBytes(device.memory.capacity);
    }
  }
  return "";
}

// This computer's memory that programs may still take (MemAvailable), in bytes; 0 if unknown.
uint64_t availableHostMemory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

// The simulated device memory lives in this process, so the buffers of every rank take this
// computer's memory: each rank's send and receive buffers once as device memory, and its input
// (and, when checking, its result) once more on the host. A size that cannot fit is refused
// rather than left to the kernel's out-of-memory killer.
std::string hostMemoryProblem(const BenchSettings& s) {
  const uint64_t available = availableHostMemory();
  if (available == 0) return "";
  const uint32_t size = runtime::hccl::elementSize(s.dataType);
  for (uint64_t dataSize : s.sizes) {
    const CollectiveLayout l = s.collective.layout(dataSize, size, s.ranks);
    const uint64_t perRank = 2 * l.sendBytes + l.recvBytes + (s.check > 0 ? l.recvBytes : 0);
    const uint64_t need = perRank * s.ranks;
    if (need <= available) continue;
    return "data size " + std::to_string(dataSize) + ": the " + std::to_string(s.ranks) +
           " ranks' buffers would take " + spec::describeBytes(need) +
           " of this computer's memory (simulated device memory is held in it, and each rank's "
           "input" +
           (s.check > 0 ? " and result" : "") + " beside it); " + spec::describeBytes(available) +
           " is available";
  }
  return "";
}

// -p, -r, -n, -w, -c against each other and the machine; fills `s` or returns a message.
std::string settleRanksAndCounts(const CollectivesOptions& o, const spec::SystemSpec& sys,
                                 BenchSettings& s) {
  const int devices = static_cast<int>(sys.devices.size());
  const int npus = o.npus == 0 ? devices : o.npus;
  if (npus < 1 || npus > devices) {
    return "-p/--npus " + std::to_string(o.npus) + ": the machine has " + std::to_string(devices) +
           " NPU(s); choose 1.." + std::to_string(devices);
  }
  if (o.root < 0 || o.root >= npus)
    return "-r/--root " + std::to_string(o.root) + " is not a rank: choose 0.." +
           std::to_string(npus - 1);
  if (o.iters < 1) return "-n/--iters must be 1 or more (the time is averaged over them)";
  if (o.warmupIters < 0) return "-w/--warmup_iters must be 0 or more";
  if (o.check < 0 || o.check > 2) return "-c/--check is 0 (off), 1 (on) or 2 (verbose)";
  if (o.timingOnly && o.check > 0 && o.checkGiven->count() > 0)
    return "--timing-only moves no bytes: there is nothing for -c/--check to check";
  s.ranks = static_cast<uint32_t>(npus);
  s.root = static_cast<uint32_t>(o.root);
  s.iters = o.iters;
  s.warmupIters = o.warmupIters;
  s.check = o.timingOnly ? 0 : o.check;
  return "";
}

// -d and -o (names CLI11 has already checked); a reduction HCCL refuses is said here.
std::string settleTypes(const CollectivesOptions& o, BenchSettings& s) {
  for (const auto& [name, type] : kDataTypes) {
    if (name == o.dataType) s.dataType = type;
  }
  for (const auto& [name, op] : kReduceOps) {
    if (name == o.reduceOp) s.op = op;
  }
  std::string why;
  if (s.collective.reduces() && !runtime::hccl::reducible(s.dataType, s.op, &why))
    return o.op + " -d " + o.dataType + " -o " + o.reduceOp + ": " + why;
  return "";
}

// Checks the flags against each other and the machine; fills `s` or returns a message.
std::string settle(const CollectivesOptions& o, const spec::SystemSpec& sys, BenchSettings& s,
                   std::unique_ptr<SizeSweep>& sweep) {
  s.collective = *Collective::named(o.op);
  std::string why = settleRanksAndCounts(o, sys, s);
  if (why.empty()) why = settleTypes(o, s);
  if (!why.empty()) return why;
  const auto request = sizeRequest(o, why);
  if (!request) return why;
  sweep = std::make_unique<SizeSweep>(*request, s.ranks, s.collective.alignsToRanks());
  s.sizes = sweep->sizes();
  why = memoryProblem(sys, s);
  if (!why.empty() || o.timingOnly) return why;  // (no bytes held on the host then)
  return hostMemoryProblem(s);
}

// Warnings hccl_test gives: flags that change nothing, results it cannot check.
void warnAsHcclTest(const CollectivesOptions& o, const BenchSettings& s) {
  if (o.reduceOpGiven->count() > 0 && !s.collective.reduces())
    std::cerr << "Warning: -o/--op does not apply to " << o.op << "; ignored\n";
  if (o.rootGiven->count() > 0 && !s.collective.hasRoot())
    std::cerr << "Warning: -r/--root does not apply to " << o.op
              << "; it only picks the rank whose time is printed\n";
  if (o.stepFactorGiven->count() > 0 && o.stepBytesGiven->count() > 0)
    std::cerr << "Warning: -f/--stepfactor and -i/--stepbytes are both set; -f is used\n";
  // As hccl_test warns when a result would overflow (it then prints NULL).
  const CollectiveLayout first =
      s.collective.layout(s.sizes.front(), runtime::hccl::elementSize(s.dataType), s.ranks);
  if (s.check > 0 &&
      !CollectiveData(s.collective, first, s.dataType, s.op, s.ranks, s.root).checkable()) {
    std::cerr << "Warning: " << o.dataType << " cannot hold the " << o.reduceOp << " of " << s.ranks
              << " ranks' check values exactly; results are not checked (NULL)\n";
  }
}

int runCollectives(const CollectivesOptions& o);

// --sweep: the measurement once per point of the settings' grid, each in a process of its own.
int runCollectivesSweep(const CollectivesOptions& o) {
  if (!o.json.empty() || !o.svg.empty() || !o.trace.empty())
    return usageError(
        "--sweep gathers the points' rows into --csv only; --json, --svg and "
        "--trace are for one machine");
  return runSettingSweep(
      o.sweeps,
      [&o](const std::vector<std::string>& sets, const std::string& csv) {
        CollectivesOptions point = o;
        point.sweeps.clear();
        point.machine.sets.insert(point.machine.sets.end(), sets.begin(), sets.end());
        point.csv = csv;
        return runCollectives(point);
      },
      o.csv);
}

int runCollectives(const CollectivesOptions& o) {
  if (!o.sweeps.empty()) return runCollectivesSweep(o);
  spec::SystemSpec sys;
  try {
    sys = loadMachine(o.machine);
  } catch (const spec::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadConfig;
  }
  if (o.timingOnly) setenv("ASCENDSIM_DATA", "timing-only", 1);
  BenchSettings s;
  std::unique_ptr<SizeSweep> sweep;
  const std::string problem = settle(o, sys, s, sweep);
  if (!problem.empty()) return usageError(problem);
  warnAsHcclTest(o, s);

  // The runtime in this process simulates the machine chosen here; its own summary table would
  // only repeat the figures below.
  exportMachine(o.machine);
  setenv("ASCENDSIM_SUMMARY", "0", 0);
  if (!o.trace.empty()) setenv("ASCENDSIM_TRACE", o.trace.c_str(), 1);
  if (aclInit(nullptr) != ACL_SUCCESS) {
    std::cerr << "ascendsim collectives: aclInit failed: " << aclGetRecentErrMsg() << "\n";
    return kExitFailure;
  }
  const std::string machine = sys.name.empty() ? o.machine.config : sys.name;
  CollectivesReport report(s, machine);
  std::cout << "ascendsim collectives: " << s.collective.name() << " (" << s.collective.hcclCall()
            << ") on " << machine << ", " << s.ranks << " rank(s) as threads, rank r on device r\n"
            << report.headerLine(sweep->minBytes(), sweep->maxBytes())
            << CollectivesReport::tableHeader() << std::flush;
  CollectiveBench bench(s);
  const std::string failure =
      bench.run([&](const SizeResult& r) { std::cout << report.add(r) << std::flush; });
  aclFinalize();
  if (!failure.empty()) {
    std::cerr << "ascendsim collectives: " << failure << "\n";
    return kExitFailure;
  }
  if (!o.csv.empty() && !writeOutput(o.csv, report.csv(), "collectives")) return kExitFailure;
  if (!o.json.empty() && !writeOutput(o.json, report.json(), "collectives")) return kExitFailure;
  if (!o.svg.empty() && !writeOutput(o.svg, report.svg(), "collectives")) return kExitFailure;
  return report.anyCheckFailed() ? kExitFailure : kExitOk;
}

}  // namespace

void addCollectivesCommand(CLI::App& command, int& exitCode) {
  auto o = std::make_shared<CollectivesOptions>();
  CLI::App* cmd = &command;
  // The machine options without --config's short -c, which is hccl_test's --check here.
  cmd->add_option("--config", o->machine.config,
                  "Machine: a YAML file or a built-in preset (default: built-in default)");
  cmd->add_option("--set", o->machine.sets,
                  "KEY=VALUE: change one setting of the machine, named as `config show` names it; "
                  "repeatable")
      ->allow_extra_args(false);  // one value per --set, so that OP may follow it
  cmd->add_option("OP", o->op, "The collective: hccl_test's binary name without _test")
      ->required()
      ->check(CLI::IsMember(Collective::names()));
  cmd->add_option("-p,--npus", o->npus, "Ranks, one per NPU from npu0 (default: every NPU)");
  cmd->add_option("-b,--minbytes", o->minBytes,
                  "Smallest data size, K/M/G = 2^10/2^20/2^30 (default 64M)");
  cmd->add_option("-e,--maxbytes", o->maxBytes, "Largest data size (default 64M)");
  o->stepBytesGiven = cmd->add_option("-i,--stepbytes", o->stepBytes,
                                      "Bytes added per step (default (e - b) / 10; 0: -b only)");
  o->stepFactorGiven = cmd->add_option("-f,--stepfactor", o->stepFactor,
                                       "Factor per step, above 1 (takes precedence over -i)");
  o->reduceOpGiven =
      cmd->add_option("-o,--op", o->reduceOp, "Reduce op: sum, prod, max, min (default sum)")
          ->check(CLI::IsMember(namesOf(kReduceOps)));
  o->rootGiven =
      cmd->add_option("-r,--root", o->root, "Root rank (default 0); its time is printed");
  cmd->add_option("-d,--datatype", o->dataType, "Data type (default fp32)")
      ->check(CLI::IsMember(namesOf(kDataTypes)));
  cmd->add_option("-n,--iters", o->iters, "Timed calls per size (default 20)");
  cmd->add_option("-w,--warmup_iters", o->warmupIters, "Untimed calls first (default 10)");
  o->checkGiven = cmd->add_option("-c,--check", o->check,
                                  "Check the results: 0 off, 1 on (default), 2 verbose");
  cmd->add_flag("--timing-only", o->timingOnly,
                "Move no bytes (ASCENDSIM_DATA=timing-only): the same times, without the memory "
                "and wall time the data takes; nothing to check");
  cmd->add_option("--csv", o->csv, "Write the rows as CSV");
  cmd->add_option("--json", o->json, "Write the rows as JSON (with every rank's time)");
  cmd->add_option("--svg", o->svg, "Draw algorithm and bus bandwidth against data size as SVG");
  cmd->add_option("--trace", o->trace, "Write the timing trace of the run");
  cmd->add_option("--sweep", o->sweeps,
                  "KEY=v1,v2,...: run once per value (a machine setting as `config show` names "
                  "it); repeatable: the cross product, each point in a process of its own")
      ->allow_extra_args(false);
  cmd->footer(
      "Flags as hicann/oam-tools' hccl_test (all_reduce_test and so on); docs/collectives.md.\n"
      "Examples:\n"
      "  ascendsim collectives --config atlas-800t-a2 all_reduce -b 8K -e 256M -f 2\n"
      "  ascendsim collectives --config atlas-800t-a2 all_gather -p 4 -b 1M -e 1G -f 4 --svg "
      "ag.svg\n"
      "  ascendsim collectives --config atlas-800t-a2 --set 'device_links[0].lanes=16' all_reduce\n"
      "  ascendsim collectives --config atlas-800t-a2 --sweep "
      "'device_links[*].transfer_rate=19.3GB/s,38.6GB/s' all_reduce -b 256M --timing-only");
  cmd->callback([o, &exitCode] { exitCode = runCollectives(*o); });
}

namespace {
const SubcommandRegistration kRegistered{
    {"subcommand",
     "collectives",
     "Measure HCCL collectives as hccl_test does (all_reduce, all_gather, ...), ranks as threads",
     {},
     {}},
    addCollectivesCommand};
}  // namespace

}  // namespace ascendsim::tools
