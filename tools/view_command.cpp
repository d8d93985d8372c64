#include "tools/view_command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/trace/output_file.h"
#include "spec/embedded_file.h"
#include "tools/atomic_file.h"
#include "tools/exit_codes.h"
#include "tools/subcommand.h"
#include "tools/viewer_input.h"

namespace ascendsim::spec {
const std::vector<EmbeddedFile>& viewerFiles();
}

namespace ascendsim::tools {
namespace {

struct ViewOptions {
  std::string trace, report, output;
};

// A regular file, read whole (a device or FIFO such as /dev/zero is refused, not read for ever).
bool readFile(const std::string& path, std::string& out) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream s;
  s << in.rdbuf();
  out = s.str();
  return true;
}

void replace(std::string& text, const std::string& marker, const std::string& with) {
  const auto at = text.find(marker);
  if (at != std::string::npos) text.replace(at, marker.size(), with);
}

int runView(const ViewOptions& o) {
  std::string trace, report;
  if (!readFile(o.trace, trace)) {
    std::cerr << "ascendsim view: cannot read '" << o.trace << "'\n";
    return kExitFailure;
  }
  if (!acceptTrace(trace)) {
    std::cerr << "ascendsim view: '" << o.trace << "' is not Chrome Trace Event JSON\n";
    return kExitFailure;
  }
  if (!o.report.empty()) {
    if (!readFile(o.report, report) || !nlohmann::json::accept(report)) {
      std::cerr << "ascendsim view: cannot read the report '" << o.report << "' as JSON\n";
      return kExitFailure;
    }
  }
  const std::string page = renderViewer(trace, report);
  if (runtime::sameFile(o.output, o.trace) || runtime::sameFile(o.output, o.report)) {
    std::cerr << "ascendsim view: the page '" << o.output
              << "' would overwrite an input; choose another -o\n";
    return kExitUsage;
  }
  if (!writeOutput(o.output, page, "view")) return kExitFailure;
  std::cout << "wrote " << o.output << " (" << page.size() / 1024
            << " KiB); open it in any browser, no network needed\n";
  return kExitOk;
}

}  // namespace

std::string renderViewer(const std::string& traceJson, const std::string& reportJson) {
  std::string page(spec::viewerFiles().at(0).text);
  replace(page, "/*ASCENDSIM_TRACE*/", scriptSafe(traceJson));
  replace(page, "/*ASCENDSIM_REPORT*/", reportJson.empty() ? "null" : scriptSafe(reportJson));
  return page;
}

void addViewCommand(CLI::App& command, int& exitCode) {
  auto opts = std::make_shared<ViewOptions>();
  CLI::App* view = &command;
  view->add_option("trace", opts->trace,
                   "Trace file written by a run (ASCENDSIM_TRACE or exec --trace)")
      ->required();
  view->add_option("--report,-r", opts->report, "Report file of the same run, for the summary");
  view->add_option("--output,-o", opts->output, "HTML file to write")->required();
  view->footer("Example: ascendsim view app.json --report report.json -o app.html");
  view->callback([opts, &exitCode] { exitCode = runView(*opts); });
}

namespace {
const SubcommandRegistration kRegistered{
    {"subcommand", "view", "Turn a trace into one self-contained HTML file that draws it", {}, {}},
    addViewCommand};
}  // namespace

}  // namespace ascendsim::tools
