# --- --max-overhead: what sampling may cost ---------------------------------
# freeze_target spins and measures its own stops (gaps in its clock with a
# voluntary context switch: only a ptrace stop puts a spinning thread to
# sleep), so the cost is the target's view, not the profiler's.  At -d
# 100us a CPU-bound thread loses a fifth to a half of its time here; with
# the bound it must stay under twice it.  Why twice: the bound is kept on
# average, and in 3 s the throttled sampler stops it only ~60 times; each
# stop costs the wait for a CPU after it, which on a shared VM is heavy
# tailed (p99 ~5 ms under load), so a few stops decide a short run.

# bound_said ERR: the summary in ERR says the bound acted: it held some of
# a thread's stops, or it drew the ticks further apart for the sampler's
# own CPU (which may leave a single thread no stops to hold).
bound_said() { grep -qE 'stopped at 1 in|spaced by --max-overhead to' "$1"; }

# stopped_share REPORT SECONDS: the target's stopped time, % of SECONDS.
stopped_share() {
	awk -v s="$2" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "stop_total_us") t = kv[2] } }
		END { printf "%.2f", t / 1e4 / s }' "$1"
}

overhead_tests() {
	local budget share free line="" ok=1 rc held why=""
	for budget in none 1% 0.5%; do
		"$T/freeze_target" 3.6 "$TMP/fz.$budget" &
		local fz=$!
		PIDS+=("$fz")
		sleep 0.2
		if [ $budget = none ]; then
			"$PP" -p "$fz" -d 100us -t 3s -o /dev/null 2>"$TMP/fz.$budget.err"
		else
			"$PP" -p "$fz" -d 100us -t 3s --max-overhead "$budget" -o /dev/null 2>"$TMP/fz.$budget.err"
		fi
		rc=$?
		wait "$fz"
		share=$(stopped_share "$TMP/fz.$budget" 3)
		held=0
		bound_said "$TMP/fz.$budget.err" && held=1
		# what works: the exit, the report, the bound said to act (function)
		[ $rc = 0 ] || why="$why $budget: exit $rc;"
		[ -s "$TMP/fz.$budget" ] || why="$why $budget: no report from freeze_target;"
		[ $budget = none ] || [ "$held" = 1 ] || why="$why $budget: the summary does not say the bound acted;"
		# what it costs (time)
		case $budget in
		none) free=$share
		      atleast "$share" 5 || ok=0 ;;
		1%)   ! atleast "$share" 2 || ok=0 ;;
		0.5%) ! atleast "$share" 1 || ok=0 ;;
		esac
		line="$line $budget: stopped ${share}% of its time$([ "$held" = 1 ] && echo ', the bound acted');"
	done
	if [ -z "$why" ]; then pass "--max-overhead at -d 100us: exit 0, reports written, the bound acted with 1 % and 0.5 %"
	else fail "--max-overhead at -d 100us" "${why# }" "$TMP/fz.1%.err"; fi
	# the rate it holds, said first, before the end (issue 34: -n 5000 at
	# -d 100us took 20 s with nothing said until then)
	local said
	said=$(head -n 1 "$TMP/fz.1%.err")
	if [[ $said =~ ^ptrace_profiler:\ --max-overhead\ 1%:\ about\ [0-9.]+\ ticks\ a\ second,\ not\ the\ 10000\ of\ -d\ 100us\ \(a\ round\ costs\ [0-9]+\ us\ of\ our\ CPU\)$ ]]; then
		pass "--max-overhead 1% at -d 100us: the rate it holds said first: ${said#ptrace_profiler: }"
	else fail "--max-overhead 1%: the rate said at the start" "first line '$said'" "$TMP/fz.1%.err"; fi
	if [ $ok = 1 ]; then pass "--max-overhead at -d 100us, freeze_target's own view:$line"
	else tfail "--max-overhead at -d 100us: freeze_target's stopped share" "without the bound >= 5 %, with 1 % under 2 %, with 0.5 % under 1 %:$line" "$TMP/fz.1%.err"; fi
	# the sampler's own CPU too: the summary's share of the machine
	local cpu
	cpu=$(sed -n 's/.* \([0-9.]*\)% of the machine.s [0-9]* CPUs.*/\1/p' "$TMP/fz.1%.err")
	if [ -z "$cpu" ]; then fail "--max-overhead 1%: the profiler's own CPU" "the summary gives no share of the machine" "$TMP/fz.1%.err"
	elif ! atleast "$cpu" 1.5; then pass "--max-overhead 1%: the profiler's CPU ${cpu}% of the machine's"
	else tfail "--max-overhead 1%: the profiler's own CPU" "${cpu}% of the machine's (under 1.5)" "$TMP/fz.1%.err"; fi
}
if [ $CAN_ATTACH = 1 ]; then overhead_tests; else skip "--max-overhead" "$WHY_NO_ATTACH"; fi

