#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Print "N passed, N failed" for a meson test log (meson-logs/testlog.json),
after one "failed: SUITE/NAME (RESULT, N s)" line per test that did not pass,
so a log's tail names what failed."""
import collections
import json
import sys

BAD = ("FAIL", "ERROR", "TIMEOUT", "UNEXPECTEDPASS")
tests = [json.loads(l) for l in open(sys.argv[1])]
for t in tests:
    if t["result"] in BAD:
        print(f"failed: {t['name']} ({t['result']}, {t['duration']:.1f} s)")
c = collections.Counter(t["result"] for t in tests)
bad = sum(c[k] for k in BAD)
print(f"{c['OK'] + c['EXPECTEDFAIL']} passed, {bad} failed")
