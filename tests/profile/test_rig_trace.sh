#!/bin/sh
# SPDX-License-Identifier: MIT
# test_rig_trace: `rig trace -- PROGRAM ARGS...` runs the program with a
# profile taken, leaves PROGRAM.trace.json in the working directory (a
# trace-event JSON object that python3's json parses, with the program's
# devices in it) and, where gnuplot is installed, PROGRAM.trace.png; it
# exits as the program does, and refuses a missing program with status 2.
# A program that never names a profile (examples/05-stamps) is traced too:
# rig reads RIG_PROFILE at its first open.
# Usage: test_rig_trace.sh RIG EXAMPLE KERNEL PLAIN_EXAMPLE
set -u
rig=$(realpath "$1") example=$(realpath "$2") kernel=$(realpath "$3") plain=$(realpath "$4")
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

"$rig" trace -- "$example" "$dir/own.json" "$kernel" >out.txt 2>err.txt || fail "rig trace exited $?: $(cat err.txt)"
[ -f 10-profile.trace.json ] || fail "no 10-profile.trace.json: $(cat err.txt)"
[ ! -f own.json ] || fail "the example took its own profile beside rig's"
[ ! -f 10-profile.trace.gp ] || fail "the gnuplot script was left behind"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); names={e["args"]["name"] for e in d["traceEvents"] if e["ph"]=="M"}; sys.exit(0 if {"HOST","DISK","M","COMPUTE:0"} <= names else 1)' 10-profile.trace.json ||
	fail "the trace lacks the example's devices"
if command -v gnuplot >/dev/null; then
	[ "$(head -c 4 10-profile.trace.png | od -An -c | tr -d ' ')" = "211PNG" ] || fail "no PNG drawn: $(cat err.txt)"
fi
"$rig" trace -- "$plain" >out.txt 2>err.txt || fail "rig trace of $plain exited $?: $(cat err.txt)"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if any(e["ph"]=="X" for e in d["traceEvents"]) else 1)' "$(basename "$plain").trace.json" ||
	fail "the trace of $plain, opened at its first open, has no value"
"$rig" trace -- sh -c 'exit 3' 2>err.txt
[ $? = 3 ] || fail "rig trace did not exit as the program did"
grep -q "left no sh.trace.json" err.txt || fail "no message for a program that left no trace: $(cat err.txt)"
"$rig" trace -- 2>err.txt
[ $? = 2 ] || fail "rig trace with no program did not exit 2"
grep -q "which program" err.txt || fail "no usage message: $(cat err.txt)"
echo "rig trace: ok"
