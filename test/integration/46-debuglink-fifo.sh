# --- a .gnu_debuglink to a FIFO: skipped, never waited on (issue 28) -------
# The debug file a program's .gnu_debuglink names is looked for next to
# it and in its .debug/ folder, both its owner's to fill.  A FIFO there
# made the profiler, as root, block in open() for ever: deaf to SIGTERM,
# its targets left in tracing stop with --period.  Here the program's
# owner (nobody, when we are root) strips a copy of split, links it to its
# debug file, and puts FIFOs in the debug file's place and in .debug/.
# Every run must end (15 s at most, for a 1 s profile), exit 0 with a
# profile, and leave the target running and untraced; the real debug
# file, in a --debuginfo-path folder, must still be found past them.

# dl_run NAME CMD...: CMD (the profiler) under a 15 s limit (SIGKILL 5 s
# after SIGTERM: a blocked profiler ignores SIGTERM); its output in
# $TMP/NAME.out, stderr in $TMP/NAME.err, exit status in $DRC, the
# seconds it took in $DSECS, NAME in $DNAME.
dl_run() {
	local name=$1 t0 t1
	shift
	DNAME=$name
	t0=$(date +%s%N)
	timeout -k 5 15 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	DRC=$?
	t1=$(date +%s%N)
	DSECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
}

# dl_check WHAT OK: passes when the run ended in time with exit 0, OK
# (a command) holds and the target is untouched.
dl_check() {
	local what=$1
	shift
	if [ "$DRC" = 0 ] && "$@" && untouched "$TPID"; then
		pass "debuglink to a FIFO, $what: ended in ${DSECS} s, exit 0, target running and untraced"
	else fail "debuglink to a FIFO, $what" "exit $DRC after ${DSECS} s (124/137: timed out), target $(grep -E '^(State|TracerPid)' "/proc/$TPID/status" | tr '\n' ' ')" "$TMP/$DNAME.err"; fi
}

# has_profile FILE: folded lines, with samples (folded_ok, quiet).
has_profile() { folded_ok "$1" >/dev/null; }

debuglink_fifo_tests() {
	local owner=() dir global
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
		owner=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	fi
	dir=$(mktemp -d /tmp/ptrace_profiler_debuglink.XXXXXX)
	chmod 755 "$dir"
	cp "$T/split" "$dir/split.orig"
	chmod 644 "$dir/split.orig"
	[ ${#owner[@]} = 0 ] || chown 65534:65534 "$dir"
	# the owner's doing: app, stripped, its debuglink to app.debug, then
	# FIFOs as app.debug and .debug/app.debug
	if ! "${owner[@]}" sh -c 'cd "$1" && cp split.orig app && chmod 755 app && objcopy --only-keep-debug app app.debug &&
		strip app && objcopy --add-gnu-debuglink=app.debug app && cp app.debug real.debug &&
		rm app.debug && mkfifo app.debug && mkdir .debug && mkfifo .debug/app.debug' sh "$dir"; then
		fail "debuglink to a FIFO" "could not plant the FIFOs in $dir"
		rm -rf "$dir"
		return
	fi
	# the real debug file where only root could put it: DIR/global/DIR/app.debug
	global=$TMP/dlglobal
	mkdir -p "$global$dir"
	cp "$dir/real.debug" "$global$dir/app.debug"

	start "${owner[@]}" "$dir/app"
	dl_run plain "$PP" -p "$TPID" -d 1ms -t 1s
	dl_check plain has_profile "$TMP/plain.out"
	dl_run period "$PP" -p "$TPID" -d 1ms -t 2s --period 1s
	dl_check "--period" grep -q '^app;' "$TMP/period.out"
	dl_run dump "$PP" --dump -p "$TPID"
	dl_check "--dump" test -s "$TMP/dump.out"
	dl_run found "$PP" -p "$TPID" -d 1ms -t 1s --debuginfo-path ":.debug:$global"
	local named
	named=$(share "$TMP/found.out" ';main;(cpu_work|sleep_work|cpu_other)')
	dl_check "the real debug file past the FIFOs (--debuginfo-path): named in ${named}%" atleast "$named" 95
	stop_target "$TPID"

	# The dwz file (.gnu_debugaltlink) of debug info that stayed in the
	# program, a FIFO in its place: libdw's own search for it (dwarf_getalt)
	# opened it blocking too.
	if ! command -v dwz >/dev/null; then
		skip "dwz file that is a FIFO" "dwz is not installed"
	elif ! "${owner[@]}" sh -c 'cd "$1" && cp split.orig dz1 && cp split.orig dz2 && chmod 755 dz1 dz2 &&
		dwz -q -m "$1/common.debug" -M "$1/common.debug" dz1 dz2 && rm common.debug &&
		mkfifo common.debug && readelf -S dz1 | grep -q gnu_debugaltlink' sh "$dir"; then
		fail "dwz file that is a FIFO" "could not make one in $dir"
	else
		start "${owner[@]}" "$dir/dz1"
		dl_run dwz "$PP" -p "$TPID" -d 1ms -t 1s --lines
		dl_check "its dwz file a FIFO too, --lines" has_profile "$TMP/dwz.out"
		stop_target "$TPID"
	fi
	rm -rf "$dir"
}

if [ $CAN_ATTACH = 0 ]; then skip "debuglink to a FIFO" "$WHY_NO_ATTACH"
elif ! command -v objcopy >/dev/null || ! command -v strip >/dev/null || ! command -v mkfifo >/dev/null ||
	! command -v timeout >/dev/null; then
	skip "debuglink to a FIFO" "objcopy and strip (binutils), mkfifo and timeout (coreutils) are needed"
else
	debuglink_fifo_tests
fi
