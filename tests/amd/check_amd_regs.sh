#!/bin/sh
# SPDX-License-Identifier: MIT
# check_amd_regs.sh SOURCE_ROOT WORKDIR: src/amd/regs/names.h and tables.c
# are what scripts/amd_regs.py writes from src/amd/regs/regs.def (the
# tables are generated, never edited); prints the difference and exits 1.
set -eu
root=$1 work=$2
rm -rf "$work"; mkdir -p "$work"
python3 "$root/scripts/amd_regs.py" c "$root/src/amd/regs/regs.def" "$work"
status=0
for f in names.h tables.c; do
	diff -u "$root/src/amd/regs/$f" "$work/$f" || status=1
done
[ $status = 0 ] && echo "src/amd/regs is what regs.def generates"
exit $status
