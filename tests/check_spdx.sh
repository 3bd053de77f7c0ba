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
n=0 bad=0
for f in $(find . \( -path './build*' -o -path './subprojects' -o -path './.git' \
		-o -path './.gl' -o -path './.whl' \) -prune -o -type f \( -name '*.c' \
		-o -name '*.h' -o -name '*.cc' -o -name '*.py' -o -name '*.sh' \
		-o -name '*.map' -o -name '*.supp' -o -name '*.txt' -o -name 'Makefile' \
		-o -name meson.build -o -name meson_options.txt -o -name check \
		-o -name setup -o -name run \) -print); do
	n=$((n + 1))
	head -n 3 "$f" | grep -q 'SPDX-License-Identifier: MIT' ||
		{ echo "FAIL: $f has no SPDX-License-Identifier line"; bad=$((bad + 1)); }
done
[ $bad = 0 ] && echo "ok: $n source files name their license (MIT)"
[ $bad = 0 ]
