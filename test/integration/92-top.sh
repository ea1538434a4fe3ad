# --- --top: the full-screen view, driven in tmux ----------------------------
# A tmux server of our own (TM, run_in_tmux, screen, wait_for, wait_rc:
# lib.sh) gives the profiler an 80x24 terminal.
# The split target's known shares must be on it, each key must do what the
# footer says, and q must end the run with the target running, untraced.

bad_input "--top without a terminal" "--top draws on a terminal, and stdout is not one" --top -p 1
bad_input "--top with -o" "--top draws on the terminal: -o does not go with it" --top -p 1 -o x.folded

# column NAME N: the Nth column (a share, its % dropped) of the screen's row for function NAME.
column() { NAME=$1 awk -v n="$2" '$NF == ENVIRON["NAME"] && $1 ~ /%$/ { v = $n; sub(/%$/, "", v); print v; exit }' "$TMP/screen"; }
# state_share REGEX: the share of the states whose line matches REGEX.
# (the regex through ENVIRON: -v would process its escapes)
state_share() { RE=$1 awk '$0 ~ ENVIRON["RE"] && $1 ~ /%$/ { v = $1; sub(/%$/, "", v); t += v } END { printf "%.1f", t }' "$TMP/screen"; }
# windows_shown: "since the start: 5.0 s in 5 windows" -> 5
windows_shown() { sed -n 's/^since the start: .* in \([0-9]*\) windows.*/\1/p' "$TMP/screen"; }
# top_rows: the function rows' own and total shares, in screen order.
top_rows() { awk '/Function \(by/ { on = 1; next } /^ *Share +Time/ { on = 0 } on && $1 ~ /%$/ { print $1 + 0, $2 + 0 }' "$TMP/screen"; }
# by_total_shown: the rows in order of their total share, the first 95 % or more.
by_total_shown() {
	[ "$(top_rows | head -n 1 | awk '{ print ($2 >= 95) }')" = 1 ] &&
		top_rows | awk 'NR > 1 && $2 > prev + 0.05 { bad = 1 } { prev = $2 } END { exit bad }'
}
top_keys_tests() {
	# own, by own (the default): the rows in order of their own share
	if top_rows | awk 'NR > 1 && $1 > prev + 0.05 { bad = 1 } { prev = $1 } END { exit bad || NR < 5 }'; then
		pass "--top: functions sorted by own share ($(top_rows | wc -l) rows)"
	else fail "--top: sorted by own" "rows out of order: $(top_rows | tr '\n' ' ')"; fi
	# s: by total, main (100 %) first.  The screen is taken again until it
	# shows that, 3 s at most: a sanitizer run once took it between the
	# header's redraw and the rows' (the new header, rows out of order).
	"${TM[@]}" send-keys -t top s
	if wait_for "Function (by total, since start)" 3 &&
		until_true 'screen && grep -qF "Function (by total, since start)" "$TMP/screen" && by_total_shown' 3; then
		pass "--top: s sorts by total, first row $(top_rows | head -n 1 | awk '{ print $2 }')%"
	else fail "--top: s (sort by total)" "$(head -n 8 "$TMP/screen" | tr '\n' '|') rows (own, total): $(top_rows | tr '\n' ' ')"; fi
	# k: kernel frames as functions
	"${TM[@]}" send-keys -t top k
	if [ $KSTACKS = 0 ]; then skip "--top: k (kernel frames)" "$WHY_NO_KSTACKS"
	elif wait_for "kernel too)" 3 && grep -q '_\[k\]$' "$TMP/screen"; then
		pass "--top: k shows kernel frames ($(grep -c '_\[k\]$' "$TMP/screen") rows)"
	else fail "--top: k (kernel frames)" "$(head -n 12 "$TMP/screen" | tr '\n' '|')"; fi
	"${TM[@]}" send-keys -t top k s
	# p: the screen holds still, then goes on
	"${TM[@]}" send-keys -t top p
	wait_for PAUSED 3
	cp "$TMP/screen" "$TMP/paused.1"
	local before
	before=$(windows_shown)
	sleep 2.5
	screen
	if grep -q PAUSED "$TMP/paused.1" && cmp -s "$TMP/paused.1" "$TMP/screen"; then
		pass "--top: p holds the screen still (window $before for 2.5 s)"
	else fail "--top: p (pause)" "the screen changed while paused"; fi
	"${TM[@]}" send-keys -t top p
	sleep 1.5
	screen
	local after
	after=$(windows_shown)
	if ! grep -q PAUSED "$TMP/screen" && [ "${after:-0}" -gt "${before:-0}" ]; then
		pass "--top: p again resumes, the windows that came meanwhile counted ($before, now $after)"
	else fail "--top: p again (resume)" "windows $before, then $after; $(head -n 2 "$TMP/screen" | tr '\n' '|')"; fi
	# 4 s paused and after, a window a second
	if [ "${after:-0}" -ge $((${before:-0} + 2)) ]; then pass "--top: at least 2 windows counted over the pause ($before, now $after)"
	else tfail "--top: windows counted over the pause" "windows $before, then $after (>= 2 more)"; fi
}

