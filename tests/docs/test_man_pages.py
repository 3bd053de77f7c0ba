#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_man_pages: every function the public headers declare has a man
page (man/<name>.3: the family's page, or a .so link to it, whose NAME line
lists the name); every page has the sections of rig's pages; every page
renders with `groff -man -ww -z` without a single warning; every SEE ALSO
of a rig page names a page that exists.

Usage: test_man_pages.py SOURCE_ROOT. Exit 0 pass, 1 fail, 77 skip (no
groff: scripts/deps.sh installs groff-base)."""
import concurrent.futures
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
sys.path.insert(0, str(root / "scripts"))
import public_functions  # noqa: E402

man = root / "man"
failures = []
SECTIONS = {"1": ["NAME", "SYNOPSIS", "DESCRIPTION", "EXIT STATUS", "SEE ALSO"],
            "3": ["NAME", "SYNOPSIS", "DESCRIPTION", "THREADS AND BLOCKING",
                  "RETURN VALUE", "ERRORS", "SEE ALSO"],
            "7": ["NAME", "DESCRIPTION", "SEE ALSO"]}


def so_target(path):
    text = path.read_text()
    m = re.fullmatch(r"\.so (man\d)/([^\s]+)\n", text)
    return (man / m.group(2)) if m else None


def name_line(path):
    lines = path.read_text().split("\n")
    for i, l in enumerate(lines):
        if l.strip() == ".SH NAME":
            return lines[i + 1].split("\\-")[0]
    return ""


pages = sorted(p for p in man.iterdir() if re.search(r"\.[137]$", p.name))
real = [p for p in pages if not so_target(p)]

# 1. every public function has a page
headers = sorted(str(p) for p in (root / "include").glob("*.h"))
for h in headers:
    for fn in public_functions.functions(h):
        page = man / (fn + ".3")
        if not page.exists():
            failures.append("%s (%s) has no page man/%s.3" % (fn, pathlib.Path(h).name, fn))
            continue
        target = so_target(page) or page
        if not target.exists():
            failures.append("man/%s.3 links to %s, which is not there" % (fn, target.name))
        elif not re.search(r"\b%s\b" % re.escape(fn), name_line(target)):
            failures.append("%s is not in the NAME line of %s" % (fn, target.name))

# 2. sections, and 3. SEE ALSO
for p in real:
    text = p.read_text()
    heads = re.findall(r"^\.SH (.+)$", text, flags=re.M)
    for want in SECTIONS[p.suffix[1:]]:
        if want not in heads:
            failures.append("%s lacks the section %s" % (p.name, want))
    see = text.split(".SH SEE ALSO", 1)[-1]
    for name, sec in re.findall(r"^\.BR (rig[A-Za-z0-9_]*) \((\d)\)", see, flags=re.M):
        if not (man / ("%s.%s" % (name, sec))).exists():
            failures.append("%s: SEE ALSO %s(%s) is no page" % (p.name, name, sec))

# every page is installed: man/meson.build names it
listed = set(re.findall(r"'([^']+\.[137])'", (man / "meson.build").read_text()))
for p in pages:
    if p.name not in listed:
        failures.append("man/meson.build does not install %s" % p.name)

# 4. render each page, links too, from an installed-like tree
groff = shutil.which("groff")
if not groff:
    print("SKIP: groff is not installed (scripts/deps.sh installs groff-base)")
    sys.exit(77 if not failures else 1)
with tempfile.TemporaryDirectory() as tmp:
    for p in pages:
        d = pathlib.Path(tmp) / ("man" + p.suffix[1:])
        d.mkdir(exist_ok=True)
        shutil.copy(p, d / p.name)
    # Each page its own groff (a page's state never hides the next one's
    # warnings), four at a time: one after another, the 126 took 98 s of
    # the test's 120 at load 45 (33 s against 22 s four at a time, at 56).
    def render(p):
        rel = "man%s/%s" % (p.suffix[1:], p.name)
        r = subprocess.run([groff, "-man", "-ww", "-z", rel], cwd=tmp,
                           capture_output=True, text=True)
        out = (r.stdout + r.stderr).strip()
        if r.returncode or out:
            return "groff -man -ww -z %s: %s" % (rel, out or "exit %d" % r.returncode)
        return None

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        failures += [f for f in pool.map(render, pages) if f]

for f in failures:
    print("FAIL:", f)
print("%d pages (%d with text, %d links), %d functions checked, %d failures" %
      (len(pages), len(real), len(pages) - len(real),
       sum(len(public_functions.functions(h)) for h in headers), len(failures)))
sys.exit(1 if failures else 0)
