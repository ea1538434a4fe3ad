# --- names no format may pass on as they are ------------------------------
# A thread named with bytes that are not UTF-8, one with an escape
# sequence and a newline, one " 12345", one "a;b 7", one "x", a process
# named with a UTF-16 surrogate (test/targets/odd_names.c): every format's
# text is valid UTF-8 with every name in it (frame.h's frame_sanitize,
# where names enter), flamegraph.pl draws the folded output, and
# stackcollapse-perf.pl keeps every sample of --format perf-script
# (out_perf.c's comm).  FlameGraph is not in Debian: its scripts are found
# on PATH or in FLAMEGRAPH_DIR, and their checks skipped without them.

# utf8_ok FILE: is FILE valid UTF-8?
utf8_ok() { iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1; }
# roots FILE: the first frames of a folded file, one each, sorted.
roots() { cut -d';' -f1 "$1" | LC_ALL=C sort -u; }

odd_names_tests() {
	local O=$TMP/odd i rc
	mkdir -p "$O"
	start "$T/odd_names" "$O/ready"
	for i in $(seq 1 50); do [ -s "$O/ready" ] && break; sleep 0.1; done
	local R=$'\xef\xbf\xbd' # U+FFFD
	# each thread's root: bytes that are not UTF-8 as U+FFFD each, control
	# characters as '?', ';' as ':' - and the rest as it was
	printf '%s\n' " 12345" "a:b 7" "bad$R$R$R$R$R$R" $'caf\xc3\xa9' 'esc?[31m?nl' "main$R$R$R" x |
		LC_ALL=C sort >"$O/want.roots"

	"$PP" -p "$TPID" -d 10ms -n 40 >"$O/odd.folded" 2>"$O/odd.err"
	rc=$?
	local total
	total=$(folded_ok "$O/odd.folded")
	if [ $rc = 0 ] && [ -n "$total" ] && utf8_ok "$O/odd.folded" && utf8_ok "$O/odd.err" &&
		roots "$O/odd.folded" | cmp -s - "$O/want.roots"; then
		pass "odd names: folded well formed ($total samples), valid UTF-8 (and the summary), every thread under its cleaned name"
	else fail "odd names, folded" "exit $rc, folded_ok '${total}', UTF-8 folded/summary $(utf8_ok "$O/odd.folded" && echo yes || echo no)/$(utf8_ok "$O/odd.err" && echo yes || echo no), roots: $(roots "$O/odd.folded" | od -c | head -c 600)" "$O/odd.folded"; fi

	"$PP" -p "$TPID" -d 10ms -n 40 --format perf-script >"$O/odd.perf" 2>/dev/null
	rc=$?
	local samples
	samples=$(grep -c ' wall:$' "$O/odd.perf")
	if [ $rc = 0 ] && [ "$samples" -gt 0 ] && utf8_ok "$O/odd.perf" && ! grep -q '^ ' "$O/odd.perf"; then
		pass "odd names: perf-script valid UTF-8, $samples samples, no header starting with a blank"
	else fail "odd names, perf-script" "exit $rc, $samples samples, UTF-8 $(utf8_ok "$O/odd.perf" && echo yes || echo no), headers with a leading blank $(grep -c '^ ' "$O/odd.perf")"; fi

	# two processes: roots "comm[PID]/thread", composed of names cleaned
	local first=$TPID
	start "$T/odd_names" "$O/ready2"
	for i in $(seq 1 50); do [ -s "$O/ready2" ] && break; sleep 0.1; done
	"$PP" -p "$first,$TPID" -d 10ms -n 20 >"$O/two.folded" 2>"$O/two.err"
	rc=$?
	local two want2
	two=$(folded_ok "$O/two.folded")
	want2=$(printf 'main%s[%s]/bad%s' "$R$R$R" "$TPID" "$R$R$R$R$R$R")
	if [ $rc = 0 ] && [ -n "$two" ] && utf8_ok "$O/two.folded" && utf8_ok "$O/two.err" &&
		[ "$(roots "$O/two.folded" | wc -l)" = 14 ] && roots "$O/two.folded" | grep -qxF "$want2"; then
		pass "odd names: two processes, 14 roots comm[PID]/thread of cleaned names, valid UTF-8"
	else fail "odd names, two processes" "exit $rc, folded_ok '$two', $(roots "$O/two.folded" | wc -l) roots (14), none '$want2'?" "$O/two.folded"; fi
	stop_target "$TPID"
	stop_target "$first"

	local fg sc
	fg=$(fg_tool flamegraph.pl)
	if [ -z "$fg" ]; then
		skip "odd names: flamegraph.pl" "flamegraph.pl is not installed (not in Debian: put FlameGraph's directory in FLAMEGRAPH_DIR)"
	elif "$fg" "$O/odd.folded" >"$O/fg.svg" 2>"$O/fg.err" && grep -q '</svg>' "$O/fg.svg" &&
		grep -q "<title>bad$R" "$O/fg.svg"; then
		pass "odd names: flamegraph.pl draws the folded output"
	else fail "odd names: flamegraph.pl" "exit or no SVG: $(head -c 300 "$O/fg.err")"; fi

	sc=$(fg_tool stackcollapse-perf.pl)
	if [ -z "$sc" ]; then
		skip "odd names: stackcollapse-perf.pl" "stackcollapse-perf.pl is not installed (not in Debian: put FlameGraph's directory in FLAMEGRAPH_DIR)"
		return
	fi
	"$sc" "$O/odd.perf" >"$O/odd.collapsed" 2>"$O/sc.err"
	rc=$?
	local kept
	kept=$(total "$O/odd.collapsed")
	# its roots: the comm, blanks as '_' (its own tr), one character padded
	tr ' ' '_' <"$O/want.roots" | sed 's/^x$/x_/' | LC_ALL=C sort >"$O/want.perf.roots"
	if [ $rc = 0 ] && [ "$kept" = "$samples" ] && roots "$O/odd.collapsed" | cmp -s - "$O/want.perf.roots"; then
		pass "odd names: stackcollapse-perf.pl keeps all $samples perf-script samples, each under its thread"
	else fail "odd names: stackcollapse-perf.pl" "exit $rc, kept $kept of $samples samples; roots $(roots "$O/odd.collapsed" | head -n 20 | tr '\n' '|'); $(head -c 300 "$O/sc.err")"; fi
}
if [ $CAN_ATTACH = 1 ]; then odd_names_tests; else skip "odd names" "$WHY_NO_ATTACH"; fi
