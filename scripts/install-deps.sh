#!/bin/sh
# Installs what building and testing need, from the distribution only:
# a C compiler, make, pkg-config, libunwind, libdw/libelf (elfutils) and
# cmocka, zlib, libcurl (--push); for the tests also a C++ compiler (a C++ target program) and
# binutils (strip, objcopy: stripped and split-debug targets).  The
# debuginfod test needs the debuginfod server, which .ci/run installs; on a
# workstation the test says it is missing and skips.  As root on Debian/Ubuntu it runs apt-get; otherwise it prints
# the command to run and fails.  Silent when everything is there.
missing=""
need_pkg() { # PKG_CONFIG_NAME DEBIAN_PACKAGE
	pkg-config --exists "$1" 2>/dev/null || missing="$missing $2"
}
command -v cc >/dev/null 2>&1 || missing="$missing gcc"
command -v make >/dev/null 2>&1 || missing="$missing make"
command -v g++ >/dev/null 2>&1 || missing="$missing g++"
command -v objcopy >/dev/null 2>&1 || missing="$missing binutils"
if command -v pkg-config >/dev/null 2>&1; then
	need_pkg libunwind-generic libunwind-dev
	need_pkg libdw libdw-dev
	need_pkg libelf libelf-dev
	need_pkg cmocka libcmocka-dev
	need_pkg zlib zlib1g-dev
	need_pkg libcurl libcurl4-openssl-dev
else
	missing="$missing pkg-config libunwind-dev libdw-dev libelf-dev libcmocka-dev zlib1g-dev libcurl4-openssl-dev"
fi
[ -z "$missing" ] && exit 0

echo "ptrace_profiler needs:$missing"
if ! command -v apt-get >/dev/null 2>&1; then
	echo "Install the equivalents with your package manager: libunwind, elfutils' libdw and libelf (development files), cmocka, zlib, libcurl, pkg-config."
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
