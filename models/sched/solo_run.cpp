#include "models/sched/solo_run.h"

#include <algorithm>
#include <utility>

namespace ascendsim::models {

bool PathState::capture(std::vector<PathUse> path, Picoseconds at, int owner) {
  path_ = std::move(path);
  bookings_.assign(path_.size(), {});
  size_t total = 0;
  for (size_t i = 0; i < path_.size(); ++i) {
    // A way booked this far ahead is not settling: do not pay for looking.
    total += path_[i].resource->reserved.size();
    if (total > kMostBookings) return false;
    for (const Booking& b : path_[i].resource->reserved) {
      if (b.end <= at) continue;  // over: nothing later can meet it
      if (b.owner != owner) return false;
      bookings_[i].push_back({b.start - at, b.end - at, owner});
    }
  }
  return true;
}

bool PathState::sameAs(const PathState& other) const {
  return path_ == other.path_ && bookings_ == other.bookings_;
}

SoloRun::SoloRun(PathState last, Picoseconds issue, Picoseconds period, uint64_t pieces,
                 std::function<void(Picoseconds)> yield)
    : last_(std::move(last)),
      issue_(issue),
      period_(period),
      pieces_(pieces),
      yield_(std::move(yield)) {
  // Counted at once, as bookings ahead of time are counted piece by piece; taken back for the
  // pieces a competitor stops.
  count(pieces_, 1);
  for (const PathUse& u : last_.path()) {
    u.resource->heldBy = this;
    u.resource->sample(issue_ + period_, issue_ + static_cast<Picoseconds>(pieces_ + 1) * period_,
                       static_cast<double>(pieces_ * u.bytes));
  }
}

SoloRun::~SoloRun() {
  if (held_) release(pieces_);
}

void SoloRun::count(uint64_t m, double sign) {
  for (const PathUse& d : last_.path()) {
    Resource& r = *d.resource;
    if (sign > 0) {
      r.bytes += m * d.bytes;
      r.chunks += m * d.chunks;
      r.busy += static_cast<Picoseconds>(m) * d.busy;
    } else {
      r.bytes -= m * d.bytes;
      r.chunks -= m * d.chunks;
      r.busy -= static_cast<Picoseconds>(m) * d.busy;
    }
  }
}

uint64_t SoloRun::issuedBefore(Picoseconds t) const {
  // Piece j (1-based) is issued at issue + j x period; it came before t when that is earlier.
  if (t <= issue_ + period_) return 0;
  const uint64_t j = static_cast<uint64_t>((t - issue_ + period_ - 1) / period_) - 1;
  return std::min(j, pieces_);
}

void SoloRun::release(uint64_t m) {
  if (!held_) return;
  held_ = false;
  count(pieces_ - m, -1);
  // The state after piece m of the run is the state the last piece left, m periods later.
  const Picoseconds shift = issue_ + static_cast<Picoseconds>(m) * period_;
  for (size_t i = 0; i < last_.path().size(); ++i) {
    Resource& r = *last_.path()[i].resource;
    r.heldBy = nullptr;
    if (m < pieces_) {
      r.sample(issue_ + static_cast<Picoseconds>(m + 1) * period_,
               issue_ + static_cast<Picoseconds>(pieces_ + 1) * period_,
               -static_cast<double>((pieces_ - m) * last_.path()[i].bytes));
    }
    r.reserved.clear();
    for (const Booking& b : last_.bookings()[i])
      r.reserved.push_back({b.start + shift, b.end + shift, b.owner});
  }
}

void SoloRun::yieldAt(Picoseconds t) {
  // The owner releases the run and destroys it: nothing of this object is used after the call.
  const std::function<void(Picoseconds)> yield = yield_;
  yield(t);
}

}  // namespace ascendsim::models
