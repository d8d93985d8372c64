#pragma once
// Readers for the sections of a config, shared by the system loader. Each reports problems to
// `diag` and leaves fields it could not read at their previous values.

#include <string>

#include "spec/config_node.h"
#include "spec/field_reader.h"
#include "spec/system_spec.h"

namespace ascendsim::spec {

void readMemory(const ConfigNode& node, const std::string& path, Diagnostics& diag, DramSpec& out);
void readLink(const ConfigNode& node, const std::string& path, Diagnostics& diag,
              PcieLinkSpec& out);
void readTrace(const ConfigNode& node, Diagnostics& diag, TraceSpec& trace);

}  // namespace ascendsim::spec
