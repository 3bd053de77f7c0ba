#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a libFuzzer target on its seed corpus for a bounded time.
# Usage: run_fuzz.sh FUZZER CORPUS_TOOL WORKDIR fw|discovery; the real images
# come from RIG_TEST_FIRMWARE (none: the firmware corpus is empty).
# RIG_FUZZ_SECONDS (default 60) bounds the run (-max_total_time). -max_len is
# the largest seed's size, so every real image reaches the parser whole (a
# cut one fails its size_bytes check first and tests nothing else); the
# small and short images fuzz_corpus lays out are where mutations pay.
set -eu
fuzzer=$1 corpus_tool=$2 work=$3 which=$4 fw=${RIG_TEST_FIRMWARE:-}
secs=${RIG_FUZZ_SECONDS:-60}
mkdir -p "$work"; rm -rf "$work/seed-fw" "$work/seed-discovery" "$work/run-$which"
"$corpus_tool" "$fw" "$work/seed-fw" "$work/seed-discovery"
mkdir -p "$work/run-$which"
max_len=$(find "$work/seed-$which" -type f -exec wc -c {} + |
	awk '$2 != "total" && $1 > m { m = $1 } END { print m + 0 }')
[ "$max_len" -ge 4096 ] || max_len=4096
exec "$fuzzer" -max_total_time="$secs" -max_len="$max_len" -rss_limit_mb=2048 \
	-print_final_stats=1 "$work/run-$which" "$work/seed-$which"
