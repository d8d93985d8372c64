// Drain replay (models/dram/dram_channel_replay.cpp) against issuing every burst: a replayed drain
// must give the commands the channel would have issued. The same traffic runs with replay on and
// off and must give the same commands burst by burst (channel, bank, row, arrival, PRE, ACT and
// column cycles, data end, which is each request's completion), the same drain and group end
// times and the same statistics to the last counter and histogram bucket. The traffic is the cycle
// memory timing's: a copy's chunks of 64 KiB, their bytes trickling in over an interval, each
// batch drained before the next; reads alone, writes alone, a copy (the chunk's reads drained,
// then its writes), reads and writes queued together (not replayed: both queues hold requests), and
// a second stream that joins half way. Every run lasts several refresh intervals (all-bank and
// per-bank refresh), on HBM2E, HBM3 and two DDR4s. Replay must also take part: for the steady
// streams most drains repeat one seen before (the same chunk shape at the same pace), so at least
// half of the bursts they drain must come from replays, where drains are short: bytes arriving at
// about the memory's peak on HBM2E and HBM3 with all-bank refresh. (On DDR4 one channel takes a
// whole chunk, and its drain lasts longer than replay covers, 2000 cycles; so do HBM3's when
// bytes trickle in, its 32 pseudo-channels' last requests arriving over 2.5 us; with per-bank
// refresh one comes every 244 ns, within most drains.) Batches of writes (batch replay) are
// compared likewise, including batches that meet a refresh, which must replay too when their
// state and refresh phase repeat.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dram_preset.h"
#include "models/dram/banked_dram.h"

