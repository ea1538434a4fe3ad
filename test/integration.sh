#!/usr/bin/env bash
# Integration tests: the real binary against the small targets in
# test/targets/ (built by `make check`).  Each test asserts an outcome -
# shares within a tolerance, frames present, exit codes, the target's own
# view - and prints PASS, FAIL (with the numbers) or SKIP (with the reason).
# The last line is "integration: N passed, M failed, K skipped".
set -u
cd "$(dirname "$0")/.."

PP=${PP:-./ptrace_profiler} # make check runs it again with a sanitizer build
T=build/test/targets
TMP=$(mktemp -d)
PIDS=()
TOL=8 # percentage points: a noisy 2-CPU VM

CGROUP= # a cpu cgroup a test made, removed on exit
cleanup() {
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	[ -z "$CGROUP" ] || { sleep 0.1; rmdir "$CGROUP" 2>/dev/null; }
	rm -rf "$TMP"
}
trap cleanup EXIT

passed=0 failed=0 skipped=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() {
	echo "FAIL $1: $2"
	failed=$((failed + 1))
	if [ -n "${3:-}" ] && [ -f "$3" ]; then head -n 5 "$3" | cut -c1-400 | sed 's/^/    /'; fi
}
skip() { echo "SKIP $1: $2"; skipped=$((skipped + 1)); }

