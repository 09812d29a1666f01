#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Another DPDK release, from Debian's own packages, in a chroot.
#
#   ./devtools/chroot.sh SERIES [CMD...]
#
# SERIES is a DPDK LTS series Debian ships besides the host's: 24.11
# (Debian 13, trixie) or 25.11 (Debian forky). The first call makes the
# chroot with debootstrap under $REFNIC_CACHE/chroot/SERIES and installs
# that release's DPDK and the project's build and test packages in it; later
# calls reuse it. CMD (default: an interactive shell) runs inside, in this
# checkout, which is bound at the same path, with /proc, /sys, /dev and
# /dev/shm bound in. Each run has a mount namespace of its own: nothing stays
# mounted after it, and two runs side by side do not disturb each other.
#
# Inside, builds go to build-SERIES/ (and build-SERIES-sanitize/, ...) so
# that each release's build sits beside the host's, and the driver SDK comes
# from a DPDK source tree of that series: $REFNIC_DPDK_SRC if it is set,
# else SERIES/ under $REFNIC_DPDK_SRCS (default: ../shared/dpdk-src beside
# the checkout, where it exists), else Debian's source package (apt-get source).
#
# Root only (debootstrap, chroot, mount). Sourced by test.sh and bench.sh.
set -euo pipefail

REFNIC_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REFNIC_CACHE=${REFNIC_CACHE:-${HOME:-/root}/.cache/refnic}
REFNIC_MIRROR=${REFNIC_MIRROR:-http://deb.debian.org/debian}

# What the chroots need before setup.sh runs inside them; setup.sh installs
# the rest (its PACKAGES), the same way it does on the host.
REFNIC_CHROOT_BASE="ca-certificates iproute2 procps util-linux kmod"

chroot_say() { printf 'refnic-chroot: %s\n' "$*" >&2; }

# The Debian suite (and debootstrap script) that ships a DPDK series.
refnic_chroot_suite() {
	case $1 in
	24.11) echo trixie ;;
	25.11) echo forky ;;
	*) return 1 ;;
	esac
}

# The DPDK series a chroot can hold.
REFNIC_CHROOT_SERIES="24.11 25.11"

refnic_chroot_dir() { echo "$REFNIC_CACHE/chroot/$1"; }

# The DPDK source tree a chroot's build takes its SDK files from, if any.
refnic_chroot_dpdk_src() {
	local series=$1 srcs
	if [ -n "${REFNIC_DPDK_SRC:-}" ]; then
		echo "$REFNIC_DPDK_SRC"
		return 0
	fi
	srcs=${REFNIC_DPDK_SRCS:-$REFNIC_TOP/../shared/dpdk-src}
	[ -d "$srcs/$series" ] && (cd "$srcs/$series" && pwd)
	return 0
}

# Make the chroot for SERIES unless a complete one is cached.
refnic_chroot_make() {
	local series=$1 suite dir script=() log got
	suite=$(refnic_chroot_suite "$series") ||
		{ chroot_say "no chroot for DPDK $series: the series are $REFNIC_CHROOT_SERIES"; return 1; }
	dir=$(refnic_chroot_dir "$series")
	[ -f "$dir/.refnic-ready" ] && return 0
	command -v debootstrap >/dev/null || {
		chroot_say "installing debootstrap"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
	} || { chroot_say "cannot install debootstrap"; return 1; }
	# Debian's debootstrap may not know the newest suite by name yet.
	[ -e "/usr/share/debootstrap/scripts/$suite" ] ||
		script=(/usr/share/debootstrap/scripts/sid)
	log=$REFNIC_CACHE/chroot/$series.log
	mkdir -p "$REFNIC_CACHE/chroot"
	if [ ! -f "$dir.new/.refnic-debootstrapped" ]; then
		chroot_say "making a Debian $suite chroot for DPDK $series in $dir (log: $log)"
		rm -rf --one-file-system "$dir.new"
		debootstrap --variant=minbase "$suite" "$dir.new" "$REFNIC_MIRROR" "${script[@]}" \
			>"$log" 2>&1 || { chroot_say "debootstrap failed: see $log"; return 1; }
		touch "$dir.new/.refnic-debootstrapped"
	fi
	# A testing suite's Release file may be served past its Valid-Until.
	echo 'Acquire::Check-Valid-Until "false";' >"$dir.new/etc/apt/apt.conf.d/99refnic"
	cp /etc/resolv.conf "$dir.new/etc/resolv.conf" 2>/dev/null || true
	chroot_say "installing DPDK $series and the build packages in the chroot"
	chroot "$dir.new" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive sh -c \
		"apt-get update -qq && apt-get install -y -qq --no-install-recommends \
			$REFNIC_CHROOT_BASE libdpdk-dev" >>"$log" 2>&1 ||
		{ chroot_say "installing packages in the chroot failed: see $log"; return 1; }
	got=$(chroot "$dir.new" pkg-config --modversion libdpdk 2>/dev/null | cut -d. -f1-2) || got=
	if [ "$got" != "$series" ]; then
		chroot_say "Debian $suite ships DPDK ${got:-none}, not $series"
		return 1
	fi
	touch "$dir.new/.refnic-ready"
	mv "$dir.new" "$dir"
}

# Run CMD in the chroot of SERIES, in this checkout, in a mount namespace of
# its own (the binds vanish with it).
refnic_chroot_run() {
	local series=$1 dir src cmd
	shift
	refnic_chroot_make "$series" || return 1
	dir=$(refnic_chroot_dir "$series")
	src=$(refnic_chroot_dpdk_src "$series")
	if [ $# -eq 0 ]; then
		set -- bash
	fi
	printf -v cmd '%q ' "$@"
	# shellcheck disable=SC2016
	unshare --mount --propagation private /usr/bin/env \
		dir="$dir" top="$REFNIC_TOP" src="$src" bash -euc '
		# Its root a mount point, as a system root is: unshare -m and
		# ip netns inside it change the propagation of the root mount.
		mount --bind "$dir" "$dir"
		mount --rbind /dev "$dir/dev"
		mount -t proc proc "$dir/proc"
		mount --rbind /sys "$dir/sys"
		mkdir -p "$dir$top"
		mount --bind "$top" "$dir$top"
		if [ -n "$src" ]; then
			mkdir -p "$dir$src"
			mount --bind -o ro "$src" "$dir$src"
		fi
		exec chroot "$dir" "$@"' refnic-chroot /usr/bin/env -i \
		HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" ${CI:+CI="$CI"} \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		REFNIC_DPDK_SRC="$src" \
		REFNIC_BUILD="$REFNIC_TOP/build-$series" \
		REFNIC_SANITIZE_BUILD="$REFNIC_TOP/build-$series-sanitize" \
		REFNIC_FUZZ_BUILD="$REFNIC_TOP/build-$series-fuzz" \
		REFNIC_TSAN_BUILD="$REFNIC_TOP/build-$series-tsan" \
		${REFNIC_TEST_DEVARGS:+REFNIC_TEST_DEVARGS="$REFNIC_TEST_DEVARGS"} \
		bash -c "cd $(printf '%q' "$REFNIC_TOP") && exec $cmd"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	[ $# -ge 1 ] || { echo "usage: $0 SERIES [CMD...]  (SERIES: $REFNIC_CHROOT_SERIES)" >&2; exit 2; }
	[ "$(id -u)" = 0 ] || { chroot_say "needs root (debootstrap, chroot, mount)"; exit 1; }
	refnic_chroot_run "$@"
fi
