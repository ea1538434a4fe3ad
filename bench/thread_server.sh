#!/usr/bin/env bash
# bench/thread_server.sh - what profiling costs a server of threads, in
# transactions.
#
# A throwaway MariaDB server (scripts/mariadb_server.sh: one process, a
# thread per connection beside InnoDB's own) serves sysbench oltp_read_only
# from 4 client threads: both CPUs busy, the server's threads and the
# clients' queued for them.  Rounds interleave every configuration, so the
# machine's drift hits all alike:
#   baseline           nobody looks
#   ptrace_profiler    -p MARIADBD at 10 ms and 1 ms, and at 1 ms with
#                      --max-overhead 1%; --top at 10 ms in a 120x40
#                      tmux pane (with tmux)
#   perf record -g     -F 1000 on the server (perf's frame-pointer stacks:
#                      what a DBA runs; --call-graph dwarf costs more)
# sysbench prints its throughput every second; a tool runs from the 1st
# second to the SECS+1th, and its TPS is the mean of those seconds'.
# Reported: median TPS per configuration, TPS lost against the baseline's
# median, samples per second, the tool's CPU as a share of the machine
# (ours from its summary, perf's from its own rusage), and for ours the
# share of the ticks due that were sampled, the CPU per sample and per
# round.
#
# Tunables: TS_ROUNDS (3), TS_SECONDS (8), TS_PORT (33061), PP (the binary
# measured, ./ptrace_profiler).  Needs root, Debian's mariadb-server and
# sysbench; prints "thread server: SKIP ..." without them.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/mariadb_server.sh

ROUNDS=${TS_ROUNDS:-3}
SECS=${TS_SECONDS:-8}
PORT=${TS_PORT:-33061}
PP=${PP:-./ptrace_profiler}

md_find
[ -x "$PP" ] || MD_MISSING="$MD_MISSING $PP"
if [ -n "$MD_MISSING" ]; then
	echo "thread server: SKIP missing:$MD_MISSING (apt-get install mariadb-server sysbench)"
	exit 0
