#!/bin/sh
# SPDX-License-Identifier: MIT
# test_rig_firmware_amd: `rig firmware amd --from DIR` installs and verifies
# every pinned image into rig's firmware directory (RIG_FIRMWARE_DIR, or
# --to DIR), a second run finds them present, -h, --help and --version
# answer as every command's do, and rig's usage errors and failures exit non-zero with a message
# on stderr. Arguments: the rig program, a scratch folder; the real images
# are at RIG_TEST_FIRMWARE (none: exit 77, a skip).
set -u
rig=$1 scratch=$2/rig-tool-test fw=${RIG_TEST_FIRMWARE:-}
[ -n "$fw" ] || { echo "RIG_TEST_FIRMWARE is not set: skipped"; exit 77; }
rm -rf "$scratch"; mkdir -p "$scratch"
export RIG_FIRMWARE_DIR="$scratch/installed"
fail() { echo "FAIL: $*"; exit 1; }

out=$("$rig" firmware amd --from "$fw") || fail "first install exited $?: $out"
echo "$out" | tail -1
[ "$(echo "$out" | grep -c '^installed ')" = 33 ] || fail "33 installed expected: $out"
echo "$out" | tail -1 | grep -q ": 33 installed, 0 present, 0 missing, 0 with another digest$" || fail "summary: $out"
(cd "$fw" && for f in "$RIG_FIRMWARE_DIR"/*.bin; do
	b2sum -l 256 "$f" | awk '{print $1}' > "$scratch/sum"
	grep -q "^$(cat "$scratch/sum") .* $(basename "$f")$" "$fw/SHA-BLAKE2B-256" || fail "digest of $f"
done) || exit 1
out=$("$rig" firmware amd --from "$fw") || fail "second install exited $?"
[ "$(echo "$out" | grep -c '^present ')" = 33 ] || fail "33 present expected: $out"
# --to DIR: the destination as a flag, over RIG_FIRMWARE_DIR.
out=$("$rig" firmware amd --from "$fw" --to "$scratch/to") || fail "--to exited $?: $out"
echo "$out" | tail -1 | grep -q "^$scratch/to: 33 installed, 0 present, 0 missing, 0 with another digest$" || fail "--to summary: $out"
[ "$(ls "$scratch/to" | wc -l)" = 33 ] || fail "--to: $(ls "$scratch/to")"
[ -z "$(ls -A "$scratch/installed" | grep -v '\.bin$')" ] || fail "leftovers"
if "$rig" firmware amd --to 2> "$scratch/err"; then fail "--to without DIR succeeded"; fi
grep -q "^rig: firmware amd: \[--from DIR\]... \[--to DIR\]$" "$scratch/err" || fail "--to usage: $(cat "$scratch/err")"

export RIG_FIRMWARE_DIR="$scratch/other"
mkdir -p "$scratch/empty"
if "$rig" firmware amd --from "$scratch/empty" > "$scratch/out" 2> "$scratch/err"; then fail "an empty source succeeded"; fi
grep -q "^missing  *psp_13_0_0_sos.bin$" "$scratch/out" || fail "missing line: $(cat "$scratch/out")"
grep -q "^rig: 33 pinned images are not installed$" "$scratch/err" || fail "stderr: $(cat "$scratch/err")"

"$rig" --help | grep -q "^    rig firmware amd \[--from DIR\]... \[--to DIR\]$" || fail "help"
"$rig" -h | grep -q "^    rig -h | --help$" || fail "-h"
"$rig" devices --help | grep -q "^SYNOPSIS$" || fail "devices --help"
"$rig" version | grep -q "^rig [0-9]*\.[0-9]*\.[0-9]*$" || fail "version"
"$rig" --version | grep -q "^rig [0-9]*\.[0-9]*\.[0-9]*$" || fail "--version"
[ "$("$rig" firmware amd --version)" = "$("$rig" version)" ] || fail "firmware amd --version"
if "$rig" frobnicate 2> "$scratch/err"; then fail "unknown command succeeded"; fi
grep -q "^rig: unknown command frobnicate$" "$scratch/err" || fail "unknown: $(cat "$scratch/err")"
if "$rig" detach x 2> "$scratch/err"; then fail "detach x succeeded"; fi
grep -q "^rig: detach: one GPU number, such as 0$" "$scratch/err" || fail "detach x: $(cat "$scratch/err")"
if "$rig" --root "$scratch/nomachine" reset 0 2> "$scratch/err"; then fail "reset of no GPU succeeded"; fi
grep -q "^rig: rig_amd_pci_reset: no GPU 0: the machine has 0 AMD GPUs$" "$scratch/err" || fail "reset 0: $(cat "$scratch/err")"
"$rig" --root "$scratch/nomachine" devices | grep -q "^AMD GPUs over PCI (0):$" || fail "devices"
# Disks: DISK, and DISK:1 beside it (each its own loop).
"$rig" --root "$scratch/nomachine" devices | grep -q "^  DISK:1\.\.\.  files " || fail "devices: no DISK:1"
# A machine with one GPU amdgpu holds (a fake sysfs tree).
D=$scratch/m/sys/bus/pci/devices/0000:03:00.0
mkdir -p "$D/ip_discovery/die/0/11/0" "$scratch/m/sys/bus/pci/drivers/amdgpu"
echo 0x1002 > "$D/vendor"; echo 0x744c > "$D/device"; echo 0x030000 > "$D/class"
printf '0x%016x 0x%016x 0x%016x\n' 0x7000000000 0x701fffffff 0x14220c 0 0 0 > "$D/resource"
ln -s ../../drivers/amdgpu "$D/driver"
echo 11 > "$D/ip_discovery/die/0/11/0/major"; echo 0 > "$D/ip_discovery/die/0/11/0/minor"
echo 0 > "$D/ip_discovery/die/0/11/0/revision"
out=$("$rig" --root "$scratch/m" devices) || fail "devices exited $?"
echo "$out" | grep -q "^  AMD-PCI    0000:03:00.0   744c   11.0.0   amdgpu$" || fail "devices: $out"
if "$rig" --root "$scratch/m" doctor 0 --from "$fw" > "$scratch/out"; then fail "doctor passed amdgpu's GPU"; fi
grep -q "^  FAIL  driver: amdgpu is bound; fix: rig detach 0$" "$scratch/out" || fail "doctor: $(cat "$scratch/out")"
grep -q "^  pass  gc_12_0_1_rlc.bin: $fw/gc_12_0_1_rlc.bin, BLAKE2b-256 [0-9a-f]\{64\} as pinned$" "$scratch/out" || fail "doctor firmware: $(cat "$scratch/out")"
rm -rf "$scratch"
echo "ok"
