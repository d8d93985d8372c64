#include "runtime/trace/trace_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "runtime/trace/output_file.h"

namespace ascendsim::runtime {
namespace {
const TraceFormatRegistration kRegistered{
    {"trace-format",
     "chrome-json",
     "Chrome Trace Event JSON, streamed: opens in Perfetto, chrome://tracing and ascendsim view",
     {},
     {}},
    [] { return std::make_unique<TraceWriter>(); }};
}  // namespace
namespace {
constexpr size_t kFlushAt = 1 << 16;
}  // namespace

TraceWriter::~TraceWriter() {
  close();
}

bool TraceWriter::openPart(std::string& why) {
  const std::string temporary = partPath(part_) + ".partial";
  std::snprintf(partialPath_, sizeof partialPath_, "%s", temporary.c_str());
  std::snprintf(finalPath_, sizeof finalPath_, "%s", partPath(part_).c_str());
  reportStalePartial(temporary);
  fd_ = ::open(partialPath_, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    why = "cannot write the trace to '" + temporary + "': " + std::strerror(errno);
    return false;
  }
  holdPartial(fd_);
  return true;
}

bool TraceWriter::open(const std::string& path, std::string& why, uint64_t maxBytes) {
  close();
  // The trace is streamed to PATH.partial and renamed: never over a device, FIFO or directory.
  if (outputTarget(path, why) != OutputTarget::File) {
    if (why.empty())
      why = "'" + path +
            "' is a device; the trace is written to a regular file (leave the trace out for none)";
    return false;
  }
  if (path.size() + 32 > sizeof finalPath_) {
    why = "the trace path is too long";
    return false;
  }
  maxBytes_ = maxBytes;
  written_ = 0;
  part_ = 0;
  failed_ = 0;
  metadata_.clear();
  path_ = path;
  if (!openPart(why)) return false;
  buffer_.reserve(2 * kFlushAt);
  buffer_ = "[\n";
  complete_ = buffer_.size();
  first_ = true;
  events_ = 0;
  return true;
}

void TraceWriter::emit(const std::string& event) {
  if (fd_ < 0) return;
  if (event.rfind("{\"ph\":\"M\"", 0) == 0) metadata_.push_back(event);
  if (maxBytes_ > 0 && written_ + buffer_.size() + event.size() > maxBytes_ &&
      events_ > metadata_.size())
    rotate();
  if (fd_ < 0) return;
  const size_t grow = event.size() + 2;
  if (buffer_.size() + grow > buffer_.capacity()) {
    // The buffer moves: no signal handler may read it meanwhile.
    SignalsHeld held(busy_);
    buffer_.reserve(2 * (buffer_.size() + grow));
  }
  // Appending past complete_ leaves the bytes a signal handler would write untouched.
  if (!first_) buffer_ += ",\n";
  first_ = false;
  buffer_ += event;
  complete_ = buffer_.size();
  ++events_;
  if (buffer_.size() >= kFlushAt) flush();
}

std::string TraceWriter::partPath(int part) const {
  return rotatedPartPath(path_, part);
}

// Ends this file well-formed and goes on in the next numbered one, track names first.
void TraceWriter::rotate() {
  {
    SignalsHeld held(busy_);
    buffer_ += "\n]\n";
    complete_ = buffer_.size();
    if (!finishPart()) return;
    ++part_;
    std::string why;
    if (!openPart(why)) {
      std::fprintf(stderr, "ascendsim: %s; tracing stops\n", why.c_str());
      failed_ = errno ? errno : EIO;
      return;
    }
    buffer_ = "[\n";
    complete_ = buffer_.size();
  }
  std::fprintf(stderr, "ascendsim: the trace reached its %llu-byte limit; it continues in %s\n",
               static_cast<unsigned long long>(maxBytes_), partPath(part_).c_str());
  written_ = 0;
  first_ = true;
  const std::vector<std::string> names = metadata_;
  metadata_.clear();
  for (const std::string& m : names) emit(m);
}

// Writes out what is complete; a write the file system refuses ends tracing (reported at close).
void TraceWriter::flush() {
  SignalsHeld held(busy_);
  const size_t n = complete_;
  if (!writeAll(fd_, buffer_.data(), n)) {
    failed_ = errno;
    abandon();
    return;
  }
  written_ += n;
  buffer_.erase(0, n);
  complete_ = buffer_.size();
}

// The current part is complete in the buffer: write it, and give it its final name.
bool TraceWriter::finishPart() {
  const size_t n = complete_;
  if (!writeAll(fd_, buffer_.data(), n) || ::fsync(fd_) != 0) {
    failed_ = errno;
    abandon();
    return false;
  }
  buffer_.erase(0, n);
  complete_ = buffer_.size();
  ::close(fd_);
  fd_ = -1;
  if (::rename(partialPath_, finalPath_) != 0) {
    failed_ = errno;
    ::unlink(partialPath_);
    return false;
  }
  return true;
}

// Gives up the part being written: nothing invalid is left under the trace's name.
void TraceWriter::abandon() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(partialPath_);
}

