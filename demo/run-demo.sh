#!/bin/sh
# make demo: profile the bundled workload for 5 s and show the result.
# The profiler launches the workload itself (-- COMMAND), which is allowed
# without root under the default kernel.yama.ptrace_scope=1.
# DEMO_TIME (default 5s) is how long each run profiles.
set -e
cd "$(dirname "$0")/.."
time=${DEMO_TIME:-5s}
echo "== profiling build/demo/workload for $time at 1 ms ..."
./ptrace_profiler -d 1ms -t "$time" -o demo.folded -- build/demo/workload 6
echo
echo "== heaviest stacks in demo.folded (thread;state;user frames;kernel frames_[k] count):"
awk '{ print $NF "\t" $0 }' demo.folded | sort -rn | head -n 10 | cut -f2- | cut -c1-200

# A profiler that writes SVG itself says so in its --help: "svg" as a
# format, not as the ".svg" of a file name in the examples.
if ./ptrace_profiler --help 2>/dev/null | grep -qiE '(^|[^.[:alnum:]_-])svg([^[:alnum:]_]|$)'; then
	echo
	echo "== profiling again for $time, as a flame graph ..."
	./ptrace_profiler -d 1ms -t "$time" --format svg -o demo.svg -- build/demo/workload 6
	echo
	echo "== flame graph: $PWD/demo.svg (open it in a browser)"
elif command -v flamegraph.pl >/dev/null 2>&1; then
	flamegraph.pl --title "ptrace_profiler demo" demo.folded >demo.svg
	echo
	echo "== flame graph: $PWD/demo.svg (open it in a browser)"
else
	echo
	echo "== flamegraph.pl not found: get it with 'git clone https://github.com/brendangregg/FlameGraph'"
	echo "   and run 'FlameGraph/flamegraph.pl demo.folded > demo.svg'"
fi
