#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up a machine to build refnic, then build it.
#
#  1. Installs what is missing from Debian's packages (DPDK 22.11, meson, ...).
#  2. Stages the DPDK driver SDK headers Debian does not ship (ethdev_driver.h,
#     bus_vdev_driver.h, ...) and the build tools that generate a PMD's info
#     strings (pmdinfogen) into a cache outside the repository: from the DPDK
#     source tree named by REFNIC_DPDK_SRC (of the installed DPDK's series),
#     else from Debian's source package of exactly the installed version.
#  3. Configures and builds ./build.
#
# Idempotent: a second run only rebuilds. Sourced by demo.sh and test.sh.
#
# Environment: REFNIC_DPDK_SRC (a DPDK source tree for the SDK files),
# REFNIC_CACHE (default ~/.cache/refnic), REFNIC_BUILD (build),
# REFNIC_SANITIZE_BUILD (build-sanitize: ASan+UBSan, made by test.sh),
# REFNIC_FUZZ_BUILD (build-fuzz: clang, libFuzzer, made by test.sh and bench.sh),
# REFNIC_TSAN_BUILD (build-tsan: clang, ThreadSanitizer, made by test.sh).
set -euo pipefail

REFNIC_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REFNIC_CACHE=${REFNIC_CACHE:-${HOME:-/root}/.cache/refnic}
REFNIC_BUILD=${REFNIC_BUILD:-$REFNIC_TOP/build}
REFNIC_SANITIZE_BUILD=${REFNIC_SANITIZE_BUILD:-$REFNIC_TOP/build-sanitize}
REFNIC_FUZZ_BUILD=${REFNIC_FUZZ_BUILD:-$REFNIC_TOP/build-fuzz}
REFNIC_TSAN_BUILD=${REFNIC_TSAN_BUILD:-$REFNIC_TOP/build-tsan}

# The driver SDK headers a vdev ethdev PMD needs, by path in DPDK's source.
SDK_HEADERS="lib/ethdev/ethdev_driver.h lib/ethdev/ethdev_vdev.h
	drivers/bus/vdev/bus_vdev_driver.h lib/eal/include/dev_driver.h
	lib/eal/include/bus_driver.h"

# Driver SDK headers that older releases install with DPDK, taken from the
# source where it has them: rte_flow_driver.h (since 25.11; without it the
# port has no rte_flow).
SDK_OPTIONAL_HEADERS="lib/ethdev/rte_flow_driver.h"

# DPDK's build tools that embed the PMD_INFO_STRING dpdk-pmdinfo.py reads
# (driver name, devargs), with what they import; by path in DPDK's source.
SDK_BUILDTOOLS="buildtools/gen-pmdinfo-cfile.py buildtools/pmdinfogen.py
	buildtools/coff.py"

# python3-pyelftools: pmdinfogen and dpdk-pmdinfo.py read ELF with it.
# python3-pytest: the integration suite. dpdk-doc: DPDK's example
# applications, built (make) and run on refnic ports by the integration suite.
# gnuplot-nox: refnic-pingpong --plot, checked by the integration suite.
# linuxptp: ptp4l, the PTP master DPDK's ptpclient syncs to in the suite.
# debhelper, build-essential: the Debian package (debian/), built and
# installed by the suite. openvswitch-switch: Open vSwitch, the vxlan
# cable's peer in the suite, run there privately (its service stays off).
PACKAGES="dpdk dpdk-dev libdpdk-dev meson ninja-build gcc clang pkg-config dpkg-dev
	debhelper build-essential
	xz-utils python3 python3-pyelftools python3-pytest dpdk-doc make gnuplot-nox linuxptp
	openvswitch-switch"