namespace ascendsim::models {
namespace {

enum class Traffic {
  Reads,
  Writes,
  Copy,
  ReadsWithWrites,
  SecondStreamJoins,
  BatchedCopy,
  BatchedWrites,
  BatchedReads,
  SplitReads
};

struct Run {
  std::vector<DramChannel::Issued> log;
  std::vector<Picoseconds> ends;  // each drain's, and each group's
  DramStats stats;
  DramChannel::ReplayCounters replay;
  BankedDram::BatchCounters batches;
  uint64_t bursts = 0;
};

constexpr uint64_t kChunk = 64 * 1024;
constexpr uint64_t kPiece = 512;  // bytes that arrive together, as cycle_memory.cpp queues them

// Queues `bytes` from `offset` in pieces of kPiece, one piece every `spacing`, from `start`.
void offer(BankedDram& dram, uint64_t offset, uint64_t bytes, bool write, Picoseconds start,
           Picoseconds spacing) {
  for (uint64_t done = 0; done < bytes; done += kPiece)
    dram.enqueue(offset + done, kPiece, write,
                 start + static_cast<Picoseconds>(done / kPiece) * spacing);
}

// `chunks` chunks of the traffic; each batch's bytes arrive one piece every `spacing`. The next
// batch starts when this one's bytes have arrived, or half a batch's arrival time before it was
// through, whichever is later: its first requests arrive before the last commands of the batch
// before (and wait for queue slots), as a copy's next piece does, and the stream never runs more
// than half a batch ahead of the memory. `grouped`: each batch is also a group (mark, then
// issueGroup), as streaming requesters use them.
// BatchedReads: each chunk's reads offered as one batch (drainBatch), as a cycle memory offers a
// copy piece's reads (with replay on, to the channels without queueing them: each channel's drain
// replays from its offered requests); its admission and end are both compared.
// SplitReads: each chunk's reads as two batches split at a byte that is not a burst's first (a
// partial burst on either side), the first 2-32 KiB long.
// BatchedCopy: a copy whose reads go as BatchedReads' and whose writes go as one batch
// (enqueueAndDrain, batch replay), as a cycle memory's write buffer does; they arrive from
// `writesLead` before the reads were through (0: as they are through; the D2D copy's come while its
// reads are still being issued). `period` > 0: chunk c starts at c x period instead.
Run run(const spec::DramSpec& m, Traffic traffic, int chunks, Picoseconds spacing, bool replay,
        bool grouped, Picoseconds writesLead = 0, Picoseconds period = 0) {
  BankedDram dram(m);
  dram.setReplay(replay);
  Run out;
  dram.setIssueLog(&out.log);
  const uint64_t destination = uint64_t{1} << 29;  // a copy's writes go 512 MiB up
  const uint64_t second = uint64_t{3} << 28;       // the stream that joins, 768 MiB up
  Picoseconds start = 0;
  auto finish = [&] {
    if (grouped) {
      const uint64_t g = dram.mark();
      out.ends.push_back(dram.drain());
      out.ends.push_back(dram.issueGroup(g));
    } else {
      out.ends.push_back(dram.drain());
    }
  };
  for (int c = 0; c < chunks; ++c) {
    const uint64_t at = static_cast<uint64_t>(c) * kChunk;
    switch (traffic) {
      case Traffic::Reads: offer(dram, at, kChunk, false, start, spacing); break;
      case Traffic::Writes: offer(dram, at, kChunk, true, start, spacing); break;
      case Traffic::Copy:
        // (Its writes come as its reads are through.)
        offer(dram, at, kChunk, false, start, spacing);
        finish();
        offer(dram, destination + at, kChunk, true, std::max(start, out.ends.back()), spacing);
        break;
      case Traffic::ReadsWithWrites:
        offer(dram, at, kChunk, false, start, spacing);
        offer(dram, destination + at, kChunk, true, start, spacing);
        break;
      case Traffic::SecondStreamJoins:
        offer(dram, at, kChunk, false, start, spacing);
        if (c >= chunks / 2) offer(dram, second + at / 4, kChunk / 4, false, start, spacing * 3);
        break;
      case Traffic::SplitReads: {
        const uint64_t split = static_cast<uint64_t>(c * 5 % 16 + 1) * 2048 + 7;
        for (const auto& [from, to] : {std::pair{uint64_t{0}, split}, std::pair{split, kChunk}}) {
          std::vector<MemoryTiming::BatchAccess> reads;
          for (uint64_t done = from; done < to; done = std::min(to, (done / kPiece + 1) * kPiece))
            reads.push_back({at + done, std::min(to, (done / kPiece + 1) * kPiece) - done,
                             start + static_cast<Picoseconds>(done / kPiece) * spacing});
          const MemoryTiming::BatchEnd e = dram.drainBatch(reads, false);
          out.ends.push_back(e.admitted);
          out.ends.push_back(e.end);
        }
        break;
      }
      case Traffic::BatchedReads:
      case Traffic::BatchedCopy:
      case Traffic::BatchedWrites: {
        Picoseconds from = start;
        if (traffic != Traffic::BatchedWrites) {
          std::vector<MemoryTiming::BatchAccess> reads;
          for (uint64_t done = 0; done < kChunk; done += kPiece)
            reads.push_back(
                {at + done, kPiece, start + static_cast<Picoseconds>(done / kPiece) * spacing});
          const MemoryTiming::BatchEnd e = dram.drainBatch(reads, false);
          out.ends.push_back(e.admitted);
          out.ends.push_back(e.end);
          if (traffic == Traffic::BatchedReads) break;
          from = std::max(start, e.end - writesLead);
        }
        std::vector<MemoryTiming::BatchAccess> batch;
        for (uint64_t done = 0; done < kChunk; done += kPiece)
          batch.push_back({destination + at + done, kPiece,
                           from + static_cast<Picoseconds>(done / kPiece) * spacing});
        out.ends.push_back(dram.enqueueAndDrain(batch, true));
        break;
      }
    }
    if (traffic != Traffic::BatchedCopy && traffic != Traffic::BatchedWrites &&
        traffic != Traffic::BatchedReads && traffic != Traffic::SplitReads)
      finish();
    const Picoseconds window = static_cast<Picoseconds>(kChunk / kPiece) * spacing;
    start = period > 0 ? (c + 1) * period : std::max(start + window, out.ends.back() - window / 2);
  }
  out.stats = dram.totalStats();
  out.replay = dram.replayCounters();
  out.batches = dram.batchCounters();
  return out;
}

Run expectSameWithAndWithoutReplay(const spec::DramSpec& m, Traffic traffic, int chunks,
                                   Picoseconds spacing, bool grouped, bool mustReplay,
                                   Picoseconds writesLead = 0, Picoseconds period = 0) {
  const Run on = run(m, traffic, chunks, spacing, true, grouped, writesLead, period);
  const Run off = run(m, traffic, chunks, spacing, false, grouped, writesLead, period);
  EXPECT_EQ(off.replay.replayed, 0u);
  EXPECT_EQ(off.batches.replayed, 0u);
  EXPECT_EQ(on.log.size(), off.log.size());
  if (on.log.size() != off.log.size()) return on;
  for (size_t i = 0; i < on.log.size(); ++i) {
    const DramChannel::Issued& a = on.log[i];
    const DramChannel::Issued& b = off.log[i];
    EXPECT_TRUE(a.channel == b.channel && a.bankIndex == b.bankIndex && a.row == b.row &&
                a.write == b.write && a.arrival == b.arrival && a.pre == b.pre && a.act == b.act &&
                a.col == b.col && a.dataEnd == b.dataEnd)
        << "burst " << i << " of " << on.log.size() << ": with replay channel " << a.channel
        << " bank " << a.bankIndex << " row " << a.row << " arrival " << a.arrival << " col "
        << a.col << " data end " << a.dataEnd << "; without channel " << b.channel << " bank "
        << b.bankIndex << " row " << b.row << " arrival " << b.arrival << " col " << b.col
        << " data end " << b.dataEnd;
    if (!testing::Test::HasFailure()) continue;
    return on;
  }
  EXPECT_EQ(on.ends, off.ends);
  const DramStats& a = on.stats;
  const DramStats& b = off.stats;
  EXPECT_EQ(a.reads, b.reads);
  EXPECT_EQ(a.writes, b.writes);
  EXPECT_EQ(a.bytesRead, b.bytesRead);
  EXPECT_EQ(a.bytesWritten, b.bytesWritten);
  EXPECT_EQ(a.rowHits, b.rowHits);
  EXPECT_EQ(a.rowMisses, b.rowMisses);
  EXPECT_EQ(a.rowConflicts, b.rowConflicts);
  EXPECT_EQ(a.refreshes, b.refreshes);
  EXPECT_EQ(a.refreshPs, b.refreshPs);
  EXPECT_EQ(a.firstArrivalPs, b.firstArrivalPs);
  EXPECT_EQ(a.lastCompletionPs, b.lastCompletionPs);
  EXPECT_EQ(a.readLatencySumPs, b.readLatencySumPs);
  EXPECT_TRUE(a.readLatencyCycles == b.readLatencyCycles);
  // Every byte offered was moved: chunks x 64 KiB (a copy twice, the joining stream a quarter
  // chunk more for each chunk of the second half).
  const uint64_t chunkBytes = static_cast<uint64_t>(chunks) * kChunk;
  const uint64_t offered =
      traffic == Traffic::Copy || traffic == Traffic::ReadsWithWrites ||
              traffic == Traffic::BatchedCopy
          ? 2 * chunkBytes
      : traffic == Traffic::SecondStreamJoins
          ? chunkBytes + static_cast<uint64_t>(chunks - chunks / 2) * kChunk / 4
          : chunkBytes;
  EXPECT_EQ(b.bytesRead + b.bytesWritten, offered);
  // Long enough for refresh to come round: at least two refresh intervals.
  EXPECT_GT(b.lastCompletionPs, 2 * m.timings.tREFI * m.tCK());
  EXPECT_GE(b.refreshes, 2u);
  if (mustReplay) {
    EXPECT_GE(on.replay.replayedBursts * 2, on.replay.drainedBursts)
        << on.replay.replayed << " of " << on.replay.drains << " drains replayed";
  }
  return on;
}

struct Case {
  const char* name;
  spec::DramSpec memory;
};

std::vector<Case> memories() {
  return {{"hbm2e", memory("hbm2e")},
          {"hbm2e per-bank refresh", memory("hbm2e", ", tRFCpb: 160ns")},
          {"hbm3", memory("hbm3")},
          {"ddr4-3200 two ranks", memory("ddr4-3200", ", ranks: 2")},
          {"ddr4-3200 closed page", memory("ddr4-3200", ", page_policy: closed")}};
}

// 200 chunks of 64 KiB (12.5 MiB) take at least 34 us on one HBM2E stack (409.6 GB/s), nine
// refresh intervals of 3.9 us; on DDR4 (25.6 GB/s) 60 chunks take at least 150 us, 19 intervals
// of 7.8 us. A piece of 512 B every 1.25 ns is 410 GB/s, about an HBM2E stack's peak (the queues
// fill); every 20 ns the memory waits for its requests.
int chunksFor(const spec::DramSpec& m) {
  return m.standard == "DDR4" ? 60 : 200;
}

bool mustReplay(const spec::DramSpec& m) {
  return m.standard != "DDR4" && m.timings.tRFCpb == 0;
}

TEST(DramReplay, ReadsWritesAndCopiesIssueAsWithoutReplay) {
  for (const Case& c : memories()) {
    SCOPED_TRACE(c.name);
    const int chunks = chunksFor(c.memory);
    for (const Picoseconds spacing : {Picoseconds{1250}, Picoseconds{20000}}) {
      SCOPED_TRACE(spacing);
      const bool must = mustReplay(c.memory) && spacing == 1250;
      expectSameWithAndWithoutReplay(c.memory, Traffic::Reads, chunks, spacing, false, must);
      expectSameWithAndWithoutReplay(c.memory, Traffic::Writes, chunks, spacing, false, must);
      expectSameWithAndWithoutReplay(c.memory, Traffic::Copy, chunks, spacing, false, must);
    }
  }
}

TEST(DramReplay, OfferedReadsIssueAsWithoutReplay) {
  // A chunk's reads offered as one batch: with replay on, each channel takes its part without
  // queueing it (DramChannel::admitRun: the admission enqueue would give) and its drain replays
  // from it; the arrivals, commands, admissions and ends must be those of enqueue and drain. A 64
  // KiB chunk is 2,048 bursts of 32 B: 32 per pseudo-channel of four HBM2E stacks (64
  // pseudo-channels, queues of 32: all offered), 128 on one stack and 64 on HBM3 (more than a
  // queue holds: the first 32 offered, then queued and the rest enqueued; so on DDR4, 1,024 bursts
  // of 64 B on one channel). On four stacks the
  // pieces also come every 0.3 ns (1.7 TB/s, above their 1,638 GB/s): a request then waits for
  // the slot of the chunk before, which admission must count. As for queued reads, at least half
  // the bursts must replay at the memory's pace (HBM2E and HBM3 every 1.25 ns, four stacks
  // 0.3 ns: the queues fill).
  std::vector<Case> cases = memories();
  cases.push_back({"hbm2e four stacks", memory("hbm2e", ", stacks: 4")});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const bool four = std::string(c.name) == "hbm2e four stacks";
    for (const Picoseconds spacing : {Picoseconds{300}, Picoseconds{1250}, Picoseconds{20000}}) {
      if (spacing == 300 && !four) continue;
      SCOPED_TRACE(spacing);
      const bool must =
          four ? spacing == 300 : mustReplay(c.memory) && spacing == Picoseconds{1250};
      expectSameWithAndWithoutReplay(c.memory, Traffic::BatchedReads,
                                     four ? 800 : chunksFor(c.memory), spacing, false, must);
    }
  }
}

TEST(DramReplay, SplitOfferedReadsIssueAsWithoutReplay) {
  // Offered reads go to a channel as runs of bursts (one bank and row, whole bursts of one
  // access), each run admitted at once: its first requests take slots never used while fewer
  // have freed than are left, the rest the earliest freed, each when its slot freed if later
  // (DramChannel::admitRun). A chunk's reads in two batches split at byte 2-32 KiB + 7 (a partial
  // burst either side, a run cut short): the first batch leaves a channel of four HBM2E stacks
  // 1-16 of its 32 slots used, so that the second batch's runs take both kinds of slot (a run
  // straddles them in chunk 0: with the freed slots counted from the run's first request
  // instead of its first that takes one, the arrivals differ); on one stack more than a queue
  // holds, a run straddling the last free place and the queue. Arrivals, commands, admissions
  // and ends must be those of enqueue and drain, and at the memory's pace (every 0.3 ns on four
  // stacks) at least half the bursts must replay.
  std::vector<Case> cases = memories();
  cases.push_back({"hbm2e four stacks", memory("hbm2e", ", stacks: 4")});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const bool four = std::string(c.name) == "hbm2e four stacks";
    for (const Picoseconds spacing : {Picoseconds{300}, Picoseconds{20000}}) {
      SCOPED_TRACE(spacing);
      expectSameWithAndWithoutReplay(c.memory, Traffic::SplitReads,
                                     four ? 800 : chunksFor(c.memory), spacing, false,
                                     four && spacing == 300);
    }
  }
}

