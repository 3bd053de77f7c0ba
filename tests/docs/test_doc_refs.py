#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_doc_refs: every cross-reference names a file of this repository.

 - README.md and the public headers name no document outside it: no
   "SPEC", no seed ("seed 000"), no DESIGN.md or ../shared/docs;
 - every path that README.md, include/*.h, docs/*.md, man/* and the
   comments of src/ name under docs/, src/, include/, examples/, bench/,
   tests/, man/, scripts/ or tools/ exists (a * in it is a glob);
 - every "docs/<page>.md, <Section>" names a heading of that page, and
   every relative link of a docs page names a file beside it.

Usage: test_doc_refs.py SOURCE_ROOT. Exit 0 pass, 1 fail."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
failures = []

public = [root / "README.md"] + sorted((root / "include").glob("*.h"))
outside = re.compile(r"\bSPEC\b|\bseeds? ?0\d\d|\bseed\b|DESIGN\.md|shared/docs")
for f in public:
    for n, line in enumerate(f.read_text().split("\n"), 1):
        m = outside.search(line)
        if m:
            failures.append("%s:%d names %r, a document outside the repository"
                            % (f.relative_to(root), n, m.group(0)))

texts = public + sorted((root / "docs").glob("*.md")) + sorted((root / "man").iterdir()) \
    + sorted(p for p in (root / "src").rglob("*") if p.suffix in (".c", ".h", ".md", ".build"))
path_re = re.compile(r"(?<![\w./-])((?:docs|src|include|examples|bench|tests|man|scripts|tools)/[A-Za-z0-9_.*/-]*[A-Za-z0-9_*])")
section_re = re.compile(r"docs/([a-z-]+)\.md, ([A-Z][A-Za-z ]+?)(?=[).;:,\"]|$)")
headings = {}
for page in (root / "docs").glob("*.md"):
    headings[page.stem] = [l.lstrip("#").strip() for l in page.read_text().split("\n")
                           if l.startswith("#")] + \
        [m.group(1) for m in re.finditer(r"\*\*([^*]+?)[.*]", page.read_text())]

for f in texts:
    if not f.is_file():
        continue
    text = f.read_text(errors="replace")
    for n, line in enumerate(text.split("\n"), 1):
        for m in path_re.finditer(line):
            ref = m.group(1).rstrip(".")
            if not list(root.glob(ref)):
                failures.append("%s:%d: %s is not in the repository" % (f.relative_to(root), n, ref))
        for m in section_re.finditer(line):
            page, section = m.group(1), m.group(2).strip()
            if page in headings and not any(section.lower() in h.lower() for h in headings[page]):
                failures.append("%s:%d: docs/%s.md has no section %r" % (f.relative_to(root), n, page, section))
    if f.parent.name == "docs" and f.suffix == ".md":
        for m in re.finditer(r"\]\(([^)#]+)\)", text):
            if not (f.parent / m.group(1)).exists():
                failures.append("%s: link %s names no file" % (f.relative_to(root), m.group(1)))

for fl in failures:
    print("FAIL:", fl)
print("%d files read, %d failures" % (len(texts), len(failures)))
sys.exit(1 if failures else 0)
