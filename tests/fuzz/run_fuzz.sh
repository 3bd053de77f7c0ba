#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a libFuzzer target on its seed corpus for a bounded time.
# Usage: run_fuzz.sh FUZZER CORPUS_TOOL WORKDIR fw|discovery; the real images
# come from RIG_TEST_FIRMWARE (none: the firmware corpus is empty).
# RIG_FUZZ_SECONDS (default 60) bounds the run (-max_total_time). Inputs stay
# under 8 KiB: the real images of the corpus are cut there, and the small
# images fuzz_corpus lays out carry every format's paths.
set -eu
fuzzer=$1 corpus_tool=$2 work=$3 which=$4 fw=${RIG_TEST_FIRMWARE:-}
secs=${RIG_FUZZ_SECONDS:-60}
mkdir -p "$work"; rm -rf "$work/seed-fw" "$work/seed-discovery" "$work/run-$which"
"$corpus_tool" "$fw" "$work/seed-fw" "$work/seed-discovery"
mkdir -p "$work/run-$which"
exec "$fuzzer" -max_total_time="$secs" -max_len=8192 -rss_limit_mb=2048 \
	-print_final_stats=1 "$work/run-$which" "$work/seed-$which"
