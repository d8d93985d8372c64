#pragma once
// What `ascendsim view` makes of its input before it goes into the page (tools/view_command.cpp),
// apart so that the fuzzer (fuzz/viewer_fuzzer.cpp) can drive it with any bytes.

#include <string>

namespace ascendsim::tools {

// A trace to show: JSON, or a trace cut off by a crash whose array closes with "\n]" (then added
// to `trace`). False when it is neither.
bool acceptTrace(std::string& trace);

// JSON to embed inside <script>: every '<' (only inside strings in JSON) becomes "\u003c", so no
// "</script" or "<!--<script" in a name can change how the page parses. The same JSON value.
std::string scriptSafe(const std::string& json);

}  // namespace ascendsim::tools
