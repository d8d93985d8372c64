// Runs of pieces moved in one step (models/sched/solo_run.h, machine_run.h) must time everything
// exactly as
// piece by piece does: each case runs once with runs and once without (in a child process: SystemC
// elaborates one machine per process) and compares every task's start and end to the picosecond
// and every resource's bytes, pieces and busy time. Each case also checks that runs did happen
// (or, where they must not, that none did), so the comparison is not between two identical paths.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <sstream>
#include <string>

#include "scheduled_machine.h"
#include "spec/system_loader.h"

namespace ascendsim::models {
namespace {

MemoryPlace pinned(uint64_t at = 0) {
  return {MemoryPlace::Kind::HostPinned, -1, at};
}
MemoryPlace pageable() {
  return {MemoryPlace::Kind::HostPageable, -1, 0};
}
MemoryPlace dev(int d, uint64_t at = 0) {
  return {MemoryPlace::Kind::Device, d, at};
}

std::unique_ptr<Task> copyTask(MemoryPlace src, MemoryPlace dst, uint64_t bytes, Picoseconds at = 0,
                               int hostThread = 0) {
  auto t = std::make_unique<Task>();
  t->kind = TaskKind::Copy;
  t->src = src;
  t->dst = dst;
  t->bytes = bytes;
  t->submitTime = at;
  t->hostThread = hostThread;
  return t;
}

struct Outcome {
  std::string timeline;  // every task's start and end, every resource's counts, one per line
  uint64_t piecesInRuns = 0;
};

// Builds the case on `m` (tasks submitted, in order) and returns how many tasks it submitted.
using Scenario = std::function<size_t(Machine&)>;

Outcome simulate(const spec::SystemSpec& sys, const Scenario& scenario, bool runs) {
  Machine m(sys);
  m.system().setPieceRuns(runs);
  const size_t tasks = scenario(m);
  m.run();
  Outcome out;
  std::ostringstream s;
  for (size_t i = 0; i < tasks; ++i)
    s << "task " << i << ' ' << m.start(i) << ' ' << m.end(i) << '\n';
  for (const Resource& r : m.system().graph().resources()) {
    if (r.chunks) s << r.name << ' ' << r.bytes << ' ' << r.chunks << ' ' << r.busy << '\n';
  }
  out.timeline = s.str();
  out.piecesInRuns = m.system().piecesInRuns();
  return out;
}

// The same case piece by piece, in a child process.
Outcome simulateInChild(const spec::SystemSpec& sys, const Scenario& scenario, bool runs) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe");
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const Outcome o = simulate(sys, scenario, runs);
    const std::string text = std::to_string(o.piecesInRuns) + '\n' + o.timeline;
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) _exit(2);
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
    text.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("child failed");
  Outcome o;
  const size_t eol = text.find('\n');
  o.piecesInRuns = std::stoull(text.substr(0, eol));
  o.timeline = text.substr(eol + 1);
  return o;
}

// Runs the case both ways and checks they agree; returns the pieces moved in runs.
uint64_t sameEitherWay(const spec::SystemSpec& sys, const Scenario& scenario) {
  const Outcome pieceByPiece = simulateInChild(sys, scenario, false);
  EXPECT_EQ(pieceByPiece.piecesInRuns, 0u);
  const Outcome withRuns = simulate(sys, scenario, true);
  EXPECT_EQ(withRuns.timeline, pieceByPiece.timeline);
  return withRuns.piecesInRuns;
}

// atlas-800t-a2: a 256 MiB H2D copy alone moves in pieces of an eighth of the read window
// (3 KiB: 6 requests of 512 B) through seven resources. Once the pipeline is full every piece
// meets the same bookings as the one before, so all but the first few dozen pieces and the last
// go in runs: 256 MiB / 3 KiB = 87382 pieces.
TEST(SoloRun, AnH2dCopyAloneTakesTheSameTimeAndMostlyMovesInRuns) {
  const spec::SystemSpec sys = spec::loadSystemSpec("atlas-800t-a2");
  const uint64_t inRuns = sameEitherWay(sys, [](Machine& m) {
    m.add(0, copyTask(pinned(), dev(0), 256ull << 20));
    return size_t{1};
  });
  EXPECT_GT(inRuns, 87382u * 99 / 100);
}

TEST(SoloRun, D2hD2dAndPageableCopiesAloneTakeTheSameTime) {
  const spec::SystemSpec sys = spec::loadSystemSpec("atlas-800t-a2");
  const uint64_t inRuns = sameEitherWay(sys, [](Machine& m) {
    m.add(0, copyTask(dev(0), pinned(), 64ull << 20));
    m.add(1, copyTask(dev(1), dev(1, 1ull << 30), 256ull << 20));
    m.add(2, copyTask(pageable(), dev(2), 64ull << 20, 0, 1));
    return size_t{3};
  });
  EXPECT_GT(inRuns, 0u);
}