bool TraceWriter::close() {
  if (fd_ >= 0) {
    SignalsHeld held(busy_);
    buffer_ += "\n]\n";
    complete_ = buffer_.size();
    finishPart();
  }
  if (failed_ == 0) return true;
  if (!reported_) {
    std::fprintf(stderr, "ascendsim: the trace could not be written to %s: %s; it was removed\n",
                 finalPath_, std::strerror(failed_));
    reported_ = true;
  }
  return false;
}

void TraceWriter::closeFromSignal() {
  // Another thread may be writing the file or moving the buffer: it finishes quickly.
  for (long spin = 0; busy_.load() && spin < 200000000; ++spin) {
  }
  if (fd_ < 0) return;
  const int fd = fd_;
  fd_ = -1;
  if (failed_ != 0 || !writeAll(fd, buffer_.data(), complete_) || !writeAll(fd, "\n]\n", 3)) {
    ::unlink(partialPath_);
    return;
  }
  ::rename(partialPath_, finalPath_);  // the process is about to end: the descriptor goes with it
}

namespace {
// Length of the valid UTF-8 sequence starting at text[i], or 0 if there is none (overlong forms,
// surrogates and code points past U+10FFFF are invalid too).
size_t utf8Length(const std::string& text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  size_t n;
  uint32_t cp;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
      (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
    return 0;
  return n;
}
}  // namespace

void TraceWriter::appendEscaped(std::string& out, const std::string& text) {
  // Most names need nothing: copy them whole.
  const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x80 && c != '"' && c != '\\';
  });
  if (plain) {
    out += text;
    return;
  }
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    const size_t n = utf8Length(text, i);
    if (n == 0) {
      out += "\\ufffd";  // not UTF-8: the replacement character, so the file stays valid JSON
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(text, i, n);
      i += n;
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
    ++i;
  }
}

std::string TraceWriter::escape(const std::string& text) {
  std::string out;
  appendEscaped(out, text);
  return out;
}

namespace {
template <class T>
void appendNumber(std::string& out, T value) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, r.ptr);
}
}  // namespace

void TraceWriter::appendMicros(std::string& out, spec::Picoseconds ps) {
  const long long ns = static_cast<long long>(ps / 1000);
  if (ns < 0) {  // (never for a time of the run; kept as printf writes it)
    char buf[48];
    std::snprintf(buf, sizeof buf, "%lld.%03lld", ns / 1000, ns % 1000);
    out += buf;
    return;
  }
  appendNumber(out, ns / 1000);
  const long long frac = ns % 1000;
  const char digits[3] = {static_cast<char>('0' + frac / 100),
                          static_cast<char>('0' + frac / 10 % 10),
                          static_cast<char>('0' + frac % 10)};
  out += '.';
  out.append(digits, 3);
}

std::string TraceWriter::micros(spec::Picoseconds ps) {
  std::string out;
  appendMicros(out, ps);
  return out;
}

void TraceWriter::processName(int pid, const std::string& name, int sortIndex) {
  emit("{\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
       ",\"name\":\"process_name\",\"args\":{\"name\":\"" + escape(name) + "\"}}");
  emit("{\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
       ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":" + std::to_string(sortIndex) +
       "}}");
}

