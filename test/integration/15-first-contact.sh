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

# demo_script_tests CLONE: demo/run-demo.sh writes demo.folded and a
# flame graph the profiler draws itself (no flamegraph.pl on PATH).
demo_script_tests() {
	local clone=$1 rc
	if ! newcomer_make "$clone" build/demo/workload; then
		fail "make demo's script" "the workload did not build: $(grep -m 1 -i error "$TMP/fc.out")"
		return
	fi
	PATH=/usr/local/bin:/usr/bin:/bin DEMO_TIME=0.5s sh "$clone/demo/run-demo.sh" >"$TMP/demo.out" 2>&1
	rc=$?
	local svg_ok=1
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout "$clone/demo.svg" 2>/dev/null || svg_ok=0
	fi
	if [ "$rc" = 0 ] && grep -q ';main;' "$clone/demo.folded" && [ $svg_ok = 1 ] &&
		grep -q '<svg' "$clone/demo.svg" && grep -q '>main<' "$clone/demo.svg" &&
		grep -qF "flame graph: $clone/demo.svg" "$TMP/demo.out"; then
		pass "make demo's script: demo.folded ($(wc -l <"$clone/demo.folded") stacks) and demo.svg ($(stat -c %s "$clone/demo.svg") bytes, well-formed, with main), its path printed"
	else fail "make demo's script" "status $rc; demo.folded with main, demo.svg well-formed with main, its path printed:"
		tail -n 3 "$TMP/demo.out" | sed 's/^/    /'
	fi
}

first_contact_tests
