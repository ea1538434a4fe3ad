# --- names: static programs ----------------------------------------------

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

if [ $CAN_ATTACH = 1 ]; then
	static_tests
else skip "static programs" "$WHY_NO_ATTACH"; fi
