"""Resource allocation and release, as the pyACL documentation shows it:
init, set_device, create_context, create_stream, destroy_stream, destroy_context, reset_device,
finalize. Every call returns 0 (ACL_SUCCESS)."""
import acl

DEVICE = 0


def check(ret, what):
    if ret != 0:
        raise SystemExit(f"{what} failed: {ret} {acl.get_recent_err_msg()}")


check(acl.init(), "acl.init")
check(acl.rt.set_device(DEVICE), "acl.rt.set_device")
context, ret = acl.rt.create_context(DEVICE)
check(ret, "acl.rt.create_context")
stream, ret = acl.rt.create_stream()
check(ret, "acl.rt.create_stream")
count, ret = acl.rt.get_device_count()
check(ret, "acl.rt.get_device_count")
check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
check(acl.rt.reset_device(DEVICE), "acl.rt.reset_device")
check(acl.finalize(), "acl.finalize")
print(f"resources allocated and released on device {DEVICE} of {count}")
