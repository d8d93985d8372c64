#include "models/sched/machine_run.h"

#include <algorithm>
#include <utility>

namespace ascendsim::models {
namespace {
// Snapshots kept to compare with (the longest period found, in leader pieces); failed comparisons
// before the search pauses; the longest pause, in pieces.
constexpr size_t kSnapshots = 8;
constexpr uint32_t kSearchesBeforePause = 64;
constexpr uint32_t kLongestPause = 1u << 15;
constexpr uint64_t kShortestRun = 4;      // periods
constexpr size_t kLongestLog = 1u << 16;  // pieces between snapshots: past it, no period is found
}  // namespace

MachineRun::~MachineRun() {
  if (running_) {
    running_ = false;
    restore(periods_);
  }
}

MachineRun::Channel& MachineRun::channel(int device, int index) const {
  return devices_[static_cast<size_t>(device)]->channels_[static_cast<size_t>(index)];
}

unsigned MachineRun::busyChannels() const {
  unsigned busy = 0;
  for (size_t d = 0; d < devices_.size() && busy < 2; ++d) busy += devices_[d]->busyCopies_;
  return busy;
}

bool MachineRun::watching() const {
  return !running_ && pause_ == 0 && busyChannels() >= 2;
}

void MachineRun::forget() {
  snapshots_.clear();
  log_.clear();
}

// Every busy DMA channel of the machine (none may be in a run of its own, no kernel may be
// running), their states and the bookings to come on their ways, relative to `at`.
bool MachineRun::capture(Snapshot& s, Picoseconds at) const {
  s.at = at;
  std::vector<int> owners = {0};  // 0: bookings several channels share
  for (size_t d = 0; d < devices_.size(); ++d) {
    DeviceScheduler& dev = *devices_[d];
    if (dev.aicore_.task && dev.aicore_.task->endTime < 0) return false;
    for (size_t i = 0; i < dev.channels_.size(); ++i) {
      const Channel& c = dev.channels_[i];
      if (!c.task || c.task->endTime >= 0) continue;
      if (c.run || !c.pathRepeats || c.lastChunk.bytes == 0) return false;
      ChannelAt ch{static_cast<int>(d), static_cast<int>(i),
                   DeviceScheduler::probe(c, at, c.lastChunk), c.path, c.offset};
      s.channels.push_back(std::move(ch));
      owners.push_back(TransferTiming::bookingOwner(static_cast<int>(d), static_cast<int>(i)));
      for (const PathUse& u : c.path) {
        if (std::find(s.resources.begin(), s.resources.end(), u.resource) == s.resources.end())
          s.resources.push_back(u.resource);
      }
    }
  }
  if (s.channels.size() < 2) return false;  // one alone is a SoloRun's
  s.bookings.assign(s.resources.size(), {});
  size_t total = 0;
  for (size_t i = 0; i < s.resources.size(); ++i) {
    const Resource& r = *s.resources[i];
    total += r.reserved.size();
    if (total > 4 * PathState::kMostBookings) return false;  // not settling: do not pay to look
    for (const Booking& b : r.reserved) {
      if (b.end <= at) continue;
      if (std::find(owners.begin(), owners.end(), b.owner) == owners.end()) return false;
      s.bookings[i].push_back({b.start - at, b.end - at, b.owner});
    }
    s.counts.push_back({s.resources[i], r.bytes, r.chunks, r.busy});
  }
  return true;
}

bool MachineRun::same(const Snapshot& a, const Snapshot& b) {
  if (a.channels.size() != b.channels.size() || a.resources != b.resources ||
      a.bookings != b.bookings)
    return false;
  for (size_t i = 0; i < a.channels.size(); ++i) {
    const ChannelAt& x = a.channels[i];
    const ChannelAt& y = b.channels[i];
    if (x.device != y.device || x.channel != y.channel || !x.probe.sameChannel(y.probe) ||
        x.path != y.path)
      return false;
  }
  return true;
}

void MachineRun::pieceIssued(int device, int index, Picoseconds issue) {
  if (running_) return;
  if (pause_ > 0) {
    --pause_;
    if (pause_ == 0) forget();
    return;
  }
  // The leader is the first busy channel: its pieces mark the instants compared. With one busy
  // channel alone there is nothing to watch (its own runs are a SoloRun's).
  if (busyChannels() < 2) {
    if (!log_.empty()) forget();
    return;
  }
  log_.push_back({device, index, issue});
  const Channel* leader = nullptr;
  for (size_t d = 0; d < devices_.size() && !leader; ++d) {
    if (devices_[d]->busyCopies_ == 0) continue;
    for (const Channel& c : devices_[d]->channels_) {
      if (c.task && c.task->endTime < 0) {
        leader = &c;
        break;
      }
    }
  }
  // A leader moving in a run of its own issues nothing for a while: nothing to compare meanwhile,
  // and the log would only grow.
  if (!leader || leader->run || log_.size() > kLongestLog) {
    forget();
    return;
  }
  if (leader != &channel(device, index)) return;
  Snapshot now;
  now.logEnd = log_.size();
  if (!capture(now, issue)) {
    forget();
    return;
  }
  for (size_t k = snapshots_.size(); k-- > 0;) {
    if (same(now, snapshots_[k])) {
      const Snapshot then = std::move(snapshots_[k]);
      start(std::move(now), then);
      return;
    }
  }
  snapshots_.push_back(std::move(now));
  if (snapshots_.size() > kSnapshots) {
    // The log need only reach back to the oldest snapshot kept.
    const size_t drop = snapshots_.front().logEnd;
    snapshots_.pop_front();
    if (drop > 0) {
      log_.erase(log_.begin(), log_.begin() + static_cast<std::ptrdiff_t>(drop));
      for (Snapshot& s : snapshots_) s.logEnd -= drop;
    }
  }
  if (++misses_ >= kSearchesBeforePause) {
    // A machine that does not settle: search again only now and then, after longer pauses.
    nextPause_ = std::min(kLongestPause, std::max(kSearchesBeforePause, 2 * nextPause_));
    pause_ = nextPause_;
    misses_ = 0;
    forget();
  }
}

void MachineRun::start(Snapshot now, const Snapshot& then) {
  const Picoseconds length = now.at - then.at;
  if (length <= 0) return;
  std::vector<Issue> period;
  for (size_t k = then.logEnd; k < now.logEnd; ++k)
    period.push_back({log_[k].device, log_[k].channel, log_[k].at - then.at});
  std::vector<uint64_t> perPeriod(now.channels.size(), 0);
  for (const Issue& p : period) {
    for (size_t i = 0; i < now.channels.size(); ++i) {
      if (now.channels[i].device == p.device && now.channels[i].channel == p.channel)
        ++perPeriod[i];
    }
  }
  // Whole periods every channel can still fill with pieces of its size, keeping a period and a
  // piece over (its last piece may be smaller).
  uint64_t periods = UINT64_MAX;
  for (size_t i = 0; i < now.channels.size(); ++i) {
    const ChannelAt& ch = now.channels[i];
    const Channel& c = channel(ch.device, ch.channel);
    const uint64_t bytes = ch.probe.chunk.bytes;
    if (perPeriod[i] == 0 || bytes == 0) return;
    const uint64_t left = (c.task->bytes - c.offset) / bytes;
    if (left < 2 * perPeriod[i] + 1) return;
    periods = std::min(periods, (left - perPeriod[i] - 1) / perPeriod[i]);
  }
  if (periods < kShortestRun) return;
  misses_ = 0;
  nextPause_ = 0;
  countsPerPeriod_.clear();
  for (size_t i = 0; i < now.resources.size(); ++i) {
    countsPerPeriod_.push_back({now.resources[i], now.counts[i].bytes - then.counts[i].bytes,
                                now.counts[i].chunks - then.counts[i].chunks,
                                now.counts[i].busy - then.counts[i].busy});
  }
  base_ = std::move(now);
  period_ = std::move(period);
  perPeriod_ = std::move(perPeriod);
  length_ = length;
  periods_ = periods;
  running_ = true;
  forget();
  // Counted at once, taken back for the periods a competitor stops; held until then.
  const Picoseconds end = base_.at + static_cast<Picoseconds>(periods_) * length_;
  for (const PathUse& d : countsPerPeriod_) {
    Resource& r = *d.resource;
    r.bytes += periods_ * d.bytes;
    r.chunks += periods_ * d.chunks;
    r.busy += static_cast<Picoseconds>(periods_) * d.busy;
    r.sample(base_.at, end, static_cast<double>(periods_ * d.bytes));
    r.heldBy = this;
  }
  // Every channel sleeps until its first piece after the run.
  for (const ChannelAt& ch : base_.channels) {
    Channel& c = channel(ch.device, ch.channel);
    c.inMachineRun = true;
    c.nextIssue = end + ch.probe.nextIssue;
  }
}

void MachineRun::restore(uint64_t r) {
  const Picoseconds shift = base_.at + static_cast<Picoseconds>(r) * length_;
  const Picoseconds end = base_.at + static_cast<Picoseconds>(periods_) * length_;
  for (size_t i = 0; i < countsPerPeriod_.size(); ++i) {
    const PathUse& d = countsPerPeriod_[i];
    Resource& r2 = *d.resource;
    const uint64_t undone = periods_ - r;
    r2.bytes -= undone * d.bytes;
    r2.chunks -= undone * d.chunks;
    r2.busy -= static_cast<Picoseconds>(undone) * d.busy;
    if (undone > 0) r2.sample(shift, end, -static_cast<double>(undone * d.bytes));
    r2.heldBy = nullptr;
    r2.reserved.clear();
    for (const Booking& b : base_.bookings[i])
      r2.reserved.push_back({b.start + shift, b.end + shift, b.owner});
  }
  for (size_t i = 0; i < base_.channels.size(); ++i) {
    const ChannelAt& ch = base_.channels[i];
    Channel& c = channel(ch.device, ch.channel);
    c.inMachineRun = false;
    c.offset = ch.offset + r * perPeriod_[i] * ch.probe.chunk.bytes;
    DeviceScheduler::restore(c, ch.probe, shift);
    c.path = ch.path;
    c.pathRepeats = true;
    piecesInRuns_ += r * perPeriod_[i];
  }
}

void MachineRun::yieldAt(Picoseconds t) {
  if (!running_) return;
  running_ = false;
  // The last whole period that began before t, then the pieces of the next issued before t, in
  // the order they came in the period the run repeats.
  uint64_t r = 0;
  if (t > base_.at) r = std::min<uint64_t>(periods_, (t - base_.at + length_ - 1) / length_ - 1);
  restore(r);
  const Picoseconds from = base_.at + static_cast<Picoseconds>(r) * length_;
  for (const Issue& p : period_) {
    if (from + p.at >= t) break;
    Channel& c = channel(p.device, p.channel);
    if (c.nextIssue != from + p.at || !c.task || c.task->endTime >= 0) break;  // (never)
    DeviceScheduler& dev = *devices_[static_cast<size_t>(p.device)];
    dev.issuePiece(c, dev.byteWindow_);
  }
  for (DeviceScheduler* d : devices_) d->wake();
}

}  // namespace ascendsim::models
