#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/ratios.py: the table of ratios, and the chart's data, from the JSON
lines the benchmark programs print (bench/bench.h). bench/run calls it.

Figures pair by "name". Each figure is compared with its name's floor
(role "floor") as a cost: time / floor time for ns, floor GB/s / GB/s for
bandwidth, so 1 is the floor and 10 is ten times its cost. Each rig figure
is compared with each peer figure of its name as rig / peer (the figures'
own ratio) and as rig's speed-up (how many times faster rig is: peer time /
rig time, or rig GB/s / peer GB/s). Last comes the table of TARGETS: each
target, what this run measured, and whether that meets it.

usage: ratios.py RESULTS.json [--note TEXT] [--chart-dir DIR] [--other 'BUSY STEAL']
With --chart-dir it writes DIR/bench-ratios.dat, DIR/bench-speedup.dat and
DIR/bench-ratios.gp (a gnuplot script that draws DIR/bench-ratios.png).
"""
import argparse
import json
import math
import os
import sys

ROLE_ORDER = {"floor": 0, "peer": 1, "rig": 2}

# Issue 13's targets (the core's hot paths), and issue 7's for the disk:
# shown, never enforced. Each is (figure, impl, bound, ref):
#   ref None: impl's median is at most bound ns;
#   ref (figure', impl'), bound ("<=", x): impl's cost is at most x times
#       that figure's (time / its time; for GB/s, its GB/s / GB/s);
#   ref (figure', impl'), bound (">=", x): impl's speed-up over it is at
#       least x (its time / time; for GB/s, GB/s / its GB/s): for the
#       server, requests per second over pthreads'.
#   ref (figure', impl'), bound ("+", x): impl's median is at most x ns
#       more than impl''s (what a profile taken adds to a submit); x may
#       be a (figure'', impl'') whose median this run measured.
# A ref's figure' is the target's own figure, except for submit_8threads,
# whose per-submit time is held to submit_2threads'.
TARGETS = [
    ("batched_submit", "rig-polled", 100, None),
    ("batched_submit", "rig-polled", ("<=", 0.12), ("batched_submit", "lavapipe")),
    ("batched_submit", "rig-polled", ("<=", 0.04), ("batched_submit", "pocl")),
    ("batched_submit", "rig-host", 150, None),
    # The memory device's are 4-byte rig_buffer_copy() calls, run inline.
    ("batched_submit", "rig-memory", 80, None),
    ("round_trip", "rig-host", ("<=", 0.25), ("round_trip", "pthread")),
    ("round_trip", "rig-polled", ("<=", 0.25), ("round_trip", "pthread")),
    ("submit_8threads", "rig-polled", ("<=", 1.25), ("submit_2threads", "rig-polled")),
    ("alloc_release", "rig-polled", ("<=", 3), ("alloc_release", "malloc-free")),
    ("make_1000_parts", "rig", 1e6, None),
    ("server_4KiB", "rig", (">=", 1.0), ("server_4KiB", "pthreads")),
    ("server_64KiB", "rig", (">=", 1.0), ("server_64KiB", "pthreads")),
    ("server_1MiB", "rig", (">=", 1.0), ("server_1MiB", "pthreads")),
    ("disk_seq_read", "rig-disk", (">=", 0.9), ("disk_seq_read", "io_uring")),
    # Issue 16's: a profile taken costs a submit at most 100 ns more.
    ("profile_batched_submit", "rig-polled-profiled", ("+", 100),
     ("profile_batched_submit", "rig-polled")),
    ("profile_batched_run", "rig-polled-profiled", ("+", 100),
     ("profile_batched_run", "rig-polled")),
    # Issue 17's: encoding a one-launch value takes at most 150 ns, and a
    # submit on the AMD device (on the software GPU) costs the submitting
    # thread at most the polled device's plus that encoding, as measured
    # in the same run: "pm4" is the value that submit encodes (a launch of
    # the function launched last), "pm4-full" one of another function.
    # (bench/amd_submit.c's batched_submit on the sim is the software
    # GPU's throughput, not a submit's cost: no target.)
    ("amd_encode_1launch", "pm4", 150, None),
    ("amd_encode_1launch", "pm4-full", 150, None),
    ("submit_1launch", "rig-amd-sim", ("+", ("amd_encode_1launch", "pm4")),
     ("submit_1launch", "rig-polled")),
]


def load(path):
    figures, machines = [], []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            obj = json.loads(line)
            if "machine" in obj:
                machines.append(obj["machine"])
            elif "name" in obj:
                figures.append(obj)
    return figures, machines


def cost(fig, floor):
    """How many times the floor's cost fig is."""
    if fig["unit"] == "GB/s":
        return floor["median"] / fig["median"]
    return fig["median"] / floor["median"]


