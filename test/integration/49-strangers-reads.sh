# --- root among strangers: what the target's owner plants where we read --
# (issue 28).  The target runs as nobody (65534) in a directory of its
# own, as a PostgreSQL server runs in its data directory; nobody plants
# what the profiler, as root, reads there.  Nothing planted may be read
# if it is not a regular file of the target's own user (a root-only file
# must not leak into the profile), or make a run block.

strangers_reads_tests() {
	local as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	local d secret=$TMP/pg_secret rc named case
	d=$(mktemp -d /tmp/pp-reads.XXXXXX) && chmod 755 "$d" && chown 65534:65534 "$d"
	cp "$T/fake_pg_nover" "$d/postgres" && chmod 755 "$d/postgres"
	echo 15 >"$secret" && chmod 600 "$secret"

	what_pgv() {
		case $1 in
		link) echo "a link to a root-only file, planted by the server's user" ;;
		rootfile) echo "a root-only file (as a bind mount shows one)" ;;
		fifo) echo "a FIFO planted by the server's user" ;;
		esac
	}
	# PG_VERSION: the version of a server whose binary does not say it
	# (fake_pg_nover).  Read, the wait events have their names (IO:WALSync);
	# not read, they are numbers and the run says so.
	for case in own link rootfile fifo; do
		rm -f "$d/PG_VERSION"
		case $case in
		own) "${as_nobody[@]}" sh -c "echo 15 >'$d/PG_VERSION'" ;;
		link) "${as_nobody[@]}" ln -s "$secret" "$d/PG_VERSION" ;;
		rootfile) cp "$secret" "$d/PG_VERSION" ;; # a root-only file there (a bind mount)
		fifo) "${as_nobody[@]}" mkfifo "$d/PG_VERSION" ;;
		esac
		start "${as_nobody[@]}" env -C "$d" "$d/postgres"
		timeout -s KILL 15 "$PP" -p "$TPID" --pg-wait-events -d 1ms -t 1s >"$TMP/pgv.folded" 2>"$TMP/pgv.err"
		rc=$?
		stop_target "$TPID"
		named=$(share_str "$TMP/pgv.folded" 'event=IO:WALSync')
		if [ $case = own ]; then
			if [ $rc = 0 ] && atleast "$named" 10; then
				pass "PG_VERSION of the server's own user: read (IO:WALSync named in ${named}% of samples)"
			else fail "PG_VERSION of the server's own user" "exit $rc, IO:WALSync in ${named}% (>= 10)" "$TMP/pgv.err"; fi
		elif [ $rc = 0 ] && [ "$named" = 0.0 ] && grep -q "no PG_VERSION file of its user's" "$TMP/pgv.err"; then
			pass "PG_VERSION $(what_pgv $case): not read (wait events as numbers, and said), exit 0"
		else fail "PG_VERSION as a $case" "exit $rc$( [ $rc = 137 ] && echo ' (hung: killed at 15 s)'), IO:WALSync named in ${named}% (0: the file must not be read)" "$TMP/pgv.err"; fi
	done

	# /tmp/perf-PID.map, the JIT's list of its code: taken only as the
	# process's own user's.  A root-only file there (what a process in
	# an unprivileged user and mount namespace sees after it bind-mounts
	# one: fstat says root's) must not name its code.
	cp "$T/jit" "$d/jit" && chmod 755 "$d/jit"
	start "${as_nobody[@]}" "$d/jit" perfmap
	local map=/tmp/perf-$TPID.map peak base jits=() p text
	until_true "grep -q jit_spin $map 2>/dev/null" 10
	# the JIT's own line (jit_spin's address), made root's and private
	text=$(sed 's/jit_spin$/leaked_secret/' "$map") && rm -f "$map"
	echo "$text" >"$map" && chmod 600 "$map"
	timeout -s KILL 15 "$PP" -p "$TPID" -d 1ms -t 1s >"$TMP/pm.folded" 2>"$TMP/pm.err"
	rc=$?
	named=$(share_str "$TMP/pm.folded" 'leaked_secret')
	if [ $rc = 0 ] && [ "$named" = 0.0 ] && [ "$(share_str "$TMP/pm.folded" '[anon]')" != 0.0 ]; then
		pass "a root-only file as the JIT map of nobody's process: not read (its code [anon], nothing of the file)"
	else fail "a root-only file as the JIT map" "exit $rc, the file's text in ${named}% of samples (0)" "$TMP/pm.folded"; fi
	chown 65534:65534 "$map"
	timeout -s KILL 15 "$PP" -p "$TPID" -d 1ms -t 1s >"$TMP/pm.folded" 2>"$TMP/pm.err"
	named=$(share_str "$TMP/pm.folded" 'leaked_secret_[j]')
	if atleast "$named" 50; then pass "the same file as the process's own: read (its code named from it in ${named}%)"
	else fail "the JIT map of the process's own user" "named in ${named}% (>= 50)" "$TMP/pm.folded"; fi

	# 256 MB of the shortest lines: memory at most twice the file, and
	# the run over within 15 s; then four processes whose maps are that
	# one file (hard links): one parse, the same bound.
	rm -f "$map"
	"$PP" -p "$TPID" -d 10ms -t 1s >/dev/null 2>"$TMP/pm.err"
	base=$(sed -n 's/^  profiler memory *\([0-9]*\).*/\1/p' "$TMP/pm.err")
	# (under the sanitizers, whose allocator has its own cost, 16 MB and
	# no bound on memory: what is checked there is that nothing breaks)
	local lines=44739242 mb=256
	[ "$SANITIZED" = 1 ] && lines=2796202 mb=16
	"${as_nobody[@]}" perl -e "print \"1 1 a\\n\" x $lines" >"$map.tmp" && mv "$map.tmp" "$map"
	chown 65534:65534 "$map"
	timeout -s KILL 15 "$PP" -p "$TPID" -d 10ms -t 1s >/dev/null 2>"$TMP/pm.err"
	rc=$?
	peak=$(sed -n 's/^  profiler memory *\([0-9]*\).*/\1/p' "$TMP/pm.err")
	if [ $rc = 0 ] && [ "$SANITIZED" = 1 ]; then
		pass "a $mb MB JIT map of 6-byte lines: exit 0 (memory not judged under the sanitizers)"
	elif [ $rc = 0 ] && [ -n "$base" ] && [ -n "$peak" ] && [ $((peak - base)) -le 512 ] &&
		grep -q '^  JIT maps cut short     1 file past the memory bound' "$TMP/pm.err"; then
		pass "a 256 MB JIT map of 6-byte lines: $((peak - base)) MB more at the peak (<= 512, twice the file), exit 0 within 15 s, the summary says it was cut"
	else fail "a 256 MB JIT map" "exit $rc$( [ $rc = 137 ] && echo ' (killed at 15 s)'), peak ${peak:-?} MB against ${base:-?} MB without a map (at most 512 more), summary line 'JIT maps cut short' $(grep -c 'JIT maps cut short' "$TMP/pm.err")" "$TMP/pm.err"; fi
	jits=("$TPID")
	for i in 1 2 3; do
		start "${as_nobody[@]}" "$d/jit"
		jits+=("$TPID")
		"${as_nobody[@]}" ln "$map" "/tmp/perf-$TPID.map"
	done
	timeout -s KILL 15 "$PP" -p "$(IFS=,; echo "${jits[*]}")" -d 10ms -t 1s >/dev/null 2>"$TMP/pm.err"
	rc=$?
	peak=$(sed -n 's/^  profiler memory *\([0-9]*\).*/\1/p' "$TMP/pm.err")
	if [ $rc = 0 ] && [ "$SANITIZED" = 1 ]; then
		pass "four processes whose JIT maps are one $mb MB file: exit 0 (memory not judged under the sanitizers)"
	elif [ $rc = 0 ] && [ -n "$peak" ] && [ $((peak - base)) -le 512 ]; then
		pass "four processes whose JIT maps are one 256 MB file: $((peak - base)) MB more at the peak (<= 512: one parse), exit 0 within 15 s"
	else fail "four processes sharing a 256 MB JIT map" "exit $rc, peak ${peak:-?} MB against ${base:-?} MB (at most 512 more)" "$TMP/pm.err"; fi
	for p in "${jits[@]}"; do
		stop_target "$p"
		rm -f "/tmp/perf-$p.map"
	done
	rm -rf "$d"
}

if [ $CAN_ATTACH = 0 ]; then skip "what strangers plant where we read" "$WHY_NO_ATTACH"
elif [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	skip "what strangers plant where we read" "needs root and setpriv to plant as nobody"
else strangers_reads_tests; fi
