# --- root frames: process titles, --group-by; --no-idle away from PostgreSQL
# A process that rewrote its title (here: argv[0] set by exec -a, as nginx
# and sshd set theirs) is named by it beside its PID when several are
# profiled; --group-by type merges processes of one title and drops the
# PID, --group-by all keeps one root.  --no-idle leaves out a thread
# asleep in the wait it was in at its last sample.

# svg_roots SVG: "NAME SAMPLES" of each box right above the whole-profile
# box (the roots), sorted, '|'-joined.
svg_roots() {
	awk '/^<g class="f"/ { name = $0; sub(/.*<title>/, "", name); next }
		name != "" && /<\/title><rect/ { y = $0; sub(/.* y="/, "", y); sub(/".*/, "", y)
			n[++k] = name; s[k] = $1; at[k] = y + 0; if (y + 0 > top) top = y + 0; name = "" }
		END { for (i = 1; i <= k; i++) if (at[i] == top - 16) print n[i] " " s[i] }' "$1" | sort | paste -sd'|' -
}

roots_titles_test() {
	local a b rc bad= roots
	bash -c 'exec -a "pp_server: worker 1" sleep 600' &
	a=$!
	PIDS+=("$a")
	bash -c 'exec -a "pp_server: worker 1" sleep 600' &
	b=$!
	PIDS+=("$b")
	start "$T/blocked"
	settle "$TPID" blocked S
	"$PP" -p "$a,$b,$TPID" -d 2ms -n 100 -o "$TMP/titles.folded" 2>"$TMP/titles.err"
	rc=$?
	roots=$(cut -d';' -f1 "$TMP/titles.folded" | sort -u | paste -sd'|' -)
	[ "$roots" = "blocked[$TPID]/blocked|blocked[$TPID]/spinner|sleep[$a] pp_server: worker 1|sleep[$b] pp_server: worker 1" ] ||
		bad="$bad pid roots '$roots';"
	# the summary names them so too
	grep -q "^  process $a *sleep pp_server: worker 1 1 thread now" "$TMP/titles.err" &&
		grep -q "^  process $TPID *blocked *2 threads now" "$TMP/titles.err" ||
		bad="$bad summary: $(grep '^  process ' "$TMP/titles.err" | tr -s ' ' | paste -sd'|' -);"
	"$PP" -p "$a,$b,$TPID" -d 2ms -n 100 --group-by type -o "$TMP/type.folded" 2>>"$TMP/titles.err" || rc=$?
	roots=$(cut -d';' -f1 "$TMP/type.folded" | sort -u | paste -sd'|' -)
	[ "$roots" = "blocked|pp_server: worker 1" ] || bad="$bad type roots '$roots';"
	# both sleeps under one root: 2 samples a tick; blocked's two threads too
	local merged
	merged=$(grep '^pp_server: worker 1;' "$TMP/type.folded" | total /dev/stdin)
	[ "$merged" = 200 ] || bad="$bad $merged samples under the title (200);"
	"$PP" -p "$a,$b,$TPID" -d 2ms -n 100 --group-by all -o "$TMP/all.folded" 2>>"$TMP/titles.err" || rc=$?
	roots=$(cut -d';' -f1 "$TMP/all.folded" | sort -u | paste -sd'|' -)
	[ "$roots" = all ] || bad="$bad all roots '$roots';"
	[ "$(total "$TMP/all.folded")" = 400 ] || bad="$bad $(total "$TMP/all.folded") samples under all (400);"
	# the formats that keep time: one timeline per root, named after it
	"$PP" -p "$a,$b,$TPID" -d 2ms -n 100 --group-by type -o "$TMP/type.speedscope.json" 2>>"$TMP/titles.err" || rc=$?
	local names
	names=$(python3 -c 'import json, sys; print("|".join(sorted(p["name"] for p in json.load(open(sys.argv[1]))["profiles"])))' \
		"$TMP/type.speedscope.json" 2>&1)
	[ "$names" = "blocked|pp_server: worker 1" ] || bad="$bad speedscope profiles '$names';"
	# SVG, pprof and perf-script: the merged roots, their samples, no PID
	local g want
	for g in type all; do
		want="blocked 200|pp_server: worker 1 200"
		[ $g = all ] && want="all 400"
		"$PP" -p "$a,$b,$TPID" -d 2ms -n 100 --group-by $g -o "$TMP/$g.svg" 2>>"$TMP/titles.err" || rc=$?
		roots=$(svg_roots "$TMP/$g.svg")
		[ "$roots" = "$want" ] || bad="$bad $g svg roots '$roots';"
		"$PP" -p "$a,$b,$TPID" -d 2ms -n 100 --group-by $g -o "$TMP/$g.pb.gz" 2>>"$TMP/titles.err" || rc=$?
		build/test/write_formats read-pprof "$TMP/$g.pb.gz" >"$TMP/$g.pprof.txt" 2>>"$TMP/titles.err" ||
			bad="$bad $g pprof unreadable;"
		roots=$(awk -F'\t' '{ root = $1; sub(/;.*/, "", root); n = $1; sub(/.* /, "", n); c[root] += n
			if ($2 != "thread=" root) bad = 1; for (i = 3; i <= NF; i++) if ($i ~ /^(pid|tid)=/) bad = 1 }
			END { for (r in c) print r " " c[r]; if (bad) print "a label with a pid or tid, or a thread not its root" }' \
			"$TMP/$g.pprof.txt" | sort | paste -sd'|' -)
		[ "$roots" = "$want" ] || bad="$bad $g pprof roots '$roots';"
		"$PP" -p "$a,$b,$TPID" -d 2ms -n 100 --group-by $g --format perf-script -o "$TMP/$g.perf" 2>>"$TMP/titles.err" || rc=$?
		roots=$(sed -n 's|^\([^\t].*\) \([0-9]*\)/\([0-9]*\) [0-9.]*: [0-9]* wall:$|\1 \2/\3|p' "$TMP/$g.perf" |
			sort | uniq -c | awk '{ n = $1; $1 = ""; sub(/^ /, ""); sub(/ 0\/0$/, ""); print $0 " " n }' | paste -sd'|' -)
		# (the comm with its blanks as '_', as stackcollapse-perf.pl reads it whole: out_perf.c)
		[ "$roots" = "${want//: worker 1/:_worker_1}" ] || bad="$bad $g perf-script headers '$roots';"
		grep -q "\[\($a\|$b\|$TPID\)\]" "$TMP/$g.svg" "$TMP/$g.pprof.txt" "$TMP/$g.perf" &&
			bad="$bad a PID in a $g file: $(grep -l "\[\($a\|$b\|$TPID\)\]" "$TMP/$g.svg" "$TMP/$g.pprof.txt" "$TMP/$g.perf" | paste -sd' ' -);"
	done
	stop_target "$a"
	stop_target "$b"
	stop_target "$TPID"
	if [ "$rc" = 0 ] && [ -z "$bad" ]; then
		pass "roots: a process that rewrote its title is sleep[PID] pp_server: worker 1 (others comm[PID]/thread); --group-by type merges the two under 'pp_server: worker 1' (200 samples) and blocked's threads under 'blocked', speedscope a timeline each, SVG, pprof (read back by the tests' reader, no pid or tid label) and perf-script (comm the root, blanks as '_', 0/0) the same roots and counts; --group-by all one root in each; no PID in any file; the summary names each process as its root does"
	else fail "roots by title and --group-by" "exit $rc:$bad" "$TMP/titles.folded"; fi
}

