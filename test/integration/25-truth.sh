# --- truth: shares against what the target measured itself ----------------
# The targets time themselves (clock around each phase, schedstat for time
# on a CPU) and print it at exit; the profile must agree.

# truth FILE THREAD_REGEX FIELD: sum of FIELD over the target's "thread=NAME"
# lines whose name matches, as a % of their wall_ns.
truth() {
	RE=$2 awk -v f="$3" '{
		name = ""; v = 0; w = 0
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "thread") name = kv[2]
			if (kv[1] == f) v = kv[2]
			if (kv[1] == "wall_ns") w = kv[2]
		}
		if (name ~ ENVIRON["RE"]) { sv += v; sw += w }
	} END { printf "%.1f", sw ? 100 * sv / sw : 0 }' "$1"
}

# asleep_over FILE THREADS FUNC: samples of THREADS (a regex of names) that
# are asleep (S or D) with FUNC among their user frames.  For work that
# never sleeps (the targets read the vDSO's clock), each one is a tick
# that got a later moment's stack.
asleep_over() {
	grep -E "^($2)[0-9]+;[SD] \([a-z ]+\);.*;$3(;| )" "$1" | total /dev/stdin
}

# Periodic work: threads that wake every 10 ms, work 0.5 ms and go back to
# sleep in the same call - on a fixed grid (clock_nanosleep TIMER_ABSTIME)
# and drifting (relative nanosleep).  At 10 ms, 1 ms and 100 us, eight
# threads of each: their work within 2 points of their own clock, their
# samples on a CPU within 2.5 of their schedstat, and the self-check
# silent.
periodic_tests() {
	local d out grid_t drift_t grid_p drift_p rc grid_rt drift_rt grid_rp drift_rp warned asleep_in_work
	for d in 10ms 1ms 100us; do
		out=$TMP/periodic.$d
		# Launched, so that its own figures and the profile cover the
		# same time: at 100 us the profiler stretches the work, and a
		# window of the target's life would not match its whole.
		"$PP" -d "$d" -o "$out.folded" -- "$T/periodic" 3.5 8 >"$out.truth" 2>"$out.err"
		rc=$?
		grid_t=$(truth "$out.truth" '^grid' work_ns)
		drift_t=$(truth "$out.truth" '^drift' work_ns)
		grid_p=$(share_of "$out.folded" '^grid[0-9]+;' ';periodic_work')
		drift_p=$(share_of "$out.folded" '^drift[0-9]+;' ';periodic_work')
		grid_rt=$(truth "$out.truth" '^grid' oncpu_ns)
		drift_rt=$(truth "$out.truth" '^drift' oncpu_ns)
		grid_rp=$(share_of "$out.folded" '^grid[0-9]+;' '^grid[0-9]+;R \(running\);')
		drift_rp=$(share_of "$out.folded" '^drift[0-9]+;' '^drift[0-9]+;R \(running\);')
		warned=$(grep -c 'warning: .* misread' "$out.err")
		asleep_in_work=$(asleep_over "$out.folded" 'grid|drift' periodic_work)
		# what works or not: the exit, and no tick with a later moment's stack
		if [ $rc = 0 ] && [ "$asleep_in_work" = 0 ]; then
			pass "periodic work at $d: exit 0, no sample asleep over its work"
		else fail "periodic work at $d" "exit $rc; $asleep_in_work samples asleep over periodic_work's frames (0)" "$out.folded"; fi
		# what is a matter of time: the shares, and the self-check
		# (schedstat).  Beside a busy neighbour the threads wait for a
		# CPU, and our ticks, late on a busy CPU too, see less of it:
		# the self-check says so, as it should (in make check mode, 6-10
		# of 16 threads "queued ... in fewer samples" at 100 us in a busy
		# hour, shares right).  make check asks the shares; make truth,
		# on a quiet host, silence too.
		if near "$grid_p" "$grid_t" 2 && near "$drift_p" "$drift_t" 2 &&
			near "$grid_rp" "$grid_rt" 2.5 && near "$drift_rp" "$drift_rt" 2.5 &&
			{ [ "$warned" = 0 ] || [ "$TRUTH" != 1 ]; }; then
			pass "periodic work at $d: on a grid ${grid_p}% (the target: ${grid_t}%), running ${grid_rp}% (schedstat ${grid_rt}%); drifting ${drift_p}% (${drift_t}%), running ${drift_rp}% (${drift_rt}%); self-check spoke $warned times"
		else tfail "periodic work at $d: shares against the target's clock and schedstat" "grid ${grid_p}% (target ${grid_t}%), running ${grid_rp}% (schedstat ${grid_rt}%); drifting ${drift_p}% (target ${drift_t}%), running ${drift_rp}% (${drift_rt}%); tolerance 2 and 2.5 points; self-check spoke $warned times" "$out.folded"; fi
	done
}