def speedup(rig, peer):
    if rig["unit"] == "GB/s":
        return rig["median"] / peer["median"]
    return peer["median"] / rig["median"]


def label(f):
    if f["role"] != "floor" or f["impl"] == "floor":
        return f["impl"]
    return f["impl"] + " (floor)"


def num(x):
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.3g}"


def names_in_order(figures):
    order = []
    for f in figures:
        if f["name"] not in order:
            order.append(f["name"])
    return order


def machine_line(machines, other=""):
    if not machines:
        return "machine: unknown (no machine line)"
    first, last = machines[0], machines[-1]
    load0 = " ".join(first["loadavg"].split()[:3])
    load1 = " ".join(last["loadavg"].split()[:3])
    mode = "quick" if first.get("quick") else "full"
    clock = ""
    if "clock_ns" in first:
        clock = f"; a clock read costs {first['clock_ns']:g} ns (in every per-op sample)"
    warn = ""
    if other:
        busy, steal = (int(x) for x in other.split())
        warn = (f"\nwhile the programs ran, other work used {busy}% of the machine's"
                f" CPU time and the hypervisor stole {steal}%")
        if busy + steal > 10:
            warn += "\nwarning: other work shared the machine, so these figures are noisy"
    return (f"machine: {first['cpu']}, {first['cores']} cores; load average "
            f"{load0} at the start, {load1} at the last program\n"
            f"{mode} run: {first['runs']} runs per figure after a warm-up{clock}{warn}")


def table(figures, machines, note, other):
    out = [machine_line(machines, other), ""]
    rows = [("figure", "impl", "median", "p99", "unit", "stat", "cost ×floor")]
    floors = {f["name"]: f for f in figures if f["role"] == "floor"}
    for name in names_in_order(figures):
        group = sorted((f for f in figures if f["name"] == name),
                       key=lambda f: ROLE_ORDER.get(f["role"], 3))
        for f in group:
            c = num(cost(f, floors[name])) if name in floors else "-"
            rows.append((name, f["impl"], num(f["median"]), num(f["p99"]),
                         f["unit"], f["stat"].replace(" figures", "").replace(" samples", ""), c))
    out += fmt(rows, right={2, 3, 6})
    out += ["", "cost ×floor: how many times the floor's cost (time / floor time;"
            " for GB/s, floor GB/s / GB/s). p99 of GB/s: the slow tail.", ""]
    pairs = []
    for name in names_in_order(figures):
        rigs = [f for f in figures if f["name"] == name and f["role"] == "rig"]
        peers = sorted((f for f in figures if f["name"] == name and
                        f["role"] in ("peer", "floor")),
                       key=lambda f: ROLE_ORDER.get(f["role"], 3))
        for r in rigs:
            for p in peers:
                pairs.append((name, r, p))
    if pairs:
        rows = [("figure", "rig impl", "peer", "rig / peer", "unit", "rig speed-up")]
        for name, r, p in pairs:
            rows.append((name, r["impl"], label(p), num(r["median"] / p["median"]),
                         r["unit"], num(speedup(r, p)) + "×"))
        out += ["rig / peer, and rig / floor (the medians' ratio; speed-up: how many"
                " times faster rig is)"]
        out += fmt(rows, right={3, 5})
        out += ["rig-memory runs each copy in the submitting thread, before"
                " rig_buffer_copy() returns: no hand-off to another thread.", ""]
    else:
        out += ["rig / peer: no rig figures in this run" + (f" ({note})" if note else "."), ""]
    out += targets(figures)
    return "\n".join(out), pairs