# --- the bound in every mode: --period, --push, --subprocesses, --top ------
# Each runs the same sampler with its own work beside it (windows named
# between ticks, pushes, children seized, a screen drawn): freeze_target's
# own stopped share must stay under the same allowance (twice the 1 %
# budget) as above, where without the bound it loses 20+ %, and what the
# mode writes must be whole.

# guarded REPORT SECONDS ERR: the target's own stopped share (REPORT over
# SECONDS) into $SHARE; $HELD "yes" when REPORT was written and the summary
# in ERR says the bound acted (bound_said: function), else "no"; true when
# the share is under 2 % (time: a miss is for tfail).
guarded() {
	HELD=no
	[ -s "$1" ] && bound_said "$3" && HELD=yes
	SHARE=$(stopped_share "$1" "$2")
	[ -n "$SHARE" ] && ! atleast "$SHARE" 2
}

# --period 1s -o FILE: each window's file folded and holding what its note
# on stderr says, the windows together the run's samples.
overhead_period_test() {
	"$T/freeze_target" 3.6 "$TMP/ovp.report" &
	local fz=$! rc
	PIDS+=("$fz")
	sleep 0.2
	"$PP" -p "$fz" -d 100us -t 3s --max-overhead 1% --period 1s -o "$TMP/ovp.folded" 2>"$TMP/ovp.err"
	rc=$?
	wait "$fz"
	local stamp from until n total windows=0 sum=0 bad="" files under=no
	while read -r stamp from until n; do
		windows=$((windows + 1))
		sum=$((sum + n))
		if ! total=$(folded_ok "$TMP/ovp.$stamp.folded"); then bad="$bad window $stamp not folded;"
		elif [ "$total" != "$n" ]; then bad="$bad window $stamp: $total samples in its file, $n in its note;"
		fi
	done < <(notes "$TMP/ovp.err")
	files=$(find "$TMP" -name 'ovp.*.folded' | wc -l)
	[ "$windows" -ge 3 ] && [ "$files" = "$windows" ] || bad="$bad $windows windows noted, $files files (3 or more);"
	[ "$sum" = "$(summary_samples "$TMP/ovp.err")" ] || bad="$bad the windows hold $sum samples, the run $(summary_samples "$TMP/ovp.err");"
	guarded "$TMP/ovp.report" 3 "$TMP/ovp.err" && under=yes
	if [ $rc = 0 ] && [ -z "$bad" ] && [ $HELD = yes ]; then
		pass "--max-overhead 1% with --period 1s -o: $windows window files whole, $sum samples, the bound acted"
	else fail "--max-overhead 1% with --period" "exit $rc,$bad the bound acted (and the target reported): $HELD" "$TMP/ovp.err"; fi
	if [ $under = yes ]; then pass "--max-overhead 1% with --period: the target stopped ${SHARE}% of its time"
	else tfail "--max-overhead 1% with --period: the target's stopped share" "stopped ${SHARE:-?}% (under 2)" "$TMP/ovp.err"; fi
}

