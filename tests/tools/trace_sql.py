"""The SQLite trace answers a user's questions in SQL, through the sqlite3 command-line shell
(Debian package sqlite3), with the queries docs/traces.md shows:
  bytes per link: the pipeline workload (traces/workloads/pipeline.yaml) copies four 64 MiB blocks
    up and four down: 4 x 67108864 = 268435456 bytes each way, and nothing else;
  time per stream: each stream's copy tasks, and the GB/s they make. Each stream moves its
    268435456 bytes over npu0's PCIe Gen4 x16 link, at most its line rate, 16 GT/s x 16 lanes x
    128/130 / 8 = 31.51 GB/s, and, with 24 B of TLP header and framing per 256 B of payload
    (PCI Express Base Specification: MPS 256), at most 31.51 x 256/280 = 28.8 GB/s. The
    test accepts 20 to 28.8 GB/s (setup and latency make the copies a little slower than that).
Usage: trace_sql.py TRACE.sqlite"""
import shutil
import subprocess
import sys

BYTES_PER_LINK = """
SELECT s.name, SUM(a.int_value) FROM slice s JOIN arg a ON a.slice_id = s.id AND a.key = 'bytes'
WHERE s.category = 'transfer' GROUP BY s.name ORDER BY s.name;"""

TIME_PER_STREAM = """
SELECT t.name, SUM(s.duration_ps), SUM(a.int_value)
FROM slice s JOIN track t ON t.pid = s.pid AND t.tid = s.tid
JOIN arg a ON a.slice_id = s.id AND a.key = 'bytes'
WHERE s.category = 'task' GROUP BY t.name ORDER BY t.name;"""


def query(db, sql):
    out = subprocess.run(["sqlite3", "-separator", "|", db, sql], capture_output=True, text=True)
    if out.returncode != 0 or out.stderr:
        sys.exit("sqlite3 failed: %s" % out.stderr)
    return [line.split("|") for line in out.stdout.splitlines()]


def main():
    if not shutil.which("sqlite3"):
        print("the sqlite3 shell is not installed (Debian package sqlite3): skipped")
        sys.exit(77)
    db = sys.argv[1]
    links = query(db, BYTES_PER_LINK)
    print("bytes per link:", links)
    expected = [["host (pinned) -> npu0", "268435456"], ["npu0 -> host (pinned)", "268435456"]]
    if links != expected:
        sys.exit("bytes per link: expected %s" % expected)
    streams = query(db, TIME_PER_STREAM)
    print("time per stream:", streams)
    if len(streams) != 2:
        sys.exit("expected the copies of two streams")
    line_rate = 16e9 * 16 * 128 / 130 / 8
    ceiling = line_rate * 256 / 280
    for name, ps, nbytes in streams:
        if int(nbytes) != 268435456:
            sys.exit("%s: %s bytes of copies, expected 268435456" % (name, nbytes))
        rate = int(nbytes) / (int(ps) * 1e-12)
        print("%s: %.3f ms of copies, %.2f GB/s" % (name, int(ps) / 1e9, rate / 1e9))
        if not 20e9 <= rate <= ceiling:
            sys.exit("%s: %.2f GB/s is outside 20 to %.2f GB/s" % (name, rate / 1e9, ceiling / 1e9))
    print("the SQLite trace answers both queries")


main()
