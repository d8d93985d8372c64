#include "tools/view_command.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

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

// The page's binary block as base64, in <script> elements of at most kChunk bytes of it each, so
// that the page decodes it piece by piece (no string of the whole block).
constexpr size_t kChunk = 6 << 20;

std::string dataScripts(const std::string& binary) {
  std::string out;
  for (size_t at = 0; at < binary.size(); at += kChunk) {
    out += "<script type=\"text/plain\" class=\"trace-chunk\">";
    out += base64(binary.data() + at, std::min(kChunk, binary.size() - at));
    out += "</script>\n";
  }
  return out;
}

int runView(const ViewOptions& o) {
  std::error_code ec;
  // A regular file (a device or FIFO such as /dev/zero is refused, not read for ever).
  const bool regular = std::filesystem::is_regular_file(o.trace, ec);
  std::ifstream in;
  std::vector<char> buffer(1 << 20);
  in.rdbuf()->pubsetbuf(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  if (regular) in.open(o.trace, std::ios::binary);
  if (!regular || !in) {
    std::cerr << "ascendsim view: cannot read '" << o.trace << "'\n";
    return kExitFailure;
  }
  ViewerTrace trace;
  const TraceRead read = readTrace(in, std::filesystem::file_size(o.trace, ec), trace);
  if (read == TraceRead::NotATrace) {
    std::cerr << "ascendsim view: '" << o.trace << "' is not Chrome Trace Event JSON\n";
    return kExitFailure;
  }
  if (read == TraceRead::CutOff) {
    std::cerr << "ascendsim view: '" << o.trace << "' is cut off (a crashed run?); showing its "
              << trace.events << " whole events\n";
  }
  std::string report;
  if (!o.report.empty()) {
    if (!readFile(o.report, report) || !nlohmann::json::accept(report)) {
      std::cerr << "ascendsim view: cannot read the report '" << o.report << "' as JSON\n";
      return kExitFailure;
    }
  }
  if (runtime::sameFile(o.output, o.trace) || runtime::sameFile(o.output, o.report)) {
    std::cerr << "ascendsim view: the page '" << o.output
              << "' would overwrite an input; choose another -o\n";
    return kExitUsage;
  }
  const std::string page = renderViewer(trace, read == TraceRead::CutOff, report);
  if (!writeOutput(o.output, page, "view")) return kExitFailure;
  std::cout << "wrote " << o.output << " (" << page.size() / 1024 << " KiB, " << trace.events
            << " events); open it in any browser, no network needed\n";
  return kExitOk;
}

}  // namespace

std::string renderViewer(const ViewerTrace& trace, bool cutOff, const std::string& reportJson) {
  std::string header, binary;
  viewerData(trace, header, binary);
  if (cutOff) header.insert(header.size() - 1, ",\"cutOff\":true");
  std::string page(spec::viewerFiles().at(0).text);
  replace(page, "/*ASCENDSIM_REPORT*/", reportJson.empty() ? "null" : scriptSafe(reportJson));
  replace(page, "<!--ASCENDSIM_DATA-->", dataScripts(binary));
  replace(page, "/*ASCENDSIM_TRACE*/", scriptSafe(header));
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
