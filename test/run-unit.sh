#!/bin/sh
# Runs each cmocka unit-test binary given as an argument and sums up:
# the last line is "unit: N passed, M failed".  Exit status 1 if any test
# failed or any binary crashed.
passed=0 failed=0 status=0
for bin in "$@"; do
	out=$("$bin" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if [ "$rc" -ne 0 ]; then
		status=1
		# A crash prints no FAILED count: count the binary as one failure.
		[ -z "$f" ] && failed=$((failed + 1)) && echo "unit: $bin exited with status $rc"
	fi
done
echo "unit: $passed passed, $failed failed"
exit $status
