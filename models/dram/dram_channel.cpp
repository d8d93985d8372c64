#include "models/dram/dram_channel.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace ascendsim::models {
namespace {
constexpr int64_t kLongAgo = -(int64_t{1} << 40);  // "never": every constraint on it is met
}

DramChannel::DramChannel(const spec::DramSpec& m, DramStats& stats, CommandBus& bus)
    : commands_(CommandLengths::of(dramStandard(m.standard))),
      bus_(bus),
      column_(commands_.separateColumnBus ? &bus.column : &bus.row),
      freedReads_(m.queueDepth),
      freedWrites_(m.effectiveWriteQueueDepth()),
      reads_(m.queueDepth, size_t{m.ranks} * m.bankGroups * m.banksPerGroup),
      writes_(m.effectiveWriteQueueDepth(), size_t{m.ranks} * m.bankGroups * m.banksPerGroup),
      stats_(stats) {
  const spec::DramTimings& t = m.timings;
  tCL_ = t.tCL;
  tCWL_ = t.tCWL;
  tRCDRD_ = t.tRCDRD;
  tRCDWR_ = t.tRCDWR;
  tRP_ = t.tRP;
  tRAS_ = t.tRAS;
  tRC_ = t.tRC;
  tCCD_S_ = t.tCCD_S;
  tCCD_L_ = t.tCCD_L;
  tRRD_S_ = t.tRRD_S;
  tRRD_L_ = t.tRRD_L;
  tFAW_ = t.tFAW;
  tWR_ = t.tWR;
  tWTR_S_ = t.tWTR_S;
  tWTR_L_ = t.tWTR_L;
  tRTW_ = t.tRTW;
  tRTP_ = t.tRTP;
  tCCDR_ = t.tCCDR > 0 ? t.tCCDR : t.tCCD_S;
  sharedWindow_ = dramStandard(m.standard).ranksAreStackIds;
  tREFI_ = t.tREFI;
  tRFC_ = t.tRFC;
  tRFCpb_ = t.tRFCpb;
  const int64_t perClock = static_cast<int64_t>(m.dataRate / m.clock + 0.5);
  burst_ = m.burstLength / perClock;
  closedPage_ = m.pagePolicy == spec::PagePolicy::Closed;
  bankGroups_ = m.bankGroups;
  banksPerGroup_ = m.banksPerGroup;
  banksPerRank_ = m.bankGroups * m.banksPerGroup;
  // Ramulator 2 counts "more than high x depth" and "fewer than low x depth".
  highMark_ = static_cast<uint32_t>(std::floor(m.writeHighWatermark * writes_.depth() + 1e-9));
  lowMark_ = static_cast<uint32_t>(std::ceil(m.writeLowWatermark * writes_.depth() - 1e-9));
  starvationCap_ = m.starvationCap;
  tckPs_ = m.tCK();
  stats_.tckPs = tckPs_;

  banks_.assign(size_t{m.ranks} * banksPerRank_,
                Bank{-1, kLongAgo, kLongAgo, kLongAgo, kLongAgo, kLongAgo});
  groups_.assign(size_t{m.ranks} * bankGroups_, BankGroup{kLongAgo, kLongAgo, kLongAgo});
  // With per-bank refresh (tRFCpb > 0) one bank at a time refreshes, each once per tREFI, while
  // the others keep serving; otherwise all banks refresh together every tREFI.
  refreshInterval_ = tRFCpb_ > 0 ? std::max<int64_t>(tREFI_ / banksPerRank_, 1) : tREFI_;
  const ActWindow fresh{kLongAgo, kLongAgo, {kLongAgo, kLongAgo, kLongAgo, kLongAgo}, 0};
  windowStride_ = sharedWindow_ ? 0 : 1;
  windows_.assign(sharedWindow_ ? 1 : m.ranks, fresh);
  ranks_.assign(m.ranks, Rank{refreshInterval_, kLongAgo, 0, 0});
  lastCol_ = lastRdCmd_ = dataBusFree_ = kLongAgo;
  refreshedThisRound_.assign(banks_.size(), 0);
  replay_.mark.assign(banks_.size(), 0);
  offered_.resize(std::max(m.queueDepth, m.effectiveWriteQueueDepth()));
}

