#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/public_functions.py [HEADER...]: print, one a line, each function
the public headers declare (include/*.h by default): every rig_ name
declared at file scope with a parameter list, static inline ones too.
Comments, preprocessor lines, string literals and the bodies of inline
functions and structures are skipped, so a call or a function pointer
member (int (*submit)(...)) is never taken for a declaration; a typedef of
a function pointer (typedef int (*rig_fill_fn)(...)) is no function.

Used by tests/docs/test_man_pages.py (every function has a page) and by
whoever keeps a symbol list."""
import pathlib
import re
import sys


def strip(text):
    # extern "C" { and its brace, for C++: not a scope of their own here.
    text = re.sub(r"#ifdef __cplusplus\n.*?#endif", " ", text, flags=re.S)
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    out = []
    cont = False
    for line in text.split("\n"):
        if cont or line.lstrip().startswith("#"):
            cont = line.rstrip().endswith("\\")
            continue
        out.append(line)
    return "\n".join(out)


def top_level(text):
    """The text outside every brace pair."""
    depth, out = 0, []
    for ch in text:
        if ch == "{":
            depth += 1
            out.append(";")
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def functions(path):
    text = top_level(strip(pathlib.Path(path).read_text()))
    names = []
    for stmt in text.split(";"):
        if re.match(r"\s*typedef\b", stmt):
            continue
        m = re.search(r"\b(rig_[A-Za-z0-9_]+)\s*\(", stmt)
        if m and not re.search(r"\(\s*\*\s*$", stmt[:m.start()]):
            names.append(m.group(1))
    return names


def main(argv):
    root = pathlib.Path(__file__).resolve().parent.parent
    headers = argv or sorted(str(p) for p in (root / "include").glob("*.h"))
    seen = []
    for h in headers:
        for n in functions(h):
            if n not in seen:
                seen.append(n)
    print("\n".join(seen))


if __name__ == "__main__":
    main(sys.argv[1:])