top_tests() {
	start "$T/split"
	run_in_tmux "$(realpath "$PP") --top -d 10ms -p $TPID 2>$TMP/top.err"
	if ! wait_for "cpu_work" 15; then
		fail "--top: the screen" "no cpu_work on it after 15 s: $(tr '\n' '|' <"$TMP/screen"; cat "$TMP/top.err" 2>/dev/null)"
		"${TM[@]}" kill-server 2>/dev/null
		stop_target "$TPID"
		return
	fi
	if [ "$(awk 'length > 80' "$TMP/screen" | wc -l)" = 0 ] && grep -qF "ptrace_profiler --top: split (PID $TPID)" "$TMP/screen"; then
		pass "--top: an 80-column screen that names the target"
	else fail "--top: 80 columns" "$(head -n 3 "$TMP/screen" | tr '\n' '|')"; fi
	# w: since the start, once it holds 5 windows (about 500 samples)
	"${TM[@]}" send-keys -t top w
	local i
	for i in $(seq 1 40); do
		screen
		[ "$(windows_shown)" -ge 5 ] 2>/dev/null && break
		sleep 0.25
	done
	local a b c run sl
	a=$(column cpu_work 2) b=$(column sleep_work 2) c=$(column cpu_other 2)
	run=$(state_share '  R \((running|runnable)\)$') sl=$(state_share '  S \(sleeping\)$')
	# on the screen: functional; their shares against split's own schedule: time
	if [ -n "$a" ] && [ -n "$b" ] && [ -n "$c" ] && grep -Eq '  R \((running|runnable)\)$' "$TMP/screen" &&
		grep -Eq '  S \(sleeping\)$' "$TMP/screen"; then
		pass "--top: cpu_work, sleep_work, cpu_other and the states R and S on the screen"
	else fail "--top: functions and states on the screen" "cpu_work '${a}', sleep_work '${b}', cpu_other '${c}': $(tr '\n' '|' <"$TMP/screen")"; fi
	if near "${a:-0}" 50 $TOL && near "${b:-0}" 30 $TOL && near "${c:-0}" 20 $TOL; then
		pass "--top: shares on the screen, since the start ($(windows_shown) windows): cpu_work ${a}% (50), sleep_work ${b}% (30), cpu_other ${c}% (20)"
	else tfail "--top: shares on the screen" "cpu_work ${a}% (50), sleep_work ${b}% (30), cpu_other ${c}% (20), tolerance $TOL: $(tr '\n' '|' <"$TMP/screen")"; fi
	if near "$run" 70 $TOL && near "$sl" 30 $TOL; then
		pass "--top: thread states on the screen: R ${run}% (70), S ${sl}% (30)"
	else tfail "--top: thread states" "R ${run}% (70), S ${sl}% (30): $(grep -A4 'Thread state' "$TMP/screen" | tr '\n' '|')"; fi
	top_keys_tests
	# q: the screen gone, the run over, the target let go, the summary
	"${TM[@]}" send-keys -t top q
	if wait_rc 10 && [ "$(cat "$TMP/top.rc")" = 0 ] && untouched "$TPID" &&
		grep -q '^  cost  *threads stopped [0-9.]*% of their time' "$TMP/top.err"; then
		pass "--top: q ends the run: exit 0, the target running and untraced, the summary ($(grep -o '[0-9]* thread samples' "$TMP/top.err"))"
	else fail "--top: q" "exit $(cat "$TMP/top.rc" 2>/dev/null), target $(grep -E '^(State|TracerPid)' /proc/$TPID/status | tr '\n' ' '): $(head -n 3 "$TMP/top.err")"; fi
	"${TM[@]}" kill-server 2>/dev/null

	# TERM=dumb: a terminal that cannot redraw, refused before attaching
	run_in_tmux "TERM=dumb $(realpath "$PP") --top -p $TPID 2>$TMP/dumb.err"
	if wait_rc 10 && [ "$(cat "$TMP/top.rc")" = 2 ] && [ "$(wc -l <"$TMP/dumb.err")" = 1 ] &&
		grep -qF "TERM 'dumb' cannot" "$TMP/dumb.err" && untouched "$TPID"; then
		pass "--top: TERM=dumb refused in one line, exit 2"
	else fail "--top: TERM=dumb" "exit $(cat "$TMP/top.rc" 2>/dev/null): $(cat "$TMP/dumb.err")"; fi
	"${TM[@]}" kill-server 2>/dev/null
	stop_target "$TPID"
}

