#!/usr/bin/env bash
# bench/pgbench.sh - what profiling costs a real database, in transactions.
#
# A throwaway PostgreSQL cluster (scripts/pg_cluster.sh) serves pgbench -S
# (select-only: CPU-bound on both CPUs) from 2 clients.  Rounds interleave
# every configuration, so the machine's drift hits all alike:
#   baseline           nobody looks
#   ptrace_profiler    -p POSTMASTER --subprocesses at the default 10 ms,
#                      at 1 ms and at 100 us, each also with --max-overhead 1%
#                      and 0.5%
#   perf record -g     -F 1000 on every process of the instance
#   gdb loop           gdb -batch 'thread apply all bt' on each backend in turn
#   eu-stack loop      eu-stack -p on each backend in turn
# pgbench prints its throughput every second (-P 1); a tool runs from the
# 1st second to the SECS+1th, and its TPS is the mean of those seconds'.
# Reported: median TPS per configuration, TPS lost against the baseline's
# median, samples (or snapshots) per second the tool took, and, for
# ptrace_profiler, its CPU per sample and stopped time per stop.
#
# Tunables: PGB_ROUNDS (3), PGB_SECONDS (8), PGB_PORT (54331), PP (the
# binary measured, ./ptrace_profiler).  Needs root
# and Debian's postgresql; prints "pgbench: SKIP ..." without them.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/pg_cluster.sh

ROUNDS=${PGB_ROUNDS:-3}
SECS=${PGB_SECONDS:-8}
PORT=${PGB_PORT:-54331}
PP=${PP:-./ptrace_profiler}

pg_find
[ -x "$PP" ] || PG_MISSING="$PG_MISSING $PP"
if [ -n "$PG_MISSING" ]; then
	echo "pgbench: SKIP missing:$PG_MISSING"
	exit 0
fi
OUT=$(mktemp -d)
cleanup() { pg_stop; rm -rf "$OUT"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

pg_start pgbench_bench "$PORT" || exit 2
"$PGBENCH" "${PG_CONN[@]}" -i -s 10 postgres >"$OUT/init.log" 2>&1 || {
	echo "pgbench: ERROR pgbench -i: $(tail -n 1 "$OUT/init.log")"
	exit 2
}

have() { command -v "$1" >/dev/null 2>&1; }
configs="baseline pp-10ms pp-10ms-1% pp-10ms-0.5% pp-1ms pp-1ms-1% pp-1ms-0.5% pp-100us pp-100us-1% pp-100us-0.5%"
have perf && perf record -q -o /dev/null -- true >/dev/null 2>&1 && configs="$configs perf-1ms"
have gdb && configs="$configs gdb-loop"
have eu-stack && configs="$configs eu-stack-loop"

# Every process of the instance: the postmaster's children.
instance() { pgrep -P "$PG_POSTMASTER" | tr '\n' ' '; }
backends() {
	pg_sql "select pid from pg_stat_activity where backend_type = 'client backend'
	        and application_name = 'pgbench'" 2>/dev/null | tr '\n' ' '
}

# loop_tool CMD...: runs CMD PID for each backend in turn until $SECS pass;
# prints the number of snapshots taken.
loop_tool() {
	local end=$(($(date +%s%N) + SECS * 1000000000)) n=0 pid pids=""
	for _ in $(seq 20); do
		pids=$(backends)
		[ -n "$pids" ] && break
		sleep 0.1
	done
	while [ -n "$pids" ] && [ "$(date +%s%N)" -lt $end ]; do
		for pid in $pids; do
			"$@" "$pid" </dev/null >/dev/null 2>&1
			n=$((n + 1))
		done
	done
	echo $n
}

run_config() { # CONFIG ROUND
	local cfg=$1 round=$2 log=$OUT/$1.$2
	"$PGBENCH" "${PG_CONN[@]}" -S -n -c 2 -j 2 -T $((SECS + 2)) -P 1 postgres \
		>"$log.pgb" 2>&1 &
	local pgb=$!
	sleep 1
	local samples=0 extra=""
	case $cfg in
	pp-*)
		local every=${cfg#pp-} guard=()
		case $every in *%) guard=(--max-overhead "${every#*-}"); every=${every%-*} ;; esac
		"$PP" -v -p "$PG_POSTMASTER" --subprocesses -d "$every" "${guard[@]}" -t "${SECS}s" \
			>/dev/null 2>"$log.pp"
		samples=$(sed -n 's/.*, \([0-9]*\) thread samples/\1/p' "$log.pp")
		extra="$(sed -n 's/.*profiler CPU *\([0-9.]*\) us per sample.*/cpu_us=\1/p' "$log.pp") $(sed -n 's/.*stopped per stop *mean \([0-9.]*\) us.*/stop_us=\1/p' "$log.pp")"
		;;
	perf-1ms)
		local pids
		pids=$(instance | tr ' ' ',' | sed 's/,$//')
		perf record -q -g -F 1000 -p "$pids" -o "$OUT/perf.data" -- sleep "$SECS" \
			>/dev/null 2>&1
		samples=$(perf script -i "$OUT/perf.data" -F tid 2>/dev/null | grep -c . || true)
		;;
	gdb-loop)
		samples=$(loop_tool gdb -batch -nx -ex 'thread apply all bt' -p)
		;;
	eu-stack-loop)
		samples=$(loop_tool eu-stack -p)
		;;
	baseline)
		sleep "$SECS"
		;;
	esac
	wait $pgb
	# "progress: 3.0 s, 10234.5 tps, ..." for seconds 2 .. SECS+1
	local tps
	tps=$(awk -v last=$((SECS + 1)) '/^progress:/ { t = $2 + 0; if (t >= 2 && t <= last) { s += $4; n++ } }
		END { if (n) printf "%.1f", s / n; else print 0 }' "$log.pgb")
	echo "$cfg $round $tps $samples $extra" >>"$OUT/rows"
}

