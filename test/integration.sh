#!/usr/bin/env bash
# Integration tests: the real binary against the small targets in
# test/targets/ (built by `make check`).  Each test asserts an outcome -
# shares within a tolerance, frames present, exit codes, the target's own
# view - and prints PASS, FAIL (with the numbers) or SKIP (with the reason).
# The tests live in test/integration/NN-area.sh, run in that order;
# ONLY=PATTERN runs the files whose name matches (ONLY=threads).
# The last line is "integration: N passed, M failed, K skipped".
set -u
cd "$(dirname "$0")/.."

. test/integration/lib.sh
for file in test/integration/[0-9]*.sh; do
	case $file in *${ONLY:-}*) . "$file" ;; esac
done

echo "integration: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
