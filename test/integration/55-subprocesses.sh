# --- --subprocesses: every descendant, present and future -----------------

# Every process of the family running now, untraced and not stopped?
family_untouched() {
	local p bad=0
	for p in $(pgrep -f "$T/forker") ; do
		[ -d "/proc/$p" ] || continue # ended meanwhile
		local st tr
		st=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f1)
		tr=$(awk '/^TracerPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
		case $st in T | t) bad=$((bad + 1)) ;; esac
		[ -z "$tr" ] || [ "$tr" = 0 ] || bad=$((bad + 1))
	done
	[ $bad = 0 ]
}

subprocess_tests() {
	"$T/forker" 5 >"$TMP/forker.out" &
	local fp=$!
	PIDS+=("$fp")
	sleep 0.3
	"$PP" -p "$fp" --subprocesses -d 1ms -t 2s >"$TMP/fam.folded" 2>"$TMP/fam.err"
	local rc=$? workers in_work
	workers=$(grep -v "^forker\[$fp\]/" "$TMP/fam.folded" | sed -n 's/^forker\[\([0-9]*\)\]\/forker;.*/\1/p' | sort -u | wc -l)
	in_work=$(share_of "$TMP/fam.folded" '^forker\[[0-9]+\]/' ';main;worker_work|;main;between_requests')
	if [ $rc = 0 ] && [ "$workers" -ge 1 ] && atleast "$in_work" 95 && family_untouched; then
		pass "--subprocesses: workers forked during the run profiled, ${in_work}% of the family's samples in worker_work or between_requests"
	else fail "--subprocesses" "exit $rc, $workers workers seen (>= 1), ${in_work}% named (>= 95)" "$TMP/fam.err"; fi
	# one forked every 200 ms for 2 s
	if [ "$workers" -ge 5 ]; then pass "--subprocesses: $workers workers seen in 2 s (>= 5)"
	else tfail "--subprocesses: workers seen in 2 s" "$workers workers seen (>= 5)" "$TMP/fam.err"; fi
	wait "$fp"

	# kill -9 of the profiler while parent and children are seized: none
	# is left traced or stopped (no PTRACE_O_EXITKILL: they run on).
	"$T/forker" 30 >/dev/null &
	fp=$!
	PIDS+=("$fp")
	sleep 0.3
	local k pp bad=0
	for k in $(seq 1 20); do
		"$PP" -p "$fp" --subprocesses -d 1ms >/dev/null 2>&1 &
		pp=$!
		sleep "0.$(( (RANDOM % 40) + 10 ))"
		kill -9 $pp
		wait $pp 2>/dev/null
		sleep 0.02
		family_untouched || bad=$((bad + 1))
	done
	if [ $bad = 0 ] && kill -0 "$fp" 2>/dev/null; then
		pass "kill -9 of the profiler with children seized, 20 times: every process of the family running and untraced"
	else fail "kill -9 with children seized" "$bad of 20 left a process stopped or traced"; fi
	stop_target "$fp"
	pkill -9 -f "$T/forker" 2>/dev/null
	exec_and_exit_test
}

# A child that runs a new program and ends at once (a server's
# archive_command, /bin/true for each WAL file): its new program may be
# gone before it is read.  That once ended the run, exit 1 ("cannot read
# the modules of the new program") in 2 of 6 runs of 2 s; with
# --pg-wait-events each such child said it was no PostgreSQL server, a
# line each.  Every 20th child sleeps 30 ms, so that one at least is read
# whole and said: the sanitizer's build, slower, once read none of the
# others before they ended, in 2 of 3 runs (their count is not ours to
# promise; that one is said once, and the run ends well, is).
exec_and_exit_test() {
	local k rc bad= lines
	for k in 1 2 3; do
		"$PP" --subprocesses --pg-wait-events -d 10ms -t 2s -o "$TMP/ee.folded" \
			-- sh -c 'i=0; while :; do i=$((i + 1)); /bin/true; [ $((i % 20)) != 0 ] || /bin/sleep 0.03; done' \
			2>"$TMP/ee.err"
		rc=$?
		lines=$(grep -c '^ptrace_profiler: ' "$TMP/ee.err")
		[ $rc = 0 ] || bad="$bad run $k exit $rc ($(grep -v '^ ' "$TMP/ee.err" | head -n 1));"
		# the shell's line, the total's, at most a warning of the summary
		[ "$lines" -le 3 ] || bad="$bad run $k $lines lines;"
		grep -q 'no PostgreSQL server (said of the first)' "$TMP/ee.err" || bad="$bad run $k: not counted;"
	done
	if [ -z "$bad" ]; then
		pass "--subprocesses on a shell running /bin/true in a loop (a sleep every 20th), 3 runs of 2 s: exit 0, the children that are no PostgreSQL server said once and counted"
	else fail "--subprocesses on children that exec and exit" "$bad" "$TMP/ee.err"; fi
}

if [ $CAN_ATTACH = 1 ]; then subprocess_tests
else skip "--subprocesses" "$WHY_NO_ATTACH"; fi
