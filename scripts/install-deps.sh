#!/bin/sh
# What building and testing need, from the distribution only.  This file is
# the one list of them: the Makefile asks it, make deps and make check run
# it, and .ci/run is nothing but make check.
#
#   build  a C compiler, make, pkg-config, libunwind, libdw/libelf
#          (elfutils), zlib (pprof output is gzipped), libcurl (--push) and
#          ncurses (--top's screen): the profiler;
#   test   cmocka, a C++ compiler (a C++ target program) and binutils
#          (strip, objcopy: stripped and split-debug targets): the unit
#          tests and the targets;
#   check  what the integration tests compare with or drive, each test
#          skipping, saying what is missing, without it: PostgreSQL (a
#          throwaway cluster under pgbench) and its server headers
#          (postgresql-server-dev-N for each major N installed), the
#          debuginfod server, lld (a target linked with 2 MiB pages),
#          elfutils' eu-stack, tmux (--top's screen), headless Chromium (the
#          flame graph seen), go (go tool pprof), xmllint, jq, strace,
#          python3, git and node (a JIT's names), dwz (a dwz file's
#          place taken by a FIFO), glibc's debug info (its inlined read());
#          and PostgreSQL servers of the majors Debian lacks, from npm
#          (scripts/pg_servers.sh).
#
#   install-deps.sh [build|test|check]
#                  as root on Debian/Ubuntu, apt-get installs what is
#                  missing for that much (default test: make deps); check
#                  also installs what the integration tests use (make
#                  check), PostgreSQL without starting a server of its own.
#                  Otherwise prints the command to run: for build and test
#                  it then fails; for check only the tests that need what
#                  is missing skip, so it goes on.  Silent when everything
#                  is there.
#   install-deps.sh --missing build|test|check
#                  one line naming the Debian packages missing for that
#                  much and how to install them; nothing if none.
#   install-deps.sh --pkgs build|test
#                  the pkg-config names the build (or the unit tests)
#                  compile and link with.
#
# PG_LIB_DIR and PG_INCLUDE_DIR (default /usr/lib/postgresql and
# /usr/include/postgresql) are where PostgreSQL's servers and headers are
# looked for (the tests point them elsewhere).

# pkg-config name, Debian package, needed for.
LIBRARIES="libunwind-generic:libunwind-dev:build libdw:libdw-dev:build libelf:libelf-dev:build
zlib:zlib1g-dev:build libcurl:libcurl4-openssl-dev:build ncurses:libncurses-dev:build
cmocka:libcmocka-dev:test"
# command, Debian package, needed for.
COMMANDS="cc:gcc:build make:make:build pkg-config:pkg-config:build g++:g++:test objcopy:binutils:test
debuginfod:debuginfod:check ld.lld:lld:check eu-stack:elfutils:check tmux:tmux:check
chromium:chromium:check go:golang-go:check xmllint:libxml2-utils:check jq:jq:check
strace:strace:check python3:python3:check git:git:check node:nodejs:check dwz:dwz:check"
# Debian packages known only to dpkg (a library's debug info), needed for.
PACKAGES="libc6-dbg:check"
PG_LIB_DIR=${PG_LIB_DIR:-/usr/lib/postgresql}
PG_INCLUDE_DIR=${PG_INCLUDE_DIR:-/usr/include/postgresql}

# wanted NEEDED_FOR: is something needed for NEEDED_FOR wanted for $scope?
wanted() {
	case $scope:$1 in
	check:* | test:build | test:test | build:build) return 0 ;;
	esac
	return 1
}

# The PostgreSQL packages missing, for check: a server, and the headers of
# each major installed (postgresql-server-dev-all, Debian's for its own
# major, when there is no server yet).
pg_missing() {
	pg=""
	found=""
	for dir in "$PG_LIB_DIR"/*/bin/postgres; do
		[ -x "$dir" ] || continue
		major=${dir%/bin/postgres}
		major=${major##*/}
		found=1
		[ -d "$PG_INCLUDE_DIR/$major/server" ] || pg="$pg postgresql-server-dev-$major"
	done
	[ -n "$found" ] || pg=" postgresql postgresql-server-dev-all"
}

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
	for entry in $PACKAGES; do
		IFS=: read -r pkg need <<EOF
$entry
EOF
		wanted "$need" || continue
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q ' installed$' || missing="$missing $pkg"
	done
	if [ "$scope" = check ]; then
		pg_missing
		missing="$missing$pg"
	fi
}

scope_ok() { case $1 in build | test | check) return 0 ;; esac; return 1; }
usage() {
	echo "usage: $0 [build|test|check | --missing build|test|check | --pkgs build|test]" >&2
	exit 2
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
	scope_ok "$scope" || usage
	find_missing
	[ -z "$missing" ] && exit 0
	if [ "$scope" = check ]; then
		echo "the integration tests use:$missing (their tests skip without them); 'make check' installs them (as root), or run: sudo apt-get install -y$missing"
	elif command -v apt-get >/dev/null 2>&1; then
		echo "ptrace_profiler needs:$missing; 'make deps' installs them (as root), or run: sudo apt-get install -y$missing"
	else
		echo "ptrace_profiler needs:$missing (Debian names); install your system's libunwind, elfutils' libdw and libelf, zlib, libcurl, ncurses development files, cmocka and pkg-config"
	fi
	exit 0
	;;
"") scope=test ;;
*)
	scope=$1
	scope_ok "$scope" || usage
	;;
esac

# apt_install PACKAGES...: as one transaction, after an update if the
# lists are stale; PostgreSQL's packages would start a server of their
# own: policy-rc.d (Debian's way for chroots and containers) tells them
# not to, so no postgres runs beside the tests.
apt_install() {
	policy=
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && policy=1
	fi
	{ apt-get install -y -qq "$@" || { apt-get update -qq && apt-get install -y -qq "$@"; }; } >/dev/null 2>&1
	rc=$?
	[ -z "$policy" ] || rm -f /usr/sbin/policy-rc.d
	return $rc
}

# What the tests use: one by one when all at once fails (one package the
# archive lacks must not keep the others out), each failure said; the
# headers of a server installed just now after it.
install_check() {
	echo "Installing what the tests use, with apt-get:$1"
	# shellcheck disable=SC2086
	apt_install $1 && return 0
	for pkg in $1; do
		apt_install "$pkg" || echo "apt-get could not install $pkg: the tests that need it will be skipped"
	done
}

export DEBIAN_FRONTEND=noninteractive
scope_asked=$scope
# The build and unit tests first: without them nothing runs.
[ "$scope" = check ] && scope=test
find_missing
if [ -n "$missing" ]; then
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
	# shellcheck disable=SC2086
	apt-get update -qq && apt-get install -y -qq $missing >/dev/null || {
		echo "apt-get failed; run: apt-get install -y$missing"
		exit 1
	}
fi
[ "$scope_asked" = check ] || exit 0

scope=check
find_missing
if [ -z "$missing" ]; then
	:
elif [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "the integration tests use:$missing; their tests will be skipped, saying so (to run them: sudo apt-get install -y$missing)"
else
	install_check "$missing"
	# A server installed just now: its headers too.
	pg_missing
	[ -z "$pg" ] || install_check "$pg"
fi
# Servers of the majors Debian lacks (npm's, with node from above).
sh "$(dirname "$0")/pg_servers.sh" install
exit 0