def ns_text(ns, show=num):
    if ns >= 1e6:
        return f"{show(ns / 1e6)} ms"
    if ns >= 1e4:
        return f"{show(ns / 1e3)} µs"
    return f"{show(ns)} ns"


def targets(figures):
    """The lines of the targets' table: each target, what was measured, and
    whether it is met."""
    by = {(f["name"], f["impl"]): f for f in figures}
    rows = [("figure", "impl", "target", "measured", "")]
    for name, impl, bound, ref in TARGETS:
        fig = by.get((name, impl))
        other = by.get(ref) if ref else None
        if ref is None:
            want = f"≤ {ns_text(bound, lambda x: f'{x:g}')}"
        elif bound[0] == "+" and isinstance(bound[1], tuple):
            want = f"≤ {ref[1]} + {bound[1][0]}"
        elif bound[0] == "+":
            want = f"≤ {ref[1]} + {bound[1]:g} ns"
        else:
            whose = ref[1] if ref[0] == name else ref[0]
            want = f"{'≤' if bound[0] == '<=' else '≥'} {bound[1]:g}× {whose}"
        plus = by.get(bound[1]) if isinstance(bound, tuple) and isinstance(bound[1], tuple) else None
        if not fig or (ref and not other) or (plus is None and isinstance(bound, tuple)
                                               and isinstance(bound[1], tuple)):
            rows.append((name, impl, want, "no figure", "-"))
            continue
        if ref is None:
            got, met = ns_text(fig["median"]), fig["median"] <= bound
        elif bound[0] == "+":
            more = fig["median"] - other["median"]
            most = plus["median"] if plus else bound[1]
            got, met = f"{more:+.0f} ns", more <= most
        else:
            x = speedup(fig, other) if bound[0] == ">=" else 1 / speedup(fig, other)
            met = x >= bound[1] if bound[0] == ">=" else x <= bound[1]
            got = num(x) + "×"
        rows.append((name, impl, want, got, "met" if met else "not met"))
    return (["targets: issue 13's, issue 7's for the disk, issue 16's for profiles, issue 17's for the AMD device (for information;"
             " nothing fails on timing)"] + fmt(rows, right={3}) +
            ["≤ x× P: the time per operation is at most x times P's;",
             "≥ x× P: at least x times P's operations per second (the server:"
             " requests/s) or GB/s."])


def fmt(rows, right):
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [str(c).rjust(w) if i in right else str(c).ljust(w)
                 for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    return lines


def span(values):
    """A log axis's range that holds values and 1, with room around them."""
    lo = min(min(values), 1.0) / 3
    hi = max(max(values), 1.0) * 3
    return 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi))