template <bool withBus>
[[gnu::always_inline]] inline DramChannel::Plan DramChannel::plan(const DramRequest& r) const {
  const Bank& b = bank(r);
  const BankGroup& g = groups_[groupIndex(r)];
  const Rank& k = ranks_[r.rank];
  const ActWindow& w = windowOf(r.rank);
  const int64_t t0 = std::max(r.arrival, k.refreshEnd);
  Plan p;
  if (b.openRow == static_cast<int64_t>(r.row)) {
    p.access = Access::Hit;
    p.col = std::max(t0, r.write ? b.wrAllowed : b.rdAllowed);
  } else {
    int64_t actFrom = t0;
    if (b.openRow < 0) {
      p.access = Access::Miss;
    } else {
      p.access = Access::Conflict;
      p.pre = std::max(t0, b.preAllowed);
      if (withBus) {
        p.preSlot = rowSlot(p.pre, commands_.pre);
        p.pre = cycleOfSlot(p.preSlot);
      }
      actFrom = p.pre + tRP_;
    }
    p.act = std::max({actFrom, b.actAllowed, w.lastAct + tRRD_S_, g.lastAct + tRRD_L_,
                      w.faw[w.fawNext] + tFAW_});
    if (withBus) {
      p.actSlot = rowSlot(p.act, commands_.act);
      p.act = cycleOfSlot(p.actSlot);
    }
    p.col = p.act + (r.write ? tRCDWR_ : tRCDRD_);
  }
  p.col = std::max({p.col, g.lastCol + tCCD_L_, lastCol_ + tCCD_S_});
  if (r.write) {
    p.col = std::max(p.col, lastRdCmd_ + tRTW_);
  } else {
    p.col = std::max({p.col, w.lastWrDataEnd + tWTR_S_, g.lastWrDataEnd + tWTR_L_});
    if (lastRdRank_ >= 0 && lastRdRank_ != static_cast<int64_t>(r.rank))
      p.col = std::max(p.col, lastRdCmd_ + tCCDR_);
  }
  // Data bursts go out in order on the shared data bus.
  p.col = std::max(p.col, dataBusFree_ - (r.write ? tCWL_ : tCL_));
  if (withBus) p.col = columnBus().firstFree(p.col, commands_.column);
  return p;
}

[[gnu::always_inline]] inline void DramChannel::commit(const DramRequest& r, const Plan& p) {
  Bank& b = bank(r);
  BankGroup& g = groups_[groupIndex(r)];
  ActWindow& w = windowOf(r.rank);
  if (p.pre >= 0) {
    ++stats_.rowConflicts;
  } else if (p.act >= 0) {
    ++stats_.rowMisses;
  } else {
    ++stats_.rowHits;
  }
  const int64_t slots = commands_.rowSlots;
  if (p.pre >= 0) bus_.row.book(p.preSlot >= 0 ? p.preSlot : p.pre * slots, commands_.pre);
  if (p.act >= 0) bus_.row.book(p.actSlot >= 0 ? p.actSlot : p.act * slots, commands_.act);
  columnBus().book(p.col, commands_.column);
  if (p.act >= 0) {
    setOpenRow(bankIndex(r), static_cast<int64_t>(r.row));
    b.lastAct = p.act;
    b.actAllowed = p.act + tRC_;
    b.preAllowed = p.act + tRAS_;
    b.rdAllowed = p.act + tRCDRD_;
    b.wrAllowed = p.act + tRCDWR_;
    w.lastAct = g.lastAct = p.act;
    w.faw[w.fawNext] = p.act;
    w.fawNext = (w.fawNext + 1) & 3;
  }
  g.lastCol = lastCol_ = p.col;
  (r.write ? freedWrites_ : freedReads_).push(p.col);
  int64_t dataEnd;
  if (r.write) {
    dataEnd = p.col + tCWL_ + burst_;
    w.lastWrDataEnd = g.lastWrDataEnd = dataEnd;
    b.preAllowed = std::max(b.preAllowed, dataEnd + tWR_);
    ++stats_.writes;
    stats_.bytesWritten += r.bytes;
  } else {
    dataEnd = p.col + tCL_ + burst_;
    lastRdCmd_ = p.col;
    lastRdRank_ = r.rank;
    b.preAllowed = std::max(b.preAllowed, p.col + tRTP_);
    ++stats_.reads;
    stats_.bytesRead += r.bytes;
    stats_.readLatencySumPs += static_cast<uint64_t>((dataEnd - r.arrival) * tckPs_);
    stats_.recordReadLatency(dataEnd - r.arrival);
  }
  if (log_)
    log_->push_back(
        {logChannel_, r.bankIndex, r.row, r.write, r.arrival, p.pre, p.act, p.col, dataEnd});
  if (batch_.active)
    noteBatchStep(r, p.pre >= 0 ? (p.preSlot >= 0 ? p.preSlot : p.pre * slots) : -1,
                  p.act >= 0 ? (p.actSlot >= 0 ? p.actSlot : p.act * slots) : -1, p.col, dataEnd,
                  p.first());
  dataBusFree_ = dataEnd;
  lastDataEnd_ = std::max(lastDataEnd_, dataEnd);
  if (closedPage_) {
    // Auto-precharge with the column command: the row closes as soon as it may.
    setOpenRow(bankIndex(r), -1);
    b.actAllowed = std::max(b.actAllowed, b.preAllowed + tRP_);
  }
  const int64_t arrivalPs = r.arrival * tckPs_;
  if (stats_.firstArrivalPs < 0 || arrivalPs < stats_.firstArrivalPs)
    stats_.firstArrivalPs = arrivalPs;
  stats_.lastCompletionPs = std::max(stats_.lastCompletionPs, dataEnd * tckPs_);
}

