#pragma once
// What the kernel says another thread of this process is doing: how much CPU time it has used and
// whether it is runnable. Host threads are ordered by simulated time, so a thread that is behind
// holds the others back; these readings tell a thread that is about to call (runnable, or using
// CPU) from one that sleeps outside AscendCL (in join(), on a mutex, in sleep()) and will not call
// until something else happens.

#include <pthread.h>
#include <sys/types.h>

#include <cstdint>

namespace ascendsim::runtime {

// The calling thread's kernel id.
pid_t currentTid();

// CPU time `thread` has used, in ns; -1 if it cannot be read.
int64_t threadCpuNs(pthread_t thread);

// The calling thread's CPU time, in ns.
int64_t ownCpuNs();

// Whether thread `tid` of this process sleeps in an interruptible wait ('S' in /proc: a futex,
// join(), a condition variable, sleep(), a read) or is stopped. Running, runnable and short
// uninterruptible waits (page faults, the address-space lock: 'D') are not sleeping. A thread
// that has exited reads as sleeping.
bool threadSleeps(pid_t tid);

// The same, for thread `tid` of another process `pid` (a program sharing a served machine): its
// CPU time from /proc/PID/task/TID/schedstat, -1 if it is gone.
int64_t threadCpuNs(pid_t pid, pid_t tid);
bool threadSleeps(pid_t pid, pid_t tid);

// How many threads want each CPU: the load average over the machine's cores, at least 1, read at
// most every 100 ms. A busy thread gets about 1/cpuLoad() of a CPU.
double cpuLoad();

// How much longer than on an idle machine a runnable thread may wait for a CPU, and so a lock for
// its holder to release it: cpuLoad(), three times that under a sanitizer, whose runtime slows
// every lock and allocation. Wall-clock judgements of other threads ("asleep for 30 ms") are
// stretched by it, so a thread held up on a loaded machine is not taken for one asleep outside
// AscendCL.
double cpuStarvation();

}  // namespace ascendsim::runtime
