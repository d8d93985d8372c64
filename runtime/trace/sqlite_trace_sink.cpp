// The trace as an SQLite database, for questions a timeline cannot answer at a glance ("which
// copies on npu3 ran below 20 GB/s?", "how long did stream 2 wait?"), as DRAMSys's and Nsight
// Systems' exports allow. Tables:
//   process(pid, name, sort_index)           track(pid, tid, name, sort_index)
//   slice(id, pid, tid, name, category, start_ps, duration_ps)
//   arg(slice_id, key, int_value, real_value, text_value)   -- one row per argument
//   flow(id, pid, tid, at_ps, phase)         -- phase 's' starts an arrow, 'f' ends it
//   counter(pid, name, series, at_ps, value)
// Times are integer picoseconds. Rows go in through one transaction per 4096 events, so the
// database is readable (if partial) at any moment and complete once closed.

#include <sqlite3.h>

#include <cstdio>

#include "runtime/trace/output_file.h"
#include "runtime/trace/trace_sink.h"

namespace ascendsim::runtime {
namespace {

constexpr const char* kSchema =
    "CREATE TABLE process(pid INTEGER PRIMARY KEY, name TEXT, sort_index INTEGER);"
    "CREATE TABLE track(pid INTEGER, tid INTEGER, name TEXT, sort_index INTEGER, PRIMARY KEY(pid, "
    "tid));"
    "CREATE TABLE slice(id INTEGER PRIMARY KEY, pid INTEGER, tid INTEGER, name TEXT, category TEXT,"
    " start_ps INTEGER, duration_ps INTEGER);"
    "CREATE TABLE arg(slice_id INTEGER, key TEXT, int_value INTEGER, real_value REAL, text_value "
    "TEXT);"
    "CREATE TABLE flow(id INTEGER, pid INTEGER, tid INTEGER, at_ps INTEGER, phase TEXT);"
    "CREATE TABLE counter(pid INTEGER, name TEXT, series TEXT, at_ps INTEGER, value REAL);";

class SqliteTraceSink : public TraceSink {
 public:
  ~SqliteTraceSink() override { close(); }

  bool open(const std::string& path, std::string& why, uint64_t) override {
    path_ = path;
    if (outputTarget(path, why) != OutputTarget::File) {
      if (why.empty()) why = "'" + path + "' is a device; the trace is written to a regular file";
      return false;
    }
    std::remove(path.c_str());  // a new trace, not rows appended to an old one (a regular file)
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) return fail(why, "cannot create " + path);
    if (!exec(kSchema) || !exec("BEGIN")) return fail(why, "cannot write " + path);
    return prepare(process_, "INSERT OR REPLACE INTO process VALUES(?,?,?)", why) &&
           prepare(track_, "INSERT OR REPLACE INTO track VALUES(?,?,?,?)", why) &&
           prepare(slice_, "INSERT INTO slice VALUES(?,?,?,?,?,?,?)", why) &&
           prepare(arg_, "INSERT INTO arg VALUES(?,?,?,?,?)", why) &&
           prepare(flow_, "INSERT INTO flow VALUES(?,?,?,?,?)", why) &&
           prepare(counter_, "INSERT INTO counter VALUES(?,?,?,?,?)", why);
  }
  bool isOpen() const override { return db_ != nullptr; }
  const std::string& path() const override { return path_; }

  bool close() override {
    if (!db_) return ok_;
    ok_ = exec("COMMIT") && ok_;
    for (sqlite3_stmt* s : {process_, track_, slice_, arg_, flow_, counter_}) sqlite3_finalize(s);
    process_ = track_ = slice_ = arg_ = flow_ = counter_ = nullptr;
    sqlite3_close(db_);
    db_ = nullptr;
    if (!ok_)
      std::fprintf(stderr, "ascendsim: the trace %s could not be written completely\n",
                   path_.c_str());
    return ok_;
  }
  // SQLite is not async-signal-safe: what was committed (all but the last 4096 events at most)
  // stays in the file, which SQLite's journal keeps consistent.
  void closeFromSignal() override {}

