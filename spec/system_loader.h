#pragma once
// Entry points: YAML file (or built-in preset name) -> validated SystemSpec.
// Every problem found is reported at once in a ConfigError, each with file:line:column.

#include <string>
#include <vector>

#include "spec/config_node.h"
#include "spec/system_spec.h"

namespace ascendsim::spec {

// `ref` is a path to a YAML file or the name of a built-in machine preset ("atlas-800t-a2").
SystemSpec loadSystemSpec(const std::string& ref);
// Parses YAML text as if it were a file called `fileName` (relative `extends` resolve from cwd).
SystemSpec loadSystemSpecFromText(const std::string& text, const std::string& fileName);
// The built-in default machine: a small single-NPU server.
SystemSpec defaultSystemSpec();
// `ref` as loadSystemSpec reads it, or the built-in default when `ref` is empty (the tools'
// --config).
SystemSpec loadSystemSpecOrDefault(const std::string& ref);

// One memory on its own (the DRAM benchmark, tests): a built-in memory preset's name or a YAML
// file holding one memory section (which may name a `preset` and override it), with `overrides`
// (YAML text of memory fields, or empty) laid over it. Throws ConfigError with every problem.
DramSpec loadMemorySpec(const std::string& ref, const std::string& overrides = "");

// Names of the built-in machine presets and memory presets.
std::vector<std::string> builtinMachinePresets();
std::vector<std::string> builtinMemoryPresets();

// Lower-level steps, exposed for tools and tests.
// Reads `ref` and everything it extends into one merged tree (the `extends` key removed).
ConfigNode loadConfigDocument(const std::string& ref, Diagnostics& diag,
                              std::vector<std::string>& sources);
ConfigNode loadConfigDocumentFromText(const std::string& text, const std::string& fileName,
                                      Diagnostics& diag, std::vector<std::string>& sources);
SystemSpec readSystemSpec(const ConfigNode& root, Diagnostics& diag);
// A map that may name a machine to build on (`extends`, relative to the file the map is in), with
// that machine's tree overlaid by the map's other keys (a cluster's server entries).
ConfigNode resolveExtends(const ConfigNode& node, Diagnostics& diag,
                          std::vector<std::string>& sources);
// A cluster (a config whose top level has `cluster:`): its servers' machines joined into one,
// with a NIC per device on the cluster's switch (spec/cluster_loader.cpp).
SystemSpec readClusterSpec(const ConfigNode& root, Diagnostics& diag,
                           std::vector<std::string>& sources);

}  // namespace ascendsim::spec
