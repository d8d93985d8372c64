"""Asynchronous copies on a stream, synchronize_stream, and the simulated time between events."""
import acl
import numpy as np

acl.init()
acl.rt.set_device(0)
stream, _ = acl.rt.create_stream()
start, _ = acl.rt.create_event()
end, _ = acl.rt.create_event()
n = 64 << 20
host_in, _ = acl.rt.malloc_host(n)
host_out, _ = acl.rt.malloc_host(n)
dev, _ = acl.rt.malloc(n, 0)
data = acl.util.ptr_to_numpy(host_in, (n,), 2)  # NPY_UINT8 view of pinned memory
data[:] = np.arange(n, dtype=np.uint64).astype(np.uint8)
assert acl.rt.record_event(start, stream) == 0
assert acl.rt.memcpy_async(dev, n, host_in, n, 1, stream) == 0
assert acl.rt.memcpy_async(host_out, n, dev, n, 2, stream) == 0
assert acl.rt.record_event(end, stream) == 0
assert acl.rt.synchronize_stream(stream) == 0
ms, ret = acl.rt.event_elapsed_time(start, end)
assert ret == 0
out = acl.util.ptr_to_numpy(host_out, (n,), 2)
assert (out == data).all()
# 64 MiB up and down a Gen4 x16 link: about 2 x 2.55 ms of simulated time.
assert 5.0 < ms < 5.4, ms
print(f"64 MiB up and back in {ms:.3f} ms of simulated time; data checked")
for p in (host_in, host_out):
    acl.rt.free_host(p)
acl.rt.free(dev)
acl.rt.destroy_event(start)
acl.rt.destroy_event(end)
acl.rt.destroy_stream(stream)
acl.rt.reset_device(0)
acl.finalize()
