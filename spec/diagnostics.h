#pragma once
// Errors found in a configuration, each tied to the place in a file that caused it.

#include <stdexcept>
#include <string>
#include <vector>

namespace ascendsim::spec {

struct SourceLocation {
  std::string file;  // a path, or "<builtin>/memory/hbm2e.yaml" for an embedded preset
  int line = 0;      // 1-based; 0 when unknown
  int column = 0;    // 1-based
};

struct Diagnostic {
  SourceLocation where;
  std::string keyPath;  // e.g. "devices[2].link.lanes"
  std::string message;
  // "file:line:column: error: keyPath: message"
  std::string format() const;
};

// Collects every problem in a config so the user sees them all at once, not one per run.
class Diagnostics {
 public:
  void error(const SourceLocation& where, std::string keyPath, std::string message);
  bool empty() const { return items_.empty(); }
  const std::vector<Diagnostic>& items() const { return items_; }

 private:
  std::vector<Diagnostic> items_;
};

class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace ascendsim::spec
