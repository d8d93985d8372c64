"""Allocation by run mode (pyACL documentation): in ACL_HOST (EP) mode input data is prepared in
host memory from malloc_host and copied to the device; in ACL_DEVICE (RC) mode the program runs on
the device and allocates device memory directly. Run on an EP machine and an RC one."""
import acl
import numpy as np

ACL_DEVICE, ACL_HOST = 0, 1
acl.init()
acl.rt.set_device(0)
run_mode, ret = acl.rt.get_run_mode()
assert ret == 0
data = np.arange(4096, dtype=np.int32)
size = data.nbytes
dev, ret = acl.rt.malloc(size, 0)
assert ret == 0
if run_mode == ACL_HOST:
    host, ret = acl.rt.malloc_host(size)
    assert ret == 0
    np.copyto(acl.util.ptr_to_numpy(host, (4096,), 5), data)  # 5: NPY_INT32
    assert acl.rt.memcpy(dev, size, host, size, 1) == 0          # 1: ACL_MEMCPY_HOST_TO_DEVICE
    back, ret = acl.rt.malloc_host(size)
    assert acl.rt.memcpy(back, size, dev, size, 2) == 0          # 2: ACL_MEMCPY_DEVICE_TO_HOST
    result = acl.util.ptr_to_numpy(back, (4096,), 5)
    assert (result == data).all()
    acl.rt.free_host(host)
    acl.rt.free_host(back)
    print("run mode ACL_HOST: host memory from malloc_host, copied to the device and back: data checked")
else:
    src = acl.util.numpy_to_ptr(data)
    assert acl.rt.memcpy(dev, size, src, size, 3) == 0           # 3: ACL_MEMCPY_DEVICE_TO_DEVICE
    out = np.zeros_like(data)
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(out), size, dev, size, 3) == 0
    assert (out == data).all()
    print("run mode ACL_DEVICE: device memory used directly: data checked")
acl.rt.free(dev)
acl.rt.reset_device(0)
acl.finalize()