# --push: each window pushed (one request each, as /ingest documents it,
# its body the window's samples).
overhead_push_test() {
	serve ok ovpush
	"$T/freeze_target" 3.6 "$TMP/ovpush.report" &
	local fz=$! rc
	PIDS+=("$fz")
	sleep 0.2
	"$PP" -p "$fz" -d 100us -t 3s --max-overhead 1% --period 1s --push "$URL" >"$TMP/ovpush.out" 2>"$TMP/ovpush.err"
	rc=$?
	wait "$fz"
	stop_target "$SPID"
	notes "$TMP/ovpush.err" >"$TMP/ovpush.notes"
	local pushed under=no
	pushed=$(python3 - "$TMP/ovpush.log" "$TMP/ovpush.notes" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
notes = {(n[1], n[2]): int(n[3]) for n in (l.split() for l in open(sys.argv[2])) if n}
bad = [e for r in reqs for e in r["errors"]]
got = {(r["params"].get("from"), r["params"].get("until")): r["total"] for r in reqs}
if len(reqs) != len(notes) or len(notes) < 3: bad.append("%d requests for %d windows (3 or more)" % (len(reqs), len(notes)))
bad += ["window %s-%s: %s pushed, %d noted" % (k + (got.get(k), v)) for k, v in notes.items() if got.get(k) != v]
print("; ".join(bad[:3]) if bad else "ok %d" % len(reqs))
PY
)
	guarded "$TMP/ovpush.report" 3 "$TMP/ovpush.err" && under=yes
	if [ $rc = 0 ] && [ "${pushed%% *}" = ok ] && [ ! -s "$TMP/ovpush.out" ] && [ $HELD = yes ]; then
		pass "--max-overhead 1% with --push: ${pushed#ok } windows pushed, each its window's samples, the bound acted"
	else fail "--max-overhead 1% with --push" "exit $rc, pushed: $pushed, stdout $([ -s "$TMP/ovpush.out" ] && echo 'not empty' || echo empty), the bound acted (and the target reported): $HELD" "$TMP/ovpush.err"; fi
	if [ $under = yes ]; then pass "--max-overhead 1% with --push: the target stopped ${SHARE}% of its time"
	else tfail "--max-overhead 1% with --push: the target's stopped share" "stopped ${SHARE:-?}% (under 2)" "$TMP/ovpush.err"; fi
}

# --subprocesses: a parent (a shell waiting) whose child, a freeze_target
# started once the profiler is attached, is seized on the way and kept
# under the bound like a thread given with -p; its samples in the profile.
overhead_subprocesses_test() {
	bash -c 'sleep 0.4; "$0" 3 "$1" & wait $!' "$T/freeze_target" "$TMP/ovs.report" &
	local parent=$! rc in_loop under=no
	PIDS+=("$parent")
	sleep 0.1
	"$PP" -p "$parent" --subprocesses -d 100us -t 5s --max-overhead 1% -o "$TMP/ovs.folded" 2>"$TMP/ovs.err"
	rc=$?
	wait "$parent"
	in_loop=$(grep -E '^freeze_target\[[0-9]+\]/freeze_target;.*;main;measure_loop' "$TMP/ovs.folded" | total /dev/stdin)
	guarded "$TMP/ovs.report" 3 "$TMP/ovs.err" && under=yes
	if [ $rc = 0 ] && grep -q 'subprocesses  *[1-9][0-9]* seized' "$TMP/ovs.err" && [ "${in_loop:-0}" -gt 0 ] &&
		[ $HELD = yes ]; then
		pass "--max-overhead 1% with --subprocesses: the child seized, $in_loop samples in its loop, the bound acted"
	else fail "--max-overhead 1% with --subprocesses" "exit $rc, child seized: $(grep -q 'subprocesses  *[1-9][0-9]* seized' "$TMP/ovs.err" && echo yes || echo no), ${in_loop:-0} samples of the child's loop (some), the bound acted (and the child reported): $HELD" "$TMP/ovs.err"; fi
	if atleast "${in_loop:-0}" 50; then pass "--max-overhead 1% with --subprocesses: $in_loop samples of the child's loop in its 3 s"
	else tfail "--max-overhead 1% with --subprocesses: samples of the child's loop" "${in_loop:-0} samples (50 or more)" "$TMP/ovs.folded"; fi
	if [ $under = yes ]; then pass "--max-overhead 1% with --subprocesses: the child stopped ${SHARE}% of its time"
	else tfail "--max-overhead 1% with --subprocesses: the child's stopped share" "stopped ${SHARE:-?}% (under 2)" "$TMP/ovs.err"; fi
}

