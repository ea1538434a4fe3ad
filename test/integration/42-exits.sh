# --- what cannot be profiled, how a run ends, what it returns ------------

# Launch mode returns the command's own status, as a shell reports it.
launch_status_tests() {
	local rc
	"$PP" -d 1ms -- sh -c 'exit 3' >/dev/null 2>"$TMP/ex3.err"
	rc=$?
	if [ $rc = 3 ]; then pass "launch: exit status of the command (3)"
	else fail "launch: exit status of the command" "got $rc, expected 3" "$TMP/ex3.err"; fi
	"$PP" -d 1ms -- sh -c 'kill -SEGV $$' >/dev/null 2>"$TMP/segv.err"
	rc=$?
	if [ $rc = 139 ]; then pass "launch: a command killed by SIGSEGV gives 128+11 (139)"
	else fail "launch: killed by a signal" "got $rc, expected 139" "$TMP/segv.err"; fi
	"$PP" -d 1ms -t 0.3s -- sleep 5 >/dev/null 2>"$TMP/ended.err"
	rc=$?
	if [ $rc = 0 ]; then pass "launch: a command we end at the end of the run gives 0"
	else fail "launch: ended by us" "got $rc, expected 0" "$TMP/ended.err"; fi
	# a command keeps the timer slack it would have had (ours is 1 ns,
	# set for our ticks): a launched program's timers as they are
	local mine theirs
	if mine=$(cat /proc/self/timerslack_ns 2>/dev/null); then
		theirs=$("$PP" -d 1ms -o /dev/null -- cat /proc/self/timerslack_ns 2>"$TMP/slack.err")
		if [ "$theirs" = "$mine" ]; then pass "launch: the command's timer slack is its own ($theirs ns), not ours"
		else fail "launch: the command's timer slack" "${theirs:-nothing} ns, expected $mine (the shell's)" "$TMP/slack.err"; fi
	else skip "launch: the command's timer slack" "no /proc/self/timerslack_ns here"; fi
}
launch_status_tests

untraceable_tests() {
	# A zombie: a child its parent never waits for.
	start sh -c 'sleep 0.1 & exec sleep 30'
	sleep 0.3
	local zombie
	zombie=$(pgrep -P "$TPID" | head -n 1)
	bad_input "a zombie" "process $zombie has exited (zombie)" -p "$zombie" -n 1
	bad_input "a kernel thread" "process 2 is a kernel thread (kthreadd): it has no user stack" -p 2 -n 1
	# exec keeps the pid: the shell's $$ is the profiler's own
	PP=$PP bash -c 'exec "$PP" -p $$ -n 1' >"$TMP/self.out" 2>"$TMP/self.err"
	local rc=$?
	if [ $rc = 2 ] && [ ! -s "$TMP/self.out" ] && [ "$(wc -l <"$TMP/self.err")" = 1 ] &&
		grep -q "cannot profile itself" "$TMP/self.err"; then pass "bad input the profiler itself: $(cat "$TMP/self.err")"
	else fail "bad input the profiler itself" "exit $rc" "$TMP/self.err"; fi
	# Several: the untraceable ones named, the others profiled.
	start "$T/blocked"
	settle "$TPID" blocked S
	"$PP" -p "$zombie,2,$TPID" -d 1ms -n 20 >"$TMP/some.folded" 2>"$TMP/some.err"
	local n
	rc=$?
	n=$(grep -c "^blocked\[$TPID\]/" "$TMP/some.folded")
	if [ $rc = 0 ] && [ "$n" -gt 0 ] && grep -q "process $zombie has exited (zombie)" "$TMP/some.err" &&
		grep -q "process 2 is a kernel thread" "$TMP/some.err"; then
		pass "-p ZOMBIE,KTHREAD,PID: both named on stderr, the third profiled ($(total "$TMP/some.folded") samples)"
	else fail "-p with untraceable processes" "exit $rc, $n stacks of $TPID" "$TMP/some.err"; fi
	"$PP" -p "$zombie,2" -n 1 >"$TMP/none.out" 2>"$TMP/none.err"
	rc=$?
	if [ $rc = 2 ] && [ ! -s "$TMP/none.out" ] && [ "$(wc -l <"$TMP/none.err")" = 2 ]; then
		pass "-p of only untraceable processes: exit 2, one line each"
	else fail "-p of only untraceable processes" "exit $rc, $(wc -l <"$TMP/none.err") lines" "$TMP/none.err"; fi
	stop_target "$TPID"
}

