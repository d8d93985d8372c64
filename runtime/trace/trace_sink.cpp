#include "runtime/trace/trace_sink.h"

namespace ascendsim::runtime {

TraceArg TraceArg::number(std::string key, uint64_t value) {
  TraceArg a;
  a.key = std::move(key);
  a.kind = Kind::Unsigned;
  a.unsignedValue = value;
  return a;
}

TraceArg TraceArg::signedNumber(std::string key, int64_t value) {
  TraceArg a;
  a.key = std::move(key);
  a.kind = Kind::Signed;
  a.signedValue = value;
  return a;
}

TraceArg TraceArg::real(std::string key, double value, int decimals) {
  TraceArg a;
  a.key = std::move(key);
  a.kind = Kind::Real;
  a.realValue = value;
  a.decimals = decimals;
  return a;
}

TraceArg TraceArg::string(std::string key, std::string value) {
  TraceArg a;
  a.key = std::move(key);
  a.kind = Kind::Text;
  a.text = std::move(value);
  return a;
}

TraceArg TraceArg::json(std::string key, std::string jsonText) {
  TraceArg a;
  a.key = std::move(key);
  a.kind = Kind::Json;
  a.text = std::move(jsonText);
  return a;
}

std::string traceFormatFor(const std::string& format, const std::string& path) {
  if (!format.empty()) return format;
  const auto endsWith = [&](const std::string& suffix) {
    return path.size() >= suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (endsWith(".sqlite") || endsWith(".db")) return "sqlite";
  if (endsWith(".pftrace") || endsWith(".perfetto-trace")) return "perfetto";
  return "chrome-json";
}

std::unique_ptr<TraceSink> makeTraceSink(const std::string& format, const std::string& path) {
  return kinds::Registry<TraceSinkFactory>::instance().at("trace format",
                                                          traceFormatFor(format, path))();
}

}  // namespace ascendsim::runtime
