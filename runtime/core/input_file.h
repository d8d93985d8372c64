#pragma once
// Files the runtime reads on a program's behalf (aclInit's JSON, kernel binaries): opened without
// blocking and checked before anything is read, so a FIFO does not hang the call and a device
// such as /dev/zero is not read for ever.

#include <cstdint>
#include <string>

namespace ascendsim::runtime {

// Reads `path` whole into `text` if it is a regular file of at most `largest` bytes; otherwise
// false and `why` says what it is (missing, not a regular file, too large).
bool readRegularFile(const std::string& path, uint64_t largest, std::string& text,
                     std::string& why);
// Whether `path` is a regular file (`why` as above).
bool isRegularFile(const std::string& path, std::string& why);

}  // namespace ascendsim::runtime
