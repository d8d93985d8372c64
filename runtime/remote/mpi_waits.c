/* libascendsim_mpi_waits.so: put in front of MPI (LD_PRELOAD) by `ascendsim exec --shared` for the
 * job it serves. The MPI calls that wait for other processes (collectives, blocking point to
 * point, waits, init and finalize) tell the program's libascendcl when the calling thread starts
 * and stops waiting, so the served machine does not wait for that thread's next AscendCL call
 * meanwhile (it cannot come before the others have done what it waits for) and orders the
 * processes' calls the same way on every run (docs/multiprocess.md).
 *
 * It needs neither MPI's headers nor its libraries: each function takes its arguments as
 * register-sized words and passes them unchanged to the next definition of the same name
 * (RTLD_NEXT), which works whatever integer or pointer types an MPI library gives its handles
 * (x86-64 and AArch64 pass both the same way). In a process without libascendcl, or one not on a
 * served machine, the calls only pass through. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

typedef uintptr_t W;
typedef void (*Mark)(int);

static void mark(int waiting) {
  static Mark hook = NULL;
  static int looked = 0;
  if (!looked) {
    hook = (Mark)dlsym(RTLD_DEFAULT, "ascendsimWaitingOutside");
    looked = 1;
  }
  if (hook) hook(waiting);
}

static void* next(const char* name) {
  return dlsym(RTLD_NEXT, name);
}

#define REAL(name, type)               \
  static type real = NULL;             \
  if (!real) real = (type)next(#name); \
  if (!real) return 16; /* MPI_ERR_OTHER */

#define WAITS0(name)        \
  int name(void) {          \
    typedef int (*F)(void); \
    REAL(name, F)           \
    mark(1);                \
    const int r = real();   \
    mark(0);                \
    return r;               \
  }
#define WAITS1(name)       \
  int name(W a) {          \
    typedef int (*F)(W);   \
    REAL(name, F)          \
    mark(1);               \
    const int r = real(a); \
    mark(0);               \
    return r;              \
  }
#define WAITS2(name)          \
  int name(W a, W b) {        \
    typedef int (*F)(W, W);   \
    REAL(name, F)             \
    mark(1);                  \
    const int r = real(a, b); \
    mark(0);                  \
    return r;                 \
  }
#define WAITS3(name)             \
  int name(W a, W b, W c) {      \
    typedef int (*F)(W, W, W);   \
    REAL(name, F)                \
    mark(1);                     \
    const int r = real(a, b, c); \
    mark(0);                     \
    return r;                    \
  }
#define WAITS4(name)                \
  int name(W a, W b, W c, W d) {    \
    typedef int (*F)(W, W, W, W);   \
    REAL(name, F)                   \
    mark(1);                        \
    const int r = real(a, b, c, d); \
    mark(0);                        \
    return r;                       \
  }
#define WAITS5(name)                   \
  int name(W a, W b, W c, W d, W e) {  \
    typedef int (*F)(W, W, W, W, W);   \
    REAL(name, F)                      \
    mark(1);                           \
    const int r = real(a, b, c, d, e); \
    mark(0);                           \
    return r;                          \
  }
#define WAITS6(name)                       \
  int name(W a, W b, W c, W d, W e, W f) { \
    typedef int (*F)(W, W, W, W, W, W);    \
    REAL(name, F)                          \
    mark(1);                               \
    const int r = real(a, b, c, d, e, f);  \
    mark(0);                               \
    return r;                              \
  }
#define WAITS7(name)                            \
  int name(W a, W b, W c, W d, W e, W f, W g) { \
    typedef int (*F)(W, W, W, W, W, W, W);      \
    REAL(name, F)                               \
    mark(1);                                    \
    const int r = real(a, b, c, d, e, f, g);    \
    mark(0);                                    \
    return r;                                   \
  }
#define WAITS8(name)                                 \
  int name(W a, W b, W c, W d, W e, W f, W g, W h) { \
    typedef int (*F)(W, W, W, W, W, W, W, W);        \
    REAL(name, F)                                    \
    mark(1);                                         \
    const int r = real(a, b, c, d, e, f, g, h);      \
    mark(0);                                         \
    return r;                                        \
  }
#define WAITS9(name)                                      \
  int name(W a, W b, W c, W d, W e, W f, W g, W h, W i) { \
    typedef int (*F)(W, W, W, W, W, W, W, W, W);          \
    REAL(name, F)                                         \
    mark(1);                                              \
    const int r = real(a, b, c, d, e, f, g, h, i);        \
    mark(0);                                              \
    return r;                                             \
  }
#define WAITS12(name)                                                    \
  int name(W a, W b, W c, W d, W e, W f, W g, W h, W i, W j, W k, W l) { \
    typedef int (*F)(W, W, W, W, W, W, W, W, W, W, W, W);                \
    REAL(name, F)                                                        \
    mark(1);                                                             \
    const int r = real(a, b, c, d, e, f, g, h, i, j, k, l);              \
    mark(0);                                                             \
    return r;                                                            \
  }

/* (argument counts from the MPI standard's C bindings) */
WAITS2(MPI_Init)        /* argc, argv */
WAITS4(MPI_Init_thread) /* argc, argv, required, provided */
WAITS0(MPI_Finalize)
WAITS1(MPI_Barrier)    /* comm */
WAITS5(MPI_Bcast)      /* buf, count, type, root, comm */
WAITS7(MPI_Reduce)     /* send, recv, count, type, op, root, comm */
WAITS6(MPI_Allreduce)  /* send, recv, count, type, op, comm */
WAITS8(MPI_Gather)     /* send, count, type, recv, count, type, root, comm */
WAITS9(MPI_Gatherv)    /* send, count, type, recv, counts, displs, type, root, comm */
WAITS7(MPI_Allgather)  /* send, count, type, recv, count, type, comm */
WAITS8(MPI_Allgatherv) /* send, count, type, recv, counts, displs, type, comm */
WAITS8(MPI_Scatter)    /* send, count, type, recv, count, type, root, comm */
WAITS9(MPI_Scatterv)   /* send, counts, displs, type, recv, count, type, root, comm */
WAITS7(MPI_Alltoall)   /* send, count, type, recv, count, type, comm */
WAITS9(MPI_Alltoallv)  /* send, counts, displs, type, recv, counts, displs, type, comm */
WAITS6(MPI_Send)       /* buf, count, type, dest, tag, comm */
WAITS6(MPI_Ssend)      /* buf, count, type, dest, tag, comm */
WAITS7(MPI_Recv)       /* buf, count, type, source, tag, comm, status */
WAITS12(MPI_Sendrecv)  /* 5 send, 5 receive, comm, status */
WAITS4(MPI_Probe)      /* source, tag, comm, status */
WAITS2(MPI_Wait)       /* request, status */
WAITS3(MPI_Waitall)    /* count, requests, statuses */
WAITS4(MPI_Waitany)    /* count, requests, index, status */