void DramChannel::refresh(Rank& k, uint32_t rankIndex, int64_t start) {
  // Refresh needs every bank of the rank precharged: close open rows first.
  for (uint32_t i = 0; i < banksPerRank_; ++i) {
    Bank& b = banks_[size_t{rankIndex} * banksPerRank_ + i];
    start = std::max(
        start, b.openRow >= 0 ? std::max(b.preAllowed, b.lastAct + tRAS_) + tRP_ : b.actAllowed);
  }
  const int64_t slot = rowSlot(start, commands_.ref);
  bus_.row.book(slot, commands_.ref);
  start = cycleOfSlot(slot);
  const int64_t end = start + tRFC_;
  for (uint32_t i = 0; i < banksPerRank_; ++i) {
    Bank& b = banks_[size_t{rankIndex} * banksPerRank_ + i];
    setOpenRow(size_t{rankIndex} * banksPerRank_ + i, -1);
    b.actAllowed = std::max(b.actAllowed, end);
  }
  k.refreshEnd = end;
  k.nextRefresh += tREFI_;
  ++stats_.refreshes;
  stats_.refreshPs += tRFC_ * tckPs_;
}

void DramChannel::refreshOneBank(Rank& k, uint32_t rankIndex, int64_t start) {
  // Any bank may take the next single-bank refresh as long as each gets one per round (tREFI):
  // go round the banks, passing over those that queued requests want (postponed, as JEDEC allows,
  // until they are the only ones left in the round).
  const size_t first = size_t{rankIndex} * banksPerRank_;
  uint32_t chosen = banksPerRank_, fallback = banksPerRank_;
  for (uint32_t step = 0; step < banksPerRank_ && chosen == banksPerRank_; ++step) {
    const uint32_t i = (k.nextBank + step) % banksPerRank_;
    if (refreshedThisRound_[first + i]) continue;
    if (fallback == banksPerRank_) fallback = i;
    if (reads_.queuedIn(first + i) + writes_.queuedIn(first + i) == 0) chosen = i;
  }
  if (chosen == banksPerRank_) chosen = fallback;
  k.nextBank = (chosen + 1) % banksPerRank_;
  refreshedThisRound_[first + chosen] = 1;
  if (++k.refreshedInRound == banksPerRank_) {
    k.refreshedInRound = 0;
    std::fill(refreshedThisRound_.begin() + static_cast<std::ptrdiff_t>(first),
              refreshedThisRound_.begin() + static_cast<std::ptrdiff_t>(first + banksPerRank_), 0);
  }
  Bank& b = banks_[first + chosen];
  start = std::max(start, b.openRow >= 0 ? b.preAllowed + tRP_ : b.actAllowed);
  const int64_t slot = rowSlot(start, commands_.ref);
  bus_.row.book(slot, commands_.ref);
  start = cycleOfSlot(slot);
  setOpenRow(first + chosen, -1);
  b.actAllowed = std::max(b.actAllowed, start + tRFCpb_);
  k.nextRefresh += refreshInterval_;
  ++stats_.refreshes;
  // Counted as channel time: one bank of banksPerRank is away for tRFCpb.
  stats_.refreshPs += tRFCpb_ * tckPs_ / banksPerRank_;
}

