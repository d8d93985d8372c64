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
// The resolved machine YAML with `key = value` applied; nullopt + why when the key is not there.
std::optional<std::string> applyOverride(const std::string& yaml, const std::string& key, const std::string& value,
                                         std::string& why);

}  // namespace ascendsim::tools
