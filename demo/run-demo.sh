#!/bin/sh
# make demo: profile the bundled workload for 5 s and show the result.
# The profiler launches the workload itself (-- COMMAND), which is allowed
# without root under the default kernel.yama.ptrace_scope=1.
set -e
cd "$(dirname "$0")/.."
echo "== profiling build/demo/workload for 5 s at 1 ms ..."
./ptrace_profiler -d 1ms -t 5s -o demo.folded -- build/demo/workload 6
echo
echo "== heaviest stacks in demo.folded (thread;state;user frames;kernel frames_[k] count):"
awk '{ print $NF "\t" $0 }' demo.folded | sort -rn | head -n 10 | cut -f2- | cut -c1-200
if command -v flamegraph.pl >/dev/null 2>&1; then
	flamegraph.pl --title "ptrace_profiler demo" demo.folded >demo.svg
	echo
	echo "== flame graph: demo.svg (open it in a browser)"
else
	echo
	echo "== flamegraph.pl not found: get it with 'git clone https://github.com/brendangregg/FlameGraph'"
	echo "   and run 'FlameGraph/flamegraph.pl demo.folded > demo.svg'"
fi
