#pragma once
// A file read front to back with its progress shown on a terminal (ProgressLine): "ascendsim
// view: reading trace.json: 45 % (470 of 1034 MB)".

#include <cstdint>
#include <memory>
#include <streambuf>
#include <string>
#include <vector>

#include "tools/progress_line.h"

namespace ascendsim::tools {

class ReadProgress : public std::streambuf {
 public:
  // Reads through `source`, which holds `total` bytes; `what` names the reading in the line.
  ReadProgress(std::streambuf& source, uint64_t total, std::string what);
  // Counts into `line`, shared by the readers of several files (a rotated trace's parts).
  ReadProgress(std::streambuf& source, ProgressLine& line);

 protected:
  int_type underflow() override;

 private:
  std::streambuf& source_;
  std::unique_ptr<ProgressLine> owned_;
  ProgressLine& line_;
  std::vector<char> chunk_;
};

}  // namespace ascendsim::tools
