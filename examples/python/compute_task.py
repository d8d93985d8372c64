"""A modelled compute task from Python (AscendSim's extension acl.ascendsim.launch_compute_task):
a kernel that reads 64 MiB and writes 32 MiB of device memory takes device time on its stream,
ordered with the events around it, and moves no data."""
import acl

assert acl.init("") == 0
assert acl.rt.set_device(0) == 0
stream, ret = acl.rt.create_stream()
assert ret == 0
start, ret = acl.rt.create_event()
end, ret = acl.rt.create_event()
assert acl.rt.record_event(start, stream) == 0
assert acl.ascendsim.launch_compute_task("scale", 64 << 20, 32 << 20, 16 << 20, 4, stream) == 0
assert acl.rt.record_event(end, stream) == 0
assert acl.rt.synchronize_stream(stream) == 0
ms, ret = acl.rt.event_elapsed_time(start, end)
assert ret == 0
# 96 MiB through HBM at several hundred GB/s, plus the launch: well under a millisecond, over 0.1.
assert 0.1 < ms < 1.0, ms
assert acl.ascendsim.launch_compute_task("bad", 1, 1, 1, 0, stream) == acl.ACL_ERROR_INVALID_PARAM
print("compute task took %.3f ms of device time" % ms)
acl.rt.destroy_event(start)
acl.rt.destroy_event(end)
acl.rt.destroy_stream(stream)
acl.rt.reset_device(0)
acl.finalize()
