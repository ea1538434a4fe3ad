#!/usr/bin/env bash
# bench/run.sh - what a profiler costs its target, side by side in one run.
#
# For each interval (100us, 1ms, 10ms) and each tool, a fresh freeze_target
# runs for $SECONDS_PER_RUN seconds while the tool samples it; rounds are
# interleaved (every tool once per round, in turn) so that the machine's
# drifting noise hits every tool alike.  Reported per tool and interval,
# as medians over the rounds:
#   rate      samples per second achieved
#   stop      frozen time per stop as the target lived it: the mean of its
#             gaps that contain a voluntary context switch (a ptrace stop;
#             test/targets/freeze_target.c), with their p50 and p99
#   own       frozen time per sample as the tool itself measures it
#   own/tgt   own as a share of stop: how well the tool's summary tells the
#             cost the target really paid (100% = exactly)
#   excess    all the time the target lost per sample, direct or not:
#             (gap time under the tool - gap time of the unprofiled
#             baseline) / samples; noisy (the background drifts), and the
#             only figure for perf, which does not stop the target
#   cpu       profiler CPU time (user+sys) per sample; ptrace_profiler's
#             from its summary (steady state, from the first tick), the
#             others' from /usr/bin/time
#   lost      target throughput lost against the baseline
# Then: -d 100us -n 5000 to completion against the bare loop, and the
# profiler's peak RSS after 10 000 and 200 000 samples.
# Runs at 10ms last 5 x as long: 200 samples would drown in the
# background's own gaps (a few ms more or less per run).
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${BENCH_ROUNDS:-3}
SECS=${BENCH_SECONDS:-2}
B=build/bench
PP=${PP:-./ptrace_profiler}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

[ "$(id -u)" = 0 ] || { echo "bench: needs root (ptrace of a non-child, /proc/PID/stack)"; exit 1; }

ns_of() { case $1 in *us) echo $(( ${1%us} * 1000 ));; *ms) echo $(( ${1%ms} * 1000000 ));; esac; }

# run_one TOOL INTERVAL ROUND -> appends "tool interval samples gap_total_us iters stop_us stop_p50 stop_p99 own_us cpu_us secs" to $OUT/rows
run_one() {
	local tool=$1 iv=$2 report=$OUT/r.$1.$2.$3 log=$OUT/log.$1.$2.$3
	local ns count samples=0 own=0 cpu= secs=$SECS
	ns=$(ns_of "$iv")
	[ "$iv" = 10ms ] && secs=$(( SECS * 5 ))
	count=$(( secs * 1000000000 / ns ))
	build/test/targets/freeze_target "$secs" "$report" &
	local pid=$!
	sleep 0.05
	local t0 t1
	case $tool in
	baseline) ;;
	bare)
		/usr/bin/time -f "%U %S" -o "$OUT/time" $B/bare_loop $pid "$ns" "$count" >"$log" 2>&1 || true
		samples=$(sed -n 's/.*samples=\([0-9]*\).*/\1/p' "$log")
		own=$(sed -n 's/.*frozen_mean_us=\([0-9.]*\).*/\1/p' "$log")
		;;
	ptrace_profiler)
		/usr/bin/time -f "%U %S" -o "$OUT/time" $PP -v -p $pid -d "$iv" -n "$count" >/dev/null 2>"$log" || true
		samples=$(sed -n 's/.* \([0-9]*\) thread samples.*/\1/p' "$log")
		own=$(sed -n 's/.*stopped per stop *mean \([0-9.]*\) us.*/\1/p' "$log")
		cpu=$(sed -n 's/.*profiler CPU *\([0-9.]*\) us per sample.*/\1/p' "$log")
		;;
	eu-stack)
		# One eu-stack process per sample, as a script around it would do.
		local end=$(( $(date +%s%N) + secs * 1000000000 - 100000000 ))
		: >"$OUT/time.acc"
		while [ "$(date +%s%N)" -lt "$end" ]; do
			/usr/bin/time -a -f "%U %S" -o "$OUT/time.acc" eu-stack -p $pid >/dev/null 2>&1 || true
			samples=$((samples + 1))
			sleep "$(awk -v n="$ns" 'BEGIN{printf "%.6f", n/1e9}')"
		done
		awk '{u+=$1; s+=$2} END{print u, s}' "$OUT/time.acc" >"$OUT/time"
		own=0
		;;
	perf)
		local hz=$(( 1000000000 / ns ))
		/usr/bin/time -f "%U %S" -o "$OUT/time" perf record -q -g -F "$hz" -p $pid -o "$OUT/perf.data" -- sleep "$secs" >/dev/null 2>&1 || true
		samples=$(perf script -i "$OUT/perf.data" -F ip 2>/dev/null | grep -c . || true)
		own=0
		;;
	esac
	wait $pid || true
	if [ "$tool" != baseline ] && [ -z "$cpu" ]; then
		cpu=$(awk -v n="${samples:-0}" '{ if (n > 0) printf "%.1f", ($1 + $2) * 1e6 / n; else print 0 }' "$OUT/time")
	fi
	local iters gap stops stop_total stop_us p50 p99
	iters=$(sed -n 's/.*iterations=\([0-9]*\).*/\1/p' "$report")
	gap=$(sed -n 's/.* gap_total_us=\([0-9.]*\).*/\1/p' "$report")
	stops=$(sed -n 's/.* stops=\([0-9]*\).*/\1/p' "$report")
	stop_total=$(sed -n 's/.* stop_total_us=\([0-9.]*\).*/\1/p' "$report")
	stop_us=$(awk -v t="$stop_total" -v n="$stops" 'BEGIN { printf "%.1f", (n > 0 ? t / n : 0) }')
	p50=$(sed -n 's/.* stop_p50_us=\([0-9.]*\).*/\1/p' "$report")
	p99=$(sed -n 's/.* stop_p99_us=\([0-9.]*\).*/\1/p' "$report")
	echo "$tool $iv ${samples:-0} $gap $iters $stop_us $p50 $p99 ${own:-0} ${cpu:-0} $secs" >>"$OUT/rows"
}