# Two threads spinning on one CPU: each is on it about half of the time
# and waits for it the other half, as their own schedstat says.
runqueue_tests() {
	if [ $KSTACKS = 0 ]; then
		skip "running and runnable" "$WHY_NO_KSTACKS"
		return
	fi
	local d t run_t run_p runnable_p ok=1 line="" tol secs
	tol=$(pick 10 2.5)
	for d in 10ms 1ms; do
		# make truth: 2.5 points are 3.2 standard deviations of a 50 %
		# share over 4000 samples (40 s at 10 ms), 3.5 over 5000 (5 s at
		# 1 ms); in 3 s, 0.9 and 2.7
		secs=$(pick 3 5)
		[ "$d" = 10ms ] && secs=$(pick 3 40)
		"$PP" -d "$d" -o "$TMP/rq.$d.folded" -- "$T/runqueue" "$secs" 0 >"$TMP/rq.$d.truth" \
			2>"$TMP/rq.$d.err"
		for t in spin_a spin_b; do
			run_t=$(truth "$TMP/rq.$d.truth" "^$t\$" run_ns)
			run_p=$(share_of "$TMP/rq.$d.folded" "^$t;" "^$t;R \\(running\\);.*;$t;run;spin")
			runnable_p=$(share_of "$TMP/rq.$d.folded" "^$t;" "^$t;R \\(runnable\\);.*;$t;run;spin")
			near "$run_p" "$run_t" "$tol" && near "$runnable_p" "$(awk -v r="$run_t" 'BEGIN { print 100 - r }')" "$tol" || ok=0
			line="$line $d $t: running ${run_p}% (schedstat ${run_t}%), runnable ${runnable_p}%;"
		done
		[ "$(grep -c 'warning: .* misread' "$TMP/rq.$d.err")" = 0 ] || { ok=0; line="$line $d: the self-check spoke;"; }
	done
	if [ $ok = 1 ]; then pass "running and runnable:$line"
	else tfail "running and runnable" "tolerance $tol points:$line" "$TMP/rq.1ms.folded"; fi
	# The summary puts the same figures side by side, for the threads
	# alive at the end (here the launched runs' have ended: attach).
	"$T/runqueue" "$(pick 3 6)" 0 >/dev/null &
	local tp=$!
	PIDS+=("$tp")
	sleep 0.3
	"$PP" -p "$tp" -d 1ms -t "$(pick 1 5)s" >/dev/null 2>"$TMP/rq.sum.err"
	wait "$tp"
	local own kernel
	own=$(sed -n 's/.* spin_a .* on CPU in \([0-9.]*\)%; schedstat.*/\1/p' "$TMP/rq.sum.err")
	kernel=$(sed -n 's/.* spin_a .*; schedstat: on CPU \([0-9.]*\)%$/\1/p' "$TMP/rq.sum.err")
	if [ -z "$own" ] || [ -z "$kernel" ]; then
		fail "summary: per thread, samples on a CPU beside schedstat's figure" "spin_a: ${own:-no} / ${kernel:-no}" "$TMP/rq.sum.err"
	elif near "$own" "$kernel" "$tol"; then
		pass "summary: per thread, samples on a CPU (spin_a ${own}%) beside schedstat's figure (${kernel}%)"
	else tfail "summary: per thread, samples on a CPU against schedstat's figure" "spin_a: ${own}% / ${kernel}%, tolerance $tol points" "$TMP/rq.sum.err"; fi
}

