#!/bin/sh
# Runs each cmocka unit-test binary given as an argument, shows its output,
# and sums up the tests: the last line is "unit: N passed, M failed".
# Before it, the binaries that failed and their failed tests, again.
# Exit status 1 if any test failed or any binary crashed or printed no
# cmocka summary.
#
# The counts come from cmocka's "[  PASSED  ] N test(s)." and
# "[  FAILED  ] N test(s)" lines, so its message output is forced to the
# plain format (a CMOCKA_MESSAGE_OUTPUT=TAP from the caller would hide them).
CMOCKA_MESSAGE_OUTPUT=STDOUT
export CMOCKA_MESSAGE_OUTPUT

passed=0 failed=0 status=0 failures=""
for bin in "$@"; do
	out=$("$bin" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
	if [ -z "$p" ] && [ -z "$f" ]; then
		# Crashed (or not a cmocka program): credit the tests it finished,
		# count the binary as one failure.
		p=$(printf '%s\n' "$out" | grep -c '^\[       OK \]')
		f=1
		echo "$bin: exit status $rc without a cmocka summary"
	fi
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if [ "$rc" -ne 0 ] || [ "${f:-0}" -ne 0 ]; then
		status=1
		failures="$failures
$bin: exit status $rc$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([a-z_][A-Za-z0-9_]*\)$/, \1/p' | tr -d '\n')"
	fi
done
# the failures again, so that the last lines say what failed
[ -z "$failures" ] || printf 'unit: what failed:%s\n' "$failures"
echo "unit: $passed passed, $failed failed"
exit $status
