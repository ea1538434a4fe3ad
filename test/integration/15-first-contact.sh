# --- first contact: what a newcomer meets in the first five minutes --------
# A fresh clone of what is committed (HEAD, not the working tree): `make`
# without the libraries says which packages and `make deps` in one line,
# `make` with them builds ./ptrace_profiler, and `make demo`'s script ends
# with a flame graph or says how to get one.

# newcomer_make DIR [TARGET...]: make in DIR as typed in a shell, not as
# a sub-make of make check (no MAKEFLAGS, MAKELEVEL: no "Entering
# directory", no jobserver); output in $TMP/fc.out, status returned.
newcomer_make() {
	local dir=$1
	shift
	(cd "$dir" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES make "$@") >"$TMP/fc.out" 2>&1
}

first_contact_tests() {
	if [ "$PP" != ./ptrace_profiler ]; then
		skip "fresh clone: make" "it tests the build, not $PP: done in the run with ./ptrace_profiler"
		return
	fi
	if ! command -v git >/dev/null; then
		skip "fresh clone: make" "git is not installed"
		return
	fi
	local head clone=$TMP/fresh empty=$TMP/no-pkgconfig rc lines
	if ! head=$(git rev-parse --verify -q HEAD 2>/dev/null); then
		skip "fresh clone: make" "not a git checkout"
		return
	fi
	mkdir -p "$empty"
	if ! git clone -q "$PWD" "$clone" 2>"$TMP/fc.clone" || ! git -C "$clone" checkout -q --detach "$head" 2>>"$TMP/fc.clone"; then
		fail "fresh clone: make" "git clone of HEAD failed: $(head -n 1 "$TMP/fc.clone")"
		return
	fi

	# pkg-config finds nothing: the -dev packages are not installed.
	PKG_CONFIG_PATH=$empty PKG_CONFIG_LIBDIR=$empty newcomer_make "$clone"
	rc=$?
	lines=$(wc -l <"$TMP/fc.out")
	local pkg named=1
	for pkg in libunwind-dev libdw-dev libelf-dev; do
		grep -qw -- "$pkg" "$TMP/fc.out" || named=0
	done
	if [ "$rc" != 0 ] && [ "$lines" = 1 ] && [ $named = 1 ] && grep -qF "'make deps'" "$TMP/fc.out" &&
		grep -qF 'apt-get install -y' "$TMP/fc.out" && ! grep -qE 'error:|\.h:|^cc |^gcc ' "$TMP/fc.out" &&
		[ -z "$(find "$clone" -name '*.o')" ] && [ ! -e "$clone/ptrace_profiler" ]; then
		pass "fresh clone, no -dev packages: make stops (status $rc) before the compiler, one line: $(cat "$TMP/fc.out")"
	else fail "fresh clone, no -dev packages" "status $rc (not 0), $lines lines (1) naming libunwind-dev libdw-dev libelf-dev ($named), 'make deps' and the apt-get line, no compiler run or object:"
		sed 's/^/    /' "$TMP/fc.out" | head -n 5
	fi

	# With them, the same clone builds.
	newcomer_make "$clone"
	rc=$?
	if [ "$rc" = 0 ] && [ -x "$clone/ptrace_profiler" ] && "$clone/ptrace_profiler" --version >/dev/null 2>&1 &&
		! grep -qi 'warning:' "$TMP/fc.out"; then
		pass "fresh clone: make builds ./ptrace_profiler ($("$clone/ptrace_profiler" --version)), no warnings"
	else fail "fresh clone: make" "status $rc, ./ptrace_profiler $( [ -x "$clone/ptrace_profiler" ] && echo built || echo missing), or warnings:"
		grep -i -m 5 'error\|warning' "$TMP/fc.out" | sed 's/^/    /'
	fi
	[ -x "$clone/ptrace_profiler" ] && demo_script_tests "$clone"
}

# demo_script_tests CLONE: demo/run-demo.sh with this profiler, and with
# one whose --help offers --format svg (the SVG writer, as a stand-in
# until it is merged): the picture, or the way to get one.
demo_script_tests() {
	local clone=$1 nofg
	if ! newcomer_make "$clone" build/demo/workload; then
		fail "make demo's script" "the workload did not build: $(grep -m 1 -i error "$TMP/fc.out")"
		return
	fi
	# A PATH without flamegraph.pl.
	nofg=/usr/local/bin:/usr/bin:/bin
	PATH=$nofg DEMO_TIME=0.3s sh "$clone/demo/run-demo.sh" >"$TMP/demo1.out" 2>&1
	local rc=$?
	if command -v flamegraph.pl >/dev/null && PATH=$nofg command -v flamegraph.pl >/dev/null; then
		skip "make demo without SVG output" "flamegraph.pl is in /usr/bin or /bin"
	elif [ "$rc" = 0 ] && [ -s "$clone/demo.folded" ] && [ ! -e "$clone/demo.svg" ] &&
		grep -qF 'flamegraph.pl not found' "$TMP/demo1.out" && grep -qF 'git clone https://github.com/brendangregg/FlameGraph' "$TMP/demo1.out" &&
		grep -q ';main;' "$clone/demo.folded"; then
		pass "make demo's script, this profiler (no --format svg), no flamegraph.pl: demo.folded ($(wc -l <"$clone/demo.folded") stacks) and where to get flamegraph.pl"
	else fail "make demo's script without SVG output" "status $rc, demo.folded, no demo.svg, the flamegraph.pl message:"
		tail -n 3 "$TMP/demo1.out" | sed 's/^/    /'
	fi

	# A profiler that writes SVG: the stand-in logs its arguments, offers
	# the format in --help, and writes what the real one would be asked.
	rm -f "$clone/demo.folded" "$clone/demo.svg"
	mv "$clone/ptrace_profiler" "$clone/ptrace_profiler.real"
	cat >"$clone/ptrace_profiler" <<-'EOF'
		#!/bin/sh
		dir=$(dirname "$0")
		echo "$*" >>"$dir/args.log"
		case "$*" in
		--help*) "$dir/ptrace_profiler.real" --help
		         echo "      --format FORMAT    folded (default), stap or svg (a flame graph)" ;;
		*--format\ svg\ -o\ *) out=$(echo "$*" | sed 's/.*--format svg -o \([^ ]*\).*/\1/')
		         echo '<svg xmlns="http://www.w3.org/2000/svg"></svg>' >"$out" ;;
		*) exec "$dir/ptrace_profiler.real" "$@" ;;
		esac
	EOF
	chmod +x "$clone/ptrace_profiler"
	PATH=$nofg DEMO_TIME=0.3s sh "$clone/demo/run-demo.sh" >"$TMP/demo2.out" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && [ -s "$clone/demo.folded" ] && grep -q '^<svg' "$clone/demo.svg" 2>/dev/null &&
		grep -qF -- "--format svg -o demo.svg -- build/demo/workload" "$clone/args.log" &&
		grep -qF "flame graph: $clone/demo.svg" "$TMP/demo2.out" && ! grep -qF 'flamegraph.pl not found' "$TMP/demo2.out"; then
		pass "make demo's script, a profiler with --format svg: demo.svg written by it, its path printed"
	else fail "make demo's script with SVG output" "status $rc, demo.svg, '--format svg -o demo.svg' asked, its path printed:"
		sed 's/^/    /' "$clone/args.log" 2>/dev/null | head -n 5
		tail -n 3 "$TMP/demo2.out" | sed 's/^/    /'
	fi
}

first_contact_tests
