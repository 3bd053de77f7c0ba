#!/bin/sh
# SPDX-License-Identifier: MIT
# test_agent_cli.sh RIG: `rig agent`'s command line: --help names every
# flag it takes; a bad flag or value is a usage error (2); a key file that
# is missing or others may read, or an address that is no host:port, fails
# (1) with the cause, before anything listens; so does a --disk-root that
# is no directory.
set -u
rig=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

help=$("$rig" agent --help) || fail "--help exited $?"
for flag in --listen --key --heartbeat-ms --no-host --no-memory --disk-root --amd --amd-firmware --amd-sim --help RIG_AGENT_KEY; do
	echo "$help" | grep -q -- "$flag" || fail "--help does not name $flag"
done
expect() {	# expect RC TEXT ARGS...
	want=$1 text=$2
	shift 2
	out=$("$rig" agent "$@" 2>&1)
	rc=$?
	[ "$rc" -eq "$want" ] || fail "rig agent $*: exit $rc, not $want ($out)"
	echo "$out" | grep -q -- "$text" || fail "rig agent $*: \"$out\" lacks \"$text\""
}
printf 'a key of test_agent_cli 0123456789\n' > "$work/key"
chmod 600 "$work/key"
cp "$work/key" "$work/open"
chmod 644 "$work/open"
expect 2 "unknown flag" --bogus
expect 2 "missing value" --key
expect 2 "is not 1 to 3600000" --heartbeat-ms 0
expect 2 "is not 1 to 3600000" --heartbeat-ms 12x
expect 1 "No such file" --key "$work/none"
expect 1 "others may read it" --key "$work/open"
expect 1 "is not host:port" --key "$work/key" --listen nohost
expect 1 "not a number" --key "$work/key" --listen 127.0.0.1:http
expect 2 "missing value" --key "$work/key" --disk-root
expect 1 "disk root $work/none: No such file" --key "$work/key" --disk-root "$work/none"
expect 1 "disk root $work/key: Not a directory" --key "$work/key" --disk-root "$work/key"
expect 2 "needs --amd" --key "$work/key" --amd-sim 11.0.0
expect 1 "the software GPU 7.7.7" --key "$work/key" --amd --amd-sim 7.7.7
expect 1 "the disk root is empty" --key "$work/key" --disk-root ""
env -u RIG_AGENT_KEY "$rig" agent >"$work/out" 2>&1
[ $? -eq 1 ] && grep -q "no key file named" "$work/out" || fail "no key: $(cat "$work/out")"
echo "ok"
