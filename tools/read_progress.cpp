#include "tools/read_progress.h"

#include <utility>

namespace ascendsim::tools {

ReadProgress::ReadProgress(std::streambuf& source, uint64_t total, std::string what)
    : source_(source),
      owned_(std::make_unique<ProgressLine>(std::move(what), total, 1e6, "MB")),
      line_(*owned_),
      chunk_(1 << 20) {}

ReadProgress::ReadProgress(std::streambuf& source, ProgressLine& line)
    : source_(source), line_(line), chunk_(1 << 20) {}

ReadProgress::int_type ReadProgress::underflow() {
  const std::streamsize n =
      source_.sgetn(chunk_.data(), static_cast<std::streamsize>(chunk_.size()));
  if (n <= 0) return traits_type::eof();
  setg(chunk_.data(), chunk_.data(), chunk_.data() + n);
  line_.add(static_cast<uint64_t>(n));
  return traits_type::to_int_type(chunk_[0]);
}

}  // namespace ascendsim::tools
