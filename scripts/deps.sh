#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/deps.sh: install the Debian 12 packages rig builds, tests and
# benchmarks with, where any is missing. Quiet when all are present.
set -euo pipefail
cd "$(dirname "$0")/.."

# g++ and clang-14's clang++ build tests/cxx (C++17 against the headers).
packages=(build-essential g++ pkg-config meson ninja-build python3
	liburcu-dev liburing-dev libpci-dev pciutils libb2-dev libck-dev libucx-dev
	libcmocka-dev clang-14 libclang-rt-14-dev
	groff-base man-db)
# The benchmarks' peers and chart (bench/packages.txt), where present.
if [ -f bench/packages.txt ]; then
	while read -r p; do
		[ -n "$p" ] && [ "${p#\#}" = "$p" ] && packages+=("$p")
	done < bench/packages.txt
fi

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