# A server of threads (conn_server: six connections, all named "conn",
# each working 0.5 ms and waiting 0.5 ms for its client, so that on two
# CPUs they queue for one; and a listener that sleeps), profiled with
# --group-by thread: a root conn[TID] for every thread and no other, and
# each connection's time split as its own schedstat says - on a CPU,
# queued for one, the rest asleep.  make truth: the connections' mean
# within 2.5 points of theirs (issue 42), each within 4 (a thread's own
# figure is also chance's: at 10 ms 3000 samples put one standard
# deviation near 0.9 points, and six threads a kind were 2.7 out now
# and then where their mean was 0.6); make check: each within 10.
thread_server_tests() {
	if [ $KSTACKS = 0 ]; then
		skip "a server of threads: its threads apart, on and off a CPU" "$WHY_NO_KSTACKS"
		return
	fi
	local d tid run wait wall run_t wait_t run_p wait_p ok=1 line="" tol mtol secs n roots want
	local dr dw
	tol=$(pick 10 4)
	mtol=$(pick 10 2.5)
	for d in 10ms 1ms; do
		# make truth: 2.5 points are 3 standard deviations of a 30 %
		# share over 3000 samples (30 s at 10 ms) and 5 over 8000
		secs=$(pick 3 8)
		[ "$d" = 10ms ] && secs=$(pick 3 30)
		"$PP" -d "$d" --group-by thread -o "$TMP/ts.$d.folded" -- "$T/conn_server" "$secs" \
			>"$TMP/ts.$d.truth" 2>"$TMP/ts.$d.err"
		n=0
		want=""
		dr=0
		dw=0
		while read -r tid run wait wall; do
			n=$((n + 1))
			want="$want conn[$tid]"
			run_t=$(awk -v r="$run" -v w="$wall" 'BEGIN { printf "%.1f", 100 * r / w }')
			wait_t=$(awk -v r="$wait" -v w="$wall" 'BEGIN { printf "%.1f", 100 * r / w }')
			run_p=$(share_of "$TMP/ts.$d.folded" "^conn\\[$tid\\];" "^conn\\[$tid\\];R \\(running\\);")
			wait_p=$(share_of "$TMP/ts.$d.folded" "^conn\\[$tid\\];" "^conn\\[$tid\\];R \\(runnable\\);")
			near "$run_p" "$run_t" "$tol" && near "$wait_p" "$wait_t" "$tol" || ok=0
			dr=$(awk -v s="$dr" -v a="$run_p" -v b="$run_t" 'BEGIN { print s + a - b }')
			dw=$(awk -v s="$dw" -v a="$wait_p" -v b="$wait_t" 'BEGIN { print s + a - b }')
			line="$line $d $tid: running ${run_p}% (${run_t}%), runnable ${wait_p}% (${wait_t}%);"
		done < <(sed -n 's/^thread=conn tid=\([0-9]*\) run_ns=\([0-9]*\) wait_ns=\([0-9]*\) wall_ns=\([0-9]*\)$/\1 \2 \3 \4/p' "$TMP/ts.$d.truth")
		dr=$(awk -v s="$dr" -v n="$n" 'BEGIN { printf "%+.1f", n ? s / n : 99 }')
		dw=$(awk -v s="$dw" -v n="$n" 'BEGIN { printf "%+.1f", n ? s / n : 99 }')
		near "$dr" 0 "$mtol" && near "$dw" 0 "$mtol" || ok=0
		line="$line $d mean: running $dr, runnable $dw points;"
		# every connection a root of its own; 8 threads with roots: the
		# listener and the main thread besides (counted by thread: a
		# tick before a thread named itself "conn" roots it under the
		# name it had, conn_server[TID] - 10 roots once in a rehearsal)
		roots=$(cut -d';' -f1 "$TMP/ts.$d.folded" | sort -u)
		for r in $want; do printf '%s\n' "$roots" | grep -qxF "$r" || { ok=0; line="$line no root $r;"; }; done
		local threads
		threads=$(printf '%s\n' "$roots" | sed -n 's/.*\[\([0-9]*\)\]$/\1/p' | sort -u | grep -c .)
		[ "$n" = 6 ] && [ "$threads" = 8 ] ||
			{ ok=0; line="$line $d: $n connections said their truth (6), $threads threads with roots (8): $(printf '%s ' $roots);"; }
	done
	if [ $ok = 1 ]; then pass "a server of threads, --group-by thread, per connection (schedstat's in brackets):$line"
	else tfail "a server of threads: its threads apart, on and off a CPU" "tolerance $tol points each, $mtol their mean:$line" "$TMP/ts.1ms.folded"; fi
}

