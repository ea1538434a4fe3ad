# --- the target's life: signals, job control, exec, exit, another tracer --
lifecycle_tests() {
	# Every signal reaches the target.  A real-time one: two SIGUSR1 merge
	# while pending whenever the target waits 2 ms for a CPU, tracer or
	# not; real-time signals queue, so a missing one is one we lost.
	start "$T/sigcount" "$TMP/sigcount"
	"$PP" -p "$TPID" -d 1ms -t 20s >"$TMP/sig.folded" 2>"$TMP/sig.err" &
	local prof=$! i sent=500 got fwd rc
	# forwarded by it only once it traces the target, and only those it
	# saw before it let go: it is sent SIGINT once none is pending
	until_true "traced_by_now $TPID $prof" 10
	for i in $(seq $sent); do kill -s RTMIN+6 "$TPID"; sleep 0.002; done
	until_true "! grep -Eq '^(SigPnd|ShdPnd):.*[1-9a-f]' /proc/$TPID/status" 5
	kill -INT $prof
	wait $prof
	kill -TERM "$TPID"
	wait "$TPID"
	got=$(sed -n 's/rt=//p' "$TMP/sigcount")
	fwd=$(sed -n 's/.*signals forwarded *//p' "$TMP/sig.err")
	if [ "$got" = $sent ] && [ "${fwd:-0}" -ge $sent ]; then pass "signals: target received $got of $sent SIGRTMIN+6, $fwd forwarded"
	else fail "signals" "target received ${got:-?} of $sent, forwarded ${fwd:-0}" "$TMP/sig.err"; fi
	# A thread stopped to take a signal is in a ptrace stop that is not
	# its own doing: never shown as one.
	local traced sampled
	traced=$(grep -c 't (tracing stop)' "$TMP/sig.folded")
	sampled=$(total "$TMP/sig.folded")
	if [ "$traced" = 0 ] && [ "$sampled" -gt 0 ]; then
		pass "signals: no 't (tracing stop)' in $sampled samples taken among 500 signals"
	else fail "signals: our stops in the state column" "$traced stacks in 't (tracing stop)', $sampled samples" "$TMP/sig.folded"; fi
	if [ "$sampled" -gt 100 ]; then pass "signals: samples taken among 500 signals at -d 1ms ($sampled)"
	else tfail "signals: samples taken among 500 signals at -d 1ms" "$sampled samples, expected > 100" "$TMP/sig.err"; fi

	# SIGSTOP/SIGCONT keep their meaning; the stopped target is sampled as T.
	start "$T/split"
	"$PP" -p "$TPID" -d 1ms -t 3s >"$TMP/jc.folded" 2>"$TMP/jc.err" &
	prof=$!
	sleep 0.8
	kill -STOP "$TPID"
	# stopped once it has taken the signal (it must run to): T, or t
	# while we hold it in the group stop
	until_true "grep -q '^State:[[:space:]]*[Tt]' /proc/$TPID/status" 5
	sleep 0.1
	local cpu0 cpu1 stopped
	# run time in ns: a stopped target does not run, not even in the kernel
	# for our samples (a group-stopped thread is sampled once, then reused)
	cpu0=$(cut -d' ' -f1 "/proc/$TPID/schedstat")
	sleep 0.8
	cpu1=$(cut -d' ' -f1 "/proc/$TPID/schedstat")
	kill -CONT "$TPID"
	wait $prof
	rc=$?
	stopped=$(share "$TMP/jc.folded" '^split;T \(stopped\);')
	if [ $rc = 0 ] && [ "$cpu0" = "$cpu1" ] && grep -Eq '^split;T \(stopped\);' "$TMP/jc.folded" && untouched "$TPID"; then
		pass "job control: stayed stopped (ran 0 ns in 0.8 s), sampled as T (stopped), resumed on SIGCONT"
	else fail "job control" "exit $rc, run time $cpu0 -> $cpu1 ns while stopped, T (stopped) ${stopped}%" "$TMP/jc.folded"; fi
	# 0.9 s stopped of a 3 s run
	if near "$stopped" 33 $TOL; then pass "job control: T (stopped) ${stopped}% (33)"
	else tfail "job control: T (stopped) share" "T (stopped) ${stopped}% (33), tolerance $TOL" "$TMP/jc.folded"; fi

	# Ctrl-C while the target is stopped: it stays stopped, untraced.
	kill -STOP "$TPID"
	"$PP" -p "$TPID" -d 1ms -n 50 >/dev/null 2>&1
	local st
	st=$(sed 's/.*) //' "/proc/$TPID/stat" | cut -d' ' -f1)
	kill -CONT "$TPID"
	if [ "$st" = T ]; then pass "a stopped target stays stopped after we detach"
	else fail "stopped target after detach" "state '$st', expected T"; fi
	stop_target "$TPID"

	# The target exits during the run: what we have is written, exit 0.
	start "$T/split" 1
	"$PP" -p "$TPID" -d 1ms -t 10s >"$TMP/exit.folded" 2>"$TMP/exit.err"
	rc=$?
	local written
	written=$(total "$TMP/exit.folded")
	if [ $rc = 0 ] && grep -q 'exited' "$TMP/exit.err" && [ "$written" -gt 0 ]; then
		pass "target exits mid-run: exit 0, $written samples written, a note on stderr"
	else fail "target exits mid-run" "exit $rc, $written samples" "$TMP/exit.err"; fi
	# split 1 runs for 1 s
	if [ "$written" -gt 400 ]; then pass "target exits mid-run: samples of its 1 s at -d 1ms ($written)"
	else tfail "target exits mid-run: samples of its 1 s at -d 1ms" "$written samples, expected > 400" "$TMP/exit.err"; fi

	# execve: followed, the new image named with its own symbols.
	start "$T/exec_later" "$T/split" 1
	"$PP" -p "$TPID" -d 1ms -t 10s >"$TMP/exec.folded" 2>"$TMP/exec.err"
	rc=$?
	local before after stale
	before=$(share "$TMP/exec.folded" '^exec_later;.*;before_exec')
	after=$(share "$TMP/exec.folded" '^split;.*;main;(cpu_work|sleep_work|cpu_other)')
	stale=$(share "$TMP/exec.folded" '^split;.*before_exec|^exec_later;.*(cpu_work|cpu_other)')
	if [ $rc = 0 ] && grep -Eq '^exec_later;.*;before_exec' "$TMP/exec.folded" &&
		grep -Eq '^split;.*;main;(cpu_work|sleep_work|cpu_other)' "$TMP/exec.folded" && [ "$stale" = 0.0 ]; then
		pass "execve followed: before_exec and the new program's functions both named, no stale names"
	else fail "execve followed" "exit $rc, before ${before}%, after ${after}%, stale ${stale}%" "$TMP/exec.folded"; fi
	if atleast "$before" 10 && atleast "$after" 50; then
		pass "execve followed: before_exec ${before}% (>= 10), new program's functions ${after}% (>= 50)"
	else tfail "execve followed: shares before and after" "before ${before}% (>= 10), after ${after}% (>= 50)" "$TMP/exec.folded"; fi

	# Another tracer first: say who.
	if command -v strace >/dev/null 2>&1; then
		start strace -f -o /dev/null "$T/split"
		local traced
		until_true "pgrep -P $TPID split >/dev/null" 5
		traced=$(pgrep -P "$TPID" split | head -n 1)
		PIDS+=("$traced") # strace's death does not end its tracee
		"$PP" -p "$traced" -n 10 >"$TMP/st.out" 2>"$TMP/st.err"
		rc=$?
		if [ $rc = 1 ] && [ ! -s "$TMP/st.out" ] && grep -q "already traced by process $TPID (strace)" "$TMP/st.err"; then
			pass "already traced: $(cat "$TMP/st.err")"
		else fail "already traced" "exit $rc: $(cat "$TMP/st.err")"; fi
		stop_target "$TPID"
		stop_target "$traced"
	else
		skip "already traced" "strace is not installed"
	fi

	# Not allowed: say why, and what would allow it.
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
		start "$T/split"
		setpriv --reuid=65534 --regid=65534 --clear-groups "$PP" -p "$TPID" -n 10 >"$TMP/eperm.out" 2>"$TMP/eperm.err"
		rc=$?
		if [ $rc = 1 ] && [ ! -s "$TMP/eperm.out" ] && grep -q "cannot trace process $TPID: Operation not permitted (run as root or with CAP_SYS_PTRACE" "$TMP/eperm.err" &&
			untouched "$TPID"; then pass "not permitted (as nobody): $(cat "$TMP/eperm.err")"
		else fail "not permitted" "exit $rc: $(cat "$TMP/eperm.err")"; fi
		stop_target "$TPID"
	else
		skip "not permitted" "needs root and setpriv to run the profiler as another user"
	fi

	# kill -9 of the profiler at random moments: the target never stays
	# stopped, never dies.
	start "$T/split"
	local trials=${KILL_TRIALS:-100} k bad=0 pp
	for k in $(seq "$trials"); do
		"$PP" -p "$TPID" -d 100us >/dev/null 2>&1 &
		pp=$!
		sleep "0.0$(( (RANDOM % 90) + 10 ))"
		kill -9 $pp
		wait $pp 2>/dev/null
		sleep 0.01
		if ! untouched "$TPID"; then
			bad=$((bad + 1))
			echo "    after kill -9 #$k: $(grep -E '^(State|TracerPid)' /proc/$TPID/status | tr '\n' ' ')"
			kill -CONT "$TPID" 2>/dev/null
		fi
	done
	if [ $bad = 0 ] && kill -0 "$TPID" 2>/dev/null; then
		pass "kill -9 of the profiler, $trials times at random moments: target always running and untraced"
	else fail "kill -9 of the profiler" "$bad of $trials left the target stopped or traced"; fi
	stop_target "$TPID"
}
if [ $CAN_ATTACH = 1 ]; then lifecycle_tests; else skip "lifecycle (signals, job control, exec, exit, tracer, kill -9)" "$WHY_NO_ATTACH"; fi
