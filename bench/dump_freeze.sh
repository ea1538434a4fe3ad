#!/usr/bin/env bash
# bench/dump_freeze.sh - what one look at every thread costs the target:
# ptrace_profiler --dump against eu-stack and gdb's "thread apply all bt".
#
# For each tool a fresh freeze_target (a CPU-bound thread that measures its
# own stops, test/targets/freeze_target.c) runs while the tool looks at it $RUNS times,
# $GAP seconds apart.  Reported per tool: the stops the target lived per
# look, the frozen time per look (all its stops added up), and the p50 and
# p99 of single stops, as the target measured them; and the tool's own
# wall time per look.  ptrace_profiler also says, on its stderr, what each
# look cost as it measured it; its mean is shown beside the target's.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${DUMP_RUNS:-20}
GAP=${DUMP_GAP:-0.2}
PP=${PP:-./ptrace_profiler}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
[ "$(id -u)" = 0 ] || { echo "dump_freeze: needs root (ptrace of a non-child)"; exit 1; }
[ -x build/test/targets/freeze_target ] || { echo "dump_freeze: make build/test/targets/freeze_target first"; exit 1; }

look() {
	case $1 in
	ptrace_profiler) $PP --dump -p "$2" >/dev/null 2>>"$OUT/own" ;;
	eu-stack) eu-stack -p "$2" >/dev/null 2>&1 ;;
	gdb) gdb -q -batch -p "$2" -ex "thread apply all bt" >/dev/null 2>&1 ;;
	esac
}

printf '%-16s %5s %11s %13s %9s %9s %12s %10s\n' tool looks "stops/look" "frozen/look" "stop p50" "stop p99" "wall/look" "own/look"
for tool in ptrace_profiler eu-stack gdb; do
	command -v "${tool%% *}" >/dev/null 2>&1 || [ "$tool" = ptrace_profiler ] || { echo "$tool: not installed"; continue; }
	: >"$OUT/own"
	build/test/targets/freeze_target 600 "$OUT/report" &
	pid=$!
	sleep 0.3
	wall=0
	for i in $(seq "$RUNS"); do
		t0=$(date +%s%N)
		look "$tool" "$pid"
		t1=$(date +%s%N)
		wall=$((wall + t1 - t0))
		sleep "$GAP"
	done
	kill -TERM "$pid"
	wait "$pid" || true
	stops=$(sed -n 's/.* stops=\([0-9]*\) .*/\1/p' "$OUT/report")
	total=$(sed -n 's/.* stop_total_us=\([0-9.]*\) .*/\1/p' "$OUT/report")
	p50=$(sed -n 's/.* stop_p50_us=\([0-9]*\) .*/\1/p' "$OUT/report")
	p99=$(sed -n 's/.* stop_p99_us=\([0-9]*\) .*/\1/p' "$OUT/report")
	own=-
	[ "$tool" = ptrace_profiler ] &&
		own=$(sed -n 's/.* stopped (\([0-9.]*\) us each.*/\1/p' "$OUT/own" | awk '{ s += $1; n++ } END { if (n) printf "%.1f us", s / n }')
	awk -v t="$tool" -v r="$RUNS" -v s="$stops" -v tot="$total" -v p50="$p50" -v p99="$p99" -v w="$wall" -v own="$own" \
		'BEGIN { printf "%-16s %5d %11.1f %10.1f us %6d us %6d us %9.1f ms %10s\n", t, r, s / r, tot / r, p50, p99, w / r / 1e6, own }'
done
