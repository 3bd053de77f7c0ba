#!/bin/sh
# SPDX-License-Identifier: MIT
# test_spdx: every source file of the tree (C, C++, headers, meson, shell,
# Python, Makefiles, the symbol map, suppression and package lists) names
# its license in an SPDX-License-Identifier line within its first 3 lines,
# and LICENSE is there. Argument: the source root; without one, the tree
# this script lies in (its parent folder), so it runs by hand as well.
set -u
cd "${1:-$(dirname "$0")/..}" || exit 1
[ -f LICENSE ] || { echo "FAIL: no LICENSE"; exit 1; }
# One head and one awk for the whole tree (not two programs a file: a
# thousand forks took half the test's timeout on a loaded machine).
find . \( -path './build*' -o -path './subprojects' -o -path './.git' \
		-o -path './.gl' -o -path './.whl' \) -prune -o -type f \( -name '*.c' \
		-o -name '*.h' -o -name '*.cc' -o -name '*.py' -o -name '*.sh' \
		-o -name '*.map' -o -name '*.supp' -o -name '*.txt' -o -name 'Makefile' \
		-o -name meson.build -o -name meson_options.txt -o -name check \
		-o -name setup -o -name run \) -print0 |
	xargs -0 -r head -v -n 3 -- |
	awk 'function done() {
		n++
		if (!ok) { print "FAIL: " f " has no SPDX-License-Identifier line"; bad++ }
	}
	/^==> .* <==$/ { if (f != "") done(); f = substr($0, 5, length($0) - 8); ok = 0; next }
	/SPDX-License-Identifier: MIT/ { ok = 1 }
	END {
		if (f != "") done()
		if (!bad) print "ok: " n " source files name their license (MIT)"
		exit bad != 0
	}'
