#pragma once
// A file read front to back with its progress shown on a terminal: "ascendsim view: reading
// trace.json: 45 % (470 of 1034 MB)" on one line of stderr, redrawn at most every half second,
// erased when the file is read. Nothing is written when stderr is not a terminal (a pipe or a
// log gets no carriage returns).

#include <chrono>
#include <cstdint>
#include <streambuf>
#include <string>
#include <vector>

namespace ascendsim::tools {

class ReadProgress : public std::streambuf {
 public:
  // Reads through `source`, which holds `total` bytes; `what` names the reading in the line.
  ReadProgress(std::streambuf& source, uint64_t total, std::string what);
  ~ReadProgress() override;
  ReadProgress(const ReadProgress&) = delete;
  ReadProgress& operator=(const ReadProgress&) = delete;

 protected:
  int_type underflow() override;

 private:
  void show(bool last);

  std::streambuf& source_;
  uint64_t total_, read_ = 0;
  std::string what_;
  bool terminal_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point shownAt_{};
  std::vector<char> chunk_;
};

}  // namespace ascendsim::tools
