#pragma once
// What a trace is made of, as the recorder emits it: names of processes and tracks, slices (an
// API call, a task, a transfer, a kernel), flow arrows between slices, and counter samples, each
// with typed arguments. A sink writes these in its format. Formats are kinds (spec/
// kind_registry.h, family "trace-format") that register themselves from their own files:
// "chrome-json" (trace_writer.cpp), "sqlite" (sqlite_trace_sink.cpp) and "perfetto"
// (perfetto_trace_sink.cpp).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "spec/kind_registry.h"
#include "spec/units.h"

namespace ascendsim::runtime {

// One argument of a slice: a whole number, a real number (printed with `decimals` places), text,
// or a structured value given as JSON text (a sink that cannot take it whole stores the text).
struct TraceArg {
  enum class Kind { Unsigned, Signed, Real, Text, Json };
  std::string key;
  Kind kind = Kind::Unsigned;
  uint64_t unsignedValue = 0;
  int64_t signedValue = 0;
  double realValue = 0;
  int decimals = 3;
  std::string text;

  static TraceArg number(std::string key, uint64_t value);
  static TraceArg signedNumber(std::string key, int64_t value);
  static TraceArg real(std::string key, double value, int decimals);
  static TraceArg string(std::string key, std::string value);
  static TraceArg json(std::string key, std::string jsonText);
};
using TraceArgs = std::vector<TraceArg>;

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // `maxBytes`: a sink that writes files may continue in numbered files past this (0: no limit).
  virtual bool open(const std::string& path, std::string& why, uint64_t maxBytes) = 0;
  virtual bool isOpen() const = 0;
  virtual const std::string& path() const = 0;
  // Finishes the file; safe to call more than once. False if the trace could not be written
  // (reported on stderr once).
  virtual bool close() = 0;
  // From a signal handler: leaves what is complete readable, using only async-signal-safe calls.
  virtual void closeFromSignal() = 0;

  virtual void processName(int pid, const std::string& name, int sortIndex) = 0;
  virtual void threadName(int pid, int tid, const std::string& name, int sortIndex) = 0;
  virtual void complete(int pid, int tid, const std::string& name, const char* category,
                        spec::Picoseconds start, spec::Picoseconds duration,
                        const TraceArgs& args) = 0;
  // Flow arrows: start on one track, end (binding to the enclosing slice) on another.
  virtual void flowStart(int pid, int tid, uint64_t id, spec::Picoseconds at) = 0;
  virtual void flowEnd(int pid, int tid, uint64_t id, spec::Picoseconds at) = 0;
  virtual void counter(int pid, const std::string& name, spec::Picoseconds at,
                       const std::string& series, double value) = 0;
  virtual uint64_t events() const = 0;
};

using TraceSinkFactory = std::function<std::unique_ptr<TraceSink>()>;
using TraceFormatRegistration = kinds::Registration<TraceSinkFactory>;

// The sink of the format named `format`; an empty name picks by the file's extension (".sqlite"
// or ".db": "sqlite", ".pftrace" or ".perfetto-trace": "perfetto", anything else "chrome-json").
std::unique_ptr<TraceSink> makeTraceSink(const std::string& format, const std::string& path);
std::string traceFormatFor(const std::string& format, const std::string& path);

}  // namespace ascendsim::runtime
