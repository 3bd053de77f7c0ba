#!/bin/sh
# SPDX-License-Identifier: MIT
# test_headers: every public header compiles alone, with -Wall -Wextra
# -pedantic -Werror, as C11 (gcc, clang) and as C++17 (g++, clang++), and
# rig.h does not bring in the driver contract or its C11 atomics.
# Argument: the folder of the public headers. A compiler that is missing
# is left out, a language with none is named; nothing to run is a skip (77).
# Each compiler takes every header's file in one run (each file its own
# translation unit, so each header still compiles alone): a few programs
# in all, not one a header, which a loaded machine ran past 30 s.
set -u
inc=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
flags="-Wall -Wextra -pedantic -Werror -fsyntax-only -I$inc"
fail=0 runs=0

first() {	# the first of the named programs found
	for p in "$@"; do command -v "$p" >/dev/null 2>&1 && { echo "$p"; return; }; done
}
for lang in c c++; do
	if [ $lang = c ]; then std=-std=c11 ext=c cs="$(first gcc) $(first clang clang-14)"
	else std=-std=c++17 ext=cc cs="$(first g++) $(first clang++ clang++-14)"; fi
	[ -n "$(echo $cs)" ] || { echo "skipped: no $lang compiler"; continue; }
	files=
	for h in "$inc"/rig*.h; do
		b=$(basename "$h")
		printf '#include "%s"\n#include "%s"\n' "$b" "$b" > "$tmp/$b.$ext"
		files="$files $tmp/$b.$ext"
	done
	# rig.h alone: no rig_edge.h, no atomics.
	cat > "$tmp/alone.$ext" <<'EOT'
#include "rig.h"
#if defined(RIG_EDGE_H) || defined(RIG_ATOMIC) || defined(ATOMIC_VAR_INIT) || \
    defined(_GLIBCXX_ATOMIC) || defined(_LIBCPP_ATOMIC)
#error rig.h brings in the driver contract or atomics
#endif
EOT
	for c in $cs; do
		runs=$((runs + $(echo $files | wc -w) + 1))
		# shellcheck disable=SC2086
		$c $std $flags $files "$tmp/alone.$ext" 2> "$tmp/err" ||
			{ echo "FAIL: $c $std (each file is a header, alone.$ext is rig.h alone):"
			  sed "s|$tmp/||g" "$tmp/err"; fail=1; }
	done
done
[ $runs = 0 ] && { echo "no compiler found: skipped"; exit 77; }
[ $fail = 0 ] && echo "ok: $runs compiles of the headers in $inc"
exit $fail