# Every signal that would end the profiler ends the run as SIGTERM does:
# detach, then write what was collected.  (SIGUSR1 writes the profile so
# far and the run goes on: 90-continuous.sh.)
signal_end_tests() {
	local sig rc n bad="" few=""
	start "$T/split"
	for sig in USR2 QUIT ALRM PROF RTMIN+3; do
		"$PP" -p "$TPID" -d 1ms >"$TMP/sig_$sig.folded" 2>"$TMP/sig_$sig.err" &
		local prof=$!
		sleep 0.5
		kill -s "$sig" $prof
		wait $prof
		rc=$?
		n=$(total "$TMP/sig_$sig.folded")
		if [ $rc != 0 ] || [ "$n" -lt 1 ] || ! untouched "$TPID"; then
			bad="$bad SIG$sig (exit $rc, $n samples)"
		fi
		[ "$n" -ge 10 ] || few="$few SIG$sig ($n samples)"
	done
	stop_target "$TPID"
	if [ -z "$bad" ]; then pass "SIGUSR2, SIGQUIT, SIGALRM, SIGPROF, SIGRTMIN+3 end the run: exit 0, the profile written, the target untraced"
	else fail "signals that end the run" "$bad"; fi
	if [ -z "$few" ]; then pass "signals that end the run: at least 10 samples in each 0.5 s at -d 1ms"
	else tfail "signals that end the run: samples in 0.5 s at -d 1ms" "fewer than 10:$few"; fi
}

# The main thread exits while we sample (pthread_exit; the worker runs
# on): it stays a zombie until the process ends, never stops, and must
# neither stall the rounds nor keep us from detaching.
dead_leader_midrun_tests() {
	"$T/dead_leader" 300 &
	local tp=$!
	PIDS+=("$tp")
	sleep 0.1
	local t0 t1 rc worker
	t0=$(date +%s%N)
	timeout 30 "$PP" -p "$tp" -d 1ms -t 1.5s >"$TMP/dlm.folded" 2>"$TMP/dlm.err"
	rc=$?
	t1=$(date +%s%N)
	worker=$(share "$TMP/dlm.folded" '^worker;.*;worker_main;(spin_work|rest_work)')
	local took=$(( (t1 - t0) / 1000000 ))
	# timeout 30 (exit 124) is the bound of a run that does not end
	if [ $rc = 0 ] && grep -Eq '^worker;.*;worker_main;(spin_work|rest_work)' "$TMP/dlm.folded" && untouched "$tp"; then
		pass "main thread exits during the run: over with exit 0 (within 30 s), worker named, untraced"
	else fail "main thread exits during the run" "exit $rc after ${took} ms, worker ${worker}%" "$TMP/dlm.err"; fi
	if [ $took -lt 10000 ] && atleast "$worker" 70; then
		pass "main thread exits during the run: done in ${took} ms (-t 1.5s, naming included), worker named in ${worker}% of samples"
	else tfail "main thread exits during the run: duration and worker share" "${took} ms (< 10000), worker ${worker}% (>= 70)" "$TMP/dlm.folded"; fi
	stop_target "$tp"
}

# The main thread exits while our stop of it is pending (it spins until
# then, so most rounds stop it): its trap never comes.  It must not be
# counted as a zombie on every later tick, nor wait out the late-stop limit.
# Before the fix: 11 of 30 such runs had zombie samples.
dead_leader_spinning_tests() {
	local bad="" i tp rc zombie late=0
	for i in 1 2 3 4 5 6 7 8 9 10; do
		"$T/dead_leader" 150 spin &
		tp=$!
		PIDS+=("$tp")
		sleep 0.05
		timeout 30 "$PP" -p "$tp" -d 50us -t 0.3s >"$TMP/dls.folded" 2>"$TMP/dls.err"
		rc=$?
		zombie=$(grep -c 'zombie' "$TMP/dls.folded")
		grep -q 'late stops' "$TMP/dls.err" && late=$((late + 1))
		if [ $rc != 0 ] || [ "$zombie" != 0 ] || ! untouched "$tp"; then
			bad="$bad run$i(exit $rc, $zombie zombie lines)"
		fi
		stop_target "$tp"
	done
	if [ -z "$bad" ]; then
		pass "main thread exits with our stop pending, 10 runs: no zombie samples, untraced"
	else fail "main thread exits with our stop pending" "$bad; late stops in $late runs" "$TMP/dls.err"; fi
	# a stop that never comes must not wait out the late-stop limit; a
	# loaded machine may make a stop late too
	if [ $late = 0 ]; then pass "main thread exits with our stop pending, 10 runs: no late stops"
	else tfail "main thread exits with our stop pending: late stops" "late stops in $late of 10 runs" "$TMP/dls.err"; fi
}

