#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_log: RIG_LOG=error|warn|info|debug prints rig's events on stderr,
one line each, "rig: <level>: ...", and nothing at all without RIG_LOG.
Runs log_prog (its events: an open, a refused open, a loss at a fault with
its culprit, a close, a reclaim stall, an allocation out of memory) once
per setting and checks the lines each level must and must not show.

Usage: test_log.py LOG_PROG. Exit 0 pass, 1 fail."""
import os
import re
import subprocess
import sys

prog = sys.argv[1]
LEVELS = ["error", "warn", "info", "debug"]
# (level, a pattern the line matches)
EVENTS = [
    ("info", r"^rig: info: opened LOG-M \([\w-]+\), word slot \d+$"),
    ("warn", r"^rig: warn: open of LOG-REFUSED refused: .*injected make failure"),
    ("error", r"^rig: error: LOG-FAULTY is lost: fault: injected fault at part 0 of value \d+ \(at value \d+, part 0, queue 0\)$"),
    ("info", r"^rig: info: LOG-TIGHT is lost: closed$"),
    ("warn", r"^rig: warn: LOG-TIGHT: reclaim stalled: an allocation waited \d+ ms for the work of released memory$"),
    ("warn", r"^rig: warn: LOG-TIGHT: out of memory: no released memory is left to come back"),
    ("debug", r"^rig: debug: LOG-TIGHT: an allocation waits for the work of released memory"),
]
failures = []


def run(value):
    env = dict(os.environ)
    env.pop("RIG_LOG", None)
    if value is not None:
        env["RIG_LOG"] = value
    r = subprocess.run([prog], env=env, capture_output=True, text=True, timeout=60)
    if r.returncode != 0 or "log_prog: ok" not in r.stdout:
        failures.append("RIG_LOG=%s: log_prog failed: %s" % (value, r.stdout.strip()))
    return [l for l in r.stderr.split("\n") if l]


lines = run(None)
if lines:
    failures.append("no RIG_LOG, yet stderr holds %r" % lines[:3])
for k, level in enumerate(LEVELS):
    lines = run(level)
    for l in lines:
        m = re.match(r"^rig: (\w+): ", l)
        if not m or m.group(1) not in LEVELS:
            failures.append("RIG_LOG=%s: a line not of the form 'rig: <level>: ': %r" % (level, l))
        elif LEVELS.index(m.group(1)) > k:
            failures.append("RIG_LOG=%s: a %s line: %r" % (level, m.group(1), l))
    for want_level, pattern in EVENTS:
        shown = any(re.search(pattern, l) for l in lines)
        if LEVELS.index(want_level) <= k and not shown:
            failures.append("RIG_LOG=%s: no line matching %s among %r" % (level, pattern, lines))
lines = run("loud")
if not lines or not re.match(r"^rig: warn: RIG_LOG=loud is none of error, warn, info, debug", lines[0]):
    failures.append("RIG_LOG=loud: the first line should say so: %r" % lines[:1])
for f in failures:
    print("FAIL:", f)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