TEST(DramReplay, MixedQueuesAndAJoiningStreamIssueAsWithoutReplay) {
  for (const Case& c : memories()) {
    SCOPED_TRACE(c.name);
    const int chunks = chunksFor(c.memory);
    // Reads and writes queued together are not replayed (both queues hold requests).
    expectSameWithAndWithoutReplay(c.memory, Traffic::ReadsWithWrites, chunks, 1250, false, false);
    // A second stream joins half way: drains change shape, and replay must not carry the first
    // half's outcomes into them.
    expectSameWithAndWithoutReplay(c.memory, Traffic::SecondStreamJoins, chunks, 1250, false,
                                   false);
  }
}

TEST(DramReplay, GroupsEndAsWithoutReplay) {
  // Streaming requesters' groups are booked from a log of issued bursts: replayed bursts too.
  for (const Case& c : memories()) {
    SCOPED_TRACE(c.name);
    expectSameWithAndWithoutReplay(c.memory, Traffic::Copy, chunksFor(c.memory), 1250, true,
                                   mustReplay(c.memory));
  }
}

TEST(DramReplay, BatchedCopiesIssueAsWithoutReplay) {
  // A copy's writes as one batch of 64 KiB each (batch replay: a batch whose state and requests,
  // relative to its first arrival, repeat an earlier batch's takes its recorded commands, counters
  // and state at once), arriving as the reads are through, and 200 ns before. Paced as the other
  // traffic (the next chunk as this one's bytes have arrived, or half a chunk's arrival time
  // before it was through), and every 8192 clock cycles: the buses' booking windows start on
  // multiples of 64 cycles, so at that pace a batch meets the same state as one 4 chunks before
  // (a 64 KiB chunk's writes move to the next bank every chunk, 4 banks a bank group), and batch
  // replay must take part there on HBM2E with all-bank refresh: at least a quarter of the 200
  // batches (a refresh every 3.9 us, a chunk every 8192 x 0.625 ns = 5.1 us: about one batch in
  // two can meet a refresh, and each new state is recorded once first; 78 and 84 replay). Every
  // 768 cycles (480 ns) the next chunk comes while the memory is still busy with this one's
  // state: few batches repeat there (13 with the 200 ns lead), each must still issue alike.
  for (const Case& c : memories()) {
    SCOPED_TRACE(c.name);
    for (const Picoseconds period : {Picoseconds{0}, 8192 * c.memory.tCK(), 768 * c.memory.tCK()}) {
      for (const Picoseconds lead : {Picoseconds{0}, Picoseconds{200000}}) {
        SCOPED_TRACE(std::to_string(lead) + " ps lead, period " + std::to_string(period));
        const auto on = expectSameWithAndWithoutReplay(
            c.memory, Traffic::BatchedCopy, chunksFor(c.memory), 1250, false, false, lead, period);
        if (std::string(c.name) == "hbm2e" && period == 8192 * c.memory.tCK()) {
          EXPECT_GE(on.batches.replayed * 4, static_cast<uint64_t>(chunksFor(c.memory)))
              << on.batches.replayed << " of " << on.batches.batches << " batches replayed, "
              << on.batches.recorded << " recorded";
        }
      }
    }
  }
}

