"""Two processes (multiprocessing, fork) on one machine served by `ascendsim exec --shared`: each
copies 1 MiB of its own pattern to its own device and back through pinned memory and checks it;
the parent checks both ended well. Run: ascendsim exec --shared --config atlas-800t-a2 -- python3
multiprocess_copies.py"""
import multiprocessing as mp

import acl
import numpy as np

N = 1 << 20


def copy_on(rank):
    assert acl.init() == 0
    assert acl.rt.set_device(rank) == 0
    host_in, _ = acl.rt.malloc_host(N)
    host_out, _ = acl.rt.malloc_host(N)
    dev, ret = acl.rt.malloc(N, 0)
    assert ret == 0
    data = acl.util.ptr_to_numpy(host_in, (N,), 2)  # NPY_UINT8 view of pinned memory
    data[:] = (np.arange(N, dtype=np.uint64) * 7 + rank).astype(np.uint8)
    assert acl.rt.memcpy(dev, N, host_in, N, 1) == 0
    assert acl.rt.memcpy(host_out, N, dev, N, 2) == 0
    assert (acl.util.ptr_to_numpy(host_out, (N,), 2) == data).all()
    for p in (host_in, host_out):
        acl.rt.free_host(p)
    acl.rt.free(dev)
    acl.rt.reset_device(rank)
    assert acl.finalize() == 0


if __name__ == "__main__":
    mp.set_start_method("fork")
    workers = [mp.Process(target=copy_on, args=(rank,)) for rank in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    codes = [w.exitcode for w in workers]
    assert codes == [0, 0], codes
    print("2 processes on one machine, data checked")
