"""acl.rt.reduce_async: the DMA engine adds (or takes the max / min of) a source into a destination
as it copies; fp32 and fp16 results checked bit for bit against numpy."""
import acl
import numpy as np

ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE = 0, 1, 11
NPY_FLOAT32, NPY_FLOAT16 = 11, 23

acl.init()
acl.rt.set_device(0)
stream, _ = acl.rt.create_stream()
n = 1024
a = np.linspace(-3.0, 5.0, n, dtype=np.float32)
b = np.linspace(7.0, -1.0, n, dtype=np.float32)


def device_with(values):
    host, _ = acl.rt.malloc_host(values.nbytes)
    acl.util.ptr_to_numpy(host, values.shape, NPY_FLOAT32 if values.dtype == np.float32
                          else NPY_FLOAT16)[:] = values
    dev, _ = acl.rt.malloc(values.nbytes, 0)
    assert acl.rt.memcpy(dev, values.nbytes, host, values.nbytes, 1) == 0
    acl.rt.free_host(host)
    return dev


def read(dev, like):
    host, _ = acl.rt.malloc_host(like.nbytes)
    assert acl.rt.memcpy(host, like.nbytes, dev, like.nbytes, 2) == 0
    out = acl.util.ptr_to_numpy(host, like.shape, NPY_FLOAT32 if like.dtype == np.float32
                                else NPY_FLOAT16).copy()
    acl.rt.free_host(host)
    return out


for kind, expected in ((acl.ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, a + b),
                       (acl.ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, np.maximum(a, b)),
                       (acl.ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN, np.minimum(a, b))):
    dst, src = device_with(a), device_with(b)
    assert acl.rt.reduce_async(dst, src, a.nbytes, kind, ACL_FLOAT, stream, 0) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    got = read(dst, a)
    assert got.tobytes() == expected.astype(np.float32).tobytes(), (kind, got[:4], expected[:4])
    acl.rt.free(dst)
    acl.rt.free(src)

# float16: numpy adds in float16 with one rounding to nearest even, as the engine does.
h1, h2 = a.astype(np.float16), (b * 100).astype(np.float16)
dst, src = device_with(h1), device_with(h2)
assert acl.rt.reduce_async(dst, src, h1.nbytes, acl.ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT16,
                           stream, 0) == 0
assert acl.rt.synchronize_stream(stream) == 0
assert read(dst, h1).tobytes() == (h1 + h2).tobytes()
# A type the ACL layer does not pass on: ACL_ERROR_INVALID_PARAM, as in C.
assert acl.rt.reduce_async(dst, src, h1.nbytes, acl.ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_DOUBLE,
                           stream, 0) == acl.ACL_ERROR_INVALID_PARAM
acl.rt.free(dst)
acl.rt.free(src)
print("reduce_async: sum, max, min of fp32 and sum of fp16 exact")
acl.rt.destroy_stream(stream)
acl.rt.reset_device(0)
acl.finalize()