TEST(DramReplay, BatchesThatOverlapIssueAsWithoutReplay) {
  // Batches of writes alone, one every 512 clock cycles (320 ns on HBM2E; their 128 pieces take
  // 160 ns to arrive, one every 1.25 ns, and the stack at its peak 160 ns to write them): each
  // comes soon after the one before, so what a replayed batch leaves (bank timings, the buses'
  // bookings) shapes the next one's commands. The pace repeats every 4 batches (the bank moves on
  // each chunk), so on HBM2E batches between refreshes replay: at least a quarter of the 200
  // (99 do). (With the bus windows not restored after a replay only 29 replay; with its times one
  // cycle early, or without the refresh check, the commands differ.)
  for (const Case& c : memories()) {
    SCOPED_TRACE(c.name);
    const auto on =
        expectSameWithAndWithoutReplay(c.memory, Traffic::BatchedWrites, chunksFor(c.memory), 1250,
                                       false, false, 0, 512 * c.memory.tCK());
    if (std::string(c.name) == "hbm2e") {
      EXPECT_GE(on.batches.replayed * 4, static_cast<uint64_t>(chunksFor(c.memory)))
          << on.batches.replayed << " of " << on.batches.batches << " batches replayed, "
          << on.batches.recorded << " recorded";
    }
  }
}

