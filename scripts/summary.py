#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Print "N passed, N failed" for a meson test log (meson-logs/testlog.json)."""
import collections
import json
import sys

c = collections.Counter(json.loads(l)["result"] for l in open(sys.argv[1]))
bad = sum(c[k] for k in ("FAIL", "ERROR", "TIMEOUT", "UNEXPECTEDPASS"))
print(f"{c['OK'] + c['EXPECTEDFAIL']} passed, {bad} failed")