# Work, then sleep, in a loop (a script's or a poller's): the process we
# resume often wakes on our own CPU and runs there, and each tick preempts
# it.  Counted as waiting for a CPU in every other round, it showed 7-11 %
# running and 21 % runnable where schedstat said 27 % on a CPU.
work_sleep_tests() {
	if [ $KSTACKS = 0 ]; then
		skip "work then sleep: running and runnable" "$WHY_NO_KSTACKS"
		return
	fi
	local d run_t wait_t run_p runnable_p ok=1 line="" tol secs
	tol=$(pick 10 2.5)
	for d in 10ms 1ms; do
		secs=$(pick 3 5) # make truth: as runqueue's, the samples for 2.5 points
		[ "$d" = 10ms ] && secs=$(pick 3 40)
		"$PP" -d "$d" -o "$TMP/ws.$d.folded" -- "$T/work_sleep" "$secs" >"$TMP/ws.$d.truth" \
			2>"$TMP/ws.$d.err"
		run_t=$(truth "$TMP/ws.$d.truth" '^worker$' run_ns)
		wait_t=$(truth "$TMP/ws.$d.truth" '^worker$' wait_ns)
		run_p=$(share_of "$TMP/ws.$d.folded" '^worker;' '^worker;R \(running\);.*;main;work_burst [0-9]+$')
		runnable_p=$(share_of "$TMP/ws.$d.folded" '^worker;' '^worker;R \(runnable\);')
		if [ "$(total "$TMP/ws.$d.folded")" -lt 100 ] || ! near "$run_p" "$run_t" "$tol" ||
			! near "$runnable_p" "$wait_t" "$tol" || grep -q 'warning: .* misread' "$TMP/ws.$d.err"; then ok=0; fi
		line="$line $d: $(total "$TMP/ws.$d.folded") samples (>= 100), running ${run_p}% (schedstat ${run_t}%), runnable ${runnable_p}% (${wait_t}%)$(grep -q 'warning: .* misread' "$TMP/ws.$d.err" && echo ', the self-check spoke');"
	done
	if [ $ok = 1 ]; then pass "work then sleep, on CPU by schedstat:$line"
	else tfail "work then sleep: running and runnable" "tolerance $tol points:$line" "$TMP/ws.10ms.folded"; fi
}

