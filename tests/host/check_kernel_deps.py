#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_kernel_deps.py NINJA BUILD: every program compiled with
-DHOST_KERNELS (it reads tests/host's kernels at run time) has each kernel
among the inputs of its build edge (link_depends), so `ninja PROGRAM`
builds them too; a test's depends builds them only for `meson test`, and
a program built alone then exited "cannot read .../groups.o"."""
import json
import os
import subprocess
import sys

ninja, build = sys.argv[1], sys.argv[2]
with open(os.path.join(build, "meson-info", "intro-targets.json")) as f:
    targets = json.load(f)


def rel(path):
    return os.path.relpath(path, build)


kernels = set()
programs = []
for t in targets:
    if t["type"] == "custom" and t["name"].startswith("kernel_"):
        kernels.update(rel(p) for p in t["filename"])
    elif t["type"] == "executable" and any(
            a.startswith("-DHOST_KERNELS=")
            for s in t.get("target_sources", []) for a in s.get("parameters", [])):
        programs.append(rel(t["filename"][0]))
if not kernels or not programs:
    print("FAIL: found %d kernels and %d programs that read them" %
          (len(kernels), len(programs)))
    sys.exit(1)
bad = 0
for prog in sorted(programs):
    out = subprocess.run([ninja, "-C", build, "-t", "query", prog],
                         capture_output=True, text=True, check=True).stdout
    inputs = {line.strip().lstrip("|").strip() for line in out.splitlines()}
    missing = sorted(kernels - inputs)
    if missing:
        bad += 1
        print("FAIL: %s does not depend on %d kernels: %s%s" %
              (prog, len(missing), ", ".join(missing[:3]),
               ", ..." if len(missing) > 3 else ""))
print("%d programs, %d kernels: %s" % (len(programs), len(kernels),
                                        "ok" if not bad else "%d fail" % bad))
sys.exit(1 if bad else 0)