void DramChannel::catchUpRefresh(uint32_t rankIndex, int64_t until) {
  Rank& k = ranks_[rankIndex];
  // (A batch being recorded keys the refresh's due time from its first arrival on.)
  if (batch_.active && k.nextRefresh < batch_.t0) batch_.bad = true;
  // Refreshes that fell wholly in idle time cost nothing but are counted; skip them in bulk.
  if (until > k.nextRefresh + 2 * tREFI_) {
    const int64_t skipped = (until - k.nextRefresh) / refreshInterval_ - banksPerRank_;
    if (skipped > 0) {
      k.nextRefresh += skipped * refreshInterval_;
      stats_.refreshes += static_cast<uint64_t>(skipped);
      stats_.refreshPs += skipped * (tRFCpb_ > 0 ? tRFCpb_ / banksPerRank_ : tRFC_) * tckPs_;
      for (uint32_t i = 0; i < banksPerRank_; ++i)
        setOpenRow(size_t{rankIndex} * banksPerRank_ + i, -1);
    }
  }
  while (until >= k.nextRefresh) {
    if (tRFCpb_ > 0) {
      refreshOneBank(k, rankIndex, k.nextRefresh);
    } else {
      refresh(k, rankIndex, k.nextRefresh);
    }
  }
}

void DramChannel::issueOne() {
  RequestQueue& q = scheduledQueue();
  for (;;) {
    const int32_t oldest = q.oldest();
    int32_t best = oldest;
    Plan bestPlan = plan<false>(q.request(oldest));
    auto take = [&](int32_t slot, const Plan& p) __attribute__((always_inline)) {
      best = slot;
      // Field by field: a struct copy of the just-built plan stalls on store forwarding.
      bestPlan.pre = p.pre;
      bestPlan.act = p.act;
      bestPlan.col = p.col;
      bestPlan.preSlot = p.preSlot;
      bestPlan.actSlot = p.actSlot;
      bestPlan.access = p.access;
    };
    auto consider = [&](int32_t slot) __attribute__((always_inline)) {
      const Plan p = plan<false>(q.request(slot));
      // First ready (earliest column command), then row hits, then the oldest.
      const bool better =
          p.col < bestPlan.col ||
          (p.col == bestPlan.col && ((p.access == Access::Hit) != (bestPlan.access == Access::Hit)
                                         ? p.access == Access::Hit
                                         : q.seq(slot) < q.seq(best)));
      if (better) take(slot, p);
      return p.access == Access::Hit;
    };
    // No request can issue its column command before this.
    const int64_t floor = std::max(lastCol_ + tCCD_S_, dataBusFree_ - std::max(tCL_, tCWL_));
    const bool inOrder = q.arrivalsInOrder();
    // An oldest request that is a row hit and can go at the floor is FR-FCFS's choice without
    // looking further (the common case of streams); so is one whose bank is the only one with
    // requests, when arrivals are in order (a younger hit of its bank goes no earlier and loses
    // the tie, a younger miss waits for tRC: one stream trickling into one bank).
    const bool settled = shortcuts_ && bestPlan.access == Access::Hit &&
                         (bestPlan.col <= floor || (inOrder && q.activeBanks().size() == 1));
    // With a single bank holding row hits (typical of random traffic: the second burst of a request
    // whose first just opened the row), every other candidate is a row miss. If the best of the
    // oldest and that bank's first hit is a hit no later than any miss can be, nothing else can be
    // first ready. The later hits of that bank can go no earlier than its first.
    // (The queue may not know which bank is the one with hits; when the oldest is a hit, its bank
    // is.)
    auto onlyHitWins = [&] {
      if (q.banksWithHits() != 1) return false;
      int64_t known = q.hitBank();
      if (known < 0 && bestPlan.access == Access::Hit) known = q.request(oldest).bankIndex;
      if (known < 0) return false;
      const auto hb = static_cast<uint32_t>(known);
      int32_t x = q.head(hb);
      while (x >= 0 && static_cast<int64_t>(q.request(x).row) != banks_[hb].openRow) x = q.next(x);
      if (x < 0) return false;
      if (x != oldest) consider(x);
      if (bestPlan.access != Access::Hit) return false;
      // No request that needs an ACT can go before the ranks' last ACT and tFAW window allow.
      int64_t missFloor = std::numeric_limits<int64_t>::max();
      for (const ActWindow& w : windows_) {
        missFloor = std::min(missFloor, std::max(w.lastAct + tRRD_S_, w.faw[w.fawNext] + tFAW_) +
                                            std::min(tRCDRD_, tRCDWR_));
      }
      return bestPlan.col <= std::max(floor, missFloor);
    };
    // A request goes no earlier than it arrives: where requests arrive in the order they were
    // queued, one that arrives after the best plan so far (or with it, when that plan is a row
    // hit, which an older hit wins a tie with) and every younger one cannot be first ready.
    auto tooLate = [&](const DramRequest& c) __attribute__((always_inline)) {
      return c.arrival > bestPlan.col ||
             (c.arrival == bestPlan.col && bestPlan.access == Access::Hit);
    };
    // The next few requests by age: the first that is a row hit able to go at the floor is
    // FR-FCFS's choice (nothing goes earlier, and at the floor hits go first, the older first).
    // Streams over several bank groups find it in a step or two where the scan below would plan
    // every busy bank. (Misses rarely meet missFloor under random traffic: their banks' tRC and
    // precharges hold them back, so looking for them by age costs more than it saves.)
    // (A younger row hit in the oldest's bank, when the oldest is a hit that cannot go at the
    // floor, cannot either when arrivals are in order: it is passed over without counting, so
    // that a stream of one bank group finds the next group's hit behind it.)
    auto hitAtFloorByAge = [&] {
      if (q.banksWithHits() == 0) return false;
      const uint32_t passBank = shortcuts_ && inOrder && bestPlan.access == Access::Hit
                                    ? q.request(oldest).bankIndex
                                    : ~0u;
      int seen = 0, passed = 0;
      for (uint64_t a = q.frontSeq() + 1; a < q.endSeq() && seen < 4; ++a) {
        const int32_t slot = q.slotByAge(a);
        if (slot < 0) continue;
        const DramRequest& c = q.request(slot);
        if (c.bankIndex == passBank && ++passed <= 16) continue;
        ++seen;
        if (static_cast<int64_t>(c.row) != banks_[c.bankIndex].openRow) continue;
        const Plan p = plan<false>(c);
        if (p.col <= floor) {
          take(slot, p);
          return true;
        }
      }
      return false;
    };
    // The oldest alone, or with arrivals in order, the next request by age (and so every younger
    // one) arrives too late to go before the oldest's plan.
    auto nextTooLate = [&] {
      if (q.size() == 1) return true;
      if (!inOrder) return false;
      for (uint64_t a = q.frontSeq() + 1; a < q.endSeq(); ++a) {
        const int32_t slot = q.slotByAge(a);
        if (slot >= 0) return tooLate(q.request(slot));
      }
      return false;
    };
    // An oldest request that is not a row hit but can go at the floor loses only to a row hit that
    // can go there too (nothing goes earlier; at the floor hits go first, then the oldest): plan
    // each bank's first row hit (its later hits are not candidates) and nothing else. Typical of a
    // copy's writes, whose oldest waits to open its row while other banks' hits stream.
    auto missAtFloor = [&] {
      if (bestPlan.access == Access::Hit || bestPlan.col > floor) return false;
      if (q.banksWithHits() == 0) return true;
      for (uint32_t bi : q.activeBanks()) {
        if (q.hitsIn(bi) == 0) continue;
        int32_t s = q.head(bi);
        while (static_cast<int64_t>(q.request(s).row) != banks_[bi].openRow) s = q.next(s);
        consider(s);
      }
      return true;
    };
    const bool scan = q.passedOver < starvationCap_ &&
                      !(shortcuts_ && (settled || nextTooLate() || missAtFloor() || onlyHitWins() ||
                                       hitAtFloorByAge()));
    if (scan) {
      for (uint32_t bi : q.activeBanks()) {
        // Per bank only its oldest request, and its oldest row hit, can be first ready.
        const int32_t h = q.head(bi);
        // (Its row hits arrive no earlier than it.)
        if (shortcuts_ && inOrder && tooLate(q.request(h))) continue;
        // (For the oldest, ask its own row: bestPlan may be another bank's by now.)
        const bool headHit = h == oldest
                                 ? static_cast<int64_t>(q.request(h).row) == banks_[bi].openRow
                                 : consider(h);
        if (headHit || q.hitsIn(bi) == 0) continue;
        for (int32_t s = q.next(h); s >= 0; s = q.next(s)) {
          if (static_cast<int64_t>(q.request(s).row) == banks_[bi].openRow) {
            consider(s);
            break;
          }
        }
      }
    }
    const DramRequest r = q.request(best);
    // The choice ignores the command bus (it moves a command by a cycle or two at most, and
    // checking it for every candidate would double the cost of choosing); the chosen request's
    // commands take the bus's first free cycles.
    const bool busFree = columnBus().firstFree(bestPlan.col, commands_.column) == bestPlan.col &&
                         (bestPlan.act < 0 || rowSlot(bestPlan.act, commands_.act) ==
                                                  bestPlan.act * commands_.rowSlots) &&
                         (bestPlan.pre < 0 || rowSlot(bestPlan.pre, commands_.pre) ==
                                                  bestPlan.pre * commands_.rowSlots);
    if (!busFree) bestPlan = plan<true>(r);
    if (bestPlan.first() >= ranks_[r.rank].nextRefresh) {
      catchUpRefresh(r.rank, bestPlan.first());
      continue;  // the refresh changed the banks: plan again
    }
    commit(r, bestPlan);
    if (record_)
      record_->push_back({static_cast<uint32_t>(best), bestPlan.pre, bestPlan.act, bestPlan.col,
                          dataBusFree_, bestPlan.preSlot, bestPlan.actSlot});
    if (done_) done_->push_back({q.seq(best), r.write, dataBusFree_});  // (its data end)
    q.passedOver = best == oldest ? 0 : q.passedOver + 1;
    q.remove(best, banks_[r.bankIndex].openRow);
    return;
  }
}

void DramChannel::setOpenRow(size_t bi, int64_t row) {
  banks_[bi].openRow = row;
  reads_.rowChanged(static_cast<uint32_t>(bi), row);
  writes_.rowChanged(static_cast<uint32_t>(bi), row);
}

RequestQueue& DramChannel::chooseQueue() {
  // Both hold requests. Requests queued ahead of their arrival (a caller offering a batch) are
  // not there yet: the controller decides when it is next free, or when the first one arrives.
  const int64_t firstRead = reads_.oldestArrival(), firstWrite = writes_.oldestArrival();
  const int64_t now = std::max(lastCol_, std::min(firstRead, firstWrite));
  const bool readWaiting = firstRead <= now;
  const bool writeWaiting = firstWrite <= now;
  if (!writeMode_) {
    writeMode_ = writes_.size() > highMark_ || !readWaiting;
  } else {
    writeMode_ = !(readWaiting && (writes_.size() < lowMark_ || !writeWaiting));
  }
  return writeMode_ ? writes_ : reads_;
}

void DramChannel::drain() {
  if (idle()) return;
  if (replay_.on) {
    replay_.counters.drainedBursts += queued();
    if (replayDrain()) return;
  }
  while (!idle()) issueOne();
}

}  // namespace ascendsim::models
