"""Wrong argument types raise TypeError; wrong values return the C API's codes; a pointer the
program never got from acl is refused, never dereferenced."""
import acl

acl.init()
acl.rt.set_device(0)
for call in (lambda: acl.rt.malloc("1 MiB", 0), lambda: acl.rt.set_device("0"), lambda: acl.util.ptr_to_bytes("x", 4)):
    try:
        call()
        raise SystemExit("no TypeError")
    except TypeError:
        pass
assert acl.rt.set_device(99) == 107001                          # ACL_ERROR_RT_INVALID_DEVICEID
_, ret = acl.rt.malloc(0, 0)
assert ret == 100000                                            # size 0
dev, ret = acl.rt.malloc(1024, 0)
assert acl.rt.memcpy(dev, 1024, 0xdeadbeef, 16, 1) == 100000    # made-up source pointer: refused
assert "not memory this program got from acl" in acl.get_recent_err_msg()
for bogus in (0xdeadbeef, dev):
    try:
        acl.util.ptr_to_bytes(bogus, 16)
        raise SystemExit("ptr_to_bytes read memory it must refuse")
    except ValueError:
        pass
assert acl.rt.free(dev) == 0
assert acl.rt.free(dev) == 207002                               # double free
acl.rt.reset_device(0)
assert acl.finalize() == 0
assert acl.finalize() == 100037                                 # ACL_ERROR_REPEAT_FINALIZE
print("type errors, error codes and refused pointers as expected")
