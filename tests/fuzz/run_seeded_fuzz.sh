#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/run_seeded_fuzz.sh FUZZER CORPUS_DIR SECONDS SEED...: copy the seed
# files into a fresh corpus directory and fuzz for SECONDS (libFuzzer).
set -eu
fuzzer=$1; corpus=$2; seconds=$3; shift 3
rm -rf "$corpus"
mkdir -p "$corpus"
cp "$@" "$corpus"/
exec "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 "$corpus"