void TraceWriter::threadName(int pid, int tid, const std::string& name, int sortIndex) {
  const std::string ids = "\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
  emit("{\"ph\":\"M\"," + ids + ",\"name\":\"thread_name\",\"args\":{\"name\":\"" + escape(name) +
       "\"}}");
  emit("{\"ph\":\"M\"," + ids + ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":" +
       std::to_string(sortIndex) + "}}");
}

void TraceWriter::appendMembers(std::string& out, const TraceArgs& args) {
  bool first = true;
  for (const TraceArg& a : args) {
    if (!first) out += ',';
    first = false;
    out += '"';
    appendEscaped(out, a.key);
    out += "\":";
    switch (a.kind) {
      case TraceArg::Kind::Unsigned: appendNumber(out, a.unsignedValue); break;
      case TraceArg::Kind::Signed: appendNumber(out, a.signedValue); break;
      case TraceArg::Kind::Real: {
        // As printf's "%.*f" writes it (to_chars rounds the same way, without the locale).
        char text[400];
        const auto r = std::to_chars(text, text + sizeof text, a.realValue,
                                     std::chars_format::fixed, a.decimals);
        if (r.ec == std::errc()) {
          out.append(text, r.ptr);
        } else {
          std::snprintf(text, sizeof text, "%.*f", a.decimals, a.realValue);
          out += text;
        }
        break;
      }
      case TraceArg::Kind::Text:
        out += '"';
        appendEscaped(out, a.text);
        out += '"';
        break;
      case TraceArg::Kind::Json: out += a.text; break;
    }
  }
}

std::string TraceWriter::jsonMembers(const TraceArgs& args) {
  std::string out;
  appendMembers(out, args);
  return out;
}

void TraceWriter::complete(int pid, int tid, const std::string& name, const char* category,
                           spec::Picoseconds start, spec::Picoseconds duration,
                           const TraceArgs& args) {
  std::string& e = event_;
  e.assign("{\"ph\":\"X\",\"pid\":");
  appendNumber(e, pid);
  e += ",\"tid\":";
  appendNumber(e, tid);
  e += ",\"name\":\"";
  appendEscaped(e, name);
  e += "\",\"cat\":\"";
  e += category;
  e += "\",\"ts\":";
  appendMicros(e, start);
  e += ",\"dur\":";
  appendMicros(e, duration);
  e += ",\"args\":{";
  appendMembers(e, args);
  e += "}}";
  emit(e);
}

// A flow's end point: `head` is "{\"ph\":\"s\"" or "{\"ph\":\"f\",\"bp\":\"e\"".
void TraceWriter::flowPoint(const char* head, int pid, int tid, uint64_t id, spec::Picoseconds at) {
  std::string& e = event_;
  e.assign(head);
  e += ",\"pid\":";
  appendNumber(e, pid);
  e += ",\"tid\":";
  appendNumber(e, tid);
  e += ",\"name\":\"flow\",\"cat\":\"flow\",\"id\":";
  appendNumber(e, id);
  e += ",\"ts\":";
  appendMicros(e, at);
  e += '}';
  emit(e);
}

void TraceWriter::flowStart(int pid, int tid, uint64_t id, spec::Picoseconds at) {
  flowPoint("{\"ph\":\"s\"", pid, tid, id, at);
}

void TraceWriter::flowEnd(int pid, int tid, uint64_t id, spec::Picoseconds at) {
  flowPoint("{\"ph\":\"f\",\"bp\":\"e\"", pid, tid, id, at);
}

void TraceWriter::counter(int pid, const std::string& name, spec::Picoseconds at,
                          const std::string& series, double value) {
  std::string& e = event_;
  e.assign("{\"ph\":\"C\",\"pid\":");
  appendNumber(e, pid);
  e += ",\"name\":\"";
  appendEscaped(e, name);
  e += "\",\"ts\":";
  appendMicros(e, at);
  e += ",\"args\":{\"";
  appendEscaped(e, series);
  e += "\":";
  // As printf's "%.6g" writes it (to_chars with a precision is specified as printf, C locale).
  char text[64];
  const auto r = std::to_chars(text, text + sizeof text, value, std::chars_format::general, 6);
  if (r.ec == std::errc()) {
    e.append(text, r.ptr);
  } else {
    std::snprintf(text, sizeof text, "%.6g", value);
    e += text;
  }
  e += "}}";
  emit(e);
}

}  // namespace ascendsim::runtime