echo "pgbench: $(nproc) CPUs, $(uname -r), PostgreSQL $("$PGBIN/postgres" -V | awk '{print $3}'), $ROUNDS rounds x ${SECS}s, pgbench -S -c 2"
for r in $(seq "$ROUNDS"); do
	for cfg in $configs; do run_config "$cfg" "$r"; done
	echo "pgbench: round $r done" >&2
done

awk -v secs="$SECS" '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
{
	c = $1; k = ++n[c]; tps[c, k] = $3; smp[c, k] = $4
	for (i = 5; i <= NF; i++) { split($i, kv, "="); x[c, kv[1], k] = kv[2] }
	if (!(c in seen)) { seen[c] = 1; order[++nc] = c }
}
END {
	for (k = 1; k <= n["baseline"]; k++) b[k] = tps["baseline", k]
	base = median(b, n["baseline"])
	printf "\n| configuration | TPS (median) | TPS lost | samples/s | CPU per sample | stopped per stop |\n"
	printf "| --- | ---: | ---: | ---: | ---: | ---: |\n"
	for (i = 1; i <= nc; i++) {
		c = order[i]
		for (k = 1; k <= n[c]; k++) { t[k] = tps[c, k]; s[k] = smp[c, k] / secs; u[k] = x[c, "cpu_us", k] + 0; st[k] = x[c, "stop_us", k] + 0 }
		m = median(t, n[c])
		printf "| %s | %.0f | %s | %s | %s | %s |\n", c, m,
			c == "baseline" ? "-" : sprintf("%.1f %%", 100 * (base - m) / base),
			c == "baseline" ? "-" : sprintf("%.0f", median(s, n[c])),
			u[1] ? sprintf("%.1f us", median(u, n[c])) : "-",
			st[1] ? sprintf("%.1f us", median(st, n[c])) : "-"
	}
}' "$OUT/rows"
