# --- --diff BEFORE AFTER: two profiles compared, no target -----------------
D=$TMP/diff
mkdir -p "$D"

# svg_box FILE NAME: "SAMPLES R G B" of the widest box named NAME (its title
# is NAME, a newline, then its samples).
svg_box() {
	tr -d '\n' <"$1" | grep -o "<title>$2[0-9][^<]*</title><rect [^>]*fill=\"rgb([0-9,]*)\"" |
		sed 's/^<title>[^0-9]*\([0-9]*\) sample.*rgb(\([0-9]*\),\([0-9]*\),\([0-9]*\))"$/\1 \2 \3 \4/' |
		sort -n | tail -n 1
}

# Crafted profiles: x grew, y shrank, b stayed, gone vanished, new came.
printf 'main;a;x 10\nmain;b 30\nmain;gone 20\nmain;a;y 40\n' >"$D/before.folded"
printf 'main;new 5\nmain;a;y 15\nmain;a;x 50\n\nmain;b 30\n' >"$D/after.folded"
"$PP" --diff "$D/before.folded" "$D/after.folded" >"$D/two.txt" 2>"$D/two.err"
rc=$?
want='main;a;x 10 50
main;a;y 40 15
main;b 30 30
main;gone 20 0
main;new 0 5'
if [ $rc = 0 ] && [ "$(cat "$D/two.txt")" = "$want" ] &&
	grep -q "100 samples.*against.*100 samples.*3 stacks in both, 1 new, 1 gone" "$D/two.err"; then
	pass "--diff: grown, shrunk, unchanged, vanished and new stacks, line by line, in text order"
else fail "--diff" "exit $rc: $(tr '\n' '|' <"$D/two.txt") $(cat "$D/two.err")"; fi

# BEFORE twice as long with the same split: counted as they are by
# default (--diff-counts says so), as difffolded.pl does; --diff-shares
# scales the first column to AFTER's total (difffolded.pl -n).
printf 'main;a 60\nmain;b 140\n' >"$D/long.folded"
printf 'main;a 30\nmain;b 70\n' >"$D/short.folded"
raw=$("$PP" --diff "$D/long.folded" "$D/short.folded" 2>/dev/null | tr '\n' '|')
as_counted=$("$PP" --diff "$D/long.folded" "$D/short.folded" --diff-counts 2>/dev/null | tr '\n' '|')
scaled=$("$PP" --diff "$D/long.folded" "$D/short.folded" --diff-shares 2>/dev/null | tr '\n' '|')
if [ "$raw" = "main;a 60 30|main;b 140 70|" ] && [ "$as_counted" = "$raw" ] &&
	[ "$scaled" = "main;a 30 30|main;b 70 70|" ]; then
	pass "--diff: counts as they are by default and with --diff-counts, BEFORE scaled to AFTER's total with --diff-shares"
else fail "--diff normalization" "default '$raw', --diff-counts '$as_counted', --diff-shares '$scaled'"; fi

# A whole instance before and after an index (issue 34): the sequential
# scans vanish, the checkpointer sleeps as before (810 and 812 samples).
# In shares of each total its sleep went 16.9 -> 54.4 % and was the
# widest, reddest box; in counts, the default, it has not changed.
printf 'pg;checkpointer;sleep 810\npg;backend;seqscan 3990\n' >"$D/noindex.folded"
printf 'pg;checkpointer;sleep 812\npg;backend;indexscan 680\n' >"$D/index.folded"
"$PP" --diff "$D/noindex.folded" "$D/index.folded" -o "$D/index.svg" 2>"$D/index.err"
rc=$?
"$PP" --diff "$D/noindex.folded" "$D/index.folded" --diff-shares -o "$D/index_shares.svg" 2>/dev/null
read -r _ r g b <<<"$(svg_box "$D/index.svg" sleep)"
read -r _ r2 g2 b2 <<<"$(svg_box "$D/index_shares.svg" sleep)"
if [ $rc = 0 ] && [ "${g:-0}" -ge 200 ] && [ "${b:-0}" -ge 200 ] && [ "${r2:-0}" = 255 ] && [ "${g2:-255}" -lt 150 ] &&
	grep -q '<text id="title"[^>]*>\(<title>[^<]*</title>\)\{0,1\}Change in samples: ' "$D/index.svg" &&
	grep -q '<text id="title"[^>]*>\(<title>[^<]*</title>\)\{0,1\}Change in shares of each total: ' "$D/index_shares.svg" &&
	grep -q 'counts compared as they are' "$D/index.err"; then
	pass "--diff: an unchanged sleep beside vanished scans stays pale in counts rgb($r,$g,$b), red in shares rgb($r2,$g2,$b2); the titles say which"
else fail "--diff's default" "exit $rc, the sleep rgb($r,$g,$b) in counts (pale), rgb($r2,$g2,$b2) in shares (red); titles: $(grep -o '<text id="title".\{0,80\}' "$D/index.svg" "$D/index_shares.svg" | tr '\n' ' ')" "$D/index.err"; fi

