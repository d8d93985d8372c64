#!/usr/bin/env python3
"""Rewrites every generated table of docs/configuration.md with what
`ascendsim config fields --section S --markdown` prints now (cli.config_fields.docs_generated
fails until this is run after a setting changes).

Usage: scripts/refresh-config-docs.py ASCENDSIM [DOCS]"""
import re
import subprocess
import sys

binary = sys.argv[1]
docs = sys.argv[2] if len(sys.argv) > 2 else "docs/configuration.md"
marker = re.compile(r"^<!-- generated: ascendsim config fields --section (\S+) --markdown")
out, section = [], None
for line in open(docs).read().split("\n"):
    if section is None:
        out.append(line)
        m = marker.match(line)
        if m:
            section = m.group(1)
            table = subprocess.run([binary, "config", "fields", "--section", section, "--markdown"],
                                   capture_output=True, text=True, check=True).stdout
            out.extend(table.rstrip("\n").split("\n"))
    elif line.startswith("<!-- end of generated table"):
        out.append(line)
        section = None
open(docs, "w").write("\n".join(out))
