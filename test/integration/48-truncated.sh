# --- a library truncated by its owner while we run (issue 28, case 4) ----
# `: > libfoo.so` while the target has it mapped: the pages we mapped of
# it (our image for unwinding, libdw's for names) are cut short, and a
# read of one was a SIGBUS that ended us (exit 135) with no profile, and
# under --period no window written.  Now the page reads as zeros
# (sigbus.h), the file is no longer trusted (files.h: file_intact), the
# profile is written, and frames in the library are named as far as they
# were before, else [liblate.so].
#
# The target (truncated.c) spins in liblate.so's late_spin, then calls
# its late_through with a function of its own that spins for ever: the
# library's frame stays on the stack, its code is never run again - so
# the target survives the truncation, while we must read the file to
# unwind through that frame.

# truncated_run NAME SPIN_MS [OPTIONS...]: a fresh copy of the target and
# its library, owned by nobody when we are root; the profiler on it for
# -d 1ms with OPTIONS (stdout $TMP/NAME.folded, stderr $TMP/NAME.err),
# and the library truncated by its owner once the target is through
# (and, with --period, once the first window is written).  The
# profiler's exit status in $TRC; 1 if the target never got through.
truncated_run() {
	local name=$1 spin=$2 dir pp i
	shift 2
	local as_owner=()
	dir=$(mktemp -d /tmp/pp-truncated.XXXXXX)
	cp "$T/truncated" "$T/liblate.so" "$dir/"
	chmod 755 "$dir" "$dir"/*
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
		chown -R 65534:65534 "$dir"
		as_owner=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	fi
	start "${as_owner[@]}" "$dir/truncated" "$dir/liblate.so" "$spin" >"$TMP/$name.target"
	"$PP" -p "$TPID" -d 1ms "$@" >"$TMP/$name.folded" 2>"$TMP/$name.err" &
	pp=$!
	for i in $(seq 200); do
		grep -q through "$TMP/$name.target" && { [ "$PERIOD_FILES" = "" ] || [ -n "$(notes "$TMP/$name.err")" ]; } && break
		sleep 0.05
	done
	if ! grep -q through "$TMP/$name.target"; then
		wait $pp
		TRC=$?
		stop_target "$TPID"
		rm -rf "$dir"
		return 1
	fi
	sleep 0.3 # stacks through late_through, read from the file
	"${as_owner[@]}" truncate -s 0 "$dir/liblate.so"
	wait $pp
	TRC=$?
	ALIVE=0
	kill -0 "$TPID" 2>/dev/null && ALIVE=1
	stop_target "$TPID"
	rm -rf "$dir"
	return 0
}

# through_frames FILE: the frames between main and own_spin, one a line,
# with how many samples: "late_through 730".
through_frames() { awk '{ n = $NF; if (match($0, /;main;[^;]*;own_spin( |;)/)) { s = substr($0, RSTART + 6, RLENGTH - 6); sub(/;own_spin.*/, "", s); c[s] += n } } END { for (s in c) print s, c[s] }' "$1"; }

truncated_tests() {
	local n said frames bad
	PERIOD_FILES=
	if ! truncated_run trunc 1000 -t 3s; then
		fail "library truncated while we run" "the target never called late_through (exit $TRC): $(head -c 300 "$TMP/trunc.err")"
	else
		n=$(folded_ok "$TMP/trunc.folded") || n=bad
		said=$(summary_samples "$TMP/trunc.err")
		frames=$(through_frames "$TMP/trunc.folded")
		bad=$(echo "$frames" | awk 'NF && $1 != "late_through" && $1 != "[liblate.so]"')
		if [ "$TRC" = 0 ] && [ "$n" != bad ] && [ "$n" -gt 0 ] && [ "$n" = "$said" ] &&
			[ -n "$frames" ] && [ -z "$bad" ] && [ "$ALIVE" = 1 ] &&
			grep -q '^  files cut short        [1-9][0-9]* pages\? of ELF files we mapped' "$TMP/trunc.err"; then
			pass "library truncated by its owner mid-run: exit 0, $n samples written, the library's frame under own_spin named $(echo "$frames" | awk '{ printf "%s%s (%s)", (NR > 1 ? ", " : ""), $1, $2 }'), the summary says: $(grep -o 'files cut short *[0-9]* pages\?' "$TMP/trunc.err")"
		else fail "library truncated by its owner mid-run" "exit $TRC (was 135: SIGBUS), $n samples in the profile, the summary says ${said:-none}, target alive $ALIVE, frames between main and own_spin: '$(echo $frames)', files cut short: '$(grep 'files cut short' "$TMP/trunc.err")'" "$TMP/trunc.folded"; fi
	fi

	PERIOD_FILES=1
	mkdir -p "$TMP/trunc_win"
	if ! truncated_run trunc_period 2000 -t 4s --period 1s -o "$TMP/trunc_win/out.folded"; then
		fail "library truncated under --period" "the target never called late_through, or no window was written (exit $TRC): $(head -c 300 "$TMP/trunc_period.err")"
		return
	fi
	local stamp from until samples file t windows=0 before=0 through="" named
	bad=""
	while read -r stamp from until samples; do
		windows=$((windows + 1))
		file=$TMP/trunc_win/out.$stamp.folded
		t=$(folded_ok "$file") || { bad="$bad $file missing or malformed;"; continue; }
		[ "$t" = "$samples" ] || bad="$bad $file holds $t of $samples;"
		# late_spin named in a window named before the truncation
		[ "$windows" = 1 ] && before=$(share "$file" ';main;late_spin(;| )')
		through="$through $(through_frames "$file")"
	done < <(notes "$TMP/trunc_period.err")
	named=$(echo "$through" | tr ' ' '\n' | grep -v '^[0-9]*$' | sort -u | tr '\n' ' ')
	for t in $named; do
		[ "$t" = late_through ] || [ "$t" = "[liblate.so]" ] || bad="$bad frame $t under own_spin;"
	done
	if [ "$TRC" = 0 ] && [ -z "$bad" ] && [ "$windows" -ge 3 ] && atleast "$before" 50 &&
		[ -n "$named" ] && [ "$ALIVE" = 1 ]; then
		pass "library truncated under --period 1s: exit 0, $windows windows written and well-formed, late_spin named before (${before}% of the first), then the library's frame as: $named"
	else fail "library truncated under --period 1s" "exit $TRC (was 135: SIGBUS), $windows windows (>= 3), main;late_spin ${before}% of the first (>= 50), frames under own_spin '$named', target alive $ALIVE:$bad" "$TMP/trunc_period.err"; fi
}

if [ $CAN_ATTACH = 0 ]; then skip "library truncated while we run" "$WHY_NO_ATTACH"
else truncated_tests; fi
