#!/bin/sh
# SPDX-License-Identifier: MIT
# check_amd_includes.sh SRC_AMD: the AMD path is a driver, so its files
# include rig_edge.h (the driver contract), its own public header
# rig_amd_pci.h and its own headers (amd/...), and nothing else of rig's:
# no rig.h, nothing of src/core or another part. Prints each offending
# line; exits 1 if there is one.
set -eu
dir=$1
bad=$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "$dir" \
	--include='*.c' --include='*.h' |
	grep -vE '#[[:space:]]*include[[:space:]]*<[^>]*>' |
	grep -vE '#[[:space:]]*include[[:space:]]*"(rig_edge\.h|rig_amd_pci\.h|amd/[^"]+)"' || true)
rig_angle=$(grep -rnE '#[[:space:]]*include[[:space:]]*<(rig[^>]*|core/[^>]*)>' "$dir" \
	--include='*.c' --include='*.h' |
	grep -vE '<(rig_edge|rig_amd_pci)\.h>' || true)
if [ -n "$bad$rig_angle" ]; then
	printf 'src/amd includes what is not rig_edge.h or its own:\n%s%s\n' \
		"$bad" "$rig_angle"
	exit 1
fi
echo "src/amd includes only rig_edge.h and its own headers"
