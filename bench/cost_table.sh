#!/usr/bin/env bash
# bench/cost_table.sh - what sampling costs a thread, by its own clock:
# the table in README's Performance and the man page.
#
# Two targets, both test/targets/freeze_target (which times its own
# stops: gaps in its clock with a voluntary context switch):
#   busy   spinning all the time (a CPU-bound thread)
#   idle   1 ms of work every 10 ms, asleep in nanosleep between (a mostly
#          idle thread, as a database backend between queries); its cost
#          also counts the time its sleeps overran, above the baseline's
# At -d 100us, 1ms and 10ms, without a bound and with --max-overhead 1%
# and 0.5%,
# rounds interleaved (every configuration once per round) so that the
# machine's drift hits all alike.  Reported per configuration, as medians
# over the rounds: the share of its time the target lost, the profiler's
# CPU as a share of the machine, and the sampling rate achieved.
#
# Then a thread that enters the kernel every few microseconds (sysmix,
# 1 us of user work between 4 KiB preads; issue 41) at 1 ms and 100 us:
# followed to its CPU (placement.h), and, for comparison, pinned to CPU 0
# with the profiler on CPU 1, stopped from afar (as before issue 41, and
# wherever the sampler may not follow: not root, one CPU allowed).
# Rounds interleaved.  Reported: the work it lost (its loops against the
# same round's unprofiled run, pinned alike), the profiler's CPU per
# sample and of the machine, and the truth bought: user_work's share in
# the profile against its own clock; then the two ways paired by round
# (followed less from afar: work lost, our CPU per sample), the mean and
# its standard error, which a table's medians are too noisy to give.
#
# Before it, this machine's price of a wake-up (bench/wake_floor.c), by
# which the followed rows' extra cost reads.  Where perf(1) may record,
# the same rounds run sysmix under perf record as well (cpu-clock every
# 1 ms and 100 us of its CPU, call graphs by copying 8 KiB of its stack
# at each sample, as perf needs for code without frame pointers): the
# price of the on-CPU profiler people know, which cannot see the rest,
# paired by round against the followed rows.
#
# Then a server's shape: 1000 threads waking every 0.5 s (many_threads
# ... nap) at 10 ms and 1 ms: the share of ticks sampled, the profiler's
# CPU, and its CPU per thread per round.
#
# Tunables: COST_PARTS (the tables made: "stops sysmix threads"),
# BENCH_ROUNDS (3), BENCH_SECONDS (3), PP (the binary measured,
# ./ptrace_profiler: another build for a before-and-after).  Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${BENCH_ROUNDS:-3}
SECS=${BENCH_SECONDS:-3}
PP=${PP:-./ptrace_profiler}
FT=build/test/targets/freeze_target
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

[ "$(id -u)" = 0 ] || { echo "cost_table: needs root (ptrace of a non-child)"; exit 1; }

PARTS=" ${COST_PARTS:-stops sysmix threads} "
part() { case $PARTS in *" $1 "*) return 0 ;; esac; return 1; }

field() { sed -n "s/.* $2=\([0-9.]*\).*/\1/p" "$1"; }
field_kv() { echo " $1" | sed -n "s/.* $2=\([0-9.]*\).*/\1/p"; }

# run_one TARGET EVERY GUARD ROUND: appends "target every guard lost_us cpu_pct rate" to rows
run_one() {
	local target=$1 every=$2 guard=$3 report=$OUT/r.$1.$2.$3.$4 err=$OUT/e.$1.$2.$3.$4
	local args=()
	[ "$target" = idle ] && args=(1000 9000)
	"$FT" $((SECS + 1)) "$report" "${args[@]}" &
	local pid=$!
	sleep 0.3
	local cpu=0 rate=0
	if [ "$every" = none ]; then
		sleep "$SECS"
	else
		local g=()
		[ "$guard" = none ] || g=(--max-overhead "$guard")
		"$PP" -p "$pid" -d "$every" "${g[@]}" -t "${SECS}s" -o /dev/null 2>"$err" || true
		cpu=$(sed -n 's/.* \([0-9.]*\)% of the machine.s [0-9]* CPUs.*/\1/p' "$err")
		# the ticks sampled per second: as asked, or as the guard spaced them
		rate=$(sed -n -e 's/.*achieved \([0-9.e+]*\)\/s.*/\1/p' \
			-e 's/.*spaced by --max-overhead to \([0-9.e+]*\)\/s.*/\1/p' "$err")
	fi
	wait "$pid" || true
	local stop over
	stop=$(field "$report" stop_total_us)
	over=$(field "$report" sleep_over_us)
	echo "$target $every $guard ${stop:-0} ${over:-0} ${cpu:-0} ${rate:-0}" >>"$OUT/rows"
}

