#pragma once
// A sweep run as a Slurm job array: one array task per shard, each running
// `ascendsim sweep --shard i/N` into its own part file under OUT.slurm/, then merged in the
// grid's order into the same table a local run writes. The directory holds the job script, the
// part files, the tasks' logs and a manifest (what was swept, the job ids) so that `sweep merge`
// and a second submission (only the shards without a complete part file) know the grid.

#include <string>
#include <vector>

namespace ascendsim::tools {

struct SlurmSweepOptions {
  std::string self;  // this executable, absolute
  std::string config, workload, out;
  std::vector<std::string> sets;
  bool dramStats = false;
  size_t shards = 0;  // 0: one per point
  std::string partition, time;
  int arrayLimit = 0;  // at most this many tasks at once (0: Slurm's choice)
  std::vector<std::string> sbatchArgs;
  bool wait = false;
};

// Writes the job script, submits the shards that are missing, and with `wait` polls until the
// array ends and merges. Returns an exit code (kExit*).
int submitSlurmSweep(const SlurmSweepOptions& o);

// Merges the part files of the sweep in `dir` (OUT.slurm) into `out` (the manifest's OUT when
// empty), in the grid's order; lists shards without a complete part file with their Slurm state
// and log. Returns kExitOk when every point is there and ran, else kExitFailure.
int mergeSlurmSweep(const std::string& dir, const std::string& out);

// Whether `path` is a sweep's Slurm directory (has a manifest).
bool isSlurmSweepDir(const std::string& path);

}  // namespace ascendsim::tools
