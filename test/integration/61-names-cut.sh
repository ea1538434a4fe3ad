# --- names: whole stacks and cut ones; static programs ---------------------

# cut_of FILE.err: the summary's count of cut samples ("" if it has none).
cut_of() { sed -n 's/^  cut stacks *\([0-9]*\) of .*/\1/p' "$1"; }

# A static program linked by GCC has .eh_frame but no .eh_frame_hdr (the
# table libunwind searches): every stack was one frame, "complete".
static_tests() {
	start "$T/split_static"
	profile static 1s
	stop_target "$TPID"
	local whole cut
	whole=$(share "$TMP/static.folded" '^split_static;[^;]*;_start;__libc_start_main(_impl)?;__libc_start_call_main;main;(cpu_work|sleep_work|cpu_other)')
	cut=$(cut_of "$TMP/static.err")
	if atleast "$whole" 95 && [ "$cut" = 0 ]; then
		pass "static program (no .eh_frame_hdr): _start...main;cpu_work|sleep_work|cpu_other in ${whole}%, 0 cut stacks"
	else fail "static program" "from _start to main's callees ${whole}% (>= 95), cut stacks ${cut:-none in the summary} (0)" "$TMP/static.folded"; fi
}

# JIT code without frame pointers (a JVM without -XX:+PreserveFramePointer):
# its stacks were one frame, [anon], and "0 unwind failures".  They are
# cut, and the summary says where and what to do.
cut_jit_tests() {
	start "$T/jit_nofp"
	profile jit_nofp 1s
	stop_target "$TPID"
	local marked cut total
	marked=$(share "$TMP/jit_nofp.folded" '^jit_nofp;[^;]*;\[truncated\];\[anon\]( |$)')
	cut=$(cut_of "$TMP/jit_nofp.err")
	total=$(total "$TMP/jit_nofp.folded")
	if atleast "$marked" 90 && [ -n "$cut" ] && atleast "$cut" "$((total * 9 / 10))" &&
		grep -q "^  cut stacks .*, most in \[anon\] (" "$TMP/jit_nofp.err" &&
		grep -q -- "-XX:+PreserveFramePointer.*/tmp/perf-PID.map" "$TMP/jit_nofp.err"; then
		pass "JIT code without frame pointers: [truncated];[anon] in ${marked}%, summary: $cut of $total cut, most in [anon], with the JIT hint"
	else fail "JIT code without frame pointers" "[truncated];[anon] ${marked}% (>= 90), cut stacks ${cut:-none in the summary} of $total (>= 90%), most in [anon] and the hint: $(grep -E 'cut stacks|JIT code' "$TMP/jit_nofp.err")" "$TMP/jit_nofp.folded"; fi
}

# Stacks that reach their thread's first frame are never called cut:
# glibc's _start, a program built without frame pointers, deep recursion,
# a signal handler, blocked threads, JIT code that keeps a frame pointer.
# The JIT function has no frame at its first and last instructions (before
# push %rbp, after pop %rbp): a stop there is truly cut, as perf's
# frame-pointer unwind is wrong there, about 1 stop in 1000-15000 here
# (the loop's exit stalls at `ret`).  So jit may have a few, never beyond
# 1 %, and only those: [truncated] over the JIT frame.
whole_tests() {
	local t cut bad="" over="" line="" total allowed
	for t in split recursion sighandler blocked jit; do
		start "$T/$t"
		profile "whole_$t" 1s
		stop_target "$TPID"
		cut=$(cut_of "$TMP/whole_$t.err")
		line="$line $t ${cut:-?},"
		if [ "$t" = jit ]; then
			total=$(total "$TMP/whole_$t.folded")
			allowed=$((total / 100))
			# where it is cut: function; how often a stop lands on the
			# entry or the return: time
			if [ -z "$cut" ] ||
				grep -F '[truncated]' "$TMP/whole_$t.folded" | grep -qvE '^jit;R \((running|runnable)\);\[truncated\];\[anon\] [0-9]+$'; then
				bad="$bad $t"
			elif [ "$cut" -gt "$allowed" ]; then over="$cut of $total"; fi
		elif [ "$cut" != 0 ] || ! nowhere "$TMP/whole_$t.folded" "[truncated]"; then bad="$bad $t"; fi
	done
	if [ -z "$bad" ]; then pass "whole stacks are not cut: cut stacks${line%,} (jit: only at its entry or return)"
	else fail "whole stacks called cut" "cut stacks (0 each, jit at most 1 % and only at its entry or return):${line%,}" "$TMP/whole_${bad# }.folded"; fi
	[ -z "$over" ] || tfail "whole stacks: jit cut at its entry or return" "$over cut (at most 1 %)" "$TMP/whole_jit.folded"
}

if [ $CAN_ATTACH = 1 ]; then
	static_tests
	cut_jit_tests
	whole_tests
else skip "whole and cut stacks, static programs" "$WHY_NO_ATTACH"; fi