# blocked: one thread reads a pipe nobody writes to, one spins.  With
# --no-idle the reader's samples after its first are left out.
no_idle_test() {
	local rc reader spinner left taken
	"$PP" --no-idle -d 1ms -t 2s -- "$T/blocked" >"$TMP/noidle.folded" 2>"$TMP/noidle.err"
	rc=$?
	reader=$(grep '^blocked;S (sleeping);' "$TMP/noidle.folded" | total /dev/stdin)
	spinner=$(grep '^spinner;' "$TMP/noidle.folded" | total /dev/stdin)
	read -r left taken < <(sed -n 's/^  left out (--no-idle) *\([0-9]*\) samples in an idle wait, [0-9.]*% of the \([0-9]*\) taken.*/\1 \2/p' "$TMP/noidle.err")
	local share
	share=$(awk -v l="${left:-0}" -v t="${taken:-0}" 'BEGIN { printf "%.1f", t ? 100 * l / t : 0 }')
	# asleep: its first sample there, then none (it never runs again)
	# (function: far fewer than its 2000 ticks; its first one or two, a
	# matter of when the start-up's waits were seen: time)
	if [ "$reader" -le 2 ]; then pass "--no-idle: the reader kept in its first samples only ($reader)"
	else tfail "--no-idle: the reader kept in its first samples only" "$reader samples asleep (<= 2)" "$TMP/noidle.folded"; fi
	if [ $rc = 0 ] && [ "$reader" -le 20 ] && [ "$spinner" -ge 1 ] && [ "${left:-0}" -ge 1 ]; then
		pass "--no-idle: the thread asleep in read() kept in $reader sample(s) asleep, the spinning one in $spinner; $left of $taken samples left out, as the summary says"
	else fail "--no-idle on a blocked thread" "exit $rc, reader $reader samples asleep (<= 20), spinner $spinner (>= 1), left out ${left:-?} of ${taken:-?}" "$TMP/noidle.folded"; fi
	# 2 s at -d 1ms; the reader is asleep for all but its start
	if [ "$spinner" -ge 1000 ] && near "$share" 50 5; then
		pass "--no-idle: spinner $spinner samples (>= 1000), ${share}% of the samples left out (50)"
	else tfail "--no-idle: samples in 2 s and share left out" "spinner $spinner (>= 1000), left out ${left:-?} of ${taken:-?} (${share}%, 50 +-5)" "$TMP/noidle.folded"; fi
}

