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
// Every combination, the first parameter varying slowest.
std::vector<std::vector<std::string>> crossProduct(const std::vector<SweepParameter>& params);

}  // namespace ascendsim::tools
