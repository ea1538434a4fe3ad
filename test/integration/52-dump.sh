# --- --dump: every thread once, as eu-stack prints it ------------------------
bad_input "--dump without -p" "--dump needs -p PID" --dump
bad_input "--dump of a command" "a command just started has nothing to show" --dump -- ls
bad_input "--dump with -n" "-n does not go with it" --dump -p 1 -n 5
bad_input "--dump with --format" "--format does not go with it" --dump -p 1 --format svg
bad_input "--dump and --diff" "one mode at a time" --dump --diff a b

# dump_canon FILE: our frames as "TID|ADDR|NAME|FILE:LINE|INLINED", the
# name without " (file:line)", " [inlined]" and " in MODULE".
dump_canon() {
	awk '/^TID / { tid = $2; next }
	/^    #[0-9]/ {
		addr = $2; rest = $0; sub(/^ *#[0-9]+ +0x[0-9a-f]+ /, "", rest)
		sub(/ in [^ ]+$/, "", rest)
		inl = sub(/ \[inlined\]$/, "", rest)
		fl = ""
		if (match(rest, / \([^()]*:[0-9]+\)$/)) { fl = substr(rest, RSTART + 2, RLENGTH - 3); rest = substr(rest, 1, RSTART - 1) }
		print tid "|" addr "|" rest "|" fl "|" inl
	}' "$1"
}
# eu_canon FILE: eu-stack's frames as "TID|ADDR|NAME" (the name without
# its @VERSION), or with -s as "TID|ADDR|FILE:LINE" (basename, no column).
# With lines, a frame that repeats the one before it (the same thread, pc
# and function) is eu-stack's view of a function inlined into itself from
# its own first line (glibc's __libc_read with libc6-dbg: read.c:26, then
# read.c:24 at the same pc), which we show as one frame at the inner line.
eu_canon() {
	awk -v lines="$2" '/^TID [0-9]+:$/ { tid = $2; sub(":", "", tid); last = ""; next }
	/^#[0-9]/ { if (pending != "" && pending != "-") print pending; name = $3; sub(/@.*/, "", name)
		key = tid "|" $2 "|" name; again = lines && key == last; last = key
		pending = tid "|" $2 "|" (lines ? "" : name); if (!lines) { print pending; pending = "" }
		if (again) pending = "-"; next }
	lines && /^    [^ ]/ { fl = $1; n = split(fl, part, ":"); f = part[1]; sub(/.*\//, "", f)
		if (pending != "-") print pending f ":" part[2]; pending = ""; next }
	END { if (pending != "" && pending != "-") print pending }' "$1"
}