echo "cost_table: $(nproc) CPUs, $(uname -r), $ROUNDS rounds x ${SECS}s per configuration"
if part stops; then
	for r in $(seq "$ROUNDS"); do
		for target in busy idle; do
			run_one "$target" none none "$r"
			for every in 100us 1ms 10ms; do
				for guard in none 1% 0.5%; do run_one "$target" "$every" "$guard" "$r"; done
			done
		done
		echo "cost_table: round $r done" >&2
	done

	awk -v secs="$SECS" '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	{
		key = $1 " " $2 " " $3; k = ++n[key]
		stop[key, k] = $4; over[key, k] = $5; cpu[key, k] = $6; rate[key, k] = $7
		if (!(key in seen) && $2 != "none") { seen[key] = 1; order[++nk] = key }
	}
	END {
		printf "\n| thread | -d | bound | its time lost (own clock) | profiler CPU (of the machine) | samples/s |\n"
		printf "| --- | --- | --- | ---: | ---: | ---: |\n"
		for (i = 1; i <= nk; i++) {
			split(order[i], kk, " "); base = kk[1] " none none"
			m = n[order[i]]
			for (j = 1; j <= m; j++) {
				# the sleeps overran by the baseline run of the same round
				extra = over[order[i], j] - over[base, j]; if (extra < 0) extra = 0
				l[j] = (stop[order[i], j] + extra) / 1e4 / secs
				c[j] = cpu[order[i], j]; r[j] = rate[order[i], j]
			}
			printf "| %s | %s | %s | %.2f %% | %.2f %% | %.0f |\n", (kk[1] == "busy" ? "CPU-bound" : "idle, 1 ms work / 10 ms"),
				kk[2], (kk[3] == "none" ? "none" : "--max-overhead " kk[3]), median(l, m), median(c, m), median(r, m)
		}
	}' "$OUT/rows"
fi

