#pragma once
// Chrome Trace Event JSON (the array format, which Perfetto and chrome://tracing open), streamed
// to a file while the simulation runs, so memory stays flat for any length of run.
//
// Events are appended to a buffer that is written out whole events at a time, to PATH.partial;
// close() (at exit, or from a SIGINT/SIGTERM handler, which may only use write(2) and rename(2))
// ends the array and renames the file to PATH, so a file under the trace's name is always
// complete JSON. If the file system refuses a write (a full disk), tracing stops, the partial file
// is removed and close() says so and returns false.

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/trace/trace_sink.h"
#include "spec/units.h"

namespace ascendsim::runtime {

class TraceWriter : public TraceSink {
 public:
  TraceWriter() = default;
  ~TraceWriter() override;
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // `maxBytes`: past this a file is closed and the trace continues in PATH.1.json, PATH.2.json, ...
  bool open(const std::string& path, std::string& why, uint64_t maxBytes = 0) override;
  bool isOpen() const override { return fd_ >= 0; }
  const std::string& path() const override { return path_; }
  // Ends the JSON array and closes the file; safe to call more than once. False if the trace
  // could not be written (reported on stderr once).
  bool close() override;
  // For signal handlers: writes what is complete and the closing bracket, and renames the file,
  // using only write(2) and rename(2).
  void closeFromSignal() override;

  void processName(int pid, const std::string& name, int sortIndex) override;
  void threadName(int pid, int tid, const std::string& name, int sortIndex) override;
  // A complete ("X") event with its arguments.
  void complete(int pid, int tid, const std::string& name, const char* category,
                spec::Picoseconds start, spec::Picoseconds duration,
                const TraceArgs& args) override;
  void flowStart(int pid, int tid, uint64_t id, spec::Picoseconds at) override;
  void flowEnd(int pid, int tid, uint64_t id, spec::Picoseconds at) override;
  void counter(int pid, const std::string& name, spec::Picoseconds at, const std::string& series,
               double value) override;
  uint64_t events() const override { return events_; }

  // The arguments as a JSON object's members ("\"bytes\":4096,...").
  static std::string jsonMembers(const TraceArgs& args);
  static std::string escape(const std::string& text);
  // Microseconds with nanosecond precision: "1234.567".
  static std::string micros(spec::Picoseconds ps);
  // The same, appended to `out` (the events are built in place: tracing a call costs little).
  static void appendMembers(std::string& out, const TraceArgs& args);
  static void appendEscaped(std::string& out, const std::string& text);
  static void appendMicros(std::string& out, spec::Picoseconds ps);

 private:
  void emit(const std::string& event);
  void flowPoint(const char* head, int pid, int tid, uint64_t id, spec::Picoseconds at);
  void flush();
  void rotate();
  bool openPart(std::string& why);
  bool finishPart();
  void abandon();
  std::string partPath(int part) const;

  int fd_ = -1;
  char partialPath_[4096] = {};  // fixed buffers: the signal handler reads them
  char finalPath_[4096] = {};
  int failed_ = 0;  // errno of a refused write; tracing stopped
  bool reported_ = false;
  std::atomic<bool> busy_{false};  // a thread is writing the file or moving the buffer
  std::string path_;
  std::string buffer_;
  std::atomic<size_t> complete_{0};  // bytes of buffer_ that hold whole events
  bool first_ = true;
  uint64_t events_ = 0;
  uint64_t maxBytes_ = 0, written_ = 0;
  int part_ = 0;
  std::vector<std::string> metadata_;  // replayed at the top of every continuation file
  std::string event_;                  // the event being built, reused
};

}  // namespace ascendsim::runtime