dump_tests() {
	start "$T/parked" "$TMP/parked.ready"
	local i
	for i in $(seq 50); do [ -s "$TMP/parked.ready" ] && break; sleep 0.1; done
	settle "$TPID" locker S
	"$PP" --dump -p "$TPID" >"$TMP/dump.txt" 2>"$TMP/dump.err"
	local rc=$? spinner
	spinner=$(awk '/^TID .*\(spinner\)/ { print $2 }' "$TMP/dump.txt")
	if [ $rc = 0 ] && [ "$(grep -c '^TID ' "$TMP/dump.txt")" = 7 ] &&
		grep -q '^TID [0-9]* (reader) S (sleeping), read without a stop$' "$TMP/dump.txt" &&
		grep -q '^TID [0-9]* (spinner) R (running\|runnable), stopped [0-9.]* us$' "$TMP/dump.txt" &&
		grep -q 'poll_inlined (parked.c:[0-9]*) \[inlined\] in parked$' "$TMP/dump.txt" &&
		grep -q "7 threads of 1 process: 6 read without a stop, 1 stopped" "$TMP/dump.err" &&
		untouched "$TPID"; then
		pass "--dump: 7 threads, blocked ones read without a stop, the spinner stopped once, an inlined frame with its line, target untraced"
	else fail "--dump" "exit $rc: $(cat "$TMP/dump.err")" ; sed 's/^/    /' "$TMP/dump.txt" | head -20; fi
	if [ $KSTACKS = 1 ]; then
		if awk '/\(reader\)/ { r = 1; next } /^TID/ { r = 0 } r && /\[k\] .*pipe_read/ { found = 1 } END { exit !found }' "$TMP/dump.txt"; then
			pass "--dump: the reader's kernel frames (pipe_read) before its user frames"
		else fail "--dump kernel frames" "no [k] ...pipe_read under the reader"; fi
	else skip "--dump kernel frames" "$WHY_NO_KSTACKS"; fi

	if ! command -v eu-stack >/dev/null 2>&1; then
		skip "--dump against eu-stack" "eu-stack (elfutils) is not installed"
	else
		eu-stack -p "$TPID" >"$TMP/eu.txt" 2>&1
		eu-stack -i -s -p "$TPID" >"$TMP/eu_is.txt" 2>&1
		dump_canon "$TMP/dump.txt" >"$TMP/dump.canon"
		# names: our functions (not the inlined frames) against eu-stack's
		# symbols, address by address; the spinner's pc moves, so its
		# innermost frame is compared by name
		awk -F'|' '$5 == 0 { print $1 "|" $2 "|" $3 }' "$TMP/dump.canon" >"$TMP/ours.names"
		eu_canon "$TMP/eu.txt" 0 >"$TMP/eu.names"
		local a b
		a=$(awk -F'|' -v s="$spinner" '$1 == s && !seen[$1]++ { $2 = "pc" } { print $1 "|" $2 "|" $3 }' OFS='|' "$TMP/ours.names")
		b=$(awk -F'|' -v s="$spinner" '$1 == s && !seen[$1]++ { $2 = "pc" } { print $1 "|" $2 "|" $3 }' OFS='|' "$TMP/eu.names")
		if [ -n "$a" ] && [ "$a" = "$b" ]; then
			pass "--dump against eu-stack: all $(echo "$a" | wc -l) frames of 7 threads agree, address by address, name by name"
		else fail "--dump against eu-stack" "frames differ: $(diff <(echo "$a") <(echo "$b") | head -6 | tr '\n' ' ')"; fi
		# inlined frames and lines: every frame, with eu-stack -i -s
		a=$(awk -F'|' -v s="$spinner" '$1 != s { print $1 "|" $2 "|" $4 }' "$TMP/dump.canon")
		b=$(eu_canon "$TMP/eu_is.txt" 1 | awk -F'|' -v s="$spinner" '$1 != s')
		if [ -n "$a" ] && [ "$a" = "$b" ]; then
			pass "--dump against eu-stack -i -s: inlined frames and file:line agree ($(echo "$a" | wc -l) frames of the blocked threads)"
		else fail "--dump against eu-stack -i -s" "frames differ: $(diff <(echo "$a") <(echo "$b") | head -6 | tr '\n' ' ')"; fi
	fi
	stop_target "$TPID"

	# A thread that cannot be stopped in time: vforker's main waits for its
	# vfork child in a killable sleep, and unwinds only with rbp.
	start "$T/vforker" 3
	settle "$TPID" vforker D
	"$PP" --dump -p "$TPID" -o "$TMP/vfork.txt" >/dev/null 2>"$TMP/vfork.err"
	rc=$?
	if [ $rc = 0 ] && grep -q "^TID $TPID (vforker) D (disk sleep), not stopped within 200 ms: shown from /proc$" "$TMP/vfork.txt" &&
		{ [ $KSTACKS = 0 ] || grep -q '\[k\] .*vfork' "$TMP/vfork.txt"; } &&
		grep -q "1 not stopped in time" "$TMP/vfork.err"; then
		pass "--dump of a thread that cannot be stopped (vfork wait): shown from /proc, its kernel stack, said"
	else fail "--dump of a thread that cannot be stopped" "exit $rc: $(cat "$TMP/vfork.err")" "$TMP/vfork.txt"; fi
	stop_target "$TPID"

	# A process stopped by SIGSTOP (Ctrl-Z): seized, its threads read 't',
	# which --dump printed as "t (tracing stop)" where a recording says
	# "T (stopped)" (issue 34).  Said as a recording says it, and left in
	# its stop, untraced; SIGCONT wakes it as before.
	start sleep 30
	kill -STOP "$TPID"
	until_true "[ \"\$(sed 's/.*) //' /proc/$TPID/stat | cut -d' ' -f1)\" = T ]" 5
	"$PP" --dump -p "$TPID" >"$TMP/stopped.txt" 2>"$TMP/stopped.err"
	rc=$?
	local after
	after=$(sed 's/.*) //' "/proc/$TPID/stat" | cut -d' ' -f1)
	kill -CONT "$TPID"
	if [ $rc = 0 ] && grep -q "^TID $TPID (sleep) T (stopped), " "$TMP/stopped.txt" &&
		! grep -q 'tracing stop' "$TMP/stopped.txt" && [ "$after" = T ] &&
		until_true "[ \"\$(sed 's/.*) //' /proc/$TPID/stat | cut -d' ' -f1)\" = S ]" 5 &&
		[ "$(awk '/^TracerPid:/ { print $2 }' "/proc/$TPID/status")" = 0 ]; then
		pass "--dump of a SIGSTOPped process: T (stopped), as a recording says it; left stopped and untraced, SIGCONT wakes it"
	else fail "--dump of a SIGSTOPped process" "exit $rc, state after $after (T), $(head -n 1 "$TMP/stopped.txt")" "$TMP/stopped.txt"; fi
	stop_target "$TPID"

	# PostgreSQL's wait event per thread (the stand-in)
	start "$T/fake_pg"
	sleep 0.5
	"$PP" --dump --pg-wait-events -p "$TPID" >"$TMP/pgdump.txt" 2>/dev/null
	rc=$?
	stop_target "$TPID"
	# (its first 400 ms in Activity:CheckpointerMain: a start that a busy
	# host delays is still read right)
	if [ $rc = 0 ] && grep -Eq "^TID $TPID \(fake_pg\) [A-Z] \([a-z ]*\), (On CPU|event=IO:WALSync|event=Activity:CheckpointerMain) \(PostgreSQL state\), " "$TMP/pgdump.txt"; then
		pass "--dump --pg-wait-events: $(head -2 "$TMP/pgdump.txt" | tail -1 | cut -d, -f2)"
	else fail "--dump --pg-wait-events" "exit $rc" "$TMP/pgdump.txt"; fi
}

if [ $CAN_ATTACH = 1 ]; then dump_tests; else skip "--dump" "$WHY_NO_ATTACH"; fi
