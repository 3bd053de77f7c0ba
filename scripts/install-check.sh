#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/install-check.sh [BUILD] [--subproject]: rig as a user gets it.
# `meson install`s BUILD (default build/) into a temporary tree, then checks
# what a program outside the tree sees there: the installed rig command
# starts with no LD_LIBRARY_PATH and answers --version and --help;
# pkg-config's flags are -I and -lrig only; librig exports only rig_
# names; a C++17 program built with g++ and clang++ runs a submit; and
# every example builds from its own folder with its Makefile and runs.
# --subproject also builds a project that takes rig as a meson subproject
# through dependency('rig') with no fallback (it compiles librig again:
# slow on a small machine, so not by default). Prints one closing line,
# "N passed, N failed"; exits 1 when any check failed.
set -uo pipefail
cd "$(dirname "$0")/.."
src=$PWD build=build subproject=0
for a in "$@"; do
	case $a in
	--subproject) subproject=1 ;;
	-*) echo "usage: scripts/install-check.sh [BUILD] [--subproject]" >&2; exit 2 ;;
	*) build=$a ;;
	esac
done
[ -d "$build" ] || { echo "no build folder $build: run ./check first" >&2; exit 2; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
pass() { echo "  pass  $*"; passed=$((passed + 1)); }
fail() { echo "  FAIL  $*"; failed=$((failed + 1)); }
# check WHAT COMMAND...: COMMAND's output goes to a log shown on failure.
check() {
	local what=$1; shift
	if "$@" > "$tmp/log" 2>&1; then pass "$what"; else fail "$what"; sed 's/^/        /' "$tmp/log" | tail -20; fi
}

stage=$tmp/stage
if ! meson install -C "$build" --destdir "$stage" > "$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	fail "meson install -C $build"
	echo "$passed passed, $failed failed"
	exit 1
fi
read -r prefix libdir bindir < <(meson introspect "$build" --buildoptions | python3 -c '
import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print(o["prefix"], o["libdir"], o["bindir"])')
case $libdir in /*) ;; *) libdir=$prefix/$libdir ;; esac
case $bindir in /*) ;; *) bindir=$prefix/$bindir ;; esac
echo "installed into $stage (prefix $prefix)"
# pkg-config reads the staged rig.pc and puts the stage before its paths,
# as it would for a sysroot; at run time the loader finds the staged
# librig as it would find one ldconfig knows of.
export PKG_CONFIG_PATH=$stage$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
unset PKG_CONFIG_LIBDIR
lib=$stage$libdir/librig.so.0

# The rig command, with no help finding its library.
check "rig --version starts from $bindir (rpath $(readelf -d "$stage$bindir/rig" | sed -n 's/.*R.*PATH.*\[\(.*\)\]/\1/p'))" \
	env -u LD_LIBRARY_PATH "$stage$bindir/rig" --version
check "rig --help" sh -c "'$stage$bindir/rig' --help | grep -q '^SYNOPSIS'"

# pkg-config: the installed headers and -lrig, nothing of rig's own deps.
cflags=$(pkg-config --cflags rig) libs=$(pkg-config --libs rig)
echo "  pkg-config --cflags --libs rig: $cflags $libs"
check "pkg-config --cflags has no -D (ck's -D__x86_64__)" sh -c "! echo '$cflags' | grep -q -- '-D'"
check "pkg-config --libs is -L and -lrig" sh -c "[ \"\$(echo $libs | tr ' ' '\n' | grep -v '^-L' | tr '\n' ' ')\" = '-lrig ' ]"

# The installed library's exports.
nm -D --defined-only "$lib" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' > "$tmp/exports"
check "nm -D $(basename "$lib"): $(wc -l < "$tmp/exports") names, every one rig_" \
	sh -c "! grep -v '^rig_' '$tmp/exports'"

export LD_LIBRARY_PATH=$stage$libdir
# A C++17 program against the installed headers, by each C++ compiler.
for cxx in g++ clang++; do
	command -v $cxx > /dev/null || { echo "  skip  $cxx: not found"; continue; }
	check "$cxx -std=c++17: tests/cxx/test_cxx.cc builds and runs" sh -c \
		"$cxx -std=c++17 -Wall -Wextra -Wpedantic -Werror $cflags '$src/tests/cxx/test_cxx.cc' -o '$tmp/test_cxx_$cxx' $libs && '$tmp/test_cxx_$cxx'"
done

# Every example from a copy of its folder, with its own Makefile.
cp -r "$src/examples" "$tmp/examples"
for d in "$tmp"/examples/*/; do
	n=$(basename "$d")
	[ -f "$d/Makefile" ] || { fail "$n has no Makefile"; continue; }
	check "examples/$n: make && ./$n" sh -c "cd '$d' && make -s && ./$n"
done

# rig as a meson subproject, found by dependency('rig') alone.
if [ $subproject = 1 ]; then
	p=$tmp/user
	mkdir -p "$p/subprojects"
	mkdir -p "$p/subprojects/rig"
	if git -C "$src" rev-parse --git-dir > /dev/null 2>&1; then
		git -C "$src" ls-files -z | (cd "$src" && tar --null -T - -cf -)
	else
		tar -C "$src" --exclude='./build*' --exclude=./subprojects -cf - .
	fi | tar -xf - -C "$p/subprojects/rig"
	cp "$src/examples/02-buffers/main.c" "$p/main.c"
	cat > "$p/meson.build" <<'EOT'
project('user', 'c', default_options : ['rig:tests=false', 'rig:bench=false'])
subproject('rig')
executable('user', 'main.c', dependencies : dependency('rig'))
EOT
	unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR LD_LIBRARY_PATH
	check "a subproject: dependency('rig') with no fallback builds and runs" sh -c \
		"meson setup '$p/build' '$p' && ninja -C '$p/build' && '$p/build/user'"
fi
echo "$passed passed, $failed failed"
[ $failed = 0 ]