// A competitor arriving in the middle of a run stops it at its own instant: npu1 starts a copy
// through the same switch uplink 3 ms into npu0's 256 MiB copy (about 10 ms alone), and a copy
// from npu0's memory to the host 5 ms in; both ways must agree on every piece after that.
TEST(SoloRun, ACompetitorArrivingMidRunStopsItAtItsInstant) {
  const spec::SystemSpec sys = spec::loadSystemSpec("atlas-800t-a2");
  const uint64_t inRuns = sameEitherWay(sys, [](Machine& m) {
    m.add(0, copyTask(pinned(), dev(0), 256ull << 20));
    m.add(1, copyTask(pinned(1ull << 30), dev(1), 32ull << 20, 3'000'000'000));
    m.add(0, copyTask(dev(0, 1ull << 30), pinned(2ull << 30), 16ull << 20, 5'000'000'000));
    return size_t{3};
  });
  EXPECT_GT(inRuns, 0u);
}

// Two copies on two streams of one device share its link and memory from the start, and four
// devices behind one switch share its uplink: runs start and stop as the copies settle.
TEST(SoloRun, CopiesSharingTheirWayTakeTheSameTime) {
  const spec::SystemSpec sys = spec::loadSystemSpec("atlas-800t-a2");
  sameEitherWay(sys, [](Machine& m) {
    m.add(0, copyTask(pinned(), dev(0), 48ull << 20));
    m.add(0, copyTask(pinned(1ull << 30), dev(0, 1ull << 30), 16ull << 20));
    for (int d = 4; d < 8; ++d)
      m.add(d, copyTask(dev(d), pinned(static_cast<uint64_t>(d) << 30), 8ull << 20));
    return size_t{6};
  });
}

// Eight devices copying from the host share two switch uplinks and host memory: no copy is alone,
// but the machine as a whole settles (each device two pieces per 932 ns) and moves whole periods
// at once: 8 x 64 MiB / 3 KiB = 174763 pieces, nearly all of them in runs.
TEST(MachineRun, EightDevicesSharingUplinksTakeTheSameTimeAndMoveInRuns) {
  const spec::SystemSpec sys = spec::loadSystemSpec("atlas-800t-a2");
  const uint64_t inRuns = sameEitherWay(sys, [](Machine& m) {
    for (int d = 0; d < 8; ++d)
      m.add(d, copyTask(pinned(static_cast<uint64_t>(d) << 30), dev(d), 64ull << 20));
    return size_t{8};
  });
  EXPECT_GT(inRuns, 174763u * 95 / 100);
}

// Whatever arrives while the machine runs stops it at its instant: a copy inside npu2's memory
// 2 ms in, a kernel on npu5 3 ms in (its memory traffic meets npu5's copy), and copies from the
// devices to the host 4 ms in; every piece after each must agree.
TEST(MachineRun, ArrivalsStopTheMachinesRunAtTheirInstant) {
  const spec::SystemSpec sys = spec::loadSystemSpec("atlas-800t-a2");
  const uint64_t inRuns = sameEitherWay(sys, [](Machine& m) {
    for (int d = 0; d < 8; ++d)
      m.add(d, copyTask(pinned(static_cast<uint64_t>(d) << 30), dev(d), 64ull << 20));
    m.add(2, copyTask(dev(2, 1ull << 30), dev(2, 2ull << 30), 64ull << 20, 2'000'000'000));
    auto k = std::make_unique<Task>();
    k->kind = TaskKind::Kernel;
    k->dst = dev(5);
    k->kernel.name = "k";
    k->kernel.bytesRead = 16ull << 20;
    k->kernel.bytesWritten = 8ull << 20;
    k->kernel.ops = 4ull << 20;
    k->bytes = k->kernel.bytesRead + k->kernel.bytesWritten;
    k->submitTime = 3'000'000'000;
    m.add(5, std::move(k));
    for (int d = 0; d < 4; ++d)
      m.add(d, copyTask(dev(d, 3ull << 30), pinned(static_cast<uint64_t>(8 + d) << 30), 16ull << 20,
                        4'000'000'000));
    return size_t{14};
  });
  EXPECT_GT(inRuns, 0u);
}

// A memory timed burst by burst depends on where each burst goes: no run may form there.
TEST(SoloRun, NoRunsWithMemoryTimedBurstByBurst) {
  spec::SystemSpec sys = spec::loadSystemSpec("atlas-800t-a2");
  for (auto& d : sys.devices) d.memory.timing = "cycle";
  const uint64_t inRuns = sameEitherWay(sys, [](Machine& m) {
    m.add(0, copyTask(dev(0), dev(0, 1ull << 30), 8ull << 20));
    m.add(1, copyTask(pinned(), dev(1), 4ull << 20));
    m.add(2, copyTask(pinned(1ull << 30), dev(2), 4ull << 20));
    return size_t{3};
  });
  EXPECT_EQ(inRuns, 0u);
}

}  // namespace
}  // namespace ascendsim::models