fi
OUT=$(mktemp -d)
TM=(tmux -L "thread_server.$$" -f /dev/null)
cleanup() { md_stop; "${TM[@]}" kill-server 2>/dev/null; rm -rf "$OUT"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

md_start thread_server_bench "$PORT" || exit 2
SB=(oltp_read_only "${MD_CONN[@]}" --tables=4 --table-size=10000)
"$SYSBENCH" "${SB[@]}" prepare >"$OUT/prepare.log" 2>&1 || {
	echo "thread server: ERROR sysbench prepare: $(tail -n 1 "$OUT/prepare.log")"
	exit 2
}

have() { command -v "$1" >/dev/null 2>&1; }
configs="baseline pp-10ms pp-1ms pp-1ms-1%"
have tmux && configs="$configs top-10ms"
have perf && perf record -q -o /dev/null -- true >/dev/null 2>&1 && configs="$configs perf-1ms"

run_config() { # CONFIG ROUND
	local cfg=$1 round=$2 log=$OUT/$1.$2
	"$SYSBENCH" "${SB[@]}" --threads=4 --time=$((SECS + 2)) --report-interval=1 run \
		>"$log.sb" 2>&1 &
	local sb=$!
	sleep 1
	local samples=0 extra=""
	case $cfg in
	pp-* | top-*)
		local every=${cfg#*-} guard=()
		case $every in *%) guard=(--max-overhead "${every#*-}"); every=${every%-*} ;; esac
		if [ "${cfg%%-*}" = top ]; then
			rm -f "$OUT/top.rc"
			"${TM[@]}" new-session -d -x 120 -y 40 \
				"$PP --top -p $MD_PID -d $every -t ${SECS}s 2>$log.pp; echo \$? >$OUT/top.rc"
			local waited=0 # a screen that never ends is given up on
			while [ ! -s "$OUT/top.rc" ] && [ $waited -lt $((SECS * 15)) ]; do
				sleep 0.2
				waited=$((waited + 1))
			done
			[ -s "$OUT/top.rc" ] || { echo "thread server: --top did not end" >&2; "${TM[@]}" kill-server 2>/dev/null; }
		else
			"$PP" -p "$MD_PID" -d "$every" "${guard[@]}" -t "${SECS}s" >/dev/null 2>"$log.pp"
		fi
		samples=$(sed -n 's/.*, \([0-9]*\) thread samples/\1/p' "$log.pp")
		extra="$(sed -n 's/.*profiler CPU *\([0-9.]*\) us per sample.*, \([0-9.]*\)% of the machine.*/cpu_us=\1 cpu_pct=\2/p' "$log.pp")"
		extra="$extra $(sed -n 's/^  rounds *\([0-9]*\) for .*/rounds=\1/p' "$log.pp")"
		extra="$extra $(sed -n 's/^  rate .*(\([0-9]*\)%\( of those due sampled\)\{0,1\}).*/ticks=\1/p' "$log.pp")"
		;;
	perf-1ms)
		# perf's own CPU: its children's times, as its subshell saw them
		( perf record -q -g -F 1000 -p "$MD_PID" -o "$OUT/perf.data" -- sleep "$SECS" \
			>/dev/null 2>&1; times ) >"$log.times" 2>&1
		samples=$(perf script -i "$OUT/perf.data" -F tid 2>/dev/null | grep -c . || true)
		extra="cpu_pct=$(awk -v s="$SECS" -v c="$(nproc)" 'NR == 2 {
			split($1, u, /[ms]/); split($2, y, /[ms]/)
			printf "%.2f", 100 * (u[1] * 60 + u[2] + y[1] * 60 + y[2]) / (s * c) }' "$log.times")"
		;;
	baseline)
		sleep "$SECS"
		;;
	esac
	wait $sb
	# "[ 3s ] thds: 4 tps: 1234.56 qps: ..." for seconds 2 .. SECS+1
	local tps
	tps=$(awk -v last=$((SECS + 1)) '/^\[ [0-9]+s \]/ { t = $2 + 0; if (t >= 2 && t <= last) { s += $7; n++ } }
		END { if (n) printf "%.1f", s / n; else print 0 }' "$log.sb")
	echo "$cfg $round $tps $samples $extra" >>"$OUT/rows"
}

echo "thread server: $(nproc) CPUs, $(uname -r), $("$MD_SERVER" --version | awk '{print $3}'), $(ls /proc/"$MD_PID"/task | wc -l) threads idle, $ROUNDS rounds x ${SECS}s, sysbench oltp_read_only --threads=4"
for r in $(seq "$ROUNDS"); do
	for cfg in $configs; do run_config "$cfg" "$r"; done
	echo "thread server: round $r done" >&2
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
	printf "\n| configuration | TPS (median) | TPS per round | TPS lost | samples/s | ticks sampled | tool CPU, %% of machine | CPU per sample | per round |\n"
	printf "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
	for (i = 1; i <= nc; i++) {
		c = order[i]
		for (k = 1; k <= n[c]; k++) {
			t[k] = tps[c, k]; s[k] = smp[c, k] / secs
			u[k] = x[c, "cpu_us", k] + 0; p[k] = x[c, "cpu_pct", k] + 0; d[k] = x[c, "ticks", k] + 0
			r[k] = x[c, "rounds", k] ? x[c, "cpu_us", k] * smp[c, k] / x[c, "rounds", k] : 0
		}
		all = ""
		for (k = 1; k <= n[c]; k++) all = all (k > 1 ? " " : "") sprintf("%.0f", tps[c, k])
		m = median(t, n[c])
		printf "| %s | %.0f | %s | %s | %s | %s | %s | %s | %s |\n", c, m, all,
			c == "baseline" ? "-" : sprintf("%.1f %%", 100 * (base - m) / base),
			c == "baseline" ? "-" : sprintf("%.0f", median(s, n[c])),
			d[1] ? sprintf("%.0f %%", median(d, n[c])) : "-",
			c == "baseline" ? "-" : sprintf("%.2f %%", median(p, n[c])),
			u[1] ? sprintf("%.1f us", median(u, n[c])) : "-",
			r[1] ? sprintf("%.0f us", median(r, n[c])) : "-"
	}
}' "$OUT/rows"
