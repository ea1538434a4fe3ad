#!/usr/bin/env bash
# make check's runs, one after the other, each to its end whatever the one
# before it said: so one red run tells everything that failed.
#   1. the unit tests (cmocka), plain build
#   2. the integration tests, plain build: functional assertions, and
#      timing bounds tried again on a miss (test/integration/lib.sh)
#   3. the unit tests under ASan+UBSan
#   4. every fuzz corpus input replayed under ASan+UBSan
#   5. the integration tests with the sanitizer build: functional
#      assertions only (SANITIZED=1: memory, not time)
# The last lines repeat every failure and end with the total,
# "check: N passed, M failed, K skipped".
#
# Called by the Makefile with what it built:
#   UNIT_BINS, SAN_UNIT_BINS, SAN_PP, REGRESS ("TARGET:CORPUS_DIR ...")
set -u
cd "$(dirname "$0")/.."
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
: >"$logs/closing" >"$logs/failures"
total_p=0 total_f=0 total_s=0

# stage NAME COMMAND...: runs COMMAND, its output shown and kept; adds the
# counts of its closing "N passed, M failed[, K skipped]" line; a command
# that failed without saying so counts as one failure.
stage() {
	local name=$1 log rc line p f s
	shift
	log=$logs/$(echo "$name" | tr -c 'a-z0-9\n' '_')
	echo "== $name"
	"$@" </dev/null 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^[a-z ]*: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	p=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')
	f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
	s=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
	if [ "$rc" != 0 ] && [ "${f:-0}" = 0 ]; then f=1; fi
	total_p=$((total_p + ${p:-0})) total_f=$((total_f + ${f:-0})) total_s=$((total_s + ${s:-0}))
	echo "$name: ${line:-exit status $rc} (exit $rc)" >>"$logs/closing"
	if [ "$rc" != 0 ]; then
		{
			echo "-- $name:"
			# integration FAILs, cmocka's failed tests, crashes and sanitizer reports
			grep -E '^FAIL |^\[  FAILED  \] [a-z_]|without a cmocka summary|^SUMMARY: |runtime error:|^[a-z_]+: [0-9]+ inputs|: FAILED ' "$log" |
				awk '!seen[$0]++' | head -n 60
		} >>"$logs/failures"
	fi
}

# replay: each fuzz target's kept corpus under the sanitizers
replay() {
	local entry bin dir status=0 n=0 bad=0
	for entry in $REGRESS; do
		bin=${entry%%:*} dir=${entry#*:}
		printf '%s corpus replay: ' "$(basename "$bin")"
		if "$bin" "$dir"/*; then n=$((n + 1)); else echo "$bin: FAILED on $dir"; bad=$((bad + 1)); status=1; fi
	done
	echo "replay: $n passed, $bad failed"
	return $status
}

# shellcheck disable=SC2086
stage "unit tests" sh test/run-unit.sh $UNIT_BINS
stage "integration tests" bash test/integration.sh
# shellcheck disable=SC2086
stage "unit tests, ASan+UBSan" sh test/run-unit.sh $SAN_UNIT_BINS
stage "corpus replay, ASan+UBSan" replay
stage "integration tests, ASan+UBSan (memory, not time)" env SANITIZED=1 PP="$SAN_PP" bash test/integration.sh

echo "== make check: each run's closing line"
cat "$logs/closing"
if [ -s "$logs/failures" ]; then
	echo "== make check: what failed"
	cat "$logs/failures"
fi
echo "check: $total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" = 0 ]
