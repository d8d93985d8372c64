#include "tools/read_progress.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace ascendsim::tools {

ReadProgress::ReadProgress(std::streambuf& source, uint64_t total, std::string what)
    : source_(source),
      total_(total),
      what_(std::move(what)),
      terminal_(::isatty(STDERR_FILENO) != 0),
      chunk_(1 << 20) {}

ReadProgress::~ReadProgress() {
  if (shown_) std::fprintf(stderr, "\r\033[K");  // (the line goes: the file is read)
}

ReadProgress::int_type ReadProgress::underflow() {
  const std::streamsize n =
      source_.sgetn(chunk_.data(), static_cast<std::streamsize>(chunk_.size()));
  if (n <= 0) return traits_type::eof();
  read_ += static_cast<uint64_t>(n);
  setg(chunk_.data(), chunk_.data(), chunk_.data() + n);
  show(false);
  return traits_type::to_int_type(chunk_[0]);
}

void ReadProgress::show(bool last) {
  if (!terminal_ || total_ == 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (!last && shown_ && now - shownAt_ < std::chrono::milliseconds(500)) return;
  const double mb = 1e6;
  std::fprintf(stderr, "\r\033[K%s: %3.0f %% (%.0f of %.0f MB)", what_.c_str(),
               100.0 * static_cast<double>(read_) / static_cast<double>(total_),
               static_cast<double>(read_) / mb, static_cast<double>(total_) / mb);
  std::fflush(stderr);
  shown_ = true;
  shownAt_ = now;
}

}  // namespace ascendsim::tools