# A thread that exits just before we detach is a zombie until its tracer
# collects it, and its process with it: a launched command waited for at
# the end never ended (6 of 20 such runs hung before the detach collected
# them).  threads.c ends a short-lived thread every 5 ms.
churn_end_tests() {
	local i rc hung=0
	for i in $(seq 20); do
		timeout 8 "$PP" -d 100us -t 0.3s -o /dev/null -- "$T/threads" >/dev/null 2>"$TMP/churn.err"
		rc=$?
		[ $rc = 0 ] || hung=$((hung + 1))
	done
	if [ $hung = 0 ]; then pass "threads that end as we detach: 20 launched runs of -t 0.3s, each over with exit 0 within 8 s"
	else fail "threads that end as we detach" "$hung of 20 runs did not end with exit 0 within 8 s" "$TMP/churn.err"; fi
}

if [ $CAN_ATTACH = 1 ]; then
	churn_end_tests
	untraceable_tests
	signal_end_tests
	dead_leader_midrun_tests
	dead_leader_spinning_tests
else
	skip "untraceable processes, signals that end the run" "$WHY_NO_ATTACH"
fi

# The summary's rate stays meaningful for any interval the options take,
# and for any number of ticks: it is the share of the ticks due that were
# sampled.  (It was rounds over the time they spanned, N over N-1
# intervals: -n 10 -d 10ms said 92-145 %, -n 5 -d 1ms 138-164 %.)
short_and_huge_rate_tests() {
	start sleep 30
	"$PP" -p "$TPID" -d 100000000s -n 1 >/dev/null 2>"$TMP/huge.err"
	local rc=$? line n d bad=""
	line=$(grep -m 1 '^  rate' "$TMP/huge.err")
	if [ $rc = 0 ] && echo "$line" | grep -q 'every 1157 days' &&
		echo "$line" | grep -q '(100%): 1 ticks sampled' && ! echo "$line" | grep -qE '[0-9]{4,}%'; then
		pass "summary rate for -d 100000000s -n 1:${line#  rate}"
	else fail "summary rate for a huge interval" "exit $rc: $line" "$TMP/huge.err"; fi
	# rate_pct LINE N: the % of the rate line, if it says N ticks sampled
	rate_pct() { echo "$1" | sed -nE "s/.*achieved [0-9.e+]+\/s \(([0-9]+)%\): $2 ticks sampled.*/\1/p"; }
	local pct low="" least=100 least_long=100
	for d in 10ms 1ms; do
		for n in 1 2 5 10 50; do
			"$PP" -p "$TPID" -d "$d" -n "$n" >/dev/null 2>"$TMP/short.err"
			line=$(grep -m 1 '^  rate' "$TMP/short.err")
			pct=$(rate_pct "$line" "$n")
			if [ -z "$pct" ] || [ "$pct" -gt 100 ]; then bad="$bad -d $d -n $n: ${line#  rate   };"
			elif [ "$pct" -lt 95 ]; then low="$low -d $d -n $n: ${line#  rate   };"; fi
			[ -z "$pct" ] || [ "$pct" -ge "$least" ] || least=$pct
		done
	done
	# and long ones at the headline interval: never over 100 %, the ticks
	# asked all there (a late wake-up of the sampler may miss a few)
	for n in 100 1000 5000; do
		"$PP" -p "$TPID" -d 100us -n "$n" >/dev/null 2>"$TMP/short.err"
		line=$(grep -m 1 '^  rate' "$TMP/short.err")
		pct=$(rate_pct "$line" "$n")
		if [ -z "$pct" ] || [ "$pct" -gt 100 ]; then bad="$bad -d 100us -n $n: ${line#  rate   };"
		elif [ "$pct" -lt 90 ]; then low="$low -d 100us -n $n: ${line#  rate   };"; fi
		[ -z "$pct" ] || [ "$pct" -ge "$least_long" ] || least_long=$pct
	done
	stop_target "$TPID"
	if [ -z "$bad" ]; then pass "summary rate for -n 1 to 50 at 10 ms and 1 ms, -n 100 to 5000 at 100 us: never over 100 %, as many ticks as asked"
	else fail "summary rate of short runs" "$bad" "$TMP/short.err"; fi
	if [ -z "$low" ]; then pass "summary rate for -n 1 to 50 at 10 ms and 1 ms: $least-100 % of the ticks (>= 95); -n 100 to 5000 at 100 us: $least_long-100 % (>= 90)"
	else tfail "summary rate of short runs: share of the ticks due" "under 95 % (10ms, 1ms) or 90 % (100us):$low" "$TMP/short.err"; fi
}
[ $CAN_ATTACH = 1 ] && short_and_huge_rate_tests
