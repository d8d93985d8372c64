"""Python memory misused through acl (issue #34): none of it may crash the interpreter or corrupt
its objects.

- A numpy view from acl.util.ptr_to_numpy read after acl.rt.free_host used to read freed memory
  (and segfault once it was unmapped): the view keeps the pinned memory alive, as a numpy view of
  any memory does; free_host returns 0 and the block goes when the last view does. A second
  free_host of it is 207002 (ACL_ERROR_RT_MEMORY_FREE), and calls given it are refused.
- npy_type=17 (NPY_OBJECT) made numpy take the bytes for object pointers (segfault on reading):
  object, string, unicode, void and datetime types raise ValueError; numeric types are accepted.
- acl.util.bytes_to_ptr(b'\\x01') is the memory of an immutable bytes object (CPython shares the
  one-byte ones): a memcpy or memset into it used to change b'\\x01' for the whole interpreter. It
  is refused with 100000; as a source it is fine."""
import acl
import numpy as np

assert acl.init() == 0
assert acl.rt.set_device(0) == 0

# A view outlives free_host.
host, ret = acl.rt.malloc_host(4096)
assert ret == 0
view = acl.util.ptr_to_numpy(host, (1024,), 11)  # NPY_FLOAT
view[:] = 2.5
assert acl.rt.free_host(host) == 0
assert float(view.sum()) == 2.5 * 1024, view.sum()   # still the memory it was: not freed yet
assert acl.rt.free_host(host) == 207002              # freed already (from the program's view)
assert "freed" in acl.get_recent_err_msg()
dev, ret = acl.rt.malloc(4096, 0)
assert ret == 0
assert acl.rt.memcpy(dev, 4096, host, 4096, 1) == 100000  # no longer the program's memory
del view                                              # the block goes now
for _ in range(2000):                                 # many blocks later, nothing reads it
    p, ret = acl.rt.malloc_host(4096)
    assert ret == 0
    assert acl.rt.free_host(p) == 0

# Only numeric element types.
host, ret = acl.rt.malloc_host(4096)
for bad in (17, 18, 19, 20, 21, 22):
    try:
        acl.util.ptr_to_numpy(host, (8,), bad)
        raise SystemExit("npy_type %d was accepted" % bad)
    except ValueError as e:
        assert "npy_type" in str(e), e
for good, dtype in ((0, np.bool_), (1, np.int8), (7, np.int64), (11, np.float32), (12, np.float64), (23, np.float16)):
    assert acl.util.ptr_to_numpy(host, (8,), good).dtype == dtype

# bytes are immutable: never written.
one = b'\x01'
p = acl.util.bytes_to_ptr(one)
src, _ = acl.rt.malloc_host(16)
assert acl.rt.memcpy(p, 1, src, 1, 0) == 100000       # host to host into the bytes
assert "immutable" in acl.get_recent_err_msg()
assert acl.rt.memcpy(p, 1, dev, 1, 2) == 100000       # device to host into the bytes
assert acl.rt.memset(p, 1, 0, 1) == 100000
assert acl.rt.memcpy_async(p, 1, dev, 1, 2, 0) == 100000
assert one == b'\x01' and bytes([1]) == b'\x01'        # the shared object is intact
assert acl.rt.memcpy(dev, 1, p, 1, 1) == 0            # as a source: fine

assert acl.rt.free_host(src) == 0
assert acl.rt.free_host(host) == 0
assert acl.rt.free(dev) == 0
assert acl.rt.reset_device(0) == 0
assert acl.finalize() == 0
print("freed views, object dtypes and immutable bytes answered without a crash")
