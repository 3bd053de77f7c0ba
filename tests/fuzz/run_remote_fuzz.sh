#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/run_remote_fuzz.sh FUZZER CORPUS_TOOL WORKDIR SECONDS: write one
# message of every type as the seed corpus, then fuzz the agent's decoder.
set -eu
fuzzer=$1 corpus_tool=$2 work=$3 secs=$4
rm -rf "$work"; mkdir -p "$work/seed" "$work/run"
"$corpus_tool" "$work/seed"
exec "$fuzzer" -max_total_time="$secs" -max_len=8192 -rss_limit_mb=2048 \
	-print_final_stats=1 "$work/run" "$work/seed"
