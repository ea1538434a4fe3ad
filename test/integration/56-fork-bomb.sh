# --- --subprocesses on a fork bomb: 400 processes let go at once ----------

# The bomb runs as nobody under `prlimit --nproc=400`, so its own limit
# bounds it: 400 processes that all spin (each wants a CPU, and a thread
# asked to stop traps only when its turn comes), then sleep.  Detaching
# used to stop and wait for each in turn, 200 ms at most for each: 22.7 s
# for the 400.
BOMB_UID=65534

# bomb_start SPIN: the bomb (a process group of its own), its first
# process in $BOMB; it starts forking after 0.5 s and spins until SPIN s.
bomb_start() {
	prlimit --nproc=400 setpriv --reuid=$BOMB_UID --regid=$BOMB_UID --clear-groups \
		"$BOMBDIR/bomb" 40 0.5 "$1" &
	BOMB=$!
	PIDS+=("$BOMB")
	disown "$BOMB" # its end by SIGKILL is no news
}

# bomb_end: every process of the bomb killed, however many it forks
# meanwhile (its process group, again until none is left).
bomb_end() {
	local i
	for i in $(seq 1 50); do
		kill -9 -- "-$BOMB" 2>/dev/null
		pgrep -g "$BOMB" >/dev/null || break
		sleep 0.1
	done
}

# bomb_untouched: "N BAD": the bomb's processes now, and of them the ones
# traced or in a tracing stop.
bomb_untouched() {
	local p n=0 bad=0 st tr
	for p in $(pgrep -g "$BOMB"); do
		st=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f1)
		tr=$(awk '/^TracerPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
		[ -n "$st" ] || continue # ended meanwhile
		n=$((n + 1))
		if [ "$st" = t ] || { [ -n "$tr" ] && [ "$tr" != 0 ]; }; then bad=$((bad + 1)); fi
	done
	echo "$n $bad"
}

