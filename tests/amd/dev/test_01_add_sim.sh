#!/bin/sh
# SPDX-License-Identifier: MIT
# test_01_add_sim.sh EXE: examples/01-add on "AMD-PCI" with the software GPU
# selected (RIG_AMD_SIM), as a user with no GPU runs it: GPU 0 opens on
# the sim (its images found through RIG_FIRMWARE_DIR), the add runs on its
# compute queue, and every sum is checked by the example. A GC the sim
# does not model is refused, naming RIG_AMD_SIM. Exit 77 (skipped) without
# RIG_TEST_FIRMWARE.
set -u
exe=$1
[ -n "${RIG_TEST_FIRMWARE:-}" ] || { echo "skipped: RIG_TEST_FIRMWARE is not set"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export RIG_FIRMWARE_DIR=$RIG_TEST_FIRMWARE TMPDIR=$tmp
for gc in 11.0.0 12.0.1 9.4.3; do
	out=$(RIG_AMD_SIM=$gc "$exe" 2>&1)
	rc=$?
	echo "$out" | sed "s/^/[$gc] /"
	[ $rc -eq 0 ] || { echo "FAIL: GC $gc: exit status $rc"; exit 1; }
	echo "$out" | grep -q '^device AMD-PCI (gfx' || { echo "FAIL: GC $gc: not on AMD-PCI"; exit 1; }
	echo "$out" | grep -q 'every sum is right' || { echo "FAIL: GC $gc: sums"; exit 1; }
done
# The sim's tree went with the process.
[ -z "$(ls "$tmp")" ] || { echo "FAIL: left behind: $(ls "$tmp")"; exit 1; }
# The refusals: the example falls back to the host, and stops at the
# object it is given (none), before a 16 Mi add on the host.
out=$(RIG_AMD_SIM=10.3.0 "$exe" "$tmp/none" 2>&1)
echo "$out"
echo "$out" | grep -q 'RIG_AMD_SIM=10.3.0: .*GC 10.3.0 is not one the sim models' ||
	{ echo "FAIL: the refusal of GC 10.3.0"; exit 1; }
echo "$out" | grep -q '^device HOST' || { echo "FAIL: no fallback to the host"; exit 1; }
out=$(TMPDIR=$tmp/absent RIG_AMD_SIM=11.0.0 "$exe" "$tmp/none" 2>&1)
echo "$out"
echo "$out" | grep -q "RIG_AMD_SIM=11.0.0: no folder for the software GPU's tree under $tmp/absent: No such file or directory" ||
	{ echo "FAIL: the refusal of an absent TMPDIR"; exit 1; }
echo "01-add ran on the software GPU of each GC"