# --top in tmux: a few seconds of the screen, then q: the target running,
# untraced; its stopped share over the run's time (the summary's).
overhead_top_test() {
	"$T/freeze_target" 30 "$TMP/ovt.report" &
	local fz=$! rc secs under=no left=no
	PIDS+=("$fz")
	sleep 0.2
	run_in_tmux "$(realpath "$PP") --top -d 100us --max-overhead 1% -p $fz 2>$TMP/ovt.err"
	wait_for measure_loop 15
	sleep 1.5
	screen
	"${TM[@]}" send-keys -t top q
	wait_rc 10
	rc=$(cat "$TMP/top.rc" 2>/dev/null)
	untouched "$fz" && left=yes
	"${TM[@]}" kill-server 2>/dev/null
	kill -TERM "$fz"
	wait "$fz"
	secs=$(sed -n 's/^ptrace_profiler: .* ticks in \([0-9.]*\) s, .*/\1/p' "$TMP/ovt.err")
	HELD=no
	[ -n "$secs" ] && guarded "$TMP/ovt.report" "$secs" "$TMP/ovt.err" && under=yes
	if [ "$rc" = 0 ] && [ $left = yes ] && grep -q measure_loop "$TMP/screen" && [ -n "$secs" ] && [ $HELD = yes ]; then
		pass "--max-overhead 1% with --top: q left the target running and untraced, the bound acted"
	else fail "--max-overhead 1% with --top" "exit ${rc:-?}, target left running and untraced: $left, measure_loop on the screen: $(grep -q measure_loop "$TMP/screen" && echo yes || echo no), the run's time in the summary: ${secs:-none}, the bound acted (and the target reported): $HELD" "$TMP/ovt.err"; fi
	if [ -z "$secs" ]; then :
	elif [ $under = yes ]; then pass "--max-overhead 1% with --top: the target stopped ${SHARE}% of its ${secs} s"
	else tfail "--max-overhead 1% with --top: the target's stopped share" "stopped ${SHARE:-?}% of ${secs} s (under 2)" "$TMP/ovt.err"; fi
}

if [ $CAN_ATTACH = 0 ]; then skip "--max-overhead with --period, --push, --subprocesses, --top" "$WHY_NO_ATTACH"
else
	run_test overhead_period_test
	run_test overhead_push_test
	run_test overhead_subprocesses_test
	if command -v tmux >/dev/null 2>&1; then overhead_top_test
	else skip "--max-overhead with --top" "tmux is not installed (apt-get install tmux)"; fi
fi

bad_input "--max-overhead 0" "invalid share '0' for --max-overhead" --max-overhead 0 -p 1
bad_input "--max-overhead 150%" "invalid share '150%' for --max-overhead" --max-overhead 150% -p 1
bad_input "--max-overhead -1%" "invalid share '-1%' for --max-overhead" --max-overhead -1% -p 1
bad_input "--max-overhead one" "invalid share 'one' for --max-overhead" --max-overhead one -p 1

