#pragma once
// The points of a sweep: the cross product of `--set KEY=v1,v2,...` values, applied to the
// base machine as `config show` prints it (KEY such as `devices[0].link.generation`, or
// `devices[*].link.lanes` for every device).

#include <optional>
#include <string>
#include <vector>

namespace ascendsim::tools {

struct SweepParameter {
  std::string key;
  std::vector<std::string> values;
};

std::optional<SweepParameter> parseSet(const std::string& text, std::string& why);
// A sweep has at most this many points: beyond it a grid is almost surely a mistake (a million
// points would run for weeks and write a table of gigabytes), and it is refused before anything
// runs.
constexpr size_t kMaxSweepPoints = 100000;
// False (with `why`) when the combinations of `params` exceed kMaxSweepPoints.
bool gridWithinLimit(const std::vector<SweepParameter>& params, std::string& why);
// Every combination, the first parameter varying slowest.
std::vector<std::vector<std::string>> crossProduct(const std::vector<SweepParameter>& params);

}  // namespace ascendsim::tools
