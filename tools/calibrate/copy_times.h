#pragma once
// A table of measured copy times, as the calibration probe writes it on a real machine:
//
//   size,direction,seconds
//   65536,h2d,1.21e-05
//
// Columns are found by name (others are ignored); `size` is bytes (a unit such as 64MiB is also
// accepted), `direction` h2d or d2h, `seconds` the time of one copy.

#include <cstdint>
#include <string>
#include <vector>

namespace ascendsim::tools {

struct CopyTime {
  uint64_t size = 0;
  std::string direction;  // "h2d" or "d2h"
  double seconds = 0;
  int line = 0;  // where it came from, for messages
};

// Reads `path`; on a problem returns false with `why` naming the file and line.
bool readCopyTimes(const std::string& path, std::vector<CopyTime>& rows, std::string& why);

}  // namespace ascendsim::tools
