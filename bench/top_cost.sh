#!/usr/bin/env bash
# bench/top_cost.sh - what --top costs the target, per second, against a
# recording at the same interval.
#
# For each interval (10ms, 1ms) and round, a fresh freeze_target (a
# CPU-bound thread that measures its own freezes, test/targets/freeze_target.c)
# runs $SECS seconds under each of, in turn:
#   baseline  nothing
#   record    ptrace_profiler -p PID -d IV -t SECS >/dev/null
#   period    the same with --period 1s -o DIR/w.folded: the windows --top
#             shows, named between ticks, written to files instead
#   top       ptrace_profiler --top -p PID -d IV -t SECS in an 80x24 tmux pane
# Reported per tool and interval, medians over the rounds:
#   ticks     ticks sampled per second
#   said      ms per second the target's thread was kept stopped, as the
#             profiler's summary says it ("target stopped"): the cost the
#             stops themselves put on the target
#   seen      the same as the target measured it (its gaps that hold a
#             voluntary context switch): the stops, plus the wait for a
#             CPU after each when the machine is busy
#   cpu       the profiler's CPU (user+system, every thread, from exec to
#             exit) per second of the run, ms/s: what it takes from the
#             machine besides the stops
#   lost      target throughput lost against the baseline (noisy: points
#             either way on a shared machine)
# Needs root (ptrace of a non-child) and tmux.  BENCH_ROUNDS, BENCH_SECONDS,
# BENCH_INTERVALS ("10ms 1ms"); each run's row goes to stderr as well.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${BENCH_ROUNDS:-3}
INTERVALS=${BENCH_INTERVALS:-10ms 1ms}
SECS=${BENCH_SECONDS:-10}
FT=build/test/targets/freeze_target
PP=$(realpath "${PP:-./ptrace_profiler}")
OUT=$(mktemp -d)
TM=(tmux -L "top_cost.$$" -f /dev/null)
trap '"${TM[@]}" kill-server 2>/dev/null || true; rm -rf "$OUT"' EXIT

[ "$(id -u)" = 0 ] || { echo "top_cost: needs root (ptrace of a non-child)"; exit 1; }
command -v tmux >/dev/null || { echo "top_cost: needs tmux"; exit 1; }
[ -x $FT ] || { echo "top_cost: make bench builds $FT"; exit 1; }

# run_one TOOL INTERVAL ROUND -> "tool iv iterations stop_total_us said_ms cpu_s ticks" in $OUT/rows
run_one() {
	local tool=$1 iv=$2 report=$OUT/r.$1.$2.$3 log=$OUT/log.$1.$2.$3 time=$OUT/time.$1.$2.$3
	$FT "$SECS" "$report" &
	local pid=$!
	sleep 0.05
	: >"$log"
	echo "0 0" >"$time"
	case $tool in
	baseline) ;;
	record)
		/usr/bin/time -f "%U %S" -o "$time" "$PP" -v -p $pid -d "$iv" -t "$((SECS - 1))s" >/dev/null 2>"$log" || true ;;
	period)
		mkdir -p "$OUT/w"
		/usr/bin/time -f "%U %S" -o "$time" "$PP" -v -p $pid -d "$iv" -t "$((SECS - 1))s" --period 1s \
			-o "$OUT/w/w.folded" >/dev/null 2>"$log" || true
		rm -f "$OUT"/w/* ;;
	top)
		rm -f "$OUT/top.rc"
		"${TM[@]}" new-session -d -s top -x 80 -y 24 \
			"/usr/bin/time -f '%U %S' -o $time $PP -v --top -p $pid -d $iv -t $((SECS - 1))s 2>$log; echo \$? >$OUT/top.rc"
		# the run ends itself after SECS - 1 s; a screen that never ends
		# is given up on after twice that (and its session killed)
		local waited=0
		while [ ! -s "$OUT/top.rc" ] && [ $waited -lt $((SECS * 10)) ]; do sleep 0.2; waited=$((waited + 1)); done
		[ -s "$OUT/top.rc" ] || { echo "top_cost: --top did not end in $((SECS * 2)) s" >&2; "${TM[@]}" kill-server 2>/dev/null || true; } ;;
	esac
	wait $pid || true
	local iters stop_total said cpu ticks
	iters=$(sed -n 's/.*iterations=\([0-9]*\).*/\1/p' "$report")
	stop_total=$(sed -n 's/.* stop_total_us=\([0-9.]*\).*/\1/p' "$report")
	said=$(sed -n 's/.*target stopped *\([0-9.]*\) ms in total.*/\1/p' "$log")
	ticks=$(sed -n 's/.* \([0-9]*\) ticks in .* s, .*/\1/p' "$log")
	cpu=$(awk '{ print $1 + $2 }' "$time")
	echo "$tool $iv $iters ${stop_total:-0} ${said:-0} ${cpu:-0} ${ticks:-0}" | tee -a "$OUT/rows" >&2
}

echo "top_cost: $(nproc) CPUs, $(uname -r), $ROUNDS rounds x ${SECS}s (profiled for $((SECS - 1)) s) per tool and interval"
for r in $(seq "$ROUNDS"); do
	for iv in $INTERVALS; do
		for tool in baseline record period top; do run_one "$tool" "$iv" "$r"; done
	done
	echo "top_cost: round $r done" >&2
done

# Per second of the profiled time (SECS - 1): stopped, said and cpu; lost
# against the baseline's iterations over the whole SECS.
awk -v secs="$((SECS - 1))" '
function median(arr, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && arr[j-1] > arr[j]; j--) { t = arr[j]; arr[j] = arr[j-1]; arr[j-1] = t }
	return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
}
{
	k = $1 " " $2; n[k]++; i = n[k]
	it[k, i] = $3; st[k, i] = $4 / 1000 / secs; sd[k, i] = $5 / secs; cpu[k, i] = $6 * 1000 / secs
	tk[k, i] = $7 / secs
	if (!(k in seen)) { seen[k] = 1; order[++m] = k }
}
END {
	printf "%-9s %-5s %8s %10s %10s %9s %7s\n", "tool", "-d", "ticks/s", "said ms/s", "seen ms/s", "cpu ms/s", "lost"
	for (o = 1; o <= m; o++) {
		k = order[o]; split(k, f, " ")
		for (i = 1; i <= n[k]; i++) { a[i] = it[k, i]; b[i] = st[k, i]; c[i] = sd[k, i]; d[i] = cpu[k, i]; e[i] = tk[k, i] }
		its = median(a, n[k]); s = median(b, n[k]); said = median(c, n[k]); cp = median(d, n[k]); t = median(e, n[k])
		if (f[1] == "baseline") {
			base[f[2]] = its
			continue
		}
		lost = base[f[2]] ? 100 * (1 - its / base[f[2]]) : 0
		printf "%-9s %-5s %8.1f %10.2f %10.2f %9.1f %6.1f%%\n", f[1], f[2], t, said, s, cp, lost
	}
}' "$OUT/rows"
