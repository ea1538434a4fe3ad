# --- root among strangers: what another user plants at -o (issue 28) -----
# The profiler runs as root; the attacker is nobody (65534), with a
# directory like /tmp (world-writable, sticky) to plant in.  A root-only
# file stands for what must never change: the same text, the same mode,
# after every case.  Each case must end within 15 s with exit 0 and the
# profile where it was asked, as a regular file of root's.

strangers_output_tests() {
	local as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	local d secret=$TMP/secret rc before now n
	# like /tmp: world-writable and sticky, and reachable by nobody ($TMP is not)
	d=$(mktemp -d /tmp/pp-strangers.XXXXXX) && chmod 1777 "$d"
	echo "root only" >"$secret" && chmod 600 "$secret"
	before=$(stat -c '%a %s %Y' "$secret")$(cat "$secret")
	# intact: the secret as it was (else says how it is now)
	intact() {
		now=$(stat -c '%a %s %Y' "$secret")$(cat "$secret")
		[ "$now" = "$before" ] && return 0
		echo "mode $(stat -c '%a, %s bytes' "$secret") now" >&2
		return 1
	}
	# profile_to PATH [OPTIONS]: -n 20 into PATH, 15 s at most; exit in $rc
	profile_to() {
		local path=$1
		shift
		timeout -s KILL 15 "$PP" -p "$TPID" -d 1ms -n 20 -o "$path" "$@" >/dev/null 2>"$TMP/strangers.err"
		rc=$?
	}
	# regular PATH: a regular file of root's holding a profile
	regular() { [ -f "$1" ] && [ ! -L "$1" ] && [ "$(stat -c %u "$1")" = 0 ] && folded_ok "$1" >/dev/null; }
	start "$T/split"

	# 1. a link to the root-only file, planted at the name
	"${as_nobody[@]}" ln -s "$secret" "$d/out.folded"
	profile_to "$d/out.folded"
	if [ $rc = 0 ] && intact && regular "$d/out.folded"; then
		pass "-o a stranger's link to a root-only file: the link replaced by the profile, the file untouched"
	else fail "-o a stranger's link" "exit $rc, secret $(intact && echo intact || echo CHANGED), $(ls -l "$d/out.folded")" "$TMP/strangers.err"; fi

	# 2. a link inside the path: refused with one line, exit 2
	"${as_nobody[@]}" ln -s "$TMP" "$d/sub"
	profile_to "$d/sub/secret"
	if [ $rc = 2 ] && intact && [ "$(wc -l <"$TMP/strangers.err")" = 1 ] && grep -q "not followed" "$TMP/strangers.err"; then
		pass "-o through a stranger's link to a directory: exit 2, one line ($(cat "$TMP/strangers.err"))"
	else fail "-o through a stranger's link to a directory" "exit $rc (2), secret $(intact && echo intact || echo CHANGED)" "$TMP/strangers.err"; fi

	# 3. a FIFO at the name: replaced, never a hang
	"${as_nobody[@]}" mkfifo "$d/fifo.folded"
	profile_to "$d/fifo.folded"
	if [ $rc = 0 ] && regular "$d/fifo.folded"; then
		pass "-o a stranger's FIFO: replaced by the profile, no hang"
	else fail "-o a stranger's FIFO" "exit $rc$( [ $rc = 137 ] && echo ' (hung: killed at 15 s)'), $(ls -l "$d/fifo.folded")" "$TMP/strangers.err"; fi

	# 4. the temporary names of the next PIDs, taken in advance
	n=$(cat /proc/sys/kernel/ns_last_pid 2>/dev/null || echo $$)
	# (one touch for them all: the PIDs used planting are not the profiler's)
	(cd "$d" && "${as_nobody[@]}" touch $(for i in $(seq $((n + 1)) $((n + 300))); do echo "pre.folded.tmp.$i.0"; done))
	profile_to "$d/pre.folded"
	if [ $rc = 0 ] && regular "$d/pre.folded"; then
		pass "-o with the next PIDs' temporary names taken by a stranger: profile written (names nobody can guess)"
	else fail "-o with the temporary names taken" "exit $rc" "$TMP/strangers.err"; fi

	# 5. --period: a link planted for every window name of the next 30 s
	local s
	s=$(date -u +%s)
	for i in $(seq 0 30); do
		"${as_nobody[@]}" ln -s "$secret" "$d/win.$(date -u -d "@$((s + i))" +%Y%m%dT%H%M%SZ).folded"
	done
	timeout -s KILL 15 "$PP" -p "$TPID" -d 5ms -t 2.5s --period 1s -o "$d/win.folded" >/dev/null 2>"$TMP/strangers.err"
	rc=$?
	local windows=0 links=0
	for f in "$d"/win.*.folded; do
		if [ -L "$f" ]; then links=$((links + 1)); elif regular "$f"; then windows=$((windows + 1)); fi
	done
	if [ $rc = 0 ] && intact && [ $windows -ge 2 ]; then
		pass "--period with a stranger's link at every window name: $windows windows written in their place, the root-only file untouched"
	else fail "--period with planted links" "exit $rc, $windows windows, secret $(intact && echo intact || echo CHANGED)" "$TMP/strangers.err"; fi

	# 6. a link to a block device: replaced, the device never opened
	if mknod "$TMP/disk" b 7 0 2>/dev/null; then
		"${as_nobody[@]}" ln -s "$TMP/disk" "$d/dev.folded"
		profile_to "$d/dev.folded"
		if [ $rc = 0 ] && [ -b "$TMP/disk" ] && regular "$d/dev.folded"; then
			pass "-o a stranger's link to a block device: replaced by the profile"
		else fail "-o a stranger's link to a block device" "exit $rc, $(ls -l "$d/dev.folded")" "$TMP/strangers.err"; fi
		# and root's own block device: refused, never written
		profile_to "$TMP/disk"
		if [ $rc = 2 ] && grep -q "block device" "$TMP/strangers.err"; then
			pass "-o a block device: exit 2, never written"
		else fail "-o a block device" "exit $rc (2)" "$TMP/strangers.err"; fi
	else skip "-o a link to a block device" "mknod is not allowed here"; fi

	# 7. --diff -o through a planted link
	"$PP" -p "$TPID" -d 1ms -n 20 -o "$TMP/a.folded" 2>/dev/null
	"${as_nobody[@]}" ln -s "$secret" "$d/diff.svg"
	timeout -s KILL 15 "$PP" --diff "$TMP/a.folded" "$TMP/a.folded" -o "$d/diff.svg" >/dev/null 2>"$TMP/strangers.err"
	rc=$?
	if [ $rc = 0 ] && intact && [ -f "$d/diff.svg" ] && [ ! -L "$d/diff.svg" ]; then
		pass "--diff -o a stranger's link: the link replaced, the root-only file untouched"
	else fail "--diff -o a stranger's link" "exit $rc, secret $(intact && echo intact || echo CHANGED)" "$TMP/strangers.err"; fi

	# no target left stopped by any of it
	if [ "$(awk '/^TracerPid:/ { print $2 }' "/proc/$TPID/status")" = 0 ] &&
		! grep -q '^State:.*t (tracing stop)' "/proc/$TPID/status"; then
		pass "after the planted outputs: the target untraced and running"
	else fail "after the planted outputs" "the target is $(grep '^State:' "/proc/$TPID/status")"; fi
	stop_target "$TPID"
	rm -rf "$d"
}

if [ $CAN_ATTACH = 0 ]; then skip "what strangers plant at -o" "$WHY_NO_ATTACH"
elif [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	skip "what strangers plant at -o" "needs root and setpriv to plant as nobody"
else strangers_output_tests; fi
