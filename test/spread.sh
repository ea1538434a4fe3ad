#!/usr/bin/env bash
# spread.sh: how far make check's timing bounds are from missing.  Runs
# the plain build's integration tests ALONE times on a quiet machine, then
# NOISY times beside a noisy neighbour (two busy loops, ~1.5 ms in every
# 10 ms on each CPU, as ../shared/rehearse --noise), and ends with a line
# per timing check that missed or failed in any run, and a line per run.
# The figures behind each bound are in each run's log (PASS, MISS lines):
# docs/testing.md's table gives their spread.
#
#   bash test/spread.sh [ALONE [NOISY]]     (defaults 5 and 3)
#   ONLY=PATTERN bash test/spread.sh 5 3    (some files, as integration.sh)
#
# Logs in SPREAD_DIR (default: a new folder under /tmp, printed).  Takes
# /tmp/measure.lock around each run: never two measurements at once.
set -u
cd "$(dirname "$0")/.."
alone=${1:-5} noisy=${2:-3}
dir=${SPREAD_DIR:-$(mktemp -d /tmp/spread.XXXXXX)}
mkdir -p "$dir"
echo "spread: $alone runs alone, $noisy beside the noise; logs in $dir"

hogs=()
noise_on() {
	local cpu
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$cpu" perl -e 'use Time::HiRes qw(time sleep);
			while (1) { my $t = time + 0.0015; 1 while time < $t; sleep 0.0085 }' &
		hogs+=($!)
	done
}
noise_off() {
	[ "${#hogs[@]}" = 0 ] || kill "${hogs[@]}" 2>/dev/null
	wait "${hogs[@]}" 2>/dev/null
	hogs=()
}
trap noise_off EXIT

run() {
	local name=$1 mode=$2 log=$dir/$1.log started=$SECONDS rc
	[ "$mode" = noise ] && noise_on
	flock /tmp/measure.lock bash test/integration.sh </dev/null >"$log" 2>&1
	rc=$?
	noise_off
	printf '%s %s rc=%s seconds=%s misses=%s fails=%s\n' "$name" "$mode" "$rc" \
		$((SECONDS - started)) "$(grep -c '^MISS ' "$log")" "$(grep -c '^FAIL ' "$log")" |
		tee -a "$dir/runs"
}

for i in $(seq "$alone"); do run "alone$i" quiet; done
for i in $(seq "$noisy"); do run "noisy$i" noise; done

echo "== timing checks that missed or failed (runs of $((alone + noisy)))"
cat "$dir"/*.log | sed -n 's/^\(MISS\|FAIL\) \([^:]*\):.*/\1 \2/p' | sort | uniq -c | sort -rn
echo "== runs"
cat "$dir/runs"
! grep -qv ' rc=0 ' "$dir/runs"
