#pragma once
// `ascendsim collectives --sweep KEY=v1,v2,...`: the same measurement on every point of a grid of
// machine settings (the cross product of the sweeps, the first varying slowest, as `ascendsim
// sweep` makes it). Each point runs in a child process of its own (SystemC elaborates one machine
// per process) with the point's settings added as `--set`s; its table is printed as it runs, and
// its rows are gathered into one table with the settings as leading columns.

#include <functional>
#include <string>
#include <vector>

namespace ascendsim::tools {

// Runs one point: `sets` are the point's KEY=VALUE settings, `csv` the file its rows go to;
// returns the point's exit code. Called in the child process.
using SweepPoint = std::function<int(const std::vector<std::string>& sets, const std::string& csv)>;

// Returns the exit code: a bad sweep is a usage error; otherwise 0 when every point succeeded,
// else the first failing point's code (the other points still run). `csvOut` (may be empty)
// receives the gathered table.
int runSettingSweep(const std::vector<std::string>& sweeps, const SweepPoint& point,
                    const std::string& csvOut);

}  // namespace ascendsim::tools