# A server of 3,001 threads (issue 34): the screen came only after 4-5 s
# of blank terminal.  Now its frame is up while the threads are seized,
# and the first window follows.  How soon: time (tfail).
top_many_threads() {
	start "$T/many_threads" 3000 1
	local i t0 up= first= now
	until_true "[ \$(ls /proc/$TPID/task | wc -l) -ge 3001 ]" 20
	t0=$(date +%s%N)
	run_in_tmux "$(realpath "$PP") --top -d 10ms -p $TPID 2>$TMP/many.err"
	for i in $(seq 1 400); do
		screen
		now=$(( ($(date +%s%N) - t0) / 1000000 ))
		[ -n "$up" ] || ! grep -qF "ptrace_profiler --top: many_threads (PID $TPID)" "$TMP/screen" || up=$now
		if grep -qF busy_work "$TMP/screen"; then first=$now; break; fi
		sleep 0.05
	done
	"${TM[@]}" send-keys -t top q
	wait_rc 30
	local line="the screen at ${up:-never} ms, the first window at ${first:-never} ms; exit $(cat "$TMP/top.rc" 2>/dev/null)"
	if [ -n "$up" ] && [ -n "$first" ] && [ "$(cat "$TMP/top.rc" 2>/dev/null)" = 0 ] && untouched "$TPID"; then
		pass "--top on 3,001 threads: $line, the target untraced after q"
	else fail "--top on 3,001 threads" "$line" "$TMP/many.err"; fi
	if [ -n "$up" ] && [ "$up" -le 2000 ] && [ -n "$first" ] && [ "$first" -le 6000 ]; then
		pass "--top on 3,001 threads, how soon: the screen in ${up} ms (<= 2000), the first window in ${first} ms (<= 6000)"
	else tfail "--top on 3,001 threads, how soon" "the screen at ${up:-never} ms (<= 2000), the first window at ${first:-never} ms (<= 6000)"; fi
	"${TM[@]}" kill-server 2>/dev/null
	stop_target "$TPID"
}

if [ $CAN_ATTACH = 0 ]; then skip "--top" "$WHY_NO_ATTACH"
elif ! command -v tmux >/dev/null 2>&1; then skip "--top" "tmux is not installed (apt-get install tmux)"
else
	top_tests
	top_many_threads
fi
