#pragma once
// Files carried inside the binary: the memory presets and machine presets from configs/.

#include <string_view>
#include <vector>

namespace ascendsim::spec {

struct EmbeddedFile {
  std::string_view path;  // relative to configs/, e.g. "memory/hbm2e.yaml"
  std::string_view text;
};

// Every YAML file under configs/, embedded at build time (see cmake/EmbedFiles.cmake).
const std::vector<EmbeddedFile>& builtinConfigFiles();

// The text of configs/<path>, or nullptr when no such file was embedded.
const EmbeddedFile* findBuiltinConfig(std::string_view path);

}  // namespace ascendsim::spec
