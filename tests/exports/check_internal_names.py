#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_internal_names.py LIB NAMES [lto [hooks]]: every name of NAMES
(internal_names.txt, which test_interpose defines) is still one librig
defines: a function or object in LIB's symbol table, local or global
(`nm --defined-only`). A name that became a static inline or went away can
no longer be interposed, and its entry would only look like coverage
(stamps_clear, static inline in src/submit/stamp.h since the list was
taken). Skipped (77) for an LTO build, whose link may drop a function it
inlined everywhere, and where LIB has no symbol table (stripped). A build
without RIG_TEST_HOOKS (hooks false: a release build) defines none of the
tests' windows, HOOK_NAMES."""
import subprocess
import sys

HOOK_NAMES = {"claim_trace", "submit_trace"}


def main():
    lib, names_path = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3 and sys.argv[3] == "true":
        print("skipped: an LTO build's symbol table may lack inlined functions")
        return 77
    out = subprocess.run(["nm", "--defined-only", lib], capture_output=True,
                         text=True).stdout
    defined = {line.split()[2] for line in out.splitlines() if len(line.split()) >= 3}
    if not defined:
        print("skipped: %s has no symbol table" % lib)
        return 77
    names = []
    for line in open(names_path):
        line = line.strip()
        if line and not line.startswith("#"):
            names.append(line.split()[-1])
    if len(sys.argv) > 4 and sys.argv[4] == "false":
        names = [n for n in names if n not in HOOK_NAMES]
    stale = [n for n in names if n not in defined]
    for n in stale:
        print("stale: librig defines no %s" % n)
    if stale:
        print("FAIL: %d of %d names are stale" % (len(stale), len(names)))
        return 1
    print("ok: librig defines each of the %d names" % len(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
