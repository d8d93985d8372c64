"""pyACL memory calls: acl.rt.get_mem_info, acl.rt.memset_async, acl.media.dvpp_malloc/dvpp_free.

On the default machine (one 910B4-class NPU with 32 GiB of HBM): get_mem_info(ACL_HBM_MEM) gives
32 GiB in total; a DVPP buffer of 1000 bytes starts on a 128-byte boundary and takes
ALIGN_UP(1000, 32) + 32 = 1056 bytes of it (pyACL's documented rule), given back by dvpp_free;
memset_async fills it on a stream, read back after synchronize_stream.
"""
import acl
import numpy as np

assert acl.init() == 0
assert acl.rt.set_device(0) == 0
stream, ret = acl.rt.create_stream()
assert ret == 0

free0, total, ret = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
assert ret == 0 and total == 32 << 30, (total, ret)
assert 0 < free0 <= total

n = 1000
dev, ret = acl.media.dvpp_malloc(n)
assert ret == 0 and dev % 128 == 0, (hex(dev), ret)
free1, _, ret = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
assert ret == 0 and free0 - free1 == 1056, free0 - free1

assert acl.rt.memset_async(dev, n, 0x5A, n, stream) == 0
assert acl.rt.synchronize_stream(stream) == 0
host, _ = acl.rt.malloc_host(n)
assert acl.rt.memcpy(host, n, dev, n, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
back = acl.util.ptr_to_numpy(host, (n,), 2)  # NPY_UINT8
assert (back == 0x5A).all()

# A pointer the program never got from acl is refused, not written.
assert acl.rt.memset_async(dev + (1 << 40), n, 0, n, stream) == acl.ACL_ERROR_INVALID_PARAM
assert acl.media.dvpp_malloc(0)[1] == acl.ACL_ERROR_INVALID_PARAM
# DVPP memory is given back with dvpp_free, not rt.free (ACL_ERROR_RT_MEMORY_FREE, 207002).
assert acl.rt.free(dev) == 207002
assert acl.media.dvpp_free(dev) == 0
free2, _, _ = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
assert free2 == free0, (free0, free2)

acl.rt.free_host(host)
acl.rt.destroy_stream(stream)
acl.rt.reset_device(0)
acl.finalize()
print("get_mem_info, memset_async, dvpp_malloc and dvpp_free checked")
