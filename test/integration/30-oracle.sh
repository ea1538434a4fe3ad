# --- Oracle wait events from a stand-in SGA (SysV shm) --------------------
oracle_tests() {
	start "$T/fake_oracle" "$TMP/addr"
	until_true "[ -s $TMP/addr ]" 10
	local opc tim
	read -r opc tim <"$TMP/addr"
	printf 's/\\<event#=146\\>/event=db file sequential read/g\n' >"$TMP/ev.sed"
	printf '# event#<TAB>name\n146\tdirect path read/temp\n' >"$TMP/ev.tab"

	"$PP" -p "$TPID" -d 1ms -t 3s --ksuseopc "$opc" --ksusetim "$tim" >"$TMP/ora.folded" 2>"$TMP/ora.err"
	local rc=$? cpu ev agree_ev agree_cpu
	cpu=$(share "$TMP/ora.folded" '^fake_oracle;On CPU \(Oracle state\);')
	ev=$(share "$TMP/ora.folded" '^fake_oracle;event#=146 \(Oracle state\);')
	agree_ev=$(share_of "$TMP/ora.folded" 'event#=146 \(Oracle state\)' ';wait_phase;')
	agree_cpu=$(share_of "$TMP/ora.folded" 'On CPU \(Oracle state\)' ';cpu_phase')
	if [ $rc = 0 ] && atleast "$agree_ev" 90 && atleast "$agree_cpu" 90; then
		pass "Oracle state: exit 0; event under wait_phase ${agree_ev}%, On CPU under cpu_phase ${agree_cpu}%"
	else fail "Oracle state" "exit $rc; agreement ${agree_ev}% / ${agree_cpu}% (>= 90)" "$TMP/ora.folded"; fi
	# the shares against the stand-in's own 60/40 schedule: a matter of time
	if near "$cpu" 60 $TOL && near "$ev" 40 $TOL; then
		pass "Oracle state shares: On CPU ${cpu}% (60), event#=146 ${ev}% (40)"
	else tfail "Oracle state shares" "On CPU ${cpu}% (60), event#=146 ${ev}% (40), tolerance $TOL" "$TMP/ora.folded"; fi

	local fmt file want
	for fmt in sed tab; do
		file=$TMP/ev.$fmt
		[ $fmt = sed ] && want='event=db file sequential read (Oracle state)' || want='event=direct path read/temp (Oracle state)'
		"$PP" -p "$TPID" -d 1ms -n 300 --ksuseopc "$opc" --ksusetim "$tim" --event-names "$file" >"$TMP/oran.folded" 2>/dev/null
		if grep -qF "fake_oracle;$want;S (sleeping);" "$TMP/oran.folded" && ! grep -q 'event#=' "$TMP/oran.folded"; then
			pass "Oracle event names, $fmt format: '$want'"
		else fail "Oracle event names, $fmt format" "no '$want' frame" "$TMP/oran.folded"; fi
	done

	printf '146\tok\ns/\\<event#=1\\>/oops/g\n' >"$TMP/bad.sed"
	bad_input "Oracle: malformed name file" "bad.sed:2:" -p "$TPID" --ksuseopc "$opc" --ksusetim "$tim" --event-names "$TMP/bad.sed"
	bad_input "Oracle: unreadable address" "0x10" -p "$TPID" --ksuseopc 0x10 --ksusetim "$tim"
	bad_input "Oracle: one address only" "go together" -p "$TPID" --ksusetim "$tim"
	bad_input "Oracle: bad address" "'12zz'" -p "$TPID" --ksuseopc 12zz --ksusetim "$tim"
	# --dump writes the state in a recording's words (one function for
	# both since issue 32: an unreadable word was nothing there)
	"$PP" --dump -p "$TPID" --ksuseopc "$opc" --ksusetim "$tim" >"$TMP/ora.dump" 2>/dev/null
	rc=$?
	if [ $rc = 0 ] && grep -qE "^TID $TPID \(fake_oracle\) .*, (On CPU|event#=146) \(Oracle state\)(,|$)" "$TMP/ora.dump"; then
		pass "--dump with the Oracle addresses: $(grep "^TID $TPID " "$TMP/ora.dump" | cut -d, -f2)"
	else fail "--dump with the Oracle addresses" "exit $rc, no (Oracle state) on the thread's line" "$TMP/ora.dump"; fi
	if untouched "$TPID"; then pass "Oracle stand-in running and untraced after the errors"
	else fail "Oracle stand-in after the errors" "$(grep -E '^(State|TracerPid)' /proc/$TPID/status | tr '\n' ' ')"; fi
	stop_target "$TPID"
}
[ $CAN_ATTACH = 1 ] && oracle_tests
