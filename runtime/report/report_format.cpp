#include "runtime/report/report_format.h"

namespace ascendsim::runtime {

std::string reportFormatFor(const std::string& path, const std::string& chosen) {
  if (!chosen.empty()) return chosen;
  std::string found = "json";
  kinds::Registry<ReportFormatEntry>::instance().forEach([&](const kinds::KindInfo& info,
                                                             const ReportFormatEntry& entry) {
    for (const std::string& ext : entry.extensions) {
      if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0)
        found = info.name;
    }
  });
  return found;
}

std::string renderReport(const std::string& format, const ReportInput& input) {
  return kinds::Registry<ReportFormatEntry>::instance().at("report format", format).render(input);
}

}  // namespace ascendsim::runtime