say() { printf 'refnic-setup: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

install_packages() {
	local missing=() p
	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	say "installing: ${missing[*]}"
	as_root apt-get update -qq
	# Maintainer scripts start a package's service (openvswitch-switch:
	# ovsdb-server and ovs-vswitchd, in a chroot as on the host); the tests
	# run their own. policy-rc.d's 101 ("forbidden") holds for the install,
	# unless the machine has a policy of its own.
	local policy=/usr/sbin/policy-rc.d made_policy="" rc=0
	if [ ! -e "$policy" ]; then
		printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null
		as_root chmod 755 "$policy"
		made_policy=1
	fi
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null || rc=$?
	[ -z "$made_policy" ] || as_root rm -f "$policy"
	return "$rc"
}

# apt-get source needs a deb-src entry; mirror the machine's deb entries.
ensure_deb_src() {
	local f=/etc/apt/sources.list.d/refnic-deb-src.sources
	if grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		return 0
	fi
	say "adding deb-src entries ($f)"
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
			as_root tee "$f" >/dev/null
	elif grep -qs '^deb ' /etc/apt/sources.list; then
		grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
			as_root tee /etc/apt/sources.list.d/refnic-deb-src.list >/dev/null
	else
		die "no Debian apt source found to derive a deb-src entry from"
	fi
	as_root apt-get update -qq
}

# The installed DPDK's series (22.11, 24.11, ...): what its driver SDK must match.
installed_series() {
	pkg-config --modversion libdpdk | cut -d. -f1-2
}

# Copy the SDK files from the DPDK source tree SRC into DIR: include/
# (headers), buildtools/ (pmdinfogen), VERSION, ABI_VERSION.
copy_sdk() {
	local src=$1 dir=$2 h t
	rm -rf "$dir.new"
	mkdir -p "$dir.new/include" "$dir.new/buildtools"
	for h in $SDK_HEADERS; do
		cp -p "$src/$h" "$dir.new/include/" || return 1
	done
	for h in $SDK_OPTIONAL_HEADERS; do
		[ ! -f "$src/$h" ] || cp -p "$src/$h" "$dir.new/include/" || return 1
	done
	for t in $SDK_BUILDTOOLS; do
		cp -p "$src/$t" "$dir.new/buildtools/" || return 1
	done
	cp -p "$src/VERSION" "$src/ABI_VERSION" "$dir.new/" || return 1
	rm -rf "$dir"
	mv "$dir.new" "$dir"
}

# Whether the staged SDK DIR holds what the source tree SRC has.
sdk_matches() {
	local src=$1 dir=$2 f
	for f in $SDK_HEADERS; do
		cmp -s "$src/$f" "$dir/include/${f##*/}" || return 1
	done
	for f in $SDK_OPTIONAL_HEADERS; do
		if [ -f "$src/$f" ]; then
			cmp -s "$src/$f" "$dir/include/${f##*/}" || return 1
		else
			[ ! -e "$dir/include/${f##*/}" ] || return 1
		fi
	done
	for f in $SDK_BUILDTOOLS; do
		cmp -s "$src/$f" "$dir/buildtools/${f##*/}" || return 1
	done
	cmp -s "$src/VERSION" "$dir/VERSION" && cmp -s "$src/ABI_VERSION" "$dir/ABI_VERSION"
}

# The SDK from the DPDK source tree named by REFNIC_DPDK_SRC: a user's own
# checkout of the installed release, or a tree that holds just the SDK files
# at DPDK's paths. Its series must be the installed DPDK's.
stage_sdk_from_tree() {
	local src=$REFNIC_DPDK_SRC series tree_version sdk f
	series=$(installed_series)
	[ -f "$src/VERSION" ] ||
		die "REFNIC_DPDK_SRC=$src is not a DPDK source tree (no VERSION file): set REFNIC_DPDK_SRC to a DPDK $series source tree, or unset it to use Debian's source package"
	tree_version=$(cat "$src/VERSION")
	[ "$(echo "$tree_version" | cut -d. -f1-2)" = "$series" ] ||
		die "REFNIC_DPDK_SRC=$src is DPDK $tree_version but the installed DPDK is $(pkg-config --modversion libdpdk): set REFNIC_DPDK_SRC to a DPDK $series source tree"
	for f in $SDK_HEADERS $SDK_BUILDTOOLS ABI_VERSION; do
		[ -f "$src/$f" ] ||
			die "REFNIC_DPDK_SRC=$src lacks $f: set REFNIC_DPDK_SRC to a whole DPDK $series source tree"
	done
	# One staging per tree: two trees of one release may differ (a whole
	# one has rte_flow_driver.h).
	sdk=$REFNIC_CACHE/dpdk-sdk-tree-$tree_version-$(printf '%s' "$src" | cksum | cut -d' ' -f1)
	# Copied again only when the tree changed: unchanged files keep the
	# build from recompiling.
	sdk_matches "$src" "$sdk" || copy_sdk "$src" "$sdk" ||
		die "cannot copy the driver SDK from $src"
	echo "$sdk"
}

# Prints the SDK directory for the installed DPDK, staging it if needed:
# include/ (headers), buildtools/ (pmdinfogen), VERSION, ABI_VERSION. From
# REFNIC_DPDK_SRC if set, else from Debian's source package of exactly the
# installed version.
stage_sdk() {
	local src_pkg deb_ver up_ver sdk tmp
	if [ -n "${REFNIC_DPDK_SRC:-}" ]; then
		stage_sdk_from_tree
		return
	fi
	src_pkg=$(dpkg-query -W -f='${source:Package}' libdpdk-dev)
	deb_ver=$(dpkg-query -W -f='${Version}' libdpdk-dev)
	up_ver=$(pkg-config --modversion libdpdk)
	sdk=$REFNIC_CACHE/dpdk-sdk-$deb_ver
	if [ -f "$sdk/VERSION" ] && [ "$(cat "$sdk/VERSION")" = "$up_ver" ] &&
		[ -f "$sdk/buildtools/pmdinfogen.py" ]; then
		echo "$sdk"
		return 0
	fi
	ensure_deb_src
	say "fetching $src_pkg $deb_ver source for the driver SDK headers and pmdinfogen"
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get source -qq --download-only "$src_pkg=$deb_ver" >/dev/null 2>&1) ||
		die "apt-get source $src_pkg=$deb_ver failed: no deb-src entry reaches it. Set REFNIC_DPDK_SRC to a DPDK $(installed_series) source tree instead"
	(cd "$tmp" && dpkg-source -q -x ./*.dsc src >/dev/null 2>&1) ||
		die "cannot unpack $src_pkg $deb_ver source"
	copy_sdk "$tmp/src" "$sdk" || die "the driver SDK files are missing from $src_pkg $deb_ver"
	rm -rf "$tmp"
	echo "$sdk"
}

build() {
	local sdk=$1
	if [ ! -f "$REFNIC_BUILD/build.ninja" ]; then
		meson setup "$REFNIC_BUILD" "$REFNIC_TOP" -Ddpdk_sdk="$sdk" >/dev/null ||
			die "meson setup failed"
	else
		meson configure "$REFNIC_BUILD" -Ddpdk_sdk="$sdk" >/dev/null
	fi
	ninja -C "$REFNIC_BUILD" >/dev/null || { ninja -C "$REFNIC_BUILD"; die "build failed"; }
}

# Build only what a build directory is for (a third of the tree is apps and
# benches the sanitizer and fuzzer builds never run: CI's time).
build_targets() {
	local dir=$1
	shift
	[ $# -gt 0 ] || { say "nothing to build in $dir"; return 1; }
	ninja -C "$dir" "$@" >/dev/null || { ninja -C "$dir" "$@"; say "building $dir failed"; return 1; }
}

# The same tree built with AddressSanitizer and UndefinedBehaviorSanitizer
# (meson's b_sanitize) into $REFNIC_SANITIZE_BUILD, for the unit suites:
# out-of-bounds and use-after-free on the C heap, stack and globals (DPDK's
# own rte_malloc heap is not instrumented), undefined behaviour everywhere.
refnic_build_sanitized() {
	local sdk dir=$REFNIC_SANITIZE_BUILD
	sdk=$(stage_sdk) || return 1
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$REFNIC_TOP" -Ddpdk_sdk="$sdk" -Db_sanitize=address,undefined \
			-Db_lundef=false -Dc_args=-fno-sanitize-recover=undefined >/dev/null ||
			{ say "meson setup of $dir failed"; return 1; }
	fi
	build_targets "$dir" tests/refnic-unit-test
}

# The libFuzzer harnesses (tests/fuzz), built with clang, ASan and UBSan
# into $REFNIC_FUZZ_BUILD; the code they reach is instrumented for coverage.
refnic_build_fuzz() {
	local sdk dir=$REFNIC_FUZZ_BUILD
	sdk=$(stage_sdk) || return 1
	if [ ! -f "$dir/build.ninja" ]; then
		CC=clang meson setup "$dir" "$REFNIC_TOP" -Ddpdk_sdk="$sdk" -Dfuzz=true \
			-Db_sanitize=address,undefined -Db_lundef=false \
			-Dc_args=-fsanitize=fuzzer-no-link >/dev/null ||
			{ say "meson setup of $dir failed"; return 1; }
	fi
	# The list from build.ninja as meson makes it now (a new harness).
	ninja -C "$dir" build.ninja >/dev/null || { say "meson reconfigure of $dir failed"; return 1; }
	# shellcheck disable=SC2046
	build_targets "$dir" $(ninja -C "$dir" -t targets all |
		sed -n 's|^\(tests/refnic-fuzz-[^:]*\): c_LINKER.*|\1|p')
}

# The same tree built with ThreadSanitizer into $REFNIC_TSAN_BUILD, for the
# unit suites. clang: gcc's TSan refuses DPDK's rte_atomic_thread_fence()
# (-Werror=tsan). RTE_FORCE_INTRINSICS: DPDK's x86 headers otherwise take
# and release rte_spinlock with inline assembly, which TSan cannot see, and
# every section under a spinlock looks unlocked; with it they use the
# __atomic builtins TSan instruments (same lock word, same behaviour).
# devtools/tsan.supp lists what stays invisible inside DPDK's own
# (uninstrumented) libraries, each entry explained.
refnic_build_tsan() {
	local sdk dir=$REFNIC_TSAN_BUILD
	sdk=$(stage_sdk) || return 1
	if [ ! -f "$dir/build.ninja" ]; then
		CC=clang meson setup "$dir" "$REFNIC_TOP" -Ddpdk_sdk="$sdk" -Db_sanitize=thread \
			-Db_lundef=false -Dc_args=-DRTE_FORCE_INTRINSICS >/dev/null ||
			{ say "meson setup of $dir failed"; return 1; }
	fi
	build_targets "$dir" tests/refnic-unit-test
}

# Run one fuzzer: its regression inputs, then RUNS new inputs from its seed
# corpus (0: for SECONDS instead). Crash inputs land in $REFNIC_FUZZ_BUILD/crashes/.
refnic_fuzz() {
	local name=$1 runs=$2 seconds=${3:-0} bin corpus regress
	bin=$REFNIC_FUZZ_BUILD/tests/refnic-fuzz-$name
	corpus=$REFNIC_FUZZ_BUILD/corpus/$name
	regress=$REFNIC_TOP/tests/fuzz/regressions/$name
	mkdir -p "$corpus" "$REFNIC_FUZZ_BUILD/crashes"
	if [ -d "$regress" ] && [ -n "$(ls -A "$regress")" ]; then
		"$bin" "$regress"/* || return 1
	fi
	if [ "$runs" -gt 0 ]; then
		set -- -runs="$runs"
	else
		set -- -max_total_time="$seconds"
	fi
	"$bin" "$@" -artifact_prefix="$REFNIC_FUZZ_BUILD/crashes/$name-" \
		"$corpus" "$REFNIC_TOP/tests/fuzz/corpus/$name"
}

refnic_setup() {
	local sdk
	install_packages
	sdk=$(stage_sdk)
	build "$sdk"
	say "built $REFNIC_BUILD/drivers/librte_net_refnic.so"
}

# Copy the PMD where EAL accepts plugins: no world-writable directory above it.
# Prints the staged path.
refnic_stage_pmd() {
	# One folder per checkout: two checkouts testing at once (worktrees,
	# developers side by side) must not swap each other's PMD.
	local sum dir d
	sum=$(printf '%s' "$REFNIC_TOP" | cksum | cut -d' ' -f1)
	dir=$REFNIC_CACHE/pmd/$sum
	mkdir -p "$dir"
	d=$dir
	while [ "$d" != / ]; do
		if [ -n "$(find "$d" -maxdepth 0 -perm -o+w 2>/dev/null)" ]; then
			dir=/var/lib/refnic/pmd/$sum
			mkdir -p "$dir"
			chmod 755 /var/lib/refnic /var/lib/refnic/pmd "$dir"
			break
		fi
		d=$(dirname "$d")
	done
	install -m 755 "$REFNIC_BUILD/drivers/librte_net_refnic.so" "$dir/"
	echo "$dir/librte_net_refnic.so"
}

# DPDK multi-process needs hugepages: at least $1 free 2 MiB pages and
# hugetlbfs mounted; reserved here if not (root).
refnic_hugepages() {
	local need=$1 free
	if ! grep -qw hugetlbfs /proc/mounts; then
		mkdir -p /dev/hugepages && mount -t hugetlbfs nodev /dev/hugepages || return 1
	fi
	free=$(awk '/^HugePages_Free/ { print $2 }' /proc/meminfo)
	if [ "$free" -lt "$need" ]; then
		echo $(($(awk '/^HugePages_Total/ { print $2 }' /proc/meminfo) + need - free)) \
			>/proc/sys/vm/nr_hugepages || return 1
		free=$(awk '/^HugePages_Free/ { print $2 }' /proc/meminfo)
	fi
	[ "$free" -ge "$need" ] || { say "only $free free hugepages, $need needed"; return 1; }
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	refnic_setup
fi