# A mostly idle process whose one thread works in short bursts between
# waits, as a database backend does (a query, then the client's next
# message): 1 ms of work every 10 ms, on a grid and drifting, at every
# interval from 100 us to 10 ms.  Its share of ticks in the work must be
# the share of its time there by its own clock (+-2 points), its samples on
# a CPU its schedstat's time on one (+-2.5), and the summary's self-check
# must stay silent.  Before the round was reshaped it showed 2-3 % running
# at 100 us against 7-9 % (issue 20).  At 10 ms four threads, so that the
# samples are enough for 2 points (one thread: 300 samples, 1.7 sd).
# On a virtual machine the host may lend the CPUs to other guests (steal):
# the target's bursts stretch while no thread here runs.  A CI run right
# after boot, 1-2 % of steal, read work 2-4 points under the target's clock
# at 100 us to 1 ms; the same binary was within 1 point before and after;
# another, at 15-22 % of steal, read 9 % against 13-14 %.  So an interval
# whose run saw 0.5 % of steal or more, and missed, is run again (at most
# twice, after a pause); one whose every try missed under 2 % of steal or
# more is not judged, and said so - the summary itself warns the user of
# steal.  Fewer than three intervals judged of a kind: skipped, with the
# steal seen.  Every try is reported.
burst_tests() {
	local kind d threads secs work_t run_t work_p run_p warned ok line try good stolen before asleep
	local judged unjudged
	for kind in grid drift; do
		ok=1 line="" judged=0 unjudged=""
		# (make check: 100 us, 1 ms and 10 ms, 13 s less of
		# CI's time; make truth: all five)
		for d in $(pick "100us 1ms 10ms" "100us 200us 500us 1ms 10ms"); do
			threads=1 secs=3
			[ "$d" = 10ms ] && threads=4 secs=5
			local busy_host=1
			for try in 1 2 3; do
				before=$(cpu_ticks)
				"$PP" -d "$d" -o "$TMP/burst.folded" -- "$T/burst" "$secs" "$threads" 10000 1000 "$kind" \
					>"$TMP/burst.truth" 2>"$TMP/burst.err"
				stolen=$(steal_since "$before")
				work_t=$(truth "$TMP/burst.truth" '^burst' work_ns)
				run_t=$(truth "$TMP/burst.truth" '^burst' run_ns)
				work_p=$(share_of "$TMP/burst.folded" '^burst[0-9]+;' ';burst_work( |;)')
				run_p=$(share_of "$TMP/burst.folded" '^burst[0-9]+;' '^burst[0-9]+;R \(running\);')
				warned=$(grep -c 'warning: .* misread' "$TMP/burst.err")
				asleep=$(asleep_over "$TMP/burst.folded" burst burst_work)
				good=0
				near "$work_p" "$work_t" 2 && near "$run_p" "$run_t" 2.5 && [ "$warned" = 0 ] &&
					[ "$asleep" = 0 ] && good=1
				line="$line $d: work ${work_p}% (${work_t}%), running ${run_p}% (${run_t}%)$([ "$warned" = 0 ] || echo ', self-check spoke')$([ "$asleep" = 0 ] || echo ", $asleep asleep over burst_work")$(atleast "$stolen" 0.5 && echo ", host steal ${stolen}%");"
				atleast "$stolen" 2 || busy_host=0
				[ $good = 1 ] && break
				cp "$TMP/burst.folded" "$TMP/burst.bad.folded"
				atleast "$stolen" 0.5 || break
				line="$line again:"
				sleep 3
			done
			if [ $good = 1 ]; then judged=$((judged + 1))
			elif [ $busy_host = 1 ]; then unjudged="$unjudged $d"; line="$line (not judged: the host was busy);"
			else ok=0; judged=$((judged + 1)); fi
		done
		if [ $ok = 0 ]; then tfail "bursts between waits, $kind" "work +-2, running +-2.5 points:$line" "$TMP/burst.bad.folded"
		elif [ $judged -lt 3 ]; then skip "bursts between waits, $kind" "the host lent 2 % or more of the CPUs to other guests in every try at$unjudged:$line"
		else pass "bursts between waits, $kind:$line"; fi
	done
}

# A sleeping thread keeps the kernel frames of its wait: after our first
# stop the call goes on as restart_syscall, whose /proc stack shows only
# the system call entry.
wait_frames_tests() {
	if [ $KSTACKS = 0 ]; then
		skip "a wait keeps its kernel frames" "$WHY_NO_KSTACKS"
		return
	fi
	start sleep 30
	"$PP" -p "$TPID" -d 10ms -t 1s >"$TMP/sleep.folded" 2>"$TMP/sleep.err"
	stop_target "$TPID"
	local frames
	frames=$(share "$TMP/sleep.folded" 'S \(sleeping\);.*;(clock_nanosleep|nanosleep);.*hrtimer_nanosleep_\[k\]')
	if atleast "$frames" 95; then pass "a wait keeps its kernel frames: sleep's nanosleep frames in ${frames}% of its samples"
	else fail "a wait keeps its kernel frames" "hrtimer_nanosleep_[k] in ${frames}% (>= 95)" "$TMP/sleep.folded"; fi
}