tools="baseline bare ptrace_profiler"
command -v eu-stack >/dev/null && have_eu=1 || have_eu=0
command -v perf >/dev/null && perf record -q -o /dev/null -- true >/dev/null 2>&1 && have_perf=1 || have_perf=0

echo "bench: $(nproc) CPUs, $(uname -r), $ROUNDS rounds x ${SECS}s per tool and interval (10ms: $((SECS * 5))s)"
for r in $(seq "$ROUNDS"); do
	for iv in 100us 1ms 10ms; do
		for tool in $tools; do run_one "$tool" "$iv" "$r"; done
		[ "$iv" = 10ms ] && [ $have_eu = 1 ] && run_one eu-stack "$iv" "$r"
		[ "$iv" = 1ms ] && [ $have_perf = 1 ] && run_one perf "$iv" "$r"
	done
	echo "bench: round $r done" >&2
done

# -d 100us -n 5000: wall time to completion, profiler vs bare loop.
for r in $(seq "$ROUNDS"); do
	build/test/targets/freeze_target 30 /dev/null & pid=$!; sleep 0.05
	s=$(date +%s%N); $B/bare_loop $pid 100000 5000 >/dev/null; e=$(date +%s%N)
	echo "bare $(( (e - s) / 1000000 ))" >>"$OUT/n5000"
	s=$(date +%s%N); $PP -p $pid -d 100us -n 5000 >/dev/null 2>&1; e=$(date +%s%N)
	echo "ptrace_profiler $(( (e - s) / 1000000 ))" >>"$OUT/n5000"
	# Naming after detaching reads debug info: glibc's, compressed, costs
	# 90 ms of zlib when libc6-dbg is installed; without inline frames
	# only its symbol table is read.
	s=$(date +%s%N); $PP -p $pid -d 100us -n 5000 --no-inline >/dev/null 2>&1; e=$(date +%s%N)
	echo "ptrace_profiler--no-inline $(( (e - s) / 1000000 ))" >>"$OUT/n5000"
	kill $pid; wait $pid 2>/dev/null || true
done

