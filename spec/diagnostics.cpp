#include "spec/diagnostics.h"

namespace ascendsim::spec {

std::string Diagnostic::format() const {
  std::string out = where.file;
  if (where.line > 0) out += ":" + std::to_string(where.line) + ":" + std::to_string(where.column);
  out += ": error: ";
  if (!keyPath.empty()) out += keyPath + ": ";
  return out + message;
}

void Diagnostics::error(const SourceLocation& where, std::string keyPath, std::string message) {
  items_.push_back({where, std::move(keyPath), std::move(message)});
}

namespace {
std::string joinDiagnostics(const std::vector<Diagnostic>& items) {
  std::string out;
  for (const Diagnostic& d : items) {
    if (!out.empty()) out += '\n';
    out += d.format();
  }
  return out;
}
}  // namespace

ConfigError::ConfigError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(joinDiagnostics(diagnostics)), diagnostics_(std::move(diagnostics)) {}

}  // namespace ascendsim::spec