  void processName(int pid, const std::string& name, int sortIndex) override {
    sqlite3_bind_int(process_, 1, pid);
    bindText(process_, 2, name);
    sqlite3_bind_int(process_, 3, sortIndex);
    step(process_);
  }
  void threadName(int pid, int tid, const std::string& name, int sortIndex) override {
    sqlite3_bind_int(track_, 1, pid);
    sqlite3_bind_int(track_, 2, tid);
    bindText(track_, 3, name);
    sqlite3_bind_int(track_, 4, sortIndex);
    step(track_);
  }
  void complete(int pid, int tid, const std::string& name, const char* category,
                spec::Picoseconds start, spec::Picoseconds duration,
                const TraceArgs& args) override {
    const sqlite3_int64 id = static_cast<sqlite3_int64>(++slices_);
    sqlite3_bind_int64(slice_, 1, id);
    sqlite3_bind_int(slice_, 2, pid);
    sqlite3_bind_int(slice_, 3, tid);
    bindText(slice_, 4, name);
    bindText(slice_, 5, category);
    sqlite3_bind_int64(slice_, 6, start);
    sqlite3_bind_int64(slice_, 7, duration);
    step(slice_);
    for (const TraceArg& a : args) addArg(id, a);
  }
  void flowStart(int pid, int tid, uint64_t id, spec::Picoseconds at) override {
    flow(pid, tid, id, at, "s");
  }
  void flowEnd(int pid, int tid, uint64_t id, spec::Picoseconds at) override {
    flow(pid, tid, id, at, "f");
  }
  void counter(int pid, const std::string& name, spec::Picoseconds at, const std::string& series,
               double value) override {
    sqlite3_bind_int(counter_, 1, pid);
    bindText(counter_, 2, name);
    bindText(counter_, 3, series);
    sqlite3_bind_int64(counter_, 4, at);
    sqlite3_bind_double(counter_, 5, value);
    step(counter_);
  }
  uint64_t events() const override { return events_; }

 private:
  bool fail(std::string& why, const std::string& what) {
    why = what + (db_ ? std::string(": ") + sqlite3_errmsg(db_) : std::string());
    if (db_) sqlite3_close(db_);
    db_ = nullptr;
    return false;
  }
  bool exec(const char* sql) {
    return sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
  }
  bool prepare(sqlite3_stmt*& statement, const char* sql, std::string& why) {
    if (sqlite3_prepare_v2(db_, sql, -1, &statement, nullptr) == SQLITE_OK) return true;
    return fail(why, "cannot prepare the trace tables of " + path_);
  }
  static void bindText(sqlite3_stmt* s, int column, const std::string& text) {
    sqlite3_bind_text(s, column, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  }
  // Runs a bound insert; every 4096 events the transaction is committed and a new one begun.
  void step(sqlite3_stmt* s) {
    if (!db_) return;
    if (sqlite3_step(s) != SQLITE_DONE) ok_ = false;
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    if (++events_ % 4096 == 0) ok_ = exec("COMMIT") && exec("BEGIN") && ok_;
  }
  void addArg(sqlite3_int64 sliceId, const TraceArg& a) {
    sqlite3_bind_int64(arg_, 1, sliceId);
    bindText(arg_, 2, a.key);
    switch (a.kind) {
      case TraceArg::Kind::Unsigned:
        sqlite3_bind_int64(arg_, 3, static_cast<sqlite3_int64>(a.unsignedValue));
        break;
      case TraceArg::Kind::Signed: sqlite3_bind_int64(arg_, 3, a.signedValue); break;
      case TraceArg::Kind::Real: sqlite3_bind_double(arg_, 4, a.realValue); break;
      case TraceArg::Kind::Text:
      case TraceArg::Kind::Json: bindText(arg_, 5, a.text); break;
    }
    step(arg_);
  }
  void flow(int pid, int tid, uint64_t id, spec::Picoseconds at, const char* phase) {
    sqlite3_bind_int64(flow_, 1, static_cast<sqlite3_int64>(id));
    sqlite3_bind_int(flow_, 2, pid);
    sqlite3_bind_int(flow_, 3, tid);
    sqlite3_bind_int64(flow_, 4, at);
    bindText(flow_, 5, phase);
    step(flow_);
  }

  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt *process_ = nullptr, *track_ = nullptr, *slice_ = nullptr, *arg_ = nullptr,
               *flow_ = nullptr, *counter_ = nullptr;
  uint64_t slices_ = 0, events_ = 0;
  bool ok_ = true;
};

const TraceFormatRegistration kRegistered{{"trace-format",
                                           "sqlite",
                                           "an SQLite database (tables process, track, slice, arg, "
                                           "flow, counter; times in ps) to query with SQL",
                                           {},
                                           {}},
                                          [] { return std::make_unique<SqliteTraceSink>(); }};

}  // namespace
}  // namespace ascendsim::runtime
