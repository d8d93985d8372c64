// ascendsim compare A B: what changed between two runs (two reports, or two tables), figure by
// figure: A, B, the difference and its share of A, as a table (or CSV) and an SVG bar chart of
// the relative changes.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "tools/atomic_file.h"
#include "tools/compare/run_metrics.h"
#include "tools/csv_table.h"
#include "tools/exit_codes.h"
#include "tools/plot/svg_text.h"
#include "tools/subcommand.h"

namespace ascendsim::tools {
namespace {

struct CompareOptions {
  std::string a, b, csv, svg;
  bool all = false;
};

struct Change {
  std::string name;
  bool inA = false, inB = false;
  double a = 0, b = 0;
  double relative() const { return a != 0 ? (b - a) / std::fabs(a) : 0; }
  bool changed() const { return inA != inB || a != b; }
};

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string percent(const Change& c) {
  if (!c.inA || !c.inB) return c.inA ? "gone" : "new";
  if (c.a == 0) return c.b == 0 ? "0.0 %" : "from 0";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%+.1f %%", 100 * c.relative());
  return buf;
}

std::vector<Change> compare(const RunMetrics& a, const RunMetrics& b) {
  std::vector<Change> out;
  std::map<std::string, size_t> at;
  for (const auto& [name, v] : a) {
    at[name] = out.size();
    out.push_back({name, true, false, v, 0});
  }
  for (const auto& [name, v] : b) {
    auto it = at.find(name);
    if (it == at.end()) {
      out.push_back({name, false, true, 0, v});
    } else {
      out[it->second].inB = true;
      out[it->second].b = v;
    }
  }
  return out;
}

// Horizontal bars, one per changed figure in both runs, from a zero line: the change in percent.
std::string barsSvg(const std::string& title, const std::vector<Change>& changes) {
  std::vector<const Change*> bars;
  double most = 0;
  size_t longest = 0;
  for (const Change& c : changes) {
    if (!c.inA || !c.inB || !c.changed() || c.a == 0) continue;
    bars.push_back(&c);
    most = std::max(most, std::fabs(100 * c.relative()));
    longest = std::max(longest, c.name.size());
  }
  const double label = std::max(120.0, textWidth(std::string(longest, 'x'), 12) + 16);
  const double plot = 420, row = 20, top = 40;
  const double height = top + row * static_cast<double>(std::max<size_t>(bars.size(), 1)) + 40;
  const double scale = most > 0 ? (plot / 2 - 50) / most : 1;
  const double zero = label + plot / 2;
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << label + plot + 20 << "\" height=\""
    << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"10\" y=\"22\" font-size=\"15\">" << svgEscape(title) << "</text>\n";
  if (bars.empty()) s << "<text x=\"10\" y=\"" << top + 14 << "\">no figure changed</text>\n";
  for (size_t i = 0; i < bars.size(); ++i) {
    const Change& c = *bars[i];
    const double y = top + row * static_cast<double>(i);
    const double w = 100 * c.relative() * scale;
    s << "<text x=\"" << label - 8 << "\" y=\"" << y + 14 << "\" text-anchor=\"end\">"
      << svgEscape(c.name) << "</text>\n"
      << "<rect x=\"" << (w < 0 ? zero + w : zero) << "\" y=\"" << y + 3 << "\" width=\""
      << std::fabs(w) << "\" height=\"" << row - 6 << "\" fill=\""
      << (w < 0 ? "#c0504d" : "#4f81bd") << "\"/>\n"
      << "<text x=\"" << (w < 0 ? zero + w - 4 : zero + w + 4) << "\" y=\"" << y + 14
      << "\" text-anchor=\"" << (w < 0 ? "end" : "start") << "\">" << svgEscape(percent(c))
      << "</text>\n";
  }
  s << "<line x1=\"" << zero << "\" y1=\"" << top - 4 << "\" x2=\"" << zero << "\" y2=\""
    << height - 30 << "\" stroke=\"black\"/>\n"
    << "<text x=\"" << zero << "\" y=\"" << height - 12
    << "\" text-anchor=\"middle\">change from A to B (%)</text>\n</svg>\n";
  return s.str();
}

int runCompare(const CompareOptions& o) {
  RunMetrics a, b;
  std::string why;
  if (!readRunMetrics(o.a, a, why) || !readRunMetrics(o.b, b, why)) {
    std::cerr << "ascendsim compare: " << why << "\n";
    return kExitUsage;
  }
  const std::vector<Change> changes = compare(a, b);
  Row header{"figure", "A", "B", "B - A", "change"};
  std::vector<Row> rows;
  size_t unchanged = 0;
  for (const Change& c : changes) {
    if (!o.all && !c.changed()) {
      ++unchanged;
      continue;
    }
    rows.push_back({c.name, c.inA ? number(c.a) : "", c.inB ? number(c.b) : "",
                    c.inA && c.inB ? number(c.b - c.a) : "", percent(c)});
  }
  if (!o.csv.empty() && !writeOutput(o.csv, csvText(header, rows), "compare")) return kExitFailure;
  if (!o.svg.empty() && !writeOutput(o.svg, barsSvg(o.a + " -> " + o.b, changes), "compare"))
    return kExitFailure;
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const Row& r : rows) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const Row& r) {
    for (size_t c = 0; c < r.size(); ++c) {
      const std::string pad(width[c] - r[c].size(), ' ');
      std::cout << (c == 0 ? r[c] + pad : pad + r[c]) << (c + 1 < r.size() ? "  " : "\n");
    }
  };
  std::cout << "A: " << o.a << "\nB: " << o.b << "\n";
  line(header);
  for (const Row& r : rows) line(r);
  if (unchanged > 0) std::cout << unchanged << " figure(s) the same in both (--all shows them)\n";
  return kExitOk;
}

void addCompareCommand(CLI::App& cmd, int& exitCode) {
  auto o = std::make_shared<CompareOptions>();
  cmd.add_option("a", o->a, "The first run: a report (--report) or a table (CSV)")->required();
  cmd.add_option("b", o->b, "The second run, of the same kind")->required();
  cmd.add_option("--csv", o->csv, "Also write the comparison as CSV");
  cmd.add_option("--svg", o->svg, "Also draw the changes as an SVG bar chart");
  cmd.add_flag("--all", o->all, "List figures that did not change too");
  cmd.footer(
      "Example: ascendsim run -w W.yaml --report a.json; ascendsim run -w W.yaml --set "
      "'devices[*].link.lanes=8' --report b.json; ascendsim compare a.json b.json --svg ab.svg");
  cmd.callback([o, &exitCode] { exitCode = runCompare(*o); });
}

const SubcommandRegistration kRegistered{
    {"subcommand",
     "compare",
     "What changed between two runs: each figure of two reports or tables, A, B and the change",
     {},
     {}},
    addCompareCommand};

}  // namespace
}  // namespace ascendsim::tools
