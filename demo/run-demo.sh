#!/bin/sh
# make demo: profile the bundled workload and show the result, as folded
# stacks (demo.folded) and as a flame graph (demo.svg).
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
echo
echo "== profiling again for $time, as a flame graph ..."
./ptrace_profiler -d 1ms -t "$time" -o demo.svg -- build/demo/workload 6
echo
echo "== flame graph: $PWD/demo.svg (open it in a browser: click to zoom, Ctrl-F to search)"
