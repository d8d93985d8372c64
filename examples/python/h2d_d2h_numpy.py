"""Host to device and back with numpy arrays, checked element by element, for several dtypes."""
import acl
import numpy as np

NPY = {np.float32: 11, np.float16: 23, np.int32: 5, np.int64: 7, np.uint8: 2}
acl.init()
acl.rt.set_device(0)
for dtype, code in NPY.items():
    src = (np.arange(100000) % 251).astype(dtype)
    n = src.nbytes
    dev, ret = acl.rt.malloc(n, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0
    host, ret = acl.rt.malloc_host(n)
    assert ret == 0
    assert acl.rt.memcpy(dev, n, acl.util.numpy_to_ptr(src), n, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    assert acl.rt.memcpy(host, n, dev, n, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    back = acl.util.ptr_to_numpy(host, src.shape, code)
    assert back.dtype == src.dtype and (back == src).all(), dtype
    raw = acl.util.ptr_to_bytes(host, 16)
    assert raw == src.tobytes()[:16]
    acl.rt.free(dev)
    acl.rt.free_host(host)
acl.rt.reset_device(0)
acl.finalize()
print(f"{len(NPY)} dtypes copied to the device and back, every element checked")