# Seen where it runs: sysmix does about 1 us of user work between 4 KiB
# preads of a file in the page cache (a system call every few us) and
# times both phases itself.  A stop asked from another CPU lands at the
# next return to user mode, a system call's: 0.1 % in user_work against
# 65 % by its clock.  A sampler that sleeps on the thread's CPU preempts it
# where it is (placement.h): user_work within 4 points of its clock at
# 1 ms and 100 us in make truth (at 100 us, +0.8 to +2.0 in 10 runs, 4 of
# them beside two busy neighbours; earlier sessions saw up to +5.5 on
# other days: make check keeps 10), so is read_page (pread and around it), and
# most of read_page's samples show the call as a kernel frame (the rest:
# the user code of read_page and pread).  Unpinned: the kernel moves it.
sysmix_tests() {
	if [ "$(id -u)" != 0 ] || [ "$(nproc)" -lt 2 ]; then
		skip "sysmix: user code between system calls" "needs root (a SCHED_FIFO sampler) and 2 CPUs to follow a thread to its CPU"
		return
	fi
	local d out rc own_user own_read user read call tol
	for d in 1ms 100us; do
		tol=$(pick 8 4)
		[ "$d" = 100us ] && tol=$(pick 10 4)
		out=$TMP/sysmix.$d
		"$PP" -v -d "$d" -o "$out.folded" -- "$T/sysmix" 3 >"$out.truth" 2>"$out.err"
		rc=$?
		own_user=$(sed -n 's/.*user_share=\([0-9.]*\).*/\1/p' "$out.truth" | awk '{ printf "%.1f", 100 * $1 }')
		own_read=$(sed -n 's/.*pread_share=\([0-9.]*\).*/\1/p' "$out.truth" | awk '{ printf "%.1f", 100 * $1 }')
		user=$(share "$out.folded" ';user_work(;| )')
		read=$(share "$out.folded" ';read_page(;| )')
		call=$(share_of "$out.folded" ';read_page(;| )' ';__x64_sys_pread64_\[k\]')
		if [ $rc = 0 ] && [ -n "$own_user" ] && grep -Eq 'followed [0-9]+ thread' "$out.err"; then
			pass "sysmix at $d: exit 0, its own figures, the sampler on its CPU"
		else fail "sysmix at $d" "exit $rc; own '$own_user'; $(grep 'sampler priority' "$out.err")" "$out.folded"; fi
		# held by our tick, looked at by its schedstat and wchan alone
		# (round.c, held_by_us): most rounds, at 1 ms 2296 of 2459
		# and their traps waited for in waitpid, the helper watching
		# (on a kernel that does not preempt calls, as dmesg says, most of
		# them without reading the kernel stack: call_frames.h)
		# or, most of them, no trap: the kernel's copy as our tick took
		# its CPU (switch_copy.h; capture.c, sample_from_copy)
		local held waited assumed copied want=0
		held=$(sed -n 's/.*; \([0-9]*\) looks held by our tick.*/\1/p' "$out.err")
		waited=$(sed -n 's/.*; \([0-9]*\) traps waited for in waitpid.*/\1/p' "$out.err")
		copied=$(sed -n 's/.*; \([0-9]*\) samples copied by the kernel as our tick took the CPU.*/\1/p' "$out.err")
		assumed=$(sed -n 's/.*schedstat alone (\([0-9]*\) its kernel.*/\1/p' "$out.err")
		dmesg 2>/dev/null | grep -q 'Dynamic Preempt: none' && want=$((${held:-0} / 2))
		# and the summary counts the time our rounds held it in its cost
		local kept
		kept=$(sed -n 's/.* \([0-9.]*\)% held off its CPU by our rounds.*/\1/p' "$out.err")
		if atleast "${held:-0}" 100 && atleast "$((${waited:-0} + ${copied:-0}))" 100 &&
			atleast "${assumed:-0}" "$want" && atleast "${kept:-0}" 0.5; then
			pass "sysmix at $d: ${held} looks held by our tick read its schedstat alone (${assumed} with the call's frames not read, >= $want), ${waited} traps waited for in waitpid, ${copied:-0} samples copied with no trap; the summary: ${kept}% held off its CPU by our rounds"
		else fail "sysmix at $d: looks held by our tick" "${held:-none} read by schedstat alone (${assumed:-none} frames not read, >= $want), ${waited:-none} traps waited for in waitpid and ${copied:-none} copied (>= 100 in all), held off its CPU ${kept:-not said}% (>= 0.5); $(grep 'sampler priority' "$out.err"); $(grep 'target cost' "$out.err")"; fi
		# held by our tick, sampled from the kernel's copy: most of the
		# looks that read nothing else (the others: an address whose call
		# no stop has taught yet, the ring overrun, or the thread ran),
		# where perf events may be opened (root: always)
		if grep -q 'no copies at our tick' "$out.err"; then
			skip "sysmix at $d: samples copied as our tick took the CPU" "$(sed -n 's/.*no copies at our tick (\([^)]*\)).*/\1/p' "$out.err")"
		elif atleast "$((${copied:-0} * 2))" "${assumed:-0}" && atleast "${copied:-0}" 50; then
			pass "sysmix at $d: ${copied} samples copied by the kernel as our tick took the CPU, of ${assumed} held looks that read nothing else"
		else fail "sysmix at $d: samples copied as our tick took the CPU" "${copied:-none} of ${assumed:-none} held looks that read nothing else (>= half, >= 50); $(grep 'sampler priority' "$out.err")"; fi
		# the timed ticks' timers armed a round before, on the thread's
		# CPU (resume_here.h): at 1 ms 2519 of 2538 resumes here, at
		# 100 us 9784 of 10377 (a quarter asked: a busy host's rounds
		# are late more often, and arm anew)
		local resumed ahead
		resumed=$(sed -n 's/.*, resumed there \([0-9]*\) times.*/\1/p' "$out.err")
		ahead=$(sed -n 's/.*; \([0-9]*\) ticks on a timer armed a round before.*/\1/p' "$out.err")
		if atleast "${resumed:-0}" 100 && atleast "$((${ahead:-0} * 4))" "${resumed:-0}"; then
			pass "sysmix at $d: ${ahead} ticks on a timer armed a round before, of ${resumed} resumes there"
		else fail "sysmix at $d: ticks armed a round before" "${ahead:-none} of ${resumed:-none} resumes there (>= a quarter, >= 100 resumes); $(grep 'sampler priority' "$out.err")"; fi
		if near "$user" "$own_user" "$tol" && near "$read" "$own_read" "$tol" && atleast "$call" 50; then
			pass "sysmix at $d: user_work ${user}% (its clock: ${own_user}%), read_page ${read}% (${own_read}%), ${call}% of read_page's samples in __x64_sys_pread64"
		else tfail "sysmix at $d: user work and the call against its clock" "user_work ${user}% (its clock ${own_user}%), read_page ${read}% (${own_read}%), +-$tol; __x64_sys_pread64 in ${call}% of read_page's samples (>= 50)" "$out.folded"; fi
	done
}

