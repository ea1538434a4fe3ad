#!/bin/sh
# source_map.sh - the table of docs/how-it-works.md's "Where each file is
# tested": every source file and the unit tests that test it -
# the one named after it (test/unit/test_NAME.c; a writer out_NAME.c's
# test_NAME or test_NAME_*), and those that include its header.  Generated, so that it cannot drift: 12-docs.sh checks that
# the docs hold this script's output.
#
#   sh scripts/source_map.sh          the table, Markdown, on stdout
set -eu
cd "$(dirname "$0")/.."

echo "| file | unit tests |"
echo "| --- | --- |"
for src in src/*.c src/*/*.c; do
	name=$(basename "$src" .c)
	dir=$(dirname "$src" | sed 's|^src/*||')
	header=${dir:+$dir/}$name.h
	tests=$(
		{
			[ ! -f "test/unit/test_$name.c" ] || echo "test/unit/test_$name.c"
			# a format's writer (out_svg.c: test_svg, out_perf.c: test_perf_script)
			case $name in out_*) ls "test/unit/test_${name#out_}.c" "test/unit/test_${name#out_}"_*.c 2>/dev/null || true ;; esac
			[ ! -f "include/$header" ] || grep -l "^#include \"$header\"" test/unit/test_*.c 2>/dev/null || true
		} | sort -u | sed 's|test/unit/||; s|\.c$||' | tr '\n' ' ' | sed 's/ $//; s/ /, /g'
	)
	printf '| `%s` | %s |\n' "$src" "${tests:--}"
done