# --- the summary's cost: one figure, against the target's own ---------------
# What a stop costs a running thread is more than the time we hold it (the
# way off its CPU and back, its CPU's wake from idle): the summary takes
# each stop's time off the CPU from the thread's schedstat, read in the
# stops, and the way in and out from its stime (stop_cost.h).
# freeze_target's clock says what it lost: the figure must be within the
# tolerance of that, as a share of the 4 s profiled.  (At 100 us: 9.9 %
# against 21.2 % with the stopped share alone; 25-27 % against 18.5-25.7
# with a child's figure for the part we did not see.)
#
# What it lost is all its clock's gaps in the run less what the machine
# takes from it without us, read by a run of its own just before (1 s):
# its stops' gaps alone are not it beside a neighbour - one that wakes
# while we hold the target takes the CPU and the target waits for it
# after our resume, in a stop's gap, where it would have been preempted
# by it anyway.  Beside `rehearse --noise` (1.5 ms busy in every 10 ms on
# each CPU) the stops' gaps were 40-42 % of its time at 100 us, 22-27
# quiet, and the summary said 20-26 %.
# A neighbour's wake-ups while we hold the target are not in the base
# run, and we cannot see them as ours: CI's host (stop 62) had it lose
# 29.1 % (its stops' gaps 28.0 %) where the summary said 18.4 %, and the
# same build said 22.9 against 23.2 here alone.  The other way too: a
# neighbour's time that falls inside our stops is in the base run, so the
# loss less the base undercounts us beside it (`rehearse --noise`: the
# summary 34.9 and 39.4 % against 26.3 and 26.7 less the base, all gaps
# 39.6-41.1 %).  So the target's loss less the base is the least we cost
# and all its gaps the most: make check takes a figure from half the one
# to the other, or within its tolerance of the first; make truth (a quiet
# host) holds 5 points either way.  A figure of the stopped share alone
# (9.9 against 21.2, above) misses both.
# lost_share REPORT SECONDS BASE: REPORT's gaps less BASE's rate over its
# whole run, % of SECONDS.
lost_share() {
	awk -v s="$2" -v base="$3" '
		function field(line, name,   i, kv, f, n) { n = split(line, f, " ")
			for (i = 1; i <= n; i++) { split(f[i], kv, "="); if (kv[1] == name) return kv[2] } }
		FILENAME == base { bg = field($0, "gap_total_us") / field($0, "seconds"); next }
		{ printf "%.2f", (field($0, "gap_total_us") - bg * field($0, "seconds")) / 1e4 / s }' "$3" "$1"
}
cost_figure_test() {
	local d=$1 tol=$2 out=$TMP/cf.$1 base=$TMP/cf.$1.base err=$TMP/cf.$1.err own all figure rc
	"$T/freeze_target" 1 "$base"
	"$T/freeze_target" 5 "$out" &
	local pid=$!
	sleep 0.3
	"$PP" -v -p "$pid" -d "$d" -t 4s -o /dev/null 2>"$err"
	rc=$?
	sleep 0.2
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	own=$(lost_share "$out" 4 "$base")
	all=$(lost_share "$out" 4 /dev/null)
	figure=$(sed -n 's/^  target cost .* lost \([0-9.]*\)% of its time to us.*/\1/p' "$err")
	if [ $rc != 0 ] || [ -z "$figure" ] || ! grep -q "stops that took it off a CPU" "$err"; then
		fail "the summary's cost at -d $d" "exit $rc, its line: $(grep 'target cost' "$err")" "$err"
	elif near "$figure" "$own" "$tol" || { [ "$TRUTH" != 1 ] && atleast "$all" "$figure" &&
		atleast "$figure" "$(awk -v o="$own" 'BEGIN { print o / 2 }')"; }; then
		pass "the summary's cost at -d $d: lost ${figure}% of its time to us, freeze_target's own loss ${own}% ($(pick "within $tol points, or from half of it to all its gaps, ${all}%" "within $tol points"); its stops' gaps $(stopped_share "$out" 4)%, its gaps without us $(lost_share "$base" 1 /dev/null)%)"
	else tfail "the summary's cost at -d $d" "lost ${figure}% against freeze_target's own ${own}% ($(pick "within $tol points, or from half of it to all its gaps, ${all}%" "within $tol points"); its stops' gaps $(stopped_share "$out" 4)%)" "$err"; fi
}
if [ $CAN_ATTACH = 0 ]; then skip "the summary's cost" "$WHY_NO_ATTACH"
elif ! timing_only "the summary's cost"; then
	run_test cost_figure_test 100us "$(pick 8 5)"
	if [ "$TRUTH" = 1 ]; then
		cost_figure_test 1ms 5
		cost_figure_test 10ms 5
	fi
fi
