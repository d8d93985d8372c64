#include "runtime/trace/trace_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ascendsim::runtime {
namespace {
constexpr size_t kFlushAt = 1 << 16;

void writeAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return;
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
}
}  // namespace

TraceWriter::~TraceWriter() { close(); }

bool TraceWriter::open(const std::string& path, std::string& why, uint64_t maxBytes) {
  close();
  maxBytes_ = maxBytes;
  written_ = 0;
  part_ = 0;
  metadata_.clear();
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    why = "cannot write the trace to '" + path + "': " + std::strerror(errno);
    return false;
  }
  path_ = path;
  buffer_ = "[\n";
  complete_ = buffer_.size();
  first_ = true;
  events_ = 0;
  return true;
}

void TraceWriter::emit(const std::string& event) {
  if (fd_ < 0) return;
  if (event.rfind("{\"ph\":\"M\"", 0) == 0) metadata_.push_back(event);
  if (maxBytes_ > 0 && written_ + buffer_.size() + event.size() > maxBytes_ && events_ > metadata_.size()) rotate();
  if (!first_) buffer_ += ",\n";
  first_ = false;
  buffer_ += event;
  complete_ = buffer_.size();
  ++events_;
  if (buffer_.size() >= kFlushAt) flush();
}

std::string TraceWriter::partPath(int part) const {
  if (part == 0) return path_;
  const auto dot = path_.rfind('.');
  const bool ext = dot != std::string::npos && path_.find('/', dot) == std::string::npos;
  return (ext ? path_.substr(0, dot) : path_) + "." + std::to_string(part) + (ext ? path_.substr(dot) : ".json");
}

// Ends this file well-formed and goes on in the next numbered one, track names first.
void TraceWriter::rotate() {
  buffer_ += "\n]\n";
  complete_ = buffer_.size();
  flush();
  ::close(fd_);
  const std::string next = partPath(++part_);
  fd_ = ::open(next.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    std::fprintf(stderr, "ascendsim: cannot continue the trace in '%s': %s; tracing stops\n", next.c_str(), std::strerror(errno));
    return;
  }
  std::fprintf(stderr, "ascendsim: the trace reached its %llu-byte limit; it continues in %s\n",
               static_cast<unsigned long long>(maxBytes_), next.c_str());
  written_ = 0;
  buffer_ = "[\n";
  first_ = true;
  const std::vector<std::string> names = metadata_;
  metadata_.clear();
  for (const std::string& m : names) emit(m);
}

void TraceWriter::flush() {
  const size_t n = complete_;
  written_ += n;
  writeAll(fd_, buffer_.data(), n);
  buffer_.erase(0, n);
  complete_ = buffer_.size();
}

void TraceWriter::close() {
  if (fd_ < 0) return;
  buffer_ += "\n]\n";
  complete_ = buffer_.size();
  flush();
  ::close(fd_);
  fd_ = -1;
}

void TraceWriter::closeFromSignal() {
  if (fd_ < 0) return;
  writeAll(fd_, buffer_.data(), complete_);
  writeAll(fd_, "\n]\n", 3);
  fd_ = -1;  // the process is about to end: leave the descriptor to the kernel
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
  if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
  return n;
}
}  // namespace

std::string TraceWriter::escape(const std::string& text) {
  std::string out;
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
  return out;
}

std::string TraceWriter::micros(spec::Picoseconds ps) {
  char buf[48];
  const long long ns = static_cast<long long>(ps / 1000);
  std::snprintf(buf, sizeof buf, "%lld.%03lld", ns / 1000, ns % 1000);
  return buf;
}

void TraceWriter::processName(int pid, const std::string& name, int sortIndex) {
  emit("{\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"name\":\"process_name\",\"args\":{\"name\":\"" + escape(name) + "\"}}");
  emit("{\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":" +
       std::to_string(sortIndex) + "}}");
}

void TraceWriter::threadName(int pid, int tid, const std::string& name, int sortIndex) {
  const std::string ids = "\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
  emit("{\"ph\":\"M\"," + ids + ",\"name\":\"thread_name\",\"args\":{\"name\":\"" + escape(name) + "\"}}");
  emit("{\"ph\":\"M\"," + ids + ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":" + std::to_string(sortIndex) + "}}");
}

void TraceWriter::complete(int pid, int tid, const std::string& name, const char* category, spec::Picoseconds start,
                           spec::Picoseconds duration, const std::string& args) {
  emit("{\"ph\":\"X\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"name\":\"" +
       escape(name) + "\",\"cat\":\"" + category + "\",\"ts\":" + micros(start) + ",\"dur\":" + micros(duration) +
       ",\"args\":{" + args + "}}");
}

void TraceWriter::flowStart(int pid, int tid, uint64_t id, spec::Picoseconds at) {
  emit("{\"ph\":\"s\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"name\":\"flow\",\"cat\":\"flow\",\"id\":" +
       std::to_string(id) + ",\"ts\":" + micros(at) + "}");
}

void TraceWriter::flowEnd(int pid, int tid, uint64_t id, spec::Picoseconds at) {
  emit("{\"ph\":\"f\",\"bp\":\"e\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
       ",\"name\":\"flow\",\"cat\":\"flow\",\"id\":" + std::to_string(id) + ",\"ts\":" + micros(at) + "}");
}

void TraceWriter::counter(int pid, const std::string& name, spec::Picoseconds at, const std::string& series, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  emit("{\"ph\":\"C\",\"pid\":" + std::to_string(pid) + ",\"name\":\"" + escape(name) + "\",\"ts\":" + micros(at) +
       ",\"args\":{\"" + escape(series) + "\":" + buf + "}}");
}

}  // namespace ascendsim::runtime
