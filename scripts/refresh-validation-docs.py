#!/usr/bin/env python3
"""Rewrites the generated validation table of docs/validation.md with what
`ascendsim validate --format markdown` prints now (cli.validate.docs_generated fails until this
is run after a model's figure, a case or a reference changes). The table is written even when a
case fails (the command then exits 1): the failure is said here and in the table.

Usage: scripts/refresh-validation-docs.py ASCENDSIM [DOCS]"""
import subprocess
import sys

binary = sys.argv[1]
docs = sys.argv[2] if len(sys.argv) > 2 else "docs/validation.md"
marker = "<!-- generated: ascendsim validate --format markdown"
run = subprocess.run([binary, "validate", "--format", "markdown"], capture_output=True, text=True)
if run.returncode not in (0, 1) or not run.stdout:
    sys.exit("ascendsim validate failed (exit %d):\n%s" % (run.returncode, run.stderr))
if run.returncode == 1:
    print("warning: a case is outside its tolerance:\n" + run.stderr, file=sys.stderr)
out, inside, found = [], False, 0
for line in open(docs).read().split("\n"):
    if not inside:
        out.append(line)
        if line.startswith(marker):
            inside, found = True, found + 1
            out.extend(run.stdout.rstrip("\n").split("\n"))
    elif line.startswith("<!-- end of generated table"):
        out.append(line)
        inside = False
if found != 1 or inside:
    sys.exit("%s: expected one block between '%s -->' and '<!-- end of generated table -->'"
             % (docs, marker))
open(docs, "w").write("\n".join(out))