# A thread between fast system calls: followed to its CPU (unpinned, as
# the profiler runs by default), and stopped from afar (the profiler kept
# off its CPU with taskset: what it did before it followed such threads).
SM=build/test/targets/sysmix
sm_run() { # CONFIG ROUND
	local c=$1 r=$2 out=$OUT/sm.$1.$2 pp=() tgt=("$SM")
	case $c in
	*-apart) pp=(taskset -c 1) tgt=(taskset -c 0 "$SM") ;;
	esac
	case $c in
	none) "$SM" "$SECS" >"$out" 2>/dev/null || true ;;
	none-apart) taskset -c 0 "$SM" "$SECS" >"$out" 2>/dev/null || true ;;
	perf-*)
		local every=$((${c#perf-} * 1000)) # its microseconds, in ns of its CPU
		perf record -q -e cpu-clock -c "$every" --call-graph dwarf,8192 -o "$OUT/perf.data" \
			-- "$SM" "$SECS" >"$out" 2>"$out.err" || true
		perf report -i "$OUT/perf.data" --no-children -g none --sort sym --stdio 2>/dev/null |
			awk '$NF == "user_work" { sub("%", "", $1); u = $1 } END { printf "%.1f\n", u + 0 }' >"$out.user"
		rm -f "$OUT/perf.data"
		;;
	*)
		"${pp[@]}" "$PP" -v -d "${c%-apart}" -o "$OUT/sm.folded" -- "${tgt[@]}" "$SECS" >"$out" 2>"$out.err" || true
		awk '{ n = $NF; t += n; if ($0 ~ /;user_work(;| )/) m += n } END { printf "%.1f\n", t ? 100 * m / t : 0 }' \
			"$OUT/sm.folded" >"$out.user"
		;;
	esac
}
# Can perf record here?  (perf_event_paranoid, or the tool absent)
perf_records() {
	command -v perf >/dev/null 2>&1 &&
		perf record -q -e cpu-clock -c 1000000 -o "$OUT/perf.try" -- true >/dev/null 2>&1
}
if part sysmix && [ "$(nproc)" -ge 2 ]; then
	PERF_CONFIGS=
	if perf_records; then PERF_CONFIGS="perf-1000 perf-100"; fi
	rm -f "$OUT/perf.try"
	# this machine's price of a wake-up (bench/wake_floor.c): a followed
	# thread's round pays one more than a stop from afar (our helper,
	# woken on the other CPU)
	floor=$(build/bench/wake_floor 2000 2>/dev/null || true)
	echo
	echo "A wake-up on a timer here: $(field_kv "$floor" timer_us) us of CPU; waking a thread asleep on" \
		"an idle CPU: $(field_kv "$floor" remote_write_us) us to the writer (bench/wake_floor.c)."
	echo
	echo "| sysmix (a pread every ~2 us) | work lost | profiler CPU per sample | profiler CPU (of the machine) | user_work, profile / its clock |"
	echo "| --- | ---: | ---: | ---: | ---: |"
	for r in $(seq "$ROUNDS"); do
		for c in none none-apart 1ms 100us 1ms-apart 100us-apart $PERF_CONFIGS; do sm_run "$c" "$r"; done
	done
	for c in 1ms 100us 1ms-apart 100us-apart; do
		base=none
		[ "$c" = "${c%-apart}" ] || base=none-apart
		for r in $(seq "$ROUNDS"); do
			per=$(sed -n 's/^  profiler CPU *\([0-9.]*\) us per sample, \([0-9.]*\)%.*/\1 \2/p' "$OUT/sm.$c.$r.err")
			echo "$(field "$OUT/sm.$base.$r" loops) $(field "$OUT/sm.$c.$r" loops) ${per:-0 0}" \
				"$(sed -n 's/^user_share=\([0-9.]*\).*/\1/p' "$OUT/sm.$c.$r") $(cat "$OUT/sm.$c.$r.user")"
		done | awk -v c="$c" '
		function median(a, n,   i, j, t) {
			for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
			return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
		}
		{ n++; lost[n] = $1 > 0 ? 100 * (1 - $2 / $1) : 0; per[n] = $3; cpu[n] = $4; own[n] = 100 * $5; prof[n] = $6 }
		END {
			split(c, k, "-")
			printf "| -d %s, %s | %.1f %% | %.1f us | %.2f %% | %.1f / %.1f |\n", k[1],
				(k[2] == "apart" ? "stopped from another CPU" : "followed to its CPU"),
				median(lost, n), median(per, n), median(cpu, n), median(prof, n), median(own, n) }'
	done
	for c in $PERF_CONFIGS; do
		for r in $(seq "$ROUNDS"); do
			echo "$(field "$OUT/sm.none.$r" loops) $(field "$OUT/sm.$c.$r" loops)" \
				"$(sed -n 's/^user_share=\([0-9.]*\).*/\1/p' "$OUT/sm.$c.$r") $(cat "$OUT/sm.$c.$r.user")"
		done | awk -v us="${c#perf-}" '
		function median(a, n,   i, j, t) {
			for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
			return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
		}
		{ n++; lost[n] = $1 > 0 ? 100 * (1 - $2 / $1) : 0; own[n] = 100 * $3; prof[n] = $4 }
		END {
			printf "| perf record, every %s of its CPU (dwarf, 8 KiB) | %.1f %% | | | %.1f / %.1f |\n",
				(us == 1000 ? "1 ms" : us " us"), median(lost, n), median(prof, n), median(own, n) }'
	done
	# the two ways paired by round, which a single table's medians are
	# too noisy to compare (the rounds' unprofiled runs vary by a few
	# percent): the difference's mean and its standard error
	echo
	for d in 1ms 100us; do
		for r in $(seq "$ROUNDS"); do
			echo "$(field "$OUT/sm.none.$r" loops) $(field "$OUT/sm.$d.$r" loops)" \
				"$(field "$OUT/sm.none-apart.$r" loops) $(field "$OUT/sm.$d-apart.$r" loops)" \
				"$(sed -n 's/^  profiler CPU *\([0-9.]*\) us per sample.*/\1/p' "$OUT/sm.$d.$r.err")" \
				"$(sed -n 's/^  profiler CPU *\([0-9.]*\) us per sample.*/\1/p' "$OUT/sm.$d-apart.$r.err")"
		done | awk -v d="$d" '
		function se(s, ss, n,   m) { m = s / n; return n > 1 ? sqrt((ss / n - m * m) / (n - 1)) : 0 }
		$1 > 0 && $3 > 0 && NF == 6 {
			n++; x = 100 * (1 - $2 / $1) - 100 * (1 - $4 / $3); s += x; ss += x * x
			y = $5 - $6; c += y; cc += y * y
		}
		END {
			if (!n) exit
			printf "Followed against from afar at -d %s, paired by round (%d): work lost %+.2f points " \
				"(standard error %.2f), profiler CPU %+.1f us a sample (%.1f).\n", d, n, s / n,
				se(s, ss, n), c / n, se(c, cc, n) }'
		[ -n "$PERF_CONFIGS" ] || continue
		p=perf-$([ "$d" = 1ms ] && echo 1000 || echo 100)
		for r in $(seq "$ROUNDS"); do
			echo "$(field "$OUT/sm.none.$r" loops) $(field "$OUT/sm.$d.$r" loops) $(field "$OUT/sm.$p.$r" loops)"
		done | awk -v d="$d" '
		function se(s, ss, n,   m) { m = s / n; return n > 1 ? sqrt((ss / n - m * m) / (n - 1)) : 0 }
		$1 > 0 && $3 > 0 && NF == 3 { n++; x = 100 * ($3 - $2) / $1; s += x; ss += x * x }
		END {
			if (!n) exit
			printf "Followed against perf record at the same interval, paired by round (%d): work lost " \
				"%+.2f points (standard error %.2f).\n", n, s / n, se(s, ss, n) }'
	done
fi

# A thousand threads.
if part threads; then
	echo
	echo "| 1000 threads waking every 0.5 s | ticks sampled | profiler CPU (of the machine) | CPU per thread per round |"
	echo "| --- | ---: | ---: | ---: |"
	for every in 10ms 1ms; do
		build/test/targets/many_threads 1000 0 $((SECS + 2)) nap &
		pid=$!
		sleep 0.5
		"$PP" -p "$pid" -d "$every" -t "${SECS}s" -o /dev/null 2>"$OUT/many.$every" || true
		wait "$pid" || true
		share=$(sed -n 's/.*achieved [0-9.e+]*\/s (\([0-9.]*%\)).*/\1/p' "$OUT/many.$every")
		cpu=$(sed -n 's/.* \([0-9.]*\)% of the machine.s \([0-9]*\) CPUs.*/\1 \2/p' "$OUT/many.$every")
		rounds=$(sed -n 's/^  rounds *\([0-9]*\) for .*/\1/p' "$OUT/many.$every")
		echo "$every $share $cpu $rounds" | awk -v secs="$SECS" '{
			per = $3 / 100 * $4 * secs * 1e6 / ($5 > 0 ? $5 : 1) / 1000
			printf "| -d %s | %s | %.1f %% | %.2f us |\n", $1, $2, $3, per }'
	done
fi
