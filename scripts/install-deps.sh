#!/bin/sh
# What building and testing need, from the distribution only: a C
# compiler, make, pkg-config, libunwind, libdw/libelf (elfutils), zlib
# (pprof output is gzipped), libcurl (--push) and ncurses (--top's
# screen) to build;
# cmocka, a C++ compiler (a C++ target program) and binutils (strip,
# objcopy: stripped and split-debug targets) for the tests.  Optional,
# installed by .ci/run and not here (a workstation's make check skips the
# tests that need them, saying which is missing): the debuginfod server, lld
# (a target linked with 2 MiB pages) and elfutils (eu-stack, the names it is
# compared with); node, where installed, is profiled too.  This file is the
# one list of them: the Makefile asks it.
#
#   install-deps.sh              as root on Debian/Ubuntu, apt-get installs
#                                what is missing; otherwise prints the
#                                command to run and fails.  Silent when
#                                everything is there.  (make deps)
#   install-deps.sh --missing build|test
#                                one line naming the Debian packages missing
#                                for building (or for the tests too) and
#                                how to install them; nothing if none.
#   install-deps.sh --pkgs build|test
#                                the pkg-config names the build (or the
#                                unit tests) compile and link with.

# pkg-config name, Debian package, needed for (build: the profiler; test:
# the tests as well).
LIBRARIES="libunwind-generic:libunwind-dev:build libdw:libdw-dev:build libelf:libelf-dev:build
zlib:zlib1g-dev:build libcurl:libcurl4-openssl-dev:build ncurses:libncurses-dev:build
cmocka:libcmocka-dev:test"
# command, Debian package, needed for.
COMMANDS="cc:gcc:build make:make:build pkg-config:pkg-config:build g++:g++:test objcopy:binutils:test"

# wanted NEEDED_FOR: is something needed for NEEDED_FOR wanted for $scope?
wanted() { [ "$scope" = test ] || [ "$1" = build ]; }

# Sets $missing: the Debian packages missing for $scope.
find_missing() {
	missing=""
	for entry in $COMMANDS; do
		IFS=: read -r cmd pkg need <<EOF
$entry
EOF
		wanted "$need" || continue
		command -v "$cmd" >/dev/null 2>&1 || missing="$missing $pkg"
	done
	for entry in $LIBRARIES; do
		IFS=: read -r name pkg need <<EOF
$entry
EOF
		wanted "$need" || continue
		# Without pkg-config nothing can be found: all of them.
		command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$name" 2>/dev/null ||
			missing="$missing $pkg"
	done
}

case ${1:-} in
--pkgs)
	scope=${2:-build}
	for entry in $LIBRARIES; do
		IFS=: read -r name pkg need <<EOF
$entry
EOF
		[ "$need" = "$scope" ] && printf '%s ' "$name"
	done
	echo
	exit 0
	;;
--missing)
	scope=${2:-build}
	find_missing
	[ -z "$missing" ] && exit 0
	if command -v apt-get >/dev/null 2>&1; then
		echo "ptrace_profiler needs:$missing; 'make deps' installs them (as root), or run: sudo apt-get install -y$missing"
	else
		echo "ptrace_profiler needs:$missing (Debian names); install your system's libunwind, elfutils' libdw and libelf, zlib, libcurl, ncurses development files, cmocka and pkg-config"
	fi
	exit 0
	;;
"") ;;
*)
	echo "usage: $0 [--missing build|test | --pkgs build|test]" >&2
	exit 2
	;;
esac

scope=test
find_missing
[ -z "$missing" ] && exit 0

echo "ptrace_profiler needs:$missing"
if ! command -v apt-get >/dev/null 2>&1; then
	echo "Install the equivalents with your package manager: libunwind, elfutils' libdw and libelf (development files), cmocka, zlib, libcurl, ncurses, pkg-config."
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	echo "Run:  sudo apt-get install -y$missing"
	exit 1
fi
echo "Installing with apt-get:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && apt-get install -y -qq $missing >/dev/null || {
	echo "apt-get failed; run: apt-get install -y$missing"
	exit 1
}