# sqlite3 doing primary-key look-ups through an 8-page cache, as a
# database on cached data does: a pread of the page cache every few
# microseconds, most of its CPU in the kernel's copies.  Profiled at 1 ms
# beside perf record on the same run (issue 41): the five functions perf
# finds most on a CPU (the innermost user frame of a sample), and the
# share of its on-CPU samples in the kernel.  perf samples a software
# clock (cpu-clock: no PMU in most VMs); its user frame of a kernel
# sample is where the thread entered the kernel, as ours.
sqlite_perf_tests() {
	local name="sqlite3 against perf record"
	if ! command -v sqlite3 >/dev/null; then skip "$name" "sqlite3 is not installed"; return; fi
	if ! command -v perf >/dev/null; then skip "$name" "perf is not installed (linux-perf)"; return; fi
	local db=$TMP/sq.db out=$TMP/sq tol ktol
	tol=$(pick 6 3)
	ktol=$(pick 15 10)
	rm -f "$db"
	if ! sqlite3 "$db" "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);
		WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 300000)
		INSERT INTO t SELECT i, hex(randomblob(16)) FROM r;" >"$out.make.log" 2>&1; then
		fail "$name" "the database: $(tail -n 1 "$out.make.log")"
		return
	fi
	sqlite3 "$db" "PRAGMA cache_size = 8;
		WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 100000000)
		SELECT count((SELECT v FROM t WHERE id = 1 + (i * 7919) % 300000)) FROM r;" >/dev/null 2>&1 &
	local sq=$!
	sleep 0.3
	perf record -q -e cpu-clock -F 997 -g -p "$sq" -o "$out.perf" -- sleep 5 >"$out.perf.log" 2>&1 &
	local pf=$!
	"$PP" -p "$sq" -d 1ms -t 5s -o "$out.folded" 2>"$out.err"
	local rc=$?
	wait $pf
	local prc=$?
	kill "$sq" 2>/dev/null
	wait "$sq" 2>/dev/null
	if [ $prc != 0 ] || ! perf script -i "$out.perf" >"$out.perf.txt" 2>"$out.perf.log"; then
		skip "$name" "perf record gave nothing here: $(tail -n 1 "$out.perf.log")"
		return
	fi
	# perf: a sample is a header line, then its frames (innermost first)
	awk '/^[^ \t]/ { if (n++) done(); first = 1; leaf = ""; kern = 0; next }
		/^[ \t]+[0-9a-f]+ / { sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym)
			if ($NF == "([kernel.kallsyms])") { if (first) kern = 1 }
			else if (leaf == "") leaf = sym
			first = 0 }
		function done() { c[leaf]++; k += kern }
		END { if (n) done(); for (f in c) printf "%s %d\n", f, c[f]; printf "KERNEL %d\nTOTAL %d\n", k, n }' \
		"$out.perf.txt" >"$out.perf.counts"
	# ours: the running samples, their innermost frame that is neither
	# the kernel's nor inlined
	awk '/;R \(running\);/ { n = $NF; s = substr($0, 1, length($0) - length(n) - 1)
			m = split(s, f, ";"); leaf = ""; kern = 0
			for (i = m; i > 0; i--) { if (f[i] ~ /_\[k\]$/) { kern = 1; continue }
				if (f[i] ~ /_\[i\]$/) continue; leaf = f[i]; break }
			c[leaf] += n; t += n; k += kern * n }
		END { for (l in c) printf "%s %d\n", l, c[l]; printf "KERNEL %d\nTOTAL %d\n", k, t }' \
		"$out.folded" >"$out.ours.counts"
	local pt ot fn a b bad="" side="" pk ok
	pt=$(awk '$1 == "TOTAL" { print $2 }' "$out.perf.counts")
	ot=$(awk '$1 == "TOTAL" { print $2 }' "$out.ours.counts")
	if [ $rc != 0 ] || [ "${pt:-0}" -lt 1000 ] || [ "${ot:-0}" -lt 1000 ]; then
		fail "$name" "exit $rc; perf $pt samples, ours $ot running (>= 1000 each)" "$out.folded"
		return
	fi
	# (a function neither names, perf's [unknown], is left out)
	for fn in $(awk '$1 != "KERNEL" && $1 != "TOTAL" && $1 !~ /^\[/ && NF == 2' "$out.perf.counts" |
		sort -k2,2nr | head -n 5 | awk '{ print $1 }'); do
		a=$(awk -v f="$fn" -v t="$ot" '$1 == f { s = $2 } END { printf "%.1f", 100 * s / t }' "$out.ours.counts")
		b=$(awk -v f="$fn" -v t="$pt" '$1 == f { s = $2 } END { printf "%.1f", 100 * s / t }' "$out.perf.counts")
		side="$side $fn ${a}/${b}"
		near "$a" "$b" "$tol" || bad="$bad $fn"
	done
	ok=$(awk -v t="$ot" '$1 == "KERNEL" { printf "%.1f", 100 * $2 / t }' "$out.ours.counts")
	pk=$(awk -v t="$pt" '$1 == "KERNEL" { printf "%.1f", 100 * $2 / t }' "$out.perf.counts")
	if [ -z "$bad" ] && near "$ok" "$pk" "$ktol"; then
		pass "sqlite3 at 1 ms beside perf record (ours/perf, % of on-CPU samples):$side; in the kernel ${ok}/${pk} ($ot and $pt samples)"
	else tfail "$name" "top five within $tol points, the kernel within $ktol:$side; in the kernel ${ok}/${pk}" "$out.folded"; fi
}

if [ $CAN_ATTACH = 1 ]; then
	# Shares against the targets' own clocks and schedstat: time, not
	# judged under the sanitizer.  The wait frames are not a matter of time.
	if ! timing_only "truth: periodic work, bursts, running and runnable, work then sleep (25-truth)"; then
		run_test periodic_tests
		run_test burst_tests
		run_test runqueue_tests
		run_test work_sleep_tests
		run_test thread_server_tests
		run_test sysmix_tests
		run_test sqlite_perf_tests
	fi
	run_test wait_frames_tests
else
	skip "truth: periodic work, running and runnable, wait frames" "$WHY_NO_ATTACH"
fi