# start CMD...: runs a target in the background; its pid in $TPID.
start() {
	"$@" &
	TPID=$!
	PIDS+=("$TPID")
	sleep 0.2
}
stop_target() { kill -9 "$1" 2>/dev/null; wait "$1" 2>/dev/null; }
# quota_cgroup: makes a cpu cgroup whose tasks get 1 ms of CPU per 10 ms
# (cgroup v1 cpu controller, or v2 where cpu is already enabled), in
# $CGROUP.  Fails where we may not (not root, no cpu controller).
quota_cgroup() {
	local d
	for d in /sys/fs/cgroup/cpu /sys/fs/cgroup/cpu,cpuacct; do
		[ -w "$d/cgroup.procs" ] && [ -e "$d/cpu.cfs_quota_us" ] || continue
		CGROUP=$d/ptrace_profiler_test.$$
		mkdir "$CGROUP" 2>/dev/null && echo 10000 >"$CGROUP/cpu.cfs_period_us" &&
			echo 1000 >"$CGROUP/cpu.cfs_quota_us" && return 0
		rmdir "$CGROUP" 2>/dev/null
		CGROUP=
	done
	d=/sys/fs/cgroup
	if [ -w "$d/cgroup.procs" ] && grep -qw cpu "$d/cgroup.subtree_control" 2>/dev/null; then
		CGROUP=$d/ptrace_profiler_test.$$
		mkdir "$CGROUP" 2>/dev/null && echo "1000 10000" >"$CGROUP/cpu.max" && return 0
		rmdir "$CGROUP" 2>/dev/null
		CGROUP=
	fi
	return 1
}
# settle PID COMM STATE: waits (up to 5 s) until PID's thread COMM is in
# STATE, so a test that expects every sample in that state does not count
# the target's own start-up on a loaded machine.
settle() {
	local i task
	for i in $(seq 1 50); do
		for task in /proc/"$1"/task/*; do
			[ "$(cat "$task/comm" 2>/dev/null)" = "$2" ] || continue
			[ "$(sed 's/.*) //' "$task/stat" 2>/dev/null | cut -d' ' -f1)" = "$3" ] && return 0
		done
		sleep 0.1
	done
	return 1
}

# share FILE REGEX: % of samples whose folded stack matches REGEX.
share() { awk -v re="$2" '{ n = $NF; t += n; if ($0 ~ re) m += n } END { printf "%.1f", t ? 100 * m / t : 0 }' "$1"; }
# share_str FILE TEXT: % of samples whose folded stack contains TEXT, as is.
share_str() { TEXT=$2 awk '{ n = $NF; t += n; if (index($0, ENVIRON["TEXT"])) m += n } END { printf "%.1f", t ? 100 * m / t : 0 }' "$1"; }
# share_of FILE SUBSET_REGEX REGEX: % of the samples matching SUBSET that also match REGEX.
share_of() { awk -v s="$2" -v re="$3" '$0 ~ s { n = $NF; t += n; if ($0 ~ re) m += n } END { printf "%.1f", t ? 100 * m / t : 0 }' "$1"; }
total() { awk '{ t += $NF } END { print t + 0 }' "$1"; }
near() { awk -v a="$1" -v b="$2" -v tol="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= tol) }'; }
atleast() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

# The target must come out as it went in: running, not traced.
untouched() {
	local pid=$1 state tracer
	state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)
	tracer=$(awk '/^TracerPid:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	[ -n "$state" ] && [ "$state" != T ] && [ "$state" != t ] && [ "$tracer" = 0 ]
}

[ -x "$PP" ] || { echo "integration: $PP not built"; exit 1; }

# --- what this machine lets us do --------------------------------------
CAN_ATTACH=0
sleep 5 &
probe=$!
if "$PP" -p "$probe" -n 1 >/dev/null 2>"$TMP/probe.err"; then CAN_ATTACH=1; fi
kill "$probe" 2>/dev/null
WHY_NO_ATTACH="cannot ptrace a running process here ($(head -n 1 "$TMP/probe.err")); run as root or set kernel.yama.ptrace_scope=0"
KSTACKS=0
cat /proc/self/stack >/dev/null 2>&1 && KSTACKS=1
WHY_NO_KSTACKS="/proc/PID/stack is not readable (needs root): kernel frames not checked"

# --- bad input: exit 2, one line on stderr naming the value, no stdout --
true &
gone=$!
wait "$gone"
bad_input() {
	local name=$1 must=$2
	shift 2
	"$PP" "$@" >"$TMP/bi.out" 2>"$TMP/bi.err"
	local rc=$? lines
	lines=$(wc -l <"$TMP/bi.err")
	if [ "$rc" != 2 ]; then fail "bad input $name" "exit status $rc, expected 2"
	elif [ -s "$TMP/bi.out" ]; then fail "bad input $name" "wrote to stdout"
	elif [ "$lines" != 1 ]; then fail "bad input $name" "$lines lines on stderr, expected 1" "$TMP/bi.err"
	elif ! grep -qF -- "$must" "$TMP/bi.err"; then fail "bad input $name" "message does not name '$must': $(cat "$TMP/bi.err")"
	else pass "bad input $name"
	fi
}
bad_input "unknown unit" "10xs" -p 1 -d 10xs
bad_input "zero interval" "'0'" -p 1 -d 0
bad_input "negative interval" "-5ms" -p 1 -d -5ms
bad_input "not a number" "abc" -p 1 -d abc
bad_input "overflow" "99999999999999999999s" -p 1 -d 99999999999999999999s
bad_input "zero count" "'0'" -p 1 -n 0
bad_input "negative count" "-1" -p 1 -n -1
bad_input "fractional count" "1.5" -p 1 -n 1.5
bad_input "bad duration" "5parsecs" -p 1 -t 5parsecs
bad_input "pid zero" "'0'" -p 0
bad_input "pid not a number" "abc" -p abc
bad_input "no such process" "$gone" -p "$gone"
bad_input "unknown option" "--bogus" --bogus
bad_input "no target" "no target"
bad_input "unknown format" "json" -p 1 --format json
bad_input "missing value" "-n" -p 1 -n
bad_input "command not found" "no-such-command-xyz" -- no-such-command-xyz

"$PP" --help >"$TMP/help.out" 2>"$TMP/help.err"
rc=$?
if [ $rc = 0 ] && grep -q '^Usage: ptrace_profiler' "$TMP/help.out" && grep -q -- '--delay' "$TMP/help.out" &&
	grep -q 'flamegraph.pl' "$TMP/help.out" && [ ! -s "$TMP/help.err" ]; then pass "--help"
else fail "--help" "exit $rc or usage/examples missing on stdout"; fi
if "$PP" -V | grep -Eq '^ptrace_profiler [0-9]+\.[0-9]+'; then pass "--version"; else fail "--version" "no version line"; fi

# --- launch mode and the target's own view (works under Yama scope 1) ---
"$PP" -d 1ms -o "$TMP/launch.folded" -- "$T/sleep_check" 20 20 "$TMP/sleep_check.txt" >"$TMP/launch.out" 2>"$TMP/launch.err"
rc=$?
report=$(cat "$TMP/sleep_check.txt" 2>/dev/null)
if [ $rc != 0 ]; then fail "launch: -- COMMAND" "exit status $rc" "$TMP/launch.err"
elif [ -s "$TMP/launch.out" ]; then fail "launch: -- COMMAND" "stdout not empty with -o"
elif [ "$(total "$TMP/launch.folded")" -lt 100 ]; then fail "launch: -- COMMAND" "only $(total "$TMP/launch.folded") samples in ~0.4 s at 1 ms" "$TMP/launch.folded"
elif ! grep -q 'exited' "$TMP/launch.err"; then fail "launch: -- COMMAND" "no note that the target exited" "$TMP/launch.err"
else pass "launch: -- COMMAND ($(total "$TMP/launch.folded") samples, target ran to its end)"; fi
case $report in
"sleeps=20 short=0 eintr=0 "*) pass "target's own view: 20 nanosleeps, none cut short or interrupted ($report)" ;;
*) fail "target's own view" "sleep_check reported '$report'" ;;
esac
nap=$(share "$TMP/launch.folded" ';nap;')
if atleast "$nap" 90; then pass "launch: samples in nap ${nap}%"; else fail "launch: samples in nap" "${nap}%, expected >= 90%" "$TMP/launch.folded"; fi

if [ $CAN_ATTACH = 0 ]; then
	for t in "split shares" "vDSO unwinding" "sleeping part" "deep recursion -O2 -fomit-frame-pointer" \
		"blocked thread" "-d 100us -n 5000" "stap format" "SIGINT ends the run" "Oracle state"; do
		skip "$t" "$WHY_NO_ATTACH"
	done
else
	# --- a known wall-clock split ------------------------------------------
	start "$T/split"
	"$PP" -p "$TPID" -d 1ms -t 4s >"$TMP/split.folded" 2>"$TMP/split.err"
	rc=$?
	a=$(share "$TMP/split.folded" ';cpu_work')
	b=$(share "$TMP/split.folded" ';sleep_work')
	c=$(share "$TMP/split.folded" ';cpu_other')
	if [ $rc = 0 ] && near "$a" 50 $TOL && near "$b" 30 $TOL && near "$c" 20 $TOL; then
		pass "split shares: cpu_work ${a}% (50), sleep_work ${b}% (30), cpu_other ${c}% (20)"
	else fail "split shares" "exit $rc; cpu_work ${a}% (50), sleep_work ${b}% (30), cpu_other ${c}% (20), tolerance $TOL" "$TMP/split.folded"; fi
	if untouched "$TPID"; then pass "target running and untraced after the run"
	else fail "target after the run" "state/TracerPid: $(grep -E '^(State|TracerPid)' /proc/$TPID/status | tr '\n' ' ')"; fi

	main=$(share "$TMP/split.folded" ';main;')
	vdso=$(share_of "$TMP/split.folded" ';cpu_work' 'vdso|clock_gettime')
	if atleast "$main" 98 && atleast "$vdso" 30; then
		pass "vDSO unwinding: ${vdso}% of cpu_work samples in clock_gettime/vDSO, main in ${main}% of all"
	else fail "vDSO unwinding" "main in ${main}% (>= 98), clock_gettime/vDSO in ${vdso}% of cpu_work (>= 30)" "$TMP/split.folded"; fi

	sleeping=$(share_of "$TMP/split.folded" ';sleep_work' '^split;S \(sleeping\);')
	if [ $KSTACKS = 0 ]; then
		skip "sleeping part: kernel frames" "$WHY_NO_KSTACKS"
		kern=100
	else
		kern=$(share_of "$TMP/split.folded" ';sleep_work' 'do_syscall_64_\[k\]')
	fi
	if atleast "$sleeping" 90 && atleast "$kern" 90; then
		pass "sleeping part: S (sleeping) in ${sleeping}%, kernel frames in ${kern}% of sleep_work samples"
	else fail "sleeping part" "S (sleeping) in ${sleeping}% (>= 90), do_syscall_64_[k] in ${kern}% (>= 90)" "$TMP/split.folded"; fi

	# --- the documented command line, exactly ------------------------------
	"$PP" -p "$TPID" -d 100us -n 5000 >"$TMP/n5000.folded" 2>"$TMP/n5000.err"
	rc=$?
	n=$(total "$TMP/n5000.folded")
	if [ $rc = 0 ] && [ "$n" = 5000 ]; then pass "-d 100us -n 5000: 5000 samples ($(grep -o 'achieved [0-9.]*/s' "$TMP/n5000.err"))"
	else fail "-d 100us -n 5000" "exit $rc, $n samples" "$TMP/n5000.err"; fi

	# --- what a sample costs in system calls, once warm ---------------------
	# Two runs under strace; the difference per extra sample is the steady
	# state: the stop (interrupt, registers, continue), one stack copy, the
	# /proc reads - and nothing else: no masking, opens, maps or forks.
	if command -v strace >/dev/null 2>&1; then
		strace -f -c -o "$TMP/sc.200" "$PP" -p "$TPID" -d 1ms -n 200 >/dev/null 2>&1
		strace -f -c -o "$TMP/sc.1200" "$PP" -p "$TPID" -d 1ms -n 1200 >/dev/null 2>&1
		# strace -c rows: % time, seconds, usecs/call, calls, [errors,] syscall
		budget=$(awk '
			FNR == 1 { f++ }
			$1 ~ /^[0-9.]+$/ && $4 ~ /^[0-9]+$/ { calls[f, $NF] = $4 }
			END {
				n = split("ptrace:3.2 pread64:3.2 process_vm_readv:2.2 wait4:8 rt_sigtimedwait:4 " \
					  "rt_sigprocmask:0.05 openat:0.05 mmap:0.05 munmap:0.05 brk:0.05 " \
					  "clone:0 clone3:0 fork:0 vfork:0 execve:0", lim, " ")
				for (i = 1; i <= n; i++) {
					split(lim[i], kv, ":")
					per = (calls[2, kv[1]] - calls[1, kv[1]]) / 1000
					if (per > 0) shown = shown sprintf(" %s %.2f", kv[1], per)
					if (per > kv[2] + 0) over = over sprintf(" %s %.2f (at most %s)", kv[1], per, kv[2])
				}
				print (over == "" ? "ok" : "over") "|" shown "|" over
			}' "$TMP/sc.200" "$TMP/sc.1200")
		case $budget in
		ok*) pass "system calls per sample once warm:$(echo "$budget" | cut -d'|' -f2)" ;;
		*) fail "system calls per sample" "$(echo "$budget" | cut -d'|' -f3)" "$TMP/sc.1200" ;;
		esac
	else
		skip "system calls per sample" "strace is not installed"
	fi

	# --- stap format -------------------------------------------------------
	"$PP" -p "$TPID" -d 1ms -n 20 --format stap >"$TMP/stap.out" 2>/dev/null
	blocks=$(awk '
		/^1$/ { if (prev !~ /^ [A-Za-z?] \(/) bad++; ones++; expect_blank = 1; prev = $0; next }
		expect_blank { if ($0 != "") bad++; expect_blank = 0 }
		{ prev = $0 }
		END { print (bad ? "bad" : ones + 0) }' "$TMP/stap.out")
	if [ "$blocks" = 20 ] && grep -q ' : cpu_work+0x0$\| : cpu_other+0x0$\| : sleep_work+0x0$' "$TMP/stap.out"; then
		pass "stap format: 20 blocks ending in state line, 1, blank"
	else fail "stap format" "blocks: $blocks" "$TMP/stap.out"; fi

	# --- SIGINT: detach, write what was collected --------------------------
	"$PP" -p "$TPID" -d 1ms >"$TMP/int.folded" 2>"$TMP/int.err" &
	prof=$!
	sleep 1
	kill -INT $prof
	wait $prof
	rc=$?
	n=$(total "$TMP/int.folded")
	if [ $rc = 0 ] && [ "$n" -gt 300 ] && untouched "$TPID"; then pass "SIGINT ends the run: exit 0, $n samples written, target untraced"
	else fail "SIGINT ends the run" "exit $rc, $n samples" "$TMP/int.err"; fi
	stop_target "$TPID"

	# --- deep recursion without frame pointers -----------------------------
	start "$T/recursion"
	"$PP" -p "$TPID" -d 1ms -n 500 >"$TMP/rec.folded" 2>/dev/null
	stop_target "$TPID"
	main=$(share "$TMP/rec.folded" ';main;')
	full=$(awk '{ n = $NF; t += n; c = gsub(/;recurse_[ab]/, "&"); if (c == 41 && $0 ~ /;leaf_spin$|;leaf_spin /) m += n }
		END { printf "%.1f", t ? 100 * m / t : 0 }' "$TMP/rec.folded")
	if atleast "$main" 95 && atleast "$full" 90; then
		pass "deep recursion -O2 -fomit-frame-pointer: main in ${main}%, all 41 frames + leaf_spin in ${full}%"
	else fail "deep recursion -O2 -fomit-frame-pointer" "main in ${main}% (>= 95), all 41 frames in ${full}% (>= 90)" "$TMP/rec.folded"; fi

	# --- a thread blocked in a system call, next to a spinning one ---------
	start "$T/blocked"
	"$PP" -p "$TPID" -d 1ms -n 200 >"$TMP/blk.folded" 2>"$TMP/blk.err"
	stop_target "$TPID"
	waiting=$(share_of "$TMP/blk.folded" '^blocked;' '^blocked;S \(sleeping\);.*;wait_for_input;')
	spinning=$(share_of "$TMP/blk.folded" '^spinner;' '^spinner;R \(running\);.*;spin')
	nblk=$(grep '^blocked;' "$TMP/blk.folded" | total /dev/stdin)
	nspin=$(grep '^spinner;' "$TMP/blk.folded" | total /dev/stdin)
	if [ $KSTACKS = 1 ]; then
		pipe=$(share_of "$TMP/blk.folded" '^blocked;' 'pipe_read_\[k\]')
	else
		pipe=100
		skip "blocked thread: kernel frames" "$WHY_NO_KSTACKS"
	fi
	if [ "$nblk" = 200 ] && [ "$nspin" = 200 ] && atleast "$waiting" 95 && atleast "$spinning" 90 && atleast "$pipe" 95; then
		pass "blocked thread: 200+200 samples; blocked in read ${waiting}% (pipe_read_[k] ${pipe}%), spinner on CPU ${spinning}%"
	else fail "blocked thread" "samples $nblk/$nspin (200 each), S+wait_for_input ${waiting}% (>= 95), pipe_read_[k] ${pipe}% (>= 95), spinner R ${spinning}% (>= 90)" "$TMP/blk.folded"; fi

	# --- the same thread, kept off the CPU after our stop ----------------
	# Our interrupt takes it out of read(); it must run to restart the
	# call, and in a cgroup whose spinner uses up the quota it waits, R
	# because of us.  Each run stops it once (then it is blocked where the
	# last sample found it); without the run-count check about one run in
	# seven here had samples of it as R.
	if quota_cgroup; then
		start "$T/blocked"
		settle "$TPID" blocked S
		echo "$TPID" >"$CGROUP/cgroup.procs"
		: >"$TMP/quota.odd"
		for run in $(seq 1 30); do
			"$PP" -p "$TPID" --tid "$TPID" -d 1ms -n 20 >"$TMP/quota.folded" 2>/dev/null
			n=$(grep '^blocked;S (sleeping);.*;wait_for_input;read' "$TMP/quota.folded" | total /dev/stdin)
			[ "$n" = 20 ] || grep -v '^blocked;S (sleeping);.*;wait_for_input;read' "$TMP/quota.folded" >>"$TMP/quota.odd"
			[ "$n" = 20 ] || echo "run $run: $n of 20 asleep in read" >>"$TMP/quota.odd"
		done
		stop_target "$TPID"
		rmdir "$CGROUP" 2>/dev/null && CGROUP=
		if [ ! -s "$TMP/quota.odd" ]; then
			pass "blocked thread held off the CPU after our stop (cpu quota 1 ms/10 ms): S in read in 30 runs x 20 samples"
		else fail "blocked thread held off the CPU after our stop" "samples not asleep in read:" "$TMP/quota.odd"; fi
	else
		skip "blocked thread held off the CPU after our stop" "cannot make a cpu cgroup here (needs root and the cpu controller)"
	fi
fi

# --- Oracle wait events from a stand-in SGA (SysV shm) --------------------
oracle_tests() {
	start "$T/fake_oracle" "$TMP/addr"
	local opc tim
	read -r opc tim <"$TMP/addr"
	printf 's/\\<event#=146\\>/event=db file sequential read/g\n' >"$TMP/ev.sed"
	printf '# event#<TAB>name\n146\tdirect path read/temp\n' >"$TMP/ev.tab"

	"$PP" -p "$TPID" -d 1ms -t 3s --ksuseopc "$opc" --ksusetim "$tim" >"$TMP/ora.folded" 2>"$TMP/ora.err"
	local rc=$? cpu ev agree_ev agree_cpu
	cpu=$(share "$TMP/ora.folded" '^fake_oracle;On CPU \(Oracle state\);')
	ev=$(share "$TMP/ora.folded" '^fake_oracle;event#=146 \(Oracle state\);')
	agree_ev=$(share_of "$TMP/ora.folded" 'event#=146 \(Oracle state\)' ';wait_phase;')
	agree_cpu=$(share_of "$TMP/ora.folded" 'On CPU \(Oracle state\)' ';cpu_phase')
	if [ $rc = 0 ] && near "$cpu" 60 $TOL && near "$ev" 40 $TOL && atleast "$agree_ev" 90 && atleast "$agree_cpu" 90; then
		pass "Oracle state: On CPU ${cpu}% (60), event#=146 ${ev}% (40); event under wait_phase ${agree_ev}%, On CPU under cpu_phase ${agree_cpu}%"
	else fail "Oracle state" "exit $rc; On CPU ${cpu}% (60), event#=146 ${ev}% (40), agreement ${agree_ev}% / ${agree_cpu}% (>= 90)" "$TMP/ora.folded"; fi

	local fmt file want
	for fmt in sed tab; do
		file=$TMP/ev.$fmt
		[ $fmt = sed ] && want='event=db file sequential read (Oracle state)' || want='event=direct path read/temp (Oracle state)'
		"$PP" -p "$TPID" -d 1ms -n 300 --ksuseopc "$opc" --ksusetim "$tim" --event-names "$file" >"$TMP/oran.folded" 2>/dev/null
		if grep -qF "fake_oracle;$want;S (sleeping);" "$TMP/oran.folded" && ! grep -q 'event#=' "$TMP/oran.folded"; then
			pass "Oracle event names, $fmt format: '$want'"
		else fail "Oracle event names, $fmt format" "no '$want' frame" "$TMP/oran.folded"; fi
	done

	printf '146\tok\ns/\\<event#=1\\>/oops/g\n' >"$TMP/bad.sed"
	bad_input "Oracle: malformed name file" "bad.sed:2:" -p "$TPID" --ksuseopc "$opc" --ksusetim "$tim" --event-names "$TMP/bad.sed"
	bad_input "Oracle: unreadable address" "0x10" -p "$TPID" --ksuseopc 0x10 --ksusetim "$tim"
	bad_input "Oracle: one address only" "go together" -p "$TPID" --ksusetim "$tim"
	bad_input "Oracle: bad address" "'12zz'" -p "$TPID" --ksuseopc 12zz --ksusetim "$tim"
	if untouched "$TPID"; then pass "Oracle stand-in running and untraced after the errors"
	else fail "Oracle stand-in after the errors" "$(grep -E '^(State|TracerPid)' /proc/$TPID/status | tr '\n' ' ')"; fi
	stop_target "$TPID"
}
[ $CAN_ATTACH = 1 ] && oracle_tests

# --- the target's life: signals, job control, exec, exit, another tracer --
lifecycle_tests() {
	# Every signal reaches the target.  A real-time one: two SIGUSR1 merge
	# while pending whenever the target waits 2 ms for a CPU, tracer or
	# not; real-time signals queue, so a missing one is one we lost.
	start "$T/sigcount" "$TMP/sigcount"
	"$PP" -p "$TPID" -d 1ms -t 20s >/dev/null 2>"$TMP/sig.err" &
	local prof=$! i sent=500 got fwd rc
	sleep 0.3
	for i in $(seq $sent); do kill -s RTMIN+6 "$TPID"; sleep 0.002; done
	kill -INT $prof
	wait $prof
	kill -TERM "$TPID"
	wait "$TPID"
	got=$(sed -n 's/rt=//p' "$TMP/sigcount")
	fwd=$(sed -n 's/.*signals forwarded *//p' "$TMP/sig.err")
	if [ "$got" = $sent ] && [ "${fwd:-0}" -ge $sent ]; then pass "signals: target received $got of $sent SIGRTMIN+6, $fwd forwarded"
	else fail "signals" "target received ${got:-?} of $sent, forwarded ${fwd:-0}" "$TMP/sig.err"; fi

	# SIGSTOP/SIGCONT keep their meaning; the stopped target is sampled as T.
	start "$T/split"
	"$PP" -p "$TPID" -d 1ms -t 3s >"$TMP/jc.folded" 2>"$TMP/jc.err" &
	prof=$!
	sleep 0.8
	kill -STOP "$TPID"
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
	if [ $rc = 0 ] && [ "$cpu0" = "$cpu1" ] && near "$stopped" 33 $TOL && untouched "$TPID"; then
		pass "job control: stayed stopped (ran 0 ns in 0.8 s), T (stopped) ${stopped}% (33), resumed on SIGCONT"
	else fail "job control" "exit $rc, run time $cpu0 -> $cpu1 ns while stopped, T (stopped) ${stopped}% (33)" "$TMP/jc.folded"; fi

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
	if [ $rc = 0 ] && grep -q 'exited' "$TMP/exit.err" && [ "$(total "$TMP/exit.folded")" -gt 400 ]; then
		pass "target exits mid-run: exit 0, $(total "$TMP/exit.folded") samples written, a note on stderr"
	else fail "target exits mid-run" "exit $rc, $(total "$TMP/exit.folded") samples" "$TMP/exit.err"; fi

	# execve: followed, the new image named with its own symbols.
	start "$T/exec_later" "$T/split" 1
	"$PP" -p "$TPID" -d 1ms -t 10s >"$TMP/exec.folded" 2>"$TMP/exec.err"
	rc=$?
	local before after stale
	before=$(share "$TMP/exec.folded" '^exec_later;.*;before_exec')
	after=$(share "$TMP/exec.folded" '^split;.*;main;(cpu_work|sleep_work|cpu_other)')
	stale=$(share "$TMP/exec.folded" '^split;.*before_exec|^exec_later;.*(cpu_work|cpu_other)')
	if [ $rc = 0 ] && atleast "$before" 10 && atleast "$after" 50 && [ "$stale" = 0.0 ]; then
		pass "execve followed: before_exec ${before}%, new program's functions ${after}%, no stale names"
	else fail "execve followed" "exit $rc, before ${before}%, after ${after}%, stale ${stale}%" "$TMP/exec.folded"; fi

	# Another tracer first: say who.
	if command -v strace >/dev/null 2>&1; then
		start strace -f -o /dev/null "$T/split"
		local traced
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
# --- threads: several states, churn, --tid, several processes ------------
thread_tests() {
	start "$T/threads"
	"$PP" -p "$TPID" -d 1ms -t 2s >"$TMP/th.folded" 2>"$TMP/th.err"
	local rc=$? spin rd sl wt churn alltraced=0 task tracer
	spin=$(share_of "$TMP/th.folded" '^spinner;' '^spinner;R \(running\);.*;spin$|^spinner;R \(running\);.*;spin ')
	rd=$(share_of "$TMP/th.folded" '^reader;' '^reader;S \(sleeping\);.*;wait_read;')
	sl=$(share_of "$TMP/th.folded" '^sleeper;' '^sleeper;S \(sleeping\);.*;doze;')
	wt=$(share_of "$TMP/th.folded" '^waiter;' '^waiter;S \(sleeping\);.*;wait_lock;')
	churn=$(grep '^churn;' "$TMP/th.folded" | total /dev/stdin)
	for task in /proc/"$TPID"/task/*; do
		# a short-lived thread may vanish between the glob and the read
		tracer=$(awk '/^TracerPid:/ { print $2 }' "$task/status" 2>/dev/null)
		[ -z "$tracer" ] || [ "$tracer" = 0 ] || alltraced=$((alltraced + 1))
	done
	if [ $rc = 0 ] && atleast "$spin" 90 && atleast "$rd" 95 && atleast "$sl" 95 && atleast "$wt" 95 &&
		[ "$churn" -gt 100 ] && [ $alltraced = 0 ]; then
		pass "threads: spinner R ${spin}%, reader in read ${rd}%, sleeper ${sl}%, waiter on the mutex ${wt}%; $churn samples of short-lived threads; no thread left traced"
	else fail "threads" "exit $rc; spinner ${spin}%, reader ${rd}%, sleeper ${sl}%, waiter ${wt}% (>= 90/95), churn samples $churn (> 100), still traced $alltraced" "$TMP/th.folded"; fi

	local reader_tid
	reader_tid=$(grep -l '^reader$' /proc/"$TPID"/task/*/comm 2>/dev/null | head -n 1 | cut -d/ -f5)
	"$PP" -p "$TPID" --tid "$reader_tid" -d 1ms -n 100 >"$TMP/tid.folded" 2>/dev/null
	if [ "$(total "$TMP/tid.folded")" = 100 ] && [ "$(grep -vc '^reader;' "$TMP/tid.folded")" = 0 ]; then
		pass "--tid $reader_tid: 100 samples, all of thread reader"
	else fail "--tid" "$(total "$TMP/tid.folded") samples, other threads: $(grep -vc '^reader;' "$TMP/tid.folded")" "$TMP/tid.folded"; fi
	bad_input "--tid of another process" "no thread $$" -p "$TPID" --tid "$reader_tid,$$"
	local threads_pid=$TPID

	start "$T/blocked"
	settle "$TPID" blocked S
	settle "$threads_pid" reader S
	"$PP" -p "$threads_pid,$TPID" -d 1ms -n 200 >"$TMP/two.folded" 2>"$TMP/two.err"
	rc=$?
	local a b
	a=$(grep "^threads\[$threads_pid\]/reader;S (sleeping);" "$TMP/two.folded" | total /dev/stdin)
	b=$(grep "^blocked\[$TPID\]/blocked;S (sleeping);" "$TMP/two.folded" | total /dev/stdin)
	if [ $rc = 0 ] && [ "$a" = 200 ] && [ "$b" = 200 ]; then
		pass "-p PID,PID: root frames name process and thread (threads[$threads_pid]/reader 200, blocked[$TPID]/blocked 200)"
	else
		grep -v ' 200$' "$TMP/two.folded" >"$TMP/two.odd"
		fail "-p PID,PID" "exit $rc, reader $a, blocked $b (200 each); the stacks off the mark:" "$TMP/two.odd"
	fi
	stop_target "$TPID"
	stop_target "$threads_pid"
}
# --- names: C++, inlining, late libraries, stripped, split, deleted -------
# profile NAME TIME [OPTIONS...]: profiles $TPID into $TMP/NAME.folded
# (summary in $TMP/NAME.err); returns the profiler's exit status.
profile() {
	local name=$1 time=$2
	shift 2
	"$PP" -p "$TPID" -d 1ms -t "$time" "$@" >"$TMP/$name.folded" 2>"$TMP/$name.err"
}
# Is every frame of FILE free of NAME?  (fixed string)
nowhere() { ! grep -qF -- "$2" "$1"; }

cxx_tests() {
	if ! command -v c++filt >/dev/null || ! command -v nm >/dev/null; then
		skip "C++ names" "c++filt and nm (binutils) are needed for the expected names"
		return
	fi
	# The names as c++filt prints them, from the binary's own symbols.
	local run lambda mix call_line
	run=$(nm "$T/cpp_names" | c++filt | sed -n 's/^[0-9a-f]* W \(app::Worker<int>::run(int)\)$/\1/p')
	lambda=$(nm "$T/cpp_names" | c++filt | sed -n 's/^[0-9a-f]* W \(app::Worker<int>::run(int)::{lambda.*\)$/\1/p')
	mix=$(echo _ZN3app3mixEm | c++filt)
	call_line=$(grep -n 'total += mix' test/targets/cpp_names.cpp | cut -d: -f1)
	start "$T/cpp_names"
	profile cxx 1s
	profile cxx_noinl 1s --no-inline
	profile cxx_lines 1s --lines
	stop_target "$TPID"
	local both inl
	both=$(share_str "$TMP/cxx.folded" ";main;$run;$lambda")
	inl=$(share_str "$TMP/cxx.folded" ";$lambda;${mix}_[i] ")
	if [ -n "$run" ] && [ -n "$lambda" ] && atleast "$both" 95 && atleast "$inl" 80; then
		pass "C++ names as c++filt prints them: '$run' and its lambda in ${both}%, '${mix}_[i]' inlined into the lambda in ${inl}%"
	else fail "C++ names" "run '$run' + lambda in ${both}% (>= 95), ${mix}_[i] under the lambda in ${inl}% (>= 80)" "$TMP/cxx.folded"; fi
	if nowhere "$TMP/cxx_noinl.folded" "_[i]" && grep -qF -- ";$lambda " "$TMP/cxx_noinl.folded"; then
		pass "--no-inline: no _[i] frames, the lambda is the leaf"
	else fail "--no-inline" "inline frames left, or no lambda leaf" "$TMP/cxx_noinl.folded"; fi
	if grep -qF -- ";$lambda (cpp_names.cpp:$call_line);$mix (cpp_names.cpp:" "$TMP/cxx_lines.folded"; then
		pass "--lines: the lambda at its call of mix (cpp_names.cpp:$call_line), mix at its own lines"
	else fail "--lines" "no '$lambda (cpp_names.cpp:$call_line);$mix (cpp_names.cpp:N)_[i]'" "$TMP/cxx_lines.folded"; fi
}

late_library_tests() {
	# liblate.so is loaded 600 ms after we attach.
	start "$T/late_load" "$PWD/$T/liblate.so" 600
	profile late 1.5s
	stop_target "$TPID"
	local late waiting reads unnamed
	late=$(share "$TMP/late.folded" ';main;late_spin;')
	waiting=$(share "$TMP/late.folded" ';main;wait_a_while;')
	reads=$(sed -n 's/.*maps re-read \([0-9]*\) times.*/\1/p' "$TMP/late.err")
	# The library's functions are named; its PLT stubs (the call to
	# clock_gettime) have no symbol and may say [liblate.so].
	unnamed=$(share "$TMP/late.folded" ';main;\[|\[unknown\]')
	if atleast "$late" 40 && atleast "$waiting" 20 && [ "$unnamed" = 0.0 ] && [ "${reads:-99}" -le 5 ]; then
		pass "library loaded after attach: late_spin in ${late}% (named, no [unknown]), wait_a_while ${waiting}%, maps re-read ${reads} times"
	else fail "library loaded after attach" "late_spin ${late}% (>= 40), wait ${waiting}% (>= 20), unnamed ${unnamed}%, re-reads ${reads:-?} (<= 5)" "$TMP/late.err"; fi
}

stripped_tests() {
	strip -o "$TMP/split.stripped" "$T/split"
	strip -o "$TMP/split_dynsym.stripped" "$T/split_dynsym"
	start "$TMP/split.stripped"
	profile stripped 1s
	stop_target "$TPID"
	local own main
	own=$(share "$TMP/stripped.folded" '\[split.stripped\]')
	# main, cpu_work...: not exported, so not named; glibc's caller of main
	# is __libc_start_call_main (debug info) or [libc.so.6], never the
	# exported __libc_init_first the original tool printed.
	if atleast "$own" 95 && nowhere "$TMP/stripped.folded" ';main;' && nowhere "$TMP/stripped.folded" 'cpu_work' &&
		nowhere "$TMP/stripped.folded" '__libc_init_first'; then
		pass "stripped binary: its frames [split.stripped] in ${own}%, no guessed names"
	else fail "stripped binary" "[split.stripped] in ${own}% (>= 95), or a name it cannot have" "$TMP/stripped.folded"; fi
	start "$TMP/split_dynsym.stripped"
	profile dynsym 1s
	stop_target "$TPID"
	main=$(share "$TMP/dynsym.folded" ';main;(cpu_work|sleep_work|cpu_other)')
	if atleast "$main" 95 && grep -qF ';cpu_work;[split_dynsym.stripped];' "$TMP/dynsym.folded"; then
		pass "stripped, exported symbols: main;cpu_work... from .dynsym in ${main}%, static now() as [split_dynsym.stripped]"
	else fail "stripped, exported symbols" "named ${main}% (>= 95)" "$TMP/dynsym.folded"; fi
}

# split_off_debug BIN DEBUG: a copy of the split target at BIN, stripped,
# its debug info kept apart in DEBUG.
split_off_debug() {
	cp "$T/split" "$1"
	objcopy --only-keep-debug "$1" "$2"
	strip "$1"
}

split_debug_tests() {
	# Debug info split off, found by build-id in a --debuginfo-path
	# directory, and by .gnu_debuglink next to the binary.
	mkdir -p "$TMP/bid" "$TMP/debug" "$TMP/dl"
	split_off_debug "$TMP/bid/split" "$TMP/bid.debug"
	local id
	id=$(readelf -n "$TMP/bid/split" | sed -n 's/.*Build ID: //p')
	mkdir -p "$TMP/debug/.build-id/${id:0:2}"
	mv "$TMP/bid.debug" "$TMP/debug/.build-id/${id:0:2}/${id:2}.debug"
	split_off_debug "$TMP/dl/split" "$TMP/dl/split.debug"
	objcopy --add-gnu-debuglink="$TMP/dl/split.debug" "$TMP/dl/split"

	local line
	line=$(grep -n 'cpu_work(cycle' test/targets/split.c | head -n 1 | cut -d: -f1)
	start "$TMP/bid/split"
	profile bid_none 0.5s
	profile bid 1s --lines --debuginfo-path ":.debug:/usr/lib/debug:$TMP/debug"
	stop_target "$TPID"
	local named
	named=$(share "$TMP/bid.folded" ';main [(]split.c:[0-9]+[)];(cpu_work|sleep_work|cpu_other) [(]split.c:')
	if atleast "$named" 95 && grep -qF ";main (split.c:$line);cpu_work (split.c:" "$TMP/bid.folded" &&
		grep -qF '[split];' "$TMP/bid_none.folded"; then
		pass "debug info by build-id (--debuginfo-path): named with lines in ${named}%, [split] without it"
	else fail "debug info by build-id" "named with lines ${named}% (>= 95)" "$TMP/bid.folded"; fi
	start "$TMP/dl/split"
	profile dl 0.5s
	stop_target "$TPID"
	named=$(share "$TMP/dl.folded" ';main;(cpu_work|sleep_work|cpu_other)')
	if atleast "$named" 95; then pass "debug info by .gnu_debuglink: named in ${named}%"
	else fail "debug info by .gnu_debuglink" "named ${named}% (>= 95)" "$TMP/dl.folded"; fi
}

minidebuginfo_tests() {
	# MiniDebugInfo, as Fedora ships binaries: .gnu_debugdata holds an
	# xz-compressed ELF with the symbols .dynsym lacks.
	if ! command -v xz >/dev/null; then
		skip "MiniDebugInfo" "xz is needed to build one"
		return
	fi
	local d=$TMP/mini
	mkdir -p "$d"
	cp "$T/split" "$d/split"
	nm -D "$d/split" --format=posix --defined-only | awk '{ print $1 }' | sort >"$d/dynsyms"
	nm "$d/split" --format=posix --defined-only | awk '$2 ~ /^[TtD]$/ { print $1 }' | sort >"$d/funcsyms"
	comm -13 "$d/dynsyms" "$d/funcsyms" >"$d/keep"
	objcopy --only-keep-debug "$d/split" "$d/mini"
	objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$d/keep" "$d/mini"
	strip --strip-all -R .comment "$d/split"
	xz "$d/mini"
	objcopy --add-section .gnu_debugdata="$d/mini.xz" "$d/split"
	start "$d/split"
	profile mini 0.5s
	stop_target "$TPID"
	local named
	named=$(share "$TMP/mini.folded" ';main;(cpu_work|sleep_work|cpu_other)')
	if atleast "$named" 95; then pass "MiniDebugInfo (.gnu_debugdata): named in ${named}%"
	else fail "MiniDebugInfo" "named ${named}% (>= 95)" "$TMP/mini.folded"; fi
}

debuginfod_tests() {
	# Debug info from a debuginfod server (libdw's client, DEBUGINFOD_URLS),
	# here a local one on loopback serving a split-off debug file.
	if ! command -v debuginfod >/dev/null || ! command -v debuginfod-find >/dev/null; then
		skip "debug info from debuginfod" "the debuginfod package (server and debuginfod-find) is not installed"
		return
	fi
	mkdir -p "$TMP/dfd/serve" "$TMP/dfd/bin"
	split_off_debug "$TMP/dfd/bin/split" "$TMP/dfd/serve/split.debug"
	local id port url server ready=0 i
	id=$(readelf -n "$TMP/dfd/bin/split" | sed -n 's/.*Build ID: //p')
	port=$((20000 + RANDOM % 20000))
	url=http://127.0.0.1:$port
	debuginfod -p "$port" -F "$TMP/dfd/serve" -d "$TMP/dfd/index.sqlite" >"$TMP/dfd/server.log" 2>&1 &
	server=$!
	PIDS+=("$server")
	for i in $(seq 50); do
		# A fresh cache each try: the client remembers a miss for 10 min.
		if DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$TMP/dfd/probe.$i \
			debuginfod-find debuginfo "$id" >/dev/null 2>&1; then ready=1; break; fi
		sleep 0.2
	done
	if [ $ready = 0 ]; then
		skip "debug info from debuginfod" "the local server did not serve in 10 s: $(tail -n 1 "$TMP/dfd/server.log")"
		stop_target "$server"
		return
	fi
	start "$TMP/dfd/bin/split"
	profile dfd_none 0.5s
	DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$TMP/dfd/cache profile dfd 0.5s
	stop_target "$TPID"
	stop_target "$server"
	local named
	named=$(share "$TMP/dfd.folded" ';main;(cpu_work|sleep_work|cpu_other)')
	if atleast "$named" 95 && grep -qF '[split];' "$TMP/dfd_none.folded"; then
		pass "debug info from a debuginfod server (DEBUGINFOD_URLS): named in ${named}%, [split] without it"
	else fail "debug info from debuginfod" "named ${named}% (>= 95)" "$TMP/dfd.folded"; fi
}

replaced_binary_tests() {
	# Deleted while running, and another program put at its path.
	cp "$T/split" "$TMP/app"
	start "$TMP/app"
	rm "$TMP/app"
	cp "$T/recursion" "$TMP/app"
	profile replaced 1s
	local deleted
	deleted=$(grep -c "$TMP/app (deleted)" "/proc/$TPID/maps")
	stop_target "$TPID"
	local named
	named=$(share "$TMP/replaced.folded" ';main;(cpu_work|sleep_work|cpu_other)')
	if [ "$deleted" -gt 0 ] && atleast "$named" 95 && nowhere "$TMP/replaced.folded" recurse_; then
		pass "binary deleted and replaced while running: its own names in ${named}%, none of the new file's"
	else fail "binary deleted and replaced" "(deleted) mappings $deleted, named ${named}% (>= 95)" "$TMP/replaced.folded"; fi

	# Another mount namespace, where the path holds another file than here.
	if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
		skip "other mount namespace" "needs root and unshare"
		return
	fi
	mkdir -p "$TMP/ns"
	cp "$T/recursion" "$TMP/ns/app"
	start unshare --mount --propagation private sh -c \
		"mount -t tmpfs tmpfs '$TMP/ns' && cp '$T/split' '$TMP/ns/app' && exec '$TMP/ns/app'"
	profile ns 1s
	stop_target "$TPID"
	named=$(share "$TMP/ns.folded" ';main;(cpu_work|sleep_work|cpu_other)')
	if atleast "$named" 95 && nowhere "$TMP/ns.folded" recurse_; then
		pass "other mount namespace, another file at the same path here: its own names in ${named}%"
	else fail "other mount namespace" "named ${named}% (>= 95)" "$TMP/ns.folded"; fi
}

signal_and_jit_tests() {
	start "$T/sighandler"
	profile sig 1s
	stop_target "$TPID"
	local handler through
	handler=$(share "$TMP/sig.folded" ';handler_work')
	through=$(share_of "$TMP/sig.folded" ';handler_work' ';main;interrupted_loop;.*;\[signal\];on_alarm;handler_work')
	if near "$handler" 50 15 && atleast "$through" 95; then
		pass "signal handler: handler_work ${handler}% (50), unwound through [signal] into interrupted_loop and main in ${through}%"
	else fail "signal handler" "handler_work ${handler}% (50 +- 15), through [signal] to main ${through}% (>= 95)" "$TMP/sig.folded"; fi

	start "$T/jit"
	profile jit 1s
	stop_target "$TPID"
	local jit failures
	jit=$(share "$TMP/jit.folded" ';main;run_jit;\[anon\]$|;main;run_jit;\[anon\] ')
	failures=$(sed -n 's/.*unwind failures *\([0-9]*\) of.*/\1/p' "$TMP/jit.err")
	if atleast "$jit" 90 && [ "${failures:-1}" = 0 ]; then
		pass "JIT code: [anon] under run_jit and main in ${jit}%, no unwind failures"
	else fail "JIT code" "main;run_jit;[anon] ${jit}% (>= 90), unwind failures ${failures:-?}" "$TMP/jit.folded"; fi
}

symbol_tests() {
	cxx_tests
	late_library_tests
	if command -v strip >/dev/null && command -v objcopy >/dev/null && command -v readelf >/dev/null; then
		stripped_tests
		split_debug_tests
		minidebuginfo_tests
		debuginfod_tests
	else
		skip "stripped and split-debug binaries" "strip, objcopy and readelf (binutils) are needed"
	fi
	replaced_binary_tests
	signal_and_jit_tests
}
if [ $CAN_ATTACH = 1 ]; then symbol_tests; else skip "names (C++, late libraries, stripped, split debug, deleted, signals, JIT)" "$WHY_NO_ATTACH"; fi

if [ $CAN_ATTACH = 1 ]; then thread_tests; else skip "threads, --tid, several processes" "$WHY_NO_ATTACH"; fi

if [ $CAN_ATTACH = 1 ]; then lifecycle_tests; else skip "lifecycle (signals, job control, exec, exit, tracer, kill -9)" "$WHY_NO_ATTACH"; fi

echo "integration: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
