#include "tools/view_command.h"

#include <malloc.h>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>
#include <vector>

#include "runtime/trace/output_file.h"
#include "spec/embedded_file.h"
#include "tools/atomic_file.h"
#include "tools/exit_codes.h"
#include "tools/progress_line.h"
#include "tools/read_progress.h"
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

int runView(const ViewOptions& o) {
  if (runtime::sameFile(o.output, o.trace) || runtime::sameFile(o.output, o.report)) {
    std::cerr << "ascendsim view: the page '" << o.output
              << "' would overwrite an input; choose another -o\n";
    return kExitUsage;
  }
  std::error_code ec;
  // A regular file (a device or FIFO such as /dev/zero is refused, not read for ever), and the
  // parts a rotated trace continued in (NAME.1.json, NAME.2.json, ...), read as one trace.
  std::vector<std::string> paths{o.trace};
  if (!std::filesystem::is_regular_file(o.trace, ec)) {
    std::cerr << "ascendsim view: cannot read '" << o.trace << "'\n";
    return kExitFailure;
  }
  // A run finishes each part before it starts the next, so its parts are each at least as new as
  // the one before; an older NAME.K.json was left by an earlier run and is not part of this one.
  for (int part = 1;; ++part) {
    const std::string next = runtime::rotatedPartPath(o.trace, part);
    if (!std::filesystem::is_regular_file(next, ec)) break;
    if (std::filesystem::last_write_time(next, ec) <
        std::filesystem::last_write_time(paths.back(), ec)) {
      std::cerr << "ascendsim view: ignoring " << next << ", older than " << paths.back()
                << " (left by an earlier run)\n";
      break;
    }
    paths.push_back(next);
  }
  std::vector<std::ifstream> files(paths.size());
  uint64_t size = 0;
  for (const std::string& path : paths) size += std::filesystem::file_size(path, ec);
  auto line = std::make_unique<ProgressLine>("ascendsim view: reading " + o.trace, size, 1e6, "MB");
  std::vector<std::unique_ptr<ReadProgress>> progress;
  std::vector<std::unique_ptr<std::istream>> counted;
  std::vector<TracePart> parts;
  std::vector<char> buffer(1 << 20);
  for (size_t i = 0; i < paths.size(); ++i) {
    if (i == 0)
      files[i].rdbuf()->pubsetbuf(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    files[i].open(paths[i], std::ios::binary);
    if (!files[i]) {
      std::cerr << "ascendsim view: cannot read '" << paths[i] << "'\n";
      return kExitFailure;
    }
    const uint64_t bytes = std::filesystem::file_size(paths[i], ec);
    progress.push_back(std::make_unique<ReadProgress>(*files[i].rdbuf(), *line));
    counted.push_back(std::make_unique<std::istream>(progress.back().get()));
    parts.push_back({counted.back().get(), bytes});
  }
  if (paths.size() > 1) {
    std::cerr << "ascendsim view: '" << o.trace << "' continues in " << paths.size() - 1
              << " rotated part(s), " << paths[1] << " .. " << paths.back()
              << ": reading them as one trace\n";
  }
  ViewerTrace trace;
  TraceRead read = readTrace(parts, trace);
  counted.clear();
  progress.clear();
  line.reset();  // the progress line erased before anything else is said
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
  const uint64_t events = trace.events;
  std::string header, binary;
  viewerData(trace, header, binary);  // frees the columns as it goes
  // Their memory given back before the page is made: 1M copies peak at 638 MiB, not 855.
  malloc_trim(0);
  const std::string page = renderViewer(header, binary, report);
  if (!writeOutput(o.output, page, "view")) return kExitFailure;
  std::cout << "wrote " << o.output << " (" << page.size() / 1024 << " KiB, " << events
            << " events); open it in any browser, no network needed\n";
  return kExitOk;
}

}  // namespace

std::string renderViewer(const std::string& header, const std::string& binary,
                         const std::string& reportJson) {
  const std::string_view page = spec::viewerFiles().at(0).text;
  const std::string report = reportJson.empty() ? "null" : scriptSafe(reportJson);
  std::string out;
  out.reserve(page.size() + header.size() + binary.size() / 3 * 4 + report.size() + 4096);
  // The page's three markers, in the order they come in it, each replaced by its part.
  const std::string_view kTrace = "/*ASCENDSIM_TRACE*/", kData = "<!--ASCENDSIM_DATA-->",
                         kReport = "/*ASCENDSIM_REPORT*/";
  size_t at = 0;
  for (const std::string_view marker : {kTrace, kData, kReport}) {
    const size_t found = page.find(marker, at);
    if (found == std::string_view::npos) continue;
    out.append(page.substr(at, found - at));
    at = found + marker.size();
    if (marker == kTrace) out += scriptSafe(header);
    if (marker == kReport) out += report;
    if (marker != kData) continue;
    // The binary block as base64, in <script> elements of at most kChunk bytes of it each, so
    // that the page decodes it piece by piece.
    constexpr size_t kChunk = 6 << 20;  // a multiple of 3: only the last piece is padded
    for (size_t from = 0; from < binary.size(); from += kChunk) {
      out += "<script type=\"text/plain\" class=\"trace-chunk\">";
      appendBase64(out, binary.data() + from, std::min(kChunk, binary.size() - from));
      out += "</script>\n";
    }
  }
  out.append(page.substr(at));
  return out;
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
