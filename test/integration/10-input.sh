# --- bad input: exit 2, one line on stderr naming the value, no stdout --
true &
gone=$!
wait "$gone"
bad_input "unknown unit" "10xs" -p 1 -d 10xs
bad_input "zero interval" "'0'" -p 1 -d 0
bad_input "negative interval" "-5ms" -p 1 -d -5ms
bad_input "an interval no machine delivers" "'1ns' for -d: at least 50us" -p 1 -d 1ns
bad_input "an interval under the floor" "'10us' for -d: at least 50us" -p 1 -d 10us
bad_input "not a number" "abc" -p 1 -d abc
bad_input "overflow" "99999999999999999999s" -p 1 -d 99999999999999999999s
bad_input "zero count" "'0'" -p 1 -n 0
bad_input "negative count" "-1" -p 1 -n -1
bad_input "fractional count" "1.5" -p 1 -n 1.5
bad_input "bad duration" "5parsecs" -p 1 -t 5parsecs
bad_input "pid zero" "'0'" -p 0
bad_input "pid not a number" "abc" -p abc
bad_input "no such process" "$gone" -p "$gone"
bad_input "unknown option" "--bogus" --bogus
bad_input "no target" "no target"
bad_input "unknown format" "json" -p 1 --format json
bad_input "missing value" "-n" -p 1 -n
bad_input "command not found" "no-such-command-xyz" -- no-such-command-xyz

"$PP" --help >"$TMP/help.out" 2>"$TMP/help.err"
rc=$?
if [ $rc = 0 ] && grep -q '^Usage: ptrace_profiler' "$TMP/help.out" && grep -q -- '--delay' "$TMP/help.out" &&
	grep -q 'flamegraph.pl' "$TMP/help.out" && [ ! -s "$TMP/help.err" ]; then pass "--help"
else fail "--help" "exit $rc or usage/examples missing on stdout"; fi
if "$PP" -V | grep -Eq '^ptrace_profiler [0-9]+\.[0-9]+'; then pass "--version"; else fail "--version" "no version line"; fi

# --- launch mode and the target's own view (works under Yama scope 1) ---
"$PP" -d 1ms -o "$TMP/launch.folded" -- "$T/sleep_check" 20 20 "$TMP/sleep_check.txt" >"$TMP/launch.out" 2>"$TMP/launch.err"
rc=$?
report=$(cat "$TMP/sleep_check.txt" 2>/dev/null)
if [ $rc != 0 ]; then fail "launch: -- COMMAND" "exit status $rc" "$TMP/launch.err"
elif [ -s "$TMP/launch.out" ]; then fail "launch: -- COMMAND" "stdout not empty with -o"
elif ! grep -q 'exited' "$TMP/launch.err"; then fail "launch: -- COMMAND" "no note that the target exited" "$TMP/launch.err"
else pass "launch: -- COMMAND ($(total "$TMP/launch.folded") samples, target ran to its end)"; fi
got=$(total "$TMP/launch.folded")
if [ "$got" -lt 100 ]; then tfail "launch: samples in ~0.4 s at -d 1ms" "only $got samples, expected >= 100" "$TMP/launch.folded"
else pass "launch: $got samples in ~0.4 s at -d 1ms"; fi
case $report in
"sleeps=20 short=0 eintr=0 "*) pass "target's own view: 20 nanosleeps, none cut short or interrupted ($report)" ;;
*) fail "target's own view" "sleep_check reported '$report'" ;;
esac
nap=$(share "$TMP/launch.folded" ';nap;')
if atleast "$nap" 90; then pass "launch: samples in nap ${nap}%"; else tfail "launch: samples in nap" "${nap}%, expected >= 90%" "$TMP/launch.folded"; fi