def chart(figures, pairs, machines, d):
    floors = {f["name"]: f for f in figures if f["role"] == "floor"}
    names = [n for n in names_in_order(figures) if n in floors]
    impls = []
    # Only impls of figures with a floor: a column with no bar is an empty
    # key entry (and a warning from gnuplot).
    for f in sorted(figures, key=lambda f: ROLE_ORDER.get(f["role"], 3)):
        if f["role"] != "floor" and f["name"] in floors and f["impl"] not in impls:
            impls.append(f["impl"])
    costs = [1.0]
    with open(os.path.join(d, "bench-ratios.dat"), "w") as out:
        out.write("figure " + " ".join(impls) + "\n")
        for n in names:
            vals = []
            for i in impls:
                m = [f for f in figures if f["name"] == n and f["impl"] == i]
                if m:
                    costs.append(cost(m[0], floors[n]))
                vals.append(f"{costs[-1]:.6g}" if m else "-")
            out.write(n + " " + " ".join(vals) + "\n")
    rig_impls, rows = [], []
    for name, r, p in pairs:
        if r["impl"] not in rig_impls:
            rig_impls.append(r["impl"])
        if (name, p["impl"]) not in rows:
            rows.append((name, p["impl"]))
    with open(os.path.join(d, "bench-speedup.dat"), "w") as out:
        out.write("pair " + " ".join(rig_impls) + "\n")
        for name, peer in rows:
            vals = []
            for ri in rig_impls:
                m = [speedup(r, p) for n, r, p in pairs
                     if n == name and r["impl"] == ri and p["impl"] == peer]
                vals.append(f"{m[0]:.6g}" if m else "-")
            out.write(f"\"{name}\\nover {peer}\" " + " ".join(vals) + "\n")
    palette = ["#9400d3", "#009e73", "#56b4e9", "#e69f00", "#f0e442", "#0072b2",
               "#e51e10", "#000000"]
    every = impls + [i for i in rig_impls if i not in impls]
    color = {i: palette[k % len(palette)] for k, i in enumerate(every)}
    top_colors = " ".join(color[i] for i in impls)
    rig_colors = " ".join(color[i] for i in rig_impls)
    title = machine_line(machines).split(";")[0].replace("machine: ", "")
    title = title.replace("'", "")
    gp = [
        "set terminal pngcairo size 1400,%d font 'sans,10'" % (900 if pairs else 520),
        f"set output '{os.path.join(d, 'bench-ratios.png')}'",
        "set datafile missing '-'",
        "set style data histogram",
        "set style histogram clustered gap 1",
        "set style fill solid 0.8 border -1",
        "set logscale y",
        "set format y '%g'",
        "set grid ytics",
        "set key outside right top",
        "set xtics noenhanced",
        "set key noenhanced",
        f"set multiplot layout {2 if pairs else 1},1 title 'rig benchmarks on {title}' noenhanced",
        "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2 lc 'black' front",
        "set title 'cost against the floor (dashed line: the floor; lower is better)'",
        "set ylabel 'times the floor'",
        "set yrange [%g:%g]" % span(costs),
        f"plot for [i=2:{len(impls) + 1}] '{os.path.join(d, 'bench-ratios.dat')}' "
        f"using i:xtic(1) title columnheader lc rgb word('{top_colors}', i - 1)",
    ]
    if pairs:
        gp += [
            "set title 'rig speed-up over each peer and the floor (above the dashed line: rig is faster)'",
            "set ylabel 'times faster'",
            "set yrange [%g:%g]" % span([speedup(r, p) for _, r, p in pairs]),
            "set bmargin 7",
            "set xtics font ',8' rotate by -30",
            f"plot for [i=2:{len(rig_impls) + 1}] '{os.path.join(d, 'bench-speedup.dat')}' "
            f"using i:xtic(1) title columnheader lc rgb word('{rig_colors}', i - 1)",
        ]
    gp.append("unset multiplot")
    with open(os.path.join(d, "bench-ratios.gp"), "w") as out:
        out.write("\n".join(gp) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--note", default="")
    ap.add_argument("--chart-dir")
    ap.add_argument("--other", default="",
                    help="'BUSY STEAL': percent of the machine's CPU time other work"
                    " used and the hypervisor stole while the programs ran")
    a = ap.parse_args()
    figures, machines = load(a.results)
    if not figures:
        print("no figures in " + a.results, file=sys.stderr)
        return 1
    text, pairs = table(figures, machines, a.note, a.other)
    print(text)
    if a.chart_dir:
        chart(figures, pairs, machines, a.chart_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