printf 'main;a 5\nmain;b five\n' >"$D/bad.folded"
bad_input "--diff of a line that is not folded" "$D/bad.folded:2: not a folded stack 'main;b five'" --diff "$D/bad.folded" "$D/after.folded"
printf 'main;a 5 7\n' >"$D/twice.folded"
bad_input "--diff of a diff's own output" "$D/twice.folded:1: two counts" --diff "$D/before.folded" "$D/twice.folded"
bad_input "--diff of no such file" "cannot read '$D/nosuch.folded'" --diff "$D/nosuch.folded" "$D/after.folded"
bad_input "--diff with one file" "needs two files" --diff "$D/before.folded"
bad_input "--diff and -p" "takes no target" --diff "$D/before.folded" "$D/after.folded" -p 1
echo previous >"$D/keep.svg"
"$PP" --diff "$D/bad.folded" "$D/after.folded" -o "$D/keep.svg" 2>/dev/null
rc=$?
if [ $rc = 2 ] && [ "$(cat "$D/keep.svg")" = previous ]; then pass "--diff of a bad file with -o FILE: exit 2, FILE as it was"
else fail "--diff of a bad file with -o FILE" "exit $rc, FILE now '$(head -c 60 "$D/keep.svg")'"; fi

# Two real runs of shift: work_a 20 % then 80 % of the time.
diff_runs() {
	local pct run a b
	for pct in 20 80; do
		start "$T/shift" $pct
		"$PP" -p "$TPID" -d 1ms -t 1s -o "$D/shift$pct.folded" 2>/dev/null
		stop_target "$TPID"
	done
	"$PP" --diff "$D/shift20.folded" "$D/shift80.folded" >"$D/shift.two" 2>/dev/null
	# work_a's samples: before (scaled to AFTER's total) and after
	read -r a b <<<"$(awk '/;work_a(;|$)/ { n = NF; bsum += $(n - 1); asum += $n } END { print bsum + 0, asum + 0 }' "$D/shift.two")"
	# work_a in AFTER's column (80 %): function; by how much it grew: time
	# (its share of shift's own clock in each run)
	if [ "$b" -gt $((a * 2)) ]; then pass "--diff of two real runs: work_a grew from $a to $b (AFTER's total)"
	elif [ "$b" = 0 ]; then fail "--diff of two real runs" "work_a from $a to $b: not in AFTER's column" "$D/shift.two"
	else tfail "--diff of two real runs: work_a's growth" "work_a from $a to $b, expected at least twice" "$D/shift.two"; fi
	read -r a b <<<"$(awk '/;work_b(;|$)/ { n = NF; bsum += $(n - 1); asum += $n } END { print bsum + 0, asum + 0 }' "$D/shift.two")"
	if [ "$a" -gt $((b * 2)) ]; then pass "--diff of two real runs: work_b shrank from $a to $b"
	elif [ "$a" = 0 ]; then fail "--diff of two real runs" "work_b from $a to $b: not in BEFORE's column" "$D/shift.two"
	else tfail "--diff of two real runs: work_b's shrinking" "work_b from $a to $b, expected at most half" "$D/shift.two"; fi

	"$PP" --diff "$D/shift20.folded" "$D/shift80.folded" -o "$D/shift.svg" 2>/dev/null
	local ra rb
	ra=$(svg_box "$D/shift.svg" work_a)
	rb=$(svg_box "$D/shift.svg" work_b)
	read -r _ r g bl <<<"$ra"
	read -r _ r2 g2 b2 <<<"$rb"
	if [ "${r:-0}" = 255 ] && [ "$g" = "$bl" ] && [ "$g" -lt 200 ] && [ "${b2:-0}" = 255 ] && [ "$r2" = "$g2" ] && [ "$r2" -lt 200 ] &&
		{ ! command -v xmllint >/dev/null 2>&1 || xmllint --noout "$D/shift.svg" 2>/dev/null; }; then
		pass "--diff -o x.svg of two real runs: work_a red rgb($r,$g,$bl), work_b blue rgb($r2,$g2,$b2)"
	else fail "--diff -o x.svg" "work_a '$ra', work_b '$rb' (samples r g b)"; fi

	# FlameGraph's own reader of the two counts, where it is installed
	local fg
	fg=$(fg_tool flamegraph.pl)
	if [ -z "$fg" ]; then
		skip "--diff read by flamegraph.pl" "flamegraph.pl is not installed (not in Debian: put FlameGraph's directory in FLAMEGRAPH_DIR)"
	elif "$fg" "$D/shift.two" >"$D/fg.svg" 2>"$D/fg.err" && grep -q '<title>work_a ([0-9,]* samples, [0-9.]*%; +' "$D/fg.svg" &&
		grep -q '<title>work_b ([0-9,]* samples, [0-9.]*%; -' "$D/fg.svg"; then
		pass "--diff read by flamegraph.pl: work_a grew (+), work_b shrank (-) in its differential graph"
	else fail "--diff read by flamegraph.pl" "$(head -c 200 "$D/fg.err")"; fi
}

# A first word that is not an option is still a command to launch.
"$PP" -d 1ms -n 20 "$T/shift" 30 >"$D/cmd.folded" 2>"$D/cmd.err"
rc=$?
if [ $rc = 0 ] && grep -q ';work_a' "$D/cmd.folded"; then pass "a first word that is no option launches it (ptrace_profiler PROGRAM ARG)"
else fail "a first word that is no option launches it" "exit $rc" "$D/cmd.err"; fi

if [ "$CAN_ATTACH" = 1 ]; then diff_runs; else skip "--diff of two real runs" "$WHY_NO_ATTACH"; fi
