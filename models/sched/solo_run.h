#pragma once
// A copy on a way nobody else uses settles into a steady state: each piece meets the bookings the
// piece before it met, a period later, so it is booked exactly as that one was, shifted by the
// period. A SoloRun moves such a run of pieces in one step: it holds the resources of the way,
// counts the run's bytes and busy time on them, and when the run ends (or the first competitor
// books one of its resources, stopping it at that instant) leaves each resource's bookings as the
// pieces issued by then would have left them. Timing is the same as piece by piece; the work is
// a few operations per resource instead of a few per piece and resource.

#include <cstdint>
#include <functional>
#include <vector>

#include "models/dma/transfer_timing.h"
#include "models/resource/resource.h"

namespace ascendsim::models {

// What the pieces of one channel left on the resources of their way: the bookings still to come,
// relative to an instant, and what one piece adds to each resource's counts.
class PathState {
 public:
  // Takes the bookings of `path`'s resources that end after `at`, relative to it. False when one
  // of them is not `owner`'s: someone else's traffic is on the way, so what comes is not this
  // channel's alone.
  bool capture(std::vector<PathUse> path, Picoseconds at, int owner);
  // Bookings past which capture() gives up.
  static constexpr size_t kMostBookings = 1024;
  // The same resources, the same use of each, the same bookings relative to each state's instant.
  bool sameAs(const PathState& other) const;

  const std::vector<PathUse>& path() const { return path_; }
  const std::vector<std::vector<Booking>>& bookings() const { return bookings_; }

 private:
  std::vector<PathUse> path_;
  std::vector<std::vector<Booking>> bookings_;
};

class SoloRun : public HeldPath {
 public:
  // `last` is the state the last piece moved piece by piece left, relative to its issue time
  // `issue`. The run is the `pieces` pieces issued at issue + period, issue + 2 x period, ...;
  // `yield` is called with the instant a competitor books one of the way's resources.
  SoloRun(PathState last, Picoseconds issue, Picoseconds period, uint64_t pieces,
          std::function<void(Picoseconds)> yield);
  SoloRun(const SoloRun&) = delete;
  SoloRun& operator=(const SoloRun&) = delete;
  ~SoloRun() override;

  uint64_t pieces() const { return pieces_; }
  Picoseconds period() const { return period_; }
  Picoseconds issue() const { return issue_; }
  // How many of the run's pieces were issued before `t`.
  uint64_t issuedBefore(Picoseconds t) const;
  // Leaves the resources as the first `m` pieces of the run would have (their bookings, their
  // counts) and lets go of them.
  void release(uint64_t m);

  void yieldAt(Picoseconds t) override;

 private:
  void count(uint64_t m, double sign);
  PathState last_;
  Picoseconds issue_, period_;
  uint64_t pieces_;
  std::function<void(Picoseconds)> yield_;
  bool held_ = true;
};

}  // namespace ascendsim::models
