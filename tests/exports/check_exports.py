#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_exports.py LIB MAP CC HEADER...: librig exports exactly what the
public headers declare.

Reads the names the headers declare (their functions and extern objects,
found by preprocessing each header with CC and keeping the lines that come
from the header itself; static inline functions are not exported), the
global names of the version script MAP, and `nm -D --defined-only LIB`.
Fails, naming each offender, where LIB exports a name without a public
prefix (rig_), a name no header declares, or where a declared name is
missing from MAP or from LIB's exports (a program that calls it would not
link). Prints the count of exported names on success."""
import os
import re
import subprocess
import sys

PREFIXES = ("rig_",)


def declared(cc, header, incdir):
    """Names header declares: non-static functions and extern objects."""
    out = subprocess.run([cc, "-E", "-x", "c", "-std=c11", "-I", incdir, header],
                         check=True, capture_output=True, text=True).stdout
    mine, keep = [], False
    for line in out.splitlines():
        m = re.match(r'#\s*\d+\s+"([^"]*)"', line)
        if m:
            keep = os.path.basename(m.group(1)) == os.path.basename(header)
            continue
        if keep:
            mine.append(line)
    text = "\n".join(mine)
    # Statements at brace depth 0 (struct and function bodies dropped).
    stmts, depth, cur = [], 0, []
    for ch in text:
        if ch == "{":
            if depth == 0:
                cur.append(" {} ")
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and re.search(r"\bstatic\b", "".join(cur)):
                cur = []  # a static inline function's definition ends here
        elif depth == 0:
            if ch == ";":
                stmts.append("".join(cur))
                cur = []
            else:
                cur.append(ch)
    names = set()
    for s in stmts:
        s = " ".join(s.split())
        if re.search(r"\b(typedef|static|_Static_assert|static_assert)\b", s):
            continue
        if s.startswith("extern "):
            m = re.search(r"\b(\w+)\s*(\[[^\]]*\])?\s*$", s)
            if m:
                names.add(m.group(1))
            continue
        m = re.search(r"\b(\w+)\s*\(", s)
        if m and "{}" not in s.split("(")[0]:
            names.add(m.group(1))
    return names


def map_globals(path):
    text = re.sub(r"#.*", "", open(path).read())
    names = set()
    for block in re.findall(r"global:(.*?)(?:local:|\})", text, re.S):
        names.update(n.strip() for n in block.split(";") if n.strip())
    return names


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3 or parts[1] == "A":  # A: the version nodes
            continue
        names.add(parts[2].split("@")[0])
    return names


def main():
    lib, mapfile, cc, headers = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    incdir = os.path.dirname(headers[0])
    decl = set()
    for h in headers:
        decl |= declared(cc, h, incdir)
    in_map, exp = map_globals(mapfile), exported(lib)
    bad = []
    bad += ["exported without a public prefix: " + n
            for n in sorted(exp) if not n.startswith(PREFIXES)]
    bad += ["exported but declared in no public header: " + n
            for n in sorted(exp - decl) if n.startswith(PREFIXES)]
    bad += ["declared but not in %s: %s" % (os.path.basename(mapfile), n)
            for n in sorted(decl - in_map)]
    bad += ["declared but not exported: " + n for n in sorted(decl - exp)]
    bad += ["in the map but declared nowhere: " + n for n in sorted(in_map - decl)]
    for b in bad:
        print(b)
    if bad:
        print("FAIL: %d problem(s); %d names exported, %d declared"
              % (len(bad), len(exp), len(decl)))
        return 1
    print("ok: %d names exported, each declared in %s"
          % (len(exp), ", ".join(os.path.basename(h) for h in headers)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
