#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_trace_format: a profile written as Chrome trace-event JSON parses
(python3's json module) and follows the trace-event format, checked by a
schema in this test (Debian packages no validator of the format): the
fields each phase requires, B and E matching per lane, each flow id with
one start and one end, the start no later than the end, timestamps that
never decrease within a lane, a process_name for every process and a
thread_name for every lane; and what rig promises on top: a lane per
queue name, flow arrows with the buffer's range from one device's value
to another's, and a host wait's arrow; and the host device's pieces: its
launches on COMPUTE:0, its copies on COPY:0, its threads' ranges on lanes
"COMPUTE:0 worker N", each inside its value's span, none overlapping
another on its lane.

It runs examples/10-profile twice: once taking its own profile, once
under RIG_PROFILE (the profile rig takes at the first open, written at
exit), with RIG_PROFILE_PLOT, whose gnuplot script must draw a PNG where
gnuplot is installed.

Usage: test_trace_format.py EXAMPLE KERNEL. Exit 0 pass, 1 fail."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

failures = []


def fail(msg):
    failures.append(msg)


REQUIRED = {"X": ["name", "ts", "dur", "pid", "tid"],
            "B": ["name", "ts", "pid", "tid"],
            "E": ["ts", "pid", "tid"],
            "s": ["name", "cat", "id", "ts", "pid", "tid"],
            "f": ["name", "cat", "id", "ts", "pid", "tid"],
            "M": ["name", "pid", "args"]}


def check(path):
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("%s: no traceEvents list" % path)
        return None
    events = doc["traceEvents"]
    procs, lanes_named, lanes_used = {}, {}, set()
    stacks, last_ts, flows = {}, {}, {}
    for i, e in enumerate(events):
        ph = e.get("ph")
        if ph not in REQUIRED:
            fail("%s: event %d has phase %r" % (path, i, ph))
            continue
        for k in REQUIRED[ph]:
            if k not in e:
                fail("%s: event %d (%s) lacks %s" % (path, i, ph, k))
        if ph == "M":
            if e["name"] == "process_name":
                procs[e["pid"]] = e["args"]["name"]
            elif e["name"] == "thread_name":
                lanes_named[(e["pid"], e["tid"])] = e["args"]["name"]
            continue
        lane = (e["pid"], e["tid"])
        lanes_used.add(lane)
        if not isinstance(e["ts"], (int, float)) or e["ts"] < 0:
            fail("%s: event %d has ts %r" % (path, i, e["ts"]))
        if e["ts"] < last_ts.get(lane, 0):
            fail("%s: event %d on lane %r goes back in time (%r after %r)"
                 % (path, i, lane, e["ts"], last_ts[lane]))
        last_ts[lane] = e["ts"]
        if ph == "X" and e["dur"] < 0:
            fail("%s: event %d has a negative dur" % (path, i))
        if ph == "B":
            stacks.setdefault(lane, []).append(e["name"])
        if ph == "E":
            if not stacks.get(lane):
                fail("%s: event %d ends no span on lane %r" % (path, i, lane))
            else:
                stacks[lane].pop()
        if ph in "sf":
            flows.setdefault(e["id"], []).append(e)
    for lane, st in stacks.items():
        if st:
            fail("%s: spans %r never end on lane %r" % (path, st, lane))
    for fid, ev in flows.items():
        phs = sorted(x["ph"] for x in ev)
        if phs != ["f", "s"]:
            fail("%s: flow %r has phases %r, not one s and one f" % (path, fid, phs))
            continue
        s = next(x for x in ev if x["ph"] == "s")
        f = next(x for x in ev if x["ph"] == "f")
        if s["ts"] > f["ts"]:
            fail("%s: flow %r ends (%r) before it starts (%r)" % (path, fid, f["ts"], s["ts"]))
        if (s["pid"], s["tid"]) == (f["pid"], f["tid"]):
            fail("%s: flow %r starts and ends on one lane" % (path, fid))
    for lane in lanes_used:
        if lane[0] not in procs:
            fail("%s: process %r has no process_name" % (path, lane[0]))
        if lane not in lanes_named:
            fail("%s: lane %r has no thread_name" % (path, lane))
    return events, procs, lanes_named, flows


def expect_rig(path, result):
    if result is None:
        return
    events, procs, lanes, flows = result
    names = set(procs.values())
    for want in ("host", "HOST", "DISK", "M"):
        if want not in names:
            fail("%s: no process %s (%r)" % (path, want, sorted(names)))
    for want in ("COMPUTE:0", "IO", "MEMORY:0"):
        if want not in lanes.values():
            fail("%s: no lane %s" % (path, want))
    values = {}
    for e in events:
        if e["ph"] == "X":
            values.setdefault(procs[e["pid"]], 0)
            values[procs[e["pid"]]] += 1
    for dev, n in (("HOST", 5), ("DISK", 8), ("M", 4)):
        if values.get(dev, 0) < n:
            fail("%s: %d values of %s, expected %d" % (path, values.get(dev, 0), dev, n))
    device_arrows = [ev for ev in flows.values()
                     if any(x["ph"] == "f" and "buffer" in x.get("args", {}) for x in ev)]
    host_arrows = [ev for ev in flows.values()
                   if any(x["ph"] == "f" and procs.get(x["pid"]) == "host" for x in ev)]
    if not device_arrows:
        fail("%s: no arrow from one device's value to another's" % path)
    for ev in device_arrows:
        f = next(x for x in ev if x["ph"] == "f")
        lo, hi = f["args"]["buffer"].split("-")
        if int(lo, 16) >= int(hi, 16):
            fail("%s: arrow %r names an empty range %s" % (path, f["id"], f["args"]["buffer"]))
    if not host_arrows:
        fail("%s: no host wait with an arrow" % path)
    spans = [e["name"] for e in events if e["ph"] == "B"]
    for want in ("setup", "steps", "step 1", "rig_wait", "rig_buffer_read"):
        if want not in spans:
            fail("%s: no span %r (%r)" % (path, want, spans))


def expect_host_pieces(path, result):
    """The host device's pieces: each launch on COMPUTE:0, each copy on
    COPY:0, each thread's range of a launch on its own lane ("COMPUTE:0
    worker N"); each inside its value's span, in the host's clock; no two
    on one lane overlap, and the device's values never overlap."""
    if result is None:
        return
    events, procs, lanes, flows = result
    eps = 0.0015  # microseconds with nanosecond decimals, as floats
    host = [pid for pid, name in procs.items() if name == "HOST"]
    if len(host) != 1:
        fail("%s: %d HOST processes" % (path, len(host)))
        return
    xs = [e for e in events if e["ph"] == "X" and e["pid"] == host[0]]
    values = {}
    for e in xs:
        if e.get("cat") == "value":
            values.setdefault(e["args"]["value"], []).append(e)
    pieces = [e for e in xs if e.get("cat") in ("part", "range")]
    kinds = {}
    for e in pieces:
        lane = lanes.get((e["pid"], e["tid"]), "?")
        name = e["name"].split(" ")[0]
        kinds[name] = kinds.get(name, 0) + 1
        if name == "launch" and lane != "COMPUTE:0":
            fail("%s: a launch on lane %r" % (path, lane))
        if name == "copy" and lane != "COPY:0":
            fail("%s: a copy on lane %r" % (path, lane))
        if name == "range" and not (lane.startswith("COMPUTE:0 worker ")
                                    and lane.split()[-1].isdigit()):
            fail("%s: a thread's range on lane %r" % (path, lane))
        spans = values.get(e["args"]["value"])
        if not spans:
            fail("%s: %s of value %r, which has no span" % (path, e["name"], e["args"]["value"]))
            continue
        v = spans[0]
        if e["ts"] < v["ts"] - eps or e["ts"] + e["dur"] > v["ts"] + v["dur"] + eps:
            fail("%s: %s at %r+%r lies outside value %r's %r+%r"
                 % (path, e["name"], e["ts"], e["dur"], e["args"]["value"], v["ts"], v["dur"]))
    for want in ("launch", "copy", "range"):
        if not kinds.get(want):
            fail("%s: no %s on HOST (%r)" % (path, want, kinds))
    by_lane = {}
    for e in pieces:
        by_lane.setdefault(e["tid"], []).append(e)
    for tid, ev in by_lane.items():
        ev.sort(key=lambda e: e["ts"])
        for a, b in zip(ev, ev[1:]):
            if b["ts"] < a["ts"] + a["dur"] - eps:
                fail("%s: on lane %r, %s of value %r overlaps %s of value %r"
                     % (path, lanes.get((host[0], tid)), b["name"], b["args"]["value"],
                        a["name"], a["args"]["value"]))
    order = sorted((spans[0] for spans in values.values()), key=lambda e: e["args"]["value"])
    for a, b in zip(order, order[1:]):
        if b["ts"] < a["ts"] + a["dur"] - eps:
            fail("%s: HOST's value %r starts before value %r ends"
                 % (path, b["args"]["value"], a["args"]["value"]))


def main():
    example, kernel = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        own = os.path.join(tmp, "own.json")
        env = dict(os.environ)
        env.pop("RIG_PROFILE", None)
        r = subprocess.run([example, own, kernel], env=env, capture_output=True, text=True)
        if r.returncode:
            fail("%s exited %d: %s" % (example, r.returncode, r.stderr))
        else:
            result = check(own)
            expect_rig(own, result)
            expect_host_pieces(own, result)
        by_env = os.path.join(tmp, "env.json")
        plot = os.path.join(tmp, "env.gp")
        env.update(RIG_PROFILE=by_env, RIG_PROFILE_PLOT=plot)
        r = subprocess.run([example, os.path.join(tmp, "unused.json"), kernel], env=env,
                           capture_output=True, text=True)
        if r.returncode:
            fail("%s under RIG_PROFILE exited %d: %s" % (example, r.returncode, r.stderr))
        elif os.path.exists(os.path.join(tmp, "unused.json")):
            fail("under RIG_PROFILE the example's own profile was taken too")
        else:
            result = check(by_env)
            expect_rig(by_env, result)
            expect_host_pieces(by_env, result)
            gnuplot = shutil.which("gnuplot")
            if gnuplot:
                png = os.path.join(tmp, "env.png")
                g = subprocess.run([gnuplot, "-e", "out='%s'" % png, plot],
                                   capture_output=True, text=True)
                if g.returncode or not os.path.exists(png):
                    fail("gnuplot drew no PNG: %s" % g.stderr)
                else:
                    with open(png, "rb") as f:
                        if f.read(8) != b"\x89PNG\r\n\x1a\n":
                            fail("%s is no PNG" % png)
            else:
                print("# gnuplot not installed: the picture is not drawn")
    for m in failures:
        print("FAIL:", m)
    print("%d failures" % len(failures))
    return 1 if failures else 0


sys.exit(main())