# Memory: peak RSS after 10 000 and after 200 000 samples of the same
# stable program; only the table of distinct stacks may grow.
build/test/targets/freeze_target 60 /dev/null & pid=$!; sleep 0.05
for n in 10000 200000; do
	/usr/bin/time -f "%M" -o "$OUT/rss.$n" $PP -p $pid -d 100us -n $n >/dev/null 2>&1
done
kill $pid; wait $pid 2>/dev/null || true
echo "memory: peak RSS $(cat "$OUT/rss.10000") KB after 10000 samples, $(cat "$OUT/rss.200000") KB after 200000" >"$OUT/memory"

awk '
function median(arr, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && arr[j-1] > arr[j]; j--) { t = arr[j]; arr[j] = arr[j-1]; arr[j-1] = t }
	return n % 2 ? arr[(n+1)/2] : (arr[n/2] + arr[n/2+1]) / 2
}
FNR == NR {
	key = $1 " " $2; n[key]++; k = n[key]
	samples[key, k] = $3; gap[key, k] = $4; iters[key, k] = $5
	stop[key, k] = $6; p50[key, k] = $7; p99[key, k] = $8; own[key, k] = $9; cpu[key, k] = $10; secs[key, k] = $11
	if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
	next
}
{ wall[$1, ++nw[$1]] = $2 }
END {
	printf "\n%-16s %-6s %8s %8s %8s %8s %8s %8s %10s %8s %7s\n", "tool", "every", "rate/s", "stop_us", "stop_p50", "stop_p99", "own_us", "own/tgt", "excess_us", "cpu_us", "lost%"
	for (i = 1; i <= nk; i++) {
		key = order[i]; split(key, kk, " "); base = "baseline " kk[2]
		m = n[key]
		for (j = 1; j <= m; j++) {
			rate[j] = samples[key, j] / secs[key, j]
			ex[j] = samples[key, j] > 0 ? (gap[key, j] - gap[base, j]) / samples[key, j] : 0
			st[j] = stop[key, j]; a50[j] = p50[key, j]; a99[j] = p99[key, j]; ow[j] = own[key, j]; cp[j] = cpu[key, j]
			rel[j] = st[j] > 0 ? 100 * own[key, j] / st[j] : 0
			lost[j] = iters[base, j] > 0 ? 100 * (iters[base, j] - iters[key, j]) / iters[base, j] : 0
		}
		if (kk[1] == "baseline") continue
		ms = median(st, m); me = median(ex, m); cpu_of[key] = median(cp, m)
		stop_of[key] = ms; ex_of[key] = me
		printf "%-16s %-6s %8.0f %8.1f %8.0f %8.0f %8.1f %7.0f%% %10.1f %8.1f %7.2f\n", kk[1], kk[2],
			median(rate, m), ms, median(a50, m), median(a99, m), median(ow, m), median(rel, m), me, cpu_of[key], median(lost, m)
	}
	printf "\nptrace_profiler / other tool, same interval (stop: per stop as the target saw it; excess: all time lost per sample):\n"
	for (i = 1; i <= nk; i++) {
		key = order[i]; split(key, kk, " "); me = "ptrace_profiler " kk[2]
		if (kk[1] == "baseline" || kk[1] == "ptrace_profiler" || !(me in ex_of)) continue
		printf "  %-6s vs %-9s", kk[2], kk[1]
		if (stop_of[key] > 0) printf "  stop %.2fx", stop_of[me] / stop_of[key]
		if (ex_of[key] > 0) printf "  excess %.2fx", ex_of[me] / ex_of[key]
		if (cpu_of[key] > 0) printf "  CPU per sample %.2fx", cpu_of[me] / cpu_of[key]
		printf "\n"
	}
	printf "\n-d 100us -n 5000, wall ms (median): "
	for (t in nw) { for (j = 1; j <= nw[t]; j++) w[j] = wall[t, j]; wm[t] = median(w, nw[t]); printf "%s %d  ", t, wm[t] }
	if (wm["bare"] > 0) printf "(%.2fx; --no-inline %.2fx)", wm["ptrace_profiler"] / wm["bare"], wm["ptrace_profiler--no-inline"] / wm["bare"]
	printf "\n"
}' "$OUT/rows" "$OUT/n5000"
cat "$OUT/memory"
