// The host CPU's staging cores: which core copies a host thread's pageable pieces, and at what
// rate. The expectations are the rule written in host.cpu_copy_engines' documentation: one core
// per thread, or threads folded onto `cpu_copy_engines` cores in turn, in the order they first
// stage.
#include <gtest/gtest.h>

#include "models/host/host_cpu.h"

namespace ascendsim::models {
namespace {

TEST(HostCpu, EachThreadHasACoreOfItsOwnByDefault) {
  ResourceTable table;
  spec::HostSpec host;
  host.cpuCopyBandwidth = 10e9;
  host.cpuCopyEngines = 0;
  HostCpu cpu(host, table);
  EXPECT_EQ(table.size(), 1u);  // thread 0's core is there from the start
  EXPECT_EQ(cpu.stagingEngine(0).name, "host.cpu-copy");
  EXPECT_EQ(cpu.stagingEngine(3).name, "host.cpu-copy.1");  // the second thread to stage
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(cpu.stagingEngine(1).name, "host.cpu-copy.2");
  EXPECT_EQ(&cpu.stagingEngine(3), &cpu.stagingEngine(3));   // a thread keeps its core
  EXPECT_EQ(&cpu.stagingEngine(-1), &cpu.stagingEngine(0));  // an unknown thread: the main one's
  // A served job's thread numbers are sparse (rank << 12 | thread): one core each, no more.
  EXPECT_EQ(cpu.stagingEngine((70000 << 12) | 1).name, "host.cpu-copy.3");
  EXPECT_EQ(table.size(), 4u);
  EXPECT_DOUBLE_EQ(cpu.copyRate(), 10e9);
}

TEST(HostCpu, ThreadsShareTheCoresTheHostIsGiven) {
  ResourceTable table;
  spec::HostSpec host;
  host.cpuCopyBandwidth = 12e9;
  host.cpuCopyEngines = 2;
  HostCpu cpu(host, table);
  // Threads in the order they first stage: 0, 1, 4, 5 -> cores 0, 1, 0, 1; never a third core.
  Resource& first = cpu.stagingEngine(0);
  Resource& second = cpu.stagingEngine(1);
  EXPECT_NE(&first, &second);
  EXPECT_EQ(&cpu.stagingEngine(4), &first);
  EXPECT_EQ(&cpu.stagingEngine(5), &second);
  EXPECT_EQ(table.size(), 2u);
  EXPECT_DOUBLE_EQ(cpu.copyRate(), 12e9);
}

}  // namespace
}  // namespace ascendsim::models
