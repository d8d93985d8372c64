// The host CPU's staging cores: which core copies a host thread's pageable pieces, and at what
// rate. The expectations are the rule written in host.cpu_copy_engines' documentation: one core
// per thread, or threads folded onto `cpu_copy_engines` cores in turn.
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
  EXPECT_EQ(cpu.stagingEngine(3).name, "host.cpu-copy.3");
  EXPECT_EQ(table.size(), 4u);  // cores 1 and 2 appear on the way to 3, in order
  EXPECT_NE(&cpu.stagingEngine(1), &cpu.stagingEngine(2));
  EXPECT_EQ(&cpu.stagingEngine(-1), &cpu.stagingEngine(0));  // an unknown thread: the main one's
  EXPECT_DOUBLE_EQ(cpu.copyRate(), 10e9);
}

TEST(HostCpu, ThreadsShareTheCoresTheHostIsGiven) {
  ResourceTable table;
  spec::HostSpec host;
  host.cpuCopyBandwidth = 12e9;
  host.cpuCopyEngines = 2;
  HostCpu cpu(host, table);
  // Threads 0, 2, 4 on core 0; 1, 3, 5 on core 1; never a third core.
  EXPECT_EQ(&cpu.stagingEngine(4), &cpu.stagingEngine(0));
  EXPECT_EQ(&cpu.stagingEngine(5), &cpu.stagingEngine(1));
  EXPECT_NE(&cpu.stagingEngine(0), &cpu.stagingEngine(1));
  EXPECT_EQ(table.size(), 2u);
  EXPECT_DOUBLE_EQ(cpu.copyRate(), 12e9);
}

}  // namespace
}  // namespace ascendsim::models