TEST(DramReplay, BatchesThatMeetARefreshIssueAsWithoutReplay) {
  // A batch whose commands meet a refresh is recorded with the refresh and keyed with every
  // channel's refresh state as well (when the next refresh is due, relative to the batch's first
  // arrival, and what a refresh waits for). A chunk every 13/12 tREFI (6,760 cycles on HBM2E):
  // the refresh comes 1/12 tREFI later into each chunk, so the chunks' phases against it repeat
  // every 12 chunks, and the whole state every 24 (the bank moves on each chunk, 4 banks a group;
  // the buses' windows start on multiples of 64 cycles, 8 x 6,760 = 845 x 64). Those whose
  // writes meet a refresh in the first 24 chunks meet it alike in each later round of 24: with
  // 200 chunks, at least one a round in the 7 whole rounds after the first must replay with its
  // refresh on HBM2E (14 do: two a round, the first round's two recorded). On every memory the
  // commands must be those issued burst by burst.
  for (const Case& c : memories()) {
    SCOPED_TRACE(c.name);
    const Picoseconds period = (c.memory.timings.tREFI * 13 / 12) * c.memory.tCK();
    const auto on = expectSameWithAndWithoutReplay(
        c.memory, Traffic::BatchedCopy, chunksFor(c.memory), 1250, false, false, 0, period);
    if (std::string(c.name) == "hbm2e") {
      EXPECT_GE(on.batches.replayedWithRefresh, 7u)
          << on.batches.replayed << " of " << on.batches.batches << " batches replayed, "
          << on.batches.recorded << " recorded";
    }
  }
}

}  // namespace
}  // namespace ascendsim::models