# wait_pp PID SECONDS: waits for the profiler, killing it after SECONDS;
# its exit status in $RC, 124 if it had to be killed.
wait_pp() {
	local i
	for i in $(seq 1 $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -9 "$1"
		wait "$1" 2>/dev/null
		RC=124
	else
		wait "$1"
		RC=$?
	fi
}

# traced_by PP: how many processes PP traces now (one grep over every
# process's status, at a priority the 400 spinners do not starve).
traced_by() {
	nice -n -10 grep -lx "TracerPid:[[:space:]]*$1" /proc/[0-9]*/status 2>/dev/null | wc -l
}

# From a summary: the processes seized on the way, the detach time in ms
# and the threads detached.
seized() { sed -n 's/^ *subprocesses *\([0-9]*\) seized.*/\1/p' "$1"; }
detach_ms() { sed -n 's/^ *detaching *\([0-9.]*\) ms.*/\1/p' "$1"; }
detached() { sed -n 's/^ *detaching *[0-9.]* ms, \([0-9]*\) thread.*/\1/p' "$1"; }

# fork_bomb_run NAME HOW: profiles the bomb with --subprocesses -d 10ms,
# ended by -t 3s (HOW=duration) or by SIGINT (HOW=sigint) once it traces
# 300 of the bomb's processes (or 10 s have passed), while its 400
# processes spin; they stop spinning 8 s in (the profiler, at nice 0
# among 400 spinners, gets a CPU a four-hundredth of the time until then)
# and sleep on, so that they are there to be looked at once it has
# exited.
#
# How many it seizes in -t 3s depends on the CPU it gets beside the
# spinners: a count that grows with time, judged by tfail.  Rehearsals
# here gave 399 in 77 runs of 81 and 135-157 in the other four, quiet
# machine and all: the duration run asks 100 (a build that does not
# follow seizes none).  The SIGINT run waits for 300 traced: 2.2-8 s in
# 42 rehearsals, 99 traced when it gave up at 6 s in one; past the
# spinning's 8 s the rest come within a second, so it waits up to 10 s
# and asks 300.  What a
# correct build always does - exit 0, every process it seized detached,
# none of the bomb's left traced or stopped - is judged by fail.
fork_bomb_run() {
	local name=$1 how=$2 pp t0 n
	bomb_start 8
	sleep 0.1
	if [ "$how" = duration ]; then
		"$PP" -p "$BOMB" --subprocesses -d 10ms -t 3s >"$TMP/$name.folded" 2>"$TMP/$name.err" &
		pp=$!
	else
		"$PP" -p "$BOMB" --subprocesses -d 10ms >"$TMP/$name.folded" 2>"$TMP/$name.err" &
		pp=$!
		t0=$(date +%s%N)
		while n=$(traced_by "$pp") && [ "$n" -lt 300 ] && [ $(($(date +%s%N) - t0)) -lt 10000000000 ]; do
			sleep 0.3
		done
		echo "    fork bomb (sigint): $n processes traced $(((($(date +%s%N) - t0) / 1000000))) ms after the start; SIGINT"
		kill -INT "$pp"
	fi
	wait_pp "$pp" 60
	local procs bad ms threads joined
	read -r procs bad <<<"$(bomb_untouched)"
	bomb_end
	joined=$(seized "$TMP/$name.err")
	ms=$(detach_ms "$TMP/$name.err")
	threads=$(detached "$TMP/$name.err")
	# every process seized (and the first) detached: a thread each
	if [ "$RC" = 0 ] && [ "$procs" -ge 300 ] && [ "$bad" = 0 ] && [ -n "$joined" ] &&
		[ "${threads:-0}" -ge $((joined + 1)) ]; then
		pass "fork bomb ($how): exit 0, ${joined} processes seized on the way, $threads threads detached; of the bomb's $procs processes afterwards none traced or stopped"
	else fail "fork bomb ($how)" "exit $RC (0), ${threads:-?} threads detached (>= ${joined:-?} seized + 1), $procs processes of the bomb afterwards (>= 300), $bad of them traced or in a tracing stop (0); $(grep -E 'detaching|subprocesses' "$TMP/$name.err" | tr -s ' ' | tr '\n' ' ')" "$TMP/$name.err"; fi
	local want=300
	[ "$how" = sigint ] || want=100
	if [ "${joined:-0}" -ge $want ]; then
		pass "fork bomb ($how): ${joined} processes seized on the way (>= $want)"
	else tfail "fork bomb ($how): processes seized" "${joined:-?} processes seized on the way (>= $want)" "$TMP/$name.err"; fi
	# (a correct build: 1.0-1.4 s beside no neighbour, 1.3-1.8 s in the
	# rehearsals of a slower day, once 2.6 s; each spinner traps when it
	# gets its turn among the 400: make check allows a busy host twice
	# make truth's 2 s.  A thread whose turn did not come by the
	# detach's own bound is left to the kernel, which detaches it as we
	# exit - none is left traced or stopped (judged above), but it was
	# not let go in time: a matter of time too, once in 48 rehearsals,
	# when a slow hour let the duration run seize 63)
	local most
	most=$(pick 4000 2000)
	if [ -n "$ms" ] && awk -v a="$ms" -v m="$most" 'BEGIN { exit !(a <= m) }' &&
		! grep -q 'left to the kernel' "$TMP/$name.err"; then
		pass "fork bomb ($how): $threads threads detached in $ms ms (<= $most), none left to the kernel"
	else tfail "fork bomb ($how): detach time" "detaching took ${ms:-?} ms (<= $most)$(grep -q 'left to the kernel' "$TMP/$name.err" && echo ', some left to the kernel')" "$TMP/$name.err"; fi
}

if [ "$(id -u)" != 0 ]; then
	skip "fork bomb" "runs the bomb as another user (setpriv): needs root"
elif ! command -v setpriv >/dev/null || ! command -v prlimit >/dev/null; then
	skip "fork bomb" "needs setpriv and prlimit (util-linux)"
elif [ $CAN_ATTACH != 1 ]; then
	skip "fork bomb" "$WHY_NO_ATTACH"
elif [ "$(pgrep -u $BOMB_UID | wc -l)" -gt 50 ]; then
	skip "fork bomb" "uid $BOMB_UID (nobody) runs over 50 processes here: they count against the bomb's limit of 400"
else
	# where nobody may run it ($TMP is root's alone)
	BOMBDIR=$(mktemp -d /tmp/ptrace_profiler_bomb.XXXXXX)
	chmod 755 "$BOMBDIR"
	cp "$T/bomb" "$BOMBDIR/bomb"
	fork_bomb_run bomb_t duration
	fork_bomb_run bomb_int sigint
	rm -rf "$BOMBDIR"
fi