if [ $CAN_ATTACH = 1 ]; then
	roots_titles_test
else
	skip "roots by process title" "$WHY_NO_ATTACH"
fi
no_idle_test

# --- sleepers stay asleep ----------------------------------------------------
# idle_server waits in epoll_wait, 100 ms at a time, under a frame found
# through rbp, so that its stack needs more than sp and pc; it counts the
# waits something ended early (EINTR).  A stop to read its registers is
# such an end, and at every tick it would be one (the program goes round
# and waits again, and has moved); the registers it went to sleep with,
# from its last switch off a CPU, need none (switch_regs.h).  What is
# left: a stop asked of a thread seen running at the tick that has gone
# to sleep by the time it comes (at -d 100us, 11-20 in 3 s here; before,
# at every tick: 7,437 in 4 s at -d 1ms).
sleepers_test() {
	local d=$1 most=$2 rc eintr waits named out=$TMP/sleepers.folded err=$TMP/sleepers.err
	"$PP" -v -d "$d" -t 10s -o "$out" -- "$T/idle_server" 3 "$TMP/sleepers.txt" 2>"$err"
	rc=$?
	eintr=$(sed -n 's/.*eintr=\([0-9]*\).*/\1/p' "$TMP/sleepers.txt" 2>/dev/null)
	waits=$(sed -n 's/^waits=\([0-9]*\).*/\1/p' "$TMP/sleepers.txt" 2>/dev/null)
	# every sample asleep in the wait, its whole stack named
	named=$(share_of "$out" ';S \(sleeping\);' ';wait_loop;wait_on_latch;')
	if grep -q "sleepers' registers    no perf events" "$err"; then
		skip "sleepers at -d $d: not woken" "no perf events here: $(sed -n "s/.*no perf events (\([^)]*\)).*/\1/p" "$err")"
		return
	fi
	# (function: the stops are few whatever the host's load - a stop
	# comes only where no switch of this sleep was seen, its first)
	if [ $rc = 0 ] && [ -n "$eintr" ] && [ "$eintr" -le "$most" ] && atleast "$named" 99 &&
		grep -q "sleepers' registers    2 threads watched" "$err"; then
		pass "sleepers at -d $d: idle_server's 2 threads woken $eintr times in 3 s by our stops (<= $most; $waits waits), ${named}% of their sleeping samples under wait_loop;wait_on_latch, both watched"
	else fail "sleepers at -d $d: not woken" "exit $rc, woken ${eintr:-?} times (<= $most) in ${waits:-?} waits, ${named}% under wait_loop (>= 99), $(grep "sleepers'" "$err")" "$out"; fi
}
if [ $CAN_ATTACH = 1 ]; then
	# (the promise, make truth: at most 10 at 1 ms; beside a noisy
	# neighbour the race above is wider)
	sleepers_test 1ms "$(pick 30 10)"
	sleepers_test 100us "$(pick 100 60)"
else
	skip "sleepers: not woken" "$WHY_NO_ATTACH"
fi
