#pragma once
// One setting of a resolved machine changed by name, as `--set KEY=VALUE` and sweeps change it:
// KEY as `config show` names it (`devices[0].link.generation`, or `devices[*].link.lanes` for
// every device; `...memory.preset` swaps a whole memory preset).

#include <optional>
#include <string>

namespace ascendsim::tools {

// The resolved machine YAML with `key = value` applied; nullopt + why when the key is not there.
std::optional<std::string> applyOverride(const std::string& yaml, const std::string& key,
                                         const std::string& value, std::string& why);

}  // namespace ascendsim::tools
