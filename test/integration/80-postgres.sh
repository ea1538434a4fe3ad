# --- --pg-wait-events: PostgreSQL's wait event under the thread name ------

# A stand-in first (no PostgreSQL needed): fake_pg reports into a variable
# of its own for 400 ms, then moves its pointer to shared memory and runs
# 100 ms cycles of 60 ms on CPU and 40 ms "IO:WALSync" in nanosleep.
pg_fake_tests() {
	local out=$TMP/fpg.folded rc cpu wal init decoy agree_wal agree_cpu agree_init
	"$PP" --pg-wait-events -d 1ms -t 3s -- "$T/fake_pg" >"$out" 2>"$TMP/fpg.err"
	rc=$?
	cpu=$(share "$out" '^fake_pg;On CPU \(PostgreSQL state\);')
	wal=$(share "$out" '^fake_pg;event=IO:WALSync \(PostgreSQL state\);')
	init=$(share "$out" '^fake_pg;event=Activity:CheckpointerMain \(PostgreSQL state\);')
	decoy=$(share_str "$out" '0x0900ffff')
	agree_wal=$(share_of "$out" 'event=IO:WALSync' ';wait_phase;')
	agree_cpu=$(share_of "$out" 'On CPU \(PostgreSQL' ';cpu_phase')
	agree_init=$(share_of "$out" 'Activity:CheckpointerMain' ';initial_phase;')
	# each state under its phase, the decoy never read: function; the
	# shares against the stand-in's schedule: time
	# (3 s: 0.4 s in initial_phase, then 60/40 of the remaining 2.6 s)
	if [ $rc = 0 ] && [ "$decoy" = 0.0 ] && atleast "$agree_wal" 90 && atleast "$agree_cpu" 90 && atleast "$agree_init" 90; then
		pass "--pg-wait-events on a stand-in: Activity:CheckpointerMain ${init}% (before the pointer moves), On CPU ${cpu}%, IO:WALSync ${wal}%, the old variable never read after; each state under its phase in ${agree_init}/${agree_cpu}/${agree_wal}%"
	else fail "--pg-wait-events on a stand-in" "exit $rc; decoy ${decoy}% (0), agreement ${agree_init}/${agree_cpu}/${agree_wal}% (>= 90)" "$out"; fi
	if near "$init" 13 $TOL && near "$cpu" 52 $TOL && near "$wal" 35 $TOL; then
		pass "--pg-wait-events on a stand-in, the shares: CheckpointerMain ${init}% (13), On CPU ${cpu}% (52), IO:WALSync ${wal}% (35), within $TOL points"
	else tfail "--pg-wait-events on a stand-in: the shares" "CheckpointerMain ${init}% (13), On CPU ${cpu}% (52), WALSync ${wal}% (35), within $TOL points" "$out"; fi

	bad_input "--pg-wait-events with --ksuseopc" "do not go together" --pg-wait-events --ksuseopc 1 --ksusetim 2 -- "$T/fake_pg"
	if [ $CAN_ATTACH = 1 ]; then
		start "$T/fake_pg13"
		bad_input "--pg-wait-events on PostgreSQL 13" "runs PostgreSQL 13.11" -p "$TPID" --pg-wait-events -n 5
		# --pg-queries alone too (issue 31: it sampled on, exit 0, the
		# warning blaming --pg-wait-events)
		bad_input "--pg-queries on PostgreSQL 13" "--pg-wait-events and --pg-queries need PostgreSQL 14 or later" \
			-p "$TPID" --pg-queries -n 5
		if untouched "$TPID"; then pass "PostgreSQL 13 stand-in running and untraced after the refusal"
		else fail "PostgreSQL 13 stand-in after the refusal" "$(grep -E '^(State|TracerPid)' /proc/$TPID/status | tr '\n' ' ')"; fi
		stop_target "$TPID"
	else skip "--pg-wait-events on PostgreSQL 13" "$WHY_NO_ATTACH"; fi

	# Not a PostgreSQL process at all: a warning, once, and its frames say so.
	"$PP" --pg-wait-events -d 1ms -n 200 -- "$T/split" >"$TMP/nopg.folded" 2>"$TMP/nopg.err"
	rc=$?
	local warned nopg
	warned=$(grep -c 'is not a PostgreSQL 14+ server process' "$TMP/nopg.err")
	nopg=$(share "$TMP/nopg.folded" '^split;\[no PostgreSQL state\];')
	# every sample: the ticks due while it waited for the CPU our tick
	# took (capture.c's "waited") once had no state frame: 1 sample in
	# 200 beside a noisy neighbour, a R (runnable) one
	if [ $rc = 0 ] && [ "$warned" = 1 ] && [ "$nopg" = 100.0 ]; then
		pass "--pg-wait-events on a program that is no PostgreSQL server: one warning, every sample '[no PostgreSQL state]'"
	else
		fail "--pg-wait-events on a non-PostgreSQL program" "exit $rc, $warned warnings (1), ${nopg}% '[no PostgreSQL state]' (100)" "$TMP/nopg.err"
		grep -v '^split;\[no PostgreSQL state\];' "$TMP/nopg.folded" | cut -c1-300 | sed 's/^/    odd: /'
	fi
}
[ -n "${PG_PART:-}" ] || run_test pg_fake_tests

# --- a real PostgreSQL under pgbench ----------------------------------------
# A throwaway cluster in a temporary directory, no TCP (a unix socket
# there), stopped by pg_test_stop whatever happens.  TPC-B with 4 clients while
# the postmaster is profiled with --subprocesses; over the same window a
# PL/pgSQL procedure samples pg_stat_activity every 10 ms, committing
# between samples (the activity snapshot is taken once per transaction).
. scripts/pg_cluster.sh
PG_BENCH=
PG_BENCH2=
PG_STANDBY=
# The cluster and pgbench, whatever happens (EXIT trap and every return).
pg_test_stop() {
	if [ -n "$PG_BENCH" ]; then kill "$PG_BENCH" 2>/dev/null; wait "$PG_BENCH" 2>/dev/null; PG_BENCH=; fi
	if [ -n "$PG_BENCH2" ]; then kill "$PG_BENCH2" 2>/dev/null; wait "$PG_BENCH2" 2>/dev/null; PG_BENCH2=; fi
	pg_standby_stop
	pg_stop
}

# The standby of pg_replica_test, stopped as pg_stop stops a cluster.
pg_standby_stop() {
	[ -n "$PG_STANDBY" ] || return 0
	local pm
	pm=$(head -n 1 "$PG_STANDBY/data/postmaster.pid" 2>/dev/null)
	(cd "$PG_STANDBY" && runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PG_STANDBY/data" -m immediate -w -t 30 stop) >/dev/null 2>&1
	if [ -n "$pm" ] && kill -0 "$pm" 2>/dev/null; then
		# shellcheck disable=SC2046
		kill -KILL $(pgrep -P "$pm") "$pm" 2>/dev/null
	fi
	rm -rf "$PG_STANDBY"
	PG_STANDBY=
}

# pg_shares FILE: "name share" lines, heaviest first, from "name count" lines.
pg_shares() { awk '{ n[$1] += $2; t += $2 } END { for (k in n) printf "%s %.1f\n", k, 100 * n[k] / t }' "$1" | sort -k2,2nr -k1,1; }
# pg_share SHARES NAME: NAME's share, 0 if absent.
pg_share() { awk -v k="$2" '$1 == k { s = $2 } END { print s + 0 }' "$1"; }
# pg_shares_against MINE THEIRS TOL: the events among the five commonest
# of either shares file (pg_shares), each "NAME mine/theirs" in
# SHARES_SIDE, and those apart by more than TOL points in SHARES_APART.
pg_shares_against() {
	local name a b
	SHARES_SIDE= SHARES_APART=
	for name in $( (head -n 5 "$1"; head -n 5 "$2") | awk '{ print $1 }' | sort -u); do
		a=$(pg_share "$1" "$name")
		b=$(pg_share "$2" "$name")
		SHARES_SIDE="$SHARES_SIDE $name ${a}/${b}"
		near "$a" "$b" "$3" || SHARES_APART="$SHARES_APART $name"
	done
}

# pg_start_bench NAME PORT WHAT: a cluster (pg_start, $PG_CONF) with
# pgbench's tables; status 1, the failure said for WHAT and the cluster
# stopped, when it could not be had.
pg_start_bench() {
	if ! pg_start "$1" "$2" 2>"$TMP/$1-start.log"; then
		fail "$3" "$(tail -n 1 "$TMP/$1-start.log")"
		pg_test_stop
		return 1
	fi
	if ! "$PGBENCH" "${PG_CONN[@]}" -i -q postgres >"$TMP/$1-init.log" 2>&1; then
		fail "pgbench -i ($3)" "$(tail -n 1 "$TMP/$1-init.log")"
		pg_test_stop
		return 1
	fi
}

# pg_activity_sampler SECONDS LOG: pg_stat_activity sampled every 10 ms
# for SECONDS into pp_activity (pg_real_test's pp_sample, through $sql
# and $conn), in the background: its pid in PSA_PID.  Its backend at the
# profiler's priority: at nice 0 on a busy machine its samples come when
# the scheduler lets it run, not every 10 ms, and see the others at
# those moments only (on CPU more often, woken and not yet running
# less).  Both observers must tick on time.
pg_activity_sampler() {
	local i sampler=
	PGAPPNAME=pp_sampler "$sql" "${conn[@]}" -X -q -c "set synchronous_commit = off" \
		-c "call pp_sample($1)" postgres >"$2" 2>&1 &
	PSA_PID=$!
	for i in $(seq 50); do
		sampler=$("$sql" "${conn[@]}" -X -A -t -q -c "select pid from pg_stat_activity
			where application_name = 'pp_sampler'" postgres 2>/dev/null)
		[ -n "$sampler" ] && break
		sleep 0.02
	done
	[ -z "$sampler" ] || renice -n -20 -p "$sampler" >/dev/null 2>&1
}

# pg_real_test [other]: against $PGBIN's server (major $PGMAJOR); "other"
# leaves out the burst test (the profiler's, not the server's).
pg_real_test() {
	local sql="$PSQL" port=$((54320 + RANDOM % 600)) other=${1:-} secs=10
	# 10 s for Debian's major in the plain pass; 5 s (~2000 samples and
	# rows, the bound 1000) for the other majors and under the sanitizers,
	# whose code is 15's and whose time is short (CI's 25 minutes)
	if [ -n "$other" ] || [ "$SANITIZED" = 1 ]; then secs=5; fi
	PG_CONF="shared_buffers = 16MB
max_connections = 20
fsync = on
synchronous_commit = on"
	pg_start_bench pp_pg "$port" "PostgreSQL cluster" || return
	local PG_PM=$PG_POSTMASTER conn=("${PG_CONN[@]}")
	"$sql" "${conn[@]}" -X -q -v ON_ERROR_STOP=1 postgres >"$TMP/pgsetup.log" 2>&1 <<'EOF' ||
CREATE UNLOGGED TABLE pp_activity (n int, wtype text, wevent text, state text);
CREATE PROCEDURE pp_sample(seconds float8) LANGUAGE plpgsql AS $$
DECLARE
	stop timestamptz := clock_timestamp() + seconds * interval '1 second';
	n int := 0;
BEGIN
	WHILE clock_timestamp() < stop LOOP
		n := n + 1;
		INSERT INTO pp_activity
			SELECT n, wait_event_type, wait_event, state FROM pg_stat_activity
			WHERE backend_type = 'client backend' AND application_name = 'pgbench';
		COMMIT;
		PERFORM pg_sleep(0.01);
	END LOOP;
END $$;
EOF
		{ fail "pg_stat_activity sampler" "$(tail -n 1 "$TMP/pgsetup.log")"; pg_test_stop; return; }
	# -T is an upper bound: pg_test_stop ends it.
	"$PGBENCH" "${conn[@]}" -c 4 -j 2 -T 60 postgres >"$TMP/pgbench.log" 2>&1 &
	PG_BENCH=$!
	local backends
	if ! backends=$(pg_clients 4 "application_name = 'pgbench' AND backend_type = 'client backend'"); then
		fail "pgbench backends" "not 4 in pg_stat_activity: $(tail -n 1 "$TMP/pgbench.log")"
		pg_test_stop
		return
	fi
	sleep 1 # past the first transactions

	"$PP" -p "$PG_PM" --subprocesses --pg-wait-events -d 10ms -t "${secs}s" -o "$TMP/pg.folded" 2>"$TMP/pg.err" &
	local pp=$!
	sched_running "$TMP/pg.sched" 0.5 $((secs - 1)) $backends &
	local schedr=$!
	pg_activity_sampler "$secs" "$TMP/pgcall.log"
	local psa=$PSA_PID
	wait $psa
	local sampled=$?
	wait $pp
	local rc=$?
	wait $schedr
	"$sql" "${conn[@]}" -X -A -t -F ' ' -c "select coalesce(wtype || ':' || wevent, 'CPU'), count(*)
		from pp_activity group by 1" postgres >"$TMP/psa.counts" 2>>"$TMP/pgcall.log"
	local snapshots
	snapshots=$("$sql" "${conn[@]}" -X -A -t -c "select count(distinct n) from pp_activity" postgres 2>/dev/null)
	# every process of the instance running on, untraced, after the run
	local p traced=0
	for p in "$PG_PM" $(pgrep -P "$PG_PM"); do
		untouched "$p" || { [ -e "/proc/$p" ] && traced=$((traced + 1)); } # (not one that just ended)
	done
	[ -n "$other" ] || run_test pg_running_test "$backends"
	[ -n "$other" ] || run_test pg_reads_test "$backends" "$sql"
	[ -n "$other" ] || run_test pg_churn_test
	[ -n "$other" ] || run_test pg_few_descriptors_test
	[ -n "$other" ] || run_test pg_soak_test
	run_test pg_late_backend_test "$sql"
	[ -n "$other" ] || run_test pg_burst_test "$sql"
	pg_test_stop

	# The profile's view of the same backends: their state frame.
	# backend pids as an awk regular expression (through ENVIRON: as is)
	local re
	re="^postgres\\[($(echo "$backends" | paste -sd'|'))\\] client backend"
	RE=$re awk '$0 ~ ENVIRON["RE"] {
		split($0, f, ";"); s = f[2]
		if (s == "On CPU (PostgreSQL state)") s = "CPU"
		else { sub(/^event=/, "", s); sub(/ \(PostgreSQL state\)$/, "", s) }
		print s, $NF }' "$TMP/pg.folded" >"$TMP/pp.counts"
	pg_shares "$TMP/pp.counts" >"$TMP/pp.shares"
	pg_shares "$TMP/psa.counts" >"$TMP/psa.shares"
	# Never another process's words (issue 40): pgbench's backends never
	# sleep in pg_sleep nor wait in a background process's main loop; the
	# pp_sampler session sleeps in pg_sleep all along, beside them.
	# Every sample of theirs has its state frame (an event, or On CPU):
	# one without is a moment whose words we did not read.
	local foreign noev noev_max
	foreign=$(awk '$1 ~ /^(Timeout:PgSleep|Activity:)/ { t += $2 } END { print t + 0 }' "$TMP/pp.counts")
	noev=$(awk '{ t += $2 } $1 != "CPU" && $1 !~ /^[A-Za-z]+:/ { n += $2 }
		END { printf "%.2f", t ? 100 * n / t : 0 }' "$TMP/pp.counts")
	noev_max=$(pick 1 0.2)
	if [ "$foreign" = 0 ]; then
		pass "PostgreSQL $PGMAJOR: pgbench backends beside a pg_sleep session: no sample with another process's wait event (Timeout:PgSleep, Activity:*)"
	else
		# (the samples themselves, for whoever looks into it: root, state,
		# stack; seen once in many runs, PostgreSQL 14, 2026-12-06)
		RE=$re awk '$0 ~ ENVIRON["RE"] && /;event=(Timeout:PgSleep|Activity:)/' "$TMP/pg.folded" >"$TMP/pg.foreign"
		fail "PostgreSQL $PGMAJOR: pgbench backends beside a pg_sleep session" "$foreign samples with another process's wait event (0)" "$TMP/pg.foreign"
	fi
	if atleast "$noev_max" "$noev"; then
		pass "PostgreSQL $PGMAJOR: pgbench backends' samples without a wait-event frame ${noev}% (<= $noev_max%)"
	else tfail "PostgreSQL $PGMAJOR: pgbench backends' samples without a wait-event frame" "${noev}% (<= $noev_max%)" "$TMP/pp.counts"; fi
	pg_shares_against "$TMP/pp.shares" "$TMP/psa.shares" $TOL
	local bad=$SHARES_APART side=$SHARES_SIDE
	local pp_n psa_n read_n read_ok sync_n sync_ok aux read_min
	read_min=$(pick 90 97)
	pp_n=$(total "$TMP/pp.counts")
	psa_n=$(awk '{ t += $2 } END { print t + 0 }' "$TMP/psa.counts")
	# The wait event and the stack must agree.  A tick that saw a backend
	# in its wait but whose stack could only be caught after it woke
	# (decide.h, stop_shows_blocked_tick) has no user frames: it cannot
	# disagree, and is counted apart (below, read_whole).
	# (the frame after the event is the OS state, the user frames follow)
	with_user() { awk '{ n = split($0, f, ";"); for (i = 1; i < n; i++) if (f[i] ~ /^event=/) break
		if (i + 2 <= n && f[i + 2] !~ /_\[k\]( [0-9]+)?$/) print }' "$1"; }
	local read_all
	read_all=$(RE="$re.*;event=Client:ClientRead " awk '$0 ~ ENVIRON["RE"] { t += $NF } END { print t + 0 }' "$TMP/pg.folded")
	with_user "$TMP/pg.folded" >"$TMP/pg.user.folded"
	read_n=$(RE="$re.*;event=Client:ClientRead " awk '$0 ~ ENVIRON["RE"] { t += $NF } END { print t + 0 }' "$TMP/pg.user.folded")
	read_ok=$(share_of "$TMP/pg.user.folded" "$re.*;event=Client:ClientRead " ';(secure_read|pq_getbyte|pq_recvbuf);')
	# (IO:WALSync up to 16, IO:WalSync from 17)
	sync_n=$(awk '/;event=IO:W(AL|al)Sync / { t += $NF } END { print t + 0 }' "$TMP/pg.user.folded")
	sync_ok=$(share_of "$TMP/pg.user.folded" ';event=IO:W(AL|al)Sync ' ';(XLogFlush|issue_xlog_fsync|fdatasync);')
	aux=$(grep -c -e ';event=Activity:CheckpointerMain ' -e ';event=Activity:WalWriterMain ' -e ';event=Activity:BgWriter' "$TMP/pg.folded")
	local pp_top psa_top
	pp_top=$(head -n 6 "$TMP/pp.shares" | awk '{ printf "%s%s %s%%", (NR > 1 ? ", " : ""), $1, $2 }')
	psa_top=$(head -n 6 "$TMP/psa.shares" | awk '{ printf "%s%s %s%%", (NR > 1 ? ", " : ""), $1, $2 }')
	# the shares against the view's are time (tfail); the rest, function
	if [ -z "$bad" ]; then pass "PostgreSQL $PGMAJOR wait events' shares against pg_stat_activity's (within $TOL points):$side"
	else tfail "PostgreSQL $PGMAJOR wait events' shares against pg_stat_activity's" "apart by more than $TOL points:$bad ($side)" "$TMP/pg.folded"; fi
	# the event under its functions, the instance untraced: function; how
	# many samples and rows the run gave, how many waits were caught with
	# their stack: time
	if [ $rc = 0 ] && [ $sampled = 0 ] && [ "$pp_n" -gt 0 ] && [ "$psa_n" -gt 0 ] &&
		{ [ "$read_n" = 0 ] || atleast "$read_ok" "$read_min"; } && { [ "$sync_n" = 0 ] || atleast "$sync_ok" 90; } &&
		[ "$aux" -ge 1 ] && [ $traced = 0 ]; then
		pass "PostgreSQL $PGMAJOR, pgbench -c 4, $secs s: client backends' top events, profile/pg_stat_activity:$side; profile [$pp_top] ($pp_n samples), pg_stat_activity [$psa_top] ($psa_n rows, $snapshots snapshots); Client:ClientRead under secure_read/pq_getbyte in ${read_ok}% of $read_n with a user stack (of $read_all), IO:WALSync under XLogFlush/issue_xlog_fsync/fdatasync in ${sync_ok}% of $sync_n; checkpointer/walwriter/bgwriter states present; the instance untraced after"
	else
		fail "PostgreSQL $PGMAJOR wait events against pg_stat_activity" "profiler exit $rc, sampler exit $sampled; profile [$pp_top] ($pp_n samples), pg_stat_activity [$psa_top] ($psa_n rows); ClientRead under its functions ${read_ok}% of $read_n with a user stack (>= $read_min%), WALSync ${sync_ok}% of $sync_n (>= 90%); auxiliary process states: $aux lines; $traced processes left traced or stopped" "$TMP/pg.folded"
		tail -n 3 "$TMP/pgcall.log" "$TMP/pg.err" 2>/dev/null | sed 's/^/    /'
	fi
	# Of all its ClientRead samples, how many show secure_read: the peek
	# at once after the look keeps the stack of all but the waits that
	# ended within microseconds of it (round.h); peeked after the
	# round's stops, 82-86 %.
	local read_whole read_whole_min
	read_whole=$(awk -v ok="$read_ok" -v n="$read_n" -v all="$read_all" 'BEGIN { printf "%.1f", all ? ok * n / all : 0 }')
	read_whole_min=$(pick 85 97)
	if [ "$pp_n" -ge 1000 ] && [ "$psa_n" -ge 1000 ] && [ "$read_n" -ge 50 ] && [ "$sync_n" -ge 5 ] &&
		atleast "$read_whole" "$read_whole_min"; then
		pass "PostgreSQL $PGMAJOR, pgbench -c 4, $secs s, the counts: $pp_n samples, $psa_n pg_stat_activity rows (>= 1000 each), ClientRead $read_all, under secure_read ${read_whole}% of them (>= $read_whole_min%), WALSync $sync_n (>= 5)"
	else tfail "PostgreSQL $PGMAJOR wait events: samples and rows" "profile $pp_n samples, pg_stat_activity $psa_n rows (>= 1000 each); ClientRead with a user stack $read_n (>= 50) of $read_all, under secure_read ${read_whole}% of them (>= $read_whole_min%); WALSync with a user stack $sync_n (>= 5)" "$TMP/pg.folded"; fi
}

# A blocking wait's kernel frames (the call's sleep): a backend's running
# sample in one says it was on a CPU while it slept.  A kernel that
# preempts system calls shows the timer interrupt's return in a running
# sample's frames, where the tick found it: those are not counted.
PG_WAIT_FRAMES=';(do_epoll_wait|ep_poll|futex_wait|futex_do_wait|futex_wait_queue|folio_wait_bit|folio_wait_bit_common|submit_bio_wait|schedule_hrtimeout_range|schedule_hrtimeout_range_clock|do_nanosleep|do_select|do_sys_poll|wait_woken|sk_wait_data|io_schedule|wait_for_completion)_\[k\]'
# pg_wait_running FILE RE: % of the running samples of the roots RE
# matches that carry a blocking wait's kernel frames.
pg_wait_running() {
	RE=$2 W=$PG_WAIT_FRAMES awk '$0 ~ ENVIRON["RE"] && /;R \(running\);/ && !/;(asm_sysvec_|irqentry_exit)/ {
		t += $NF; if ($0 ~ ENVIRON["W"]) w += $NF }
		END { printf "%.2f", t ? 100 * w / t : 0 }' "$1"
}

# sched_running OUT DELAY SPAN PID...: each PID's share of the wall time
# on a CPU by its schedstat, from DELAY s on for SPAN s (the seconds a
# profiler started with it samples, not its start nor its naming after):
# "PID SHARE" lines in OUT, "PID -" for one that ended.
sched_running() {
	local out=$1 delay=$2 span=$3 b t0 t1
	shift 3
	local -A r0 r1
	sleep "$delay"
	for b in "$@"; do read -r r0[$b] _ <"/proc/$b/schedstat" || r0[$b]=; done
	t0=$(date +%s%N)
	sleep "$span"
	for b in "$@"; do read -r r1[$b] _ <"/proc/$b/schedstat" || r1[$b]=; done
	t1=$(date +%s%N)
	for b in "$@"; do
		if [ -z "${r0[$b]}" ] || [ -z "${r1[$b]}" ]; then echo "$b -"; continue; fi
		awk -v b="$b" -v r=$((r1[$b] - r0[$b])) -v w=$((t1 - t0)) 'BEGIN { printf "%s %.1f\n", b, 100 * r / w }'
	done >"$out"
}

# running_against_sched FOLDED SCHED: per backend of SCHED (sched_running),
# "PID PROFILE SCHEDSTAT SAMPLES" - its R (running) share in FOLDED.
running_against_sched() {
	local b run_t run_p
	while read -r b run_t; do
		grep "^postgres\[$b\] " "$1" >"$1.$b"
		run_p=$(share "$1.$b" ';R .running.;')
		echo "$b $run_p $run_t $(total "$1.$b")"
	done <"$2"
}

# The pgbench backends on a CPU in their samples as their schedstat says
# (issue 41): each backend's R (running) share against the time its
# schedstat counts on a CPU.  At 1 ms (5 s, 5000 samples a backend) each
# backend's; at 10 ms (the main run, 1000 a backend: a share's sampling
# error alone is 1.4 points) the four backends' mean.  And, in both runs,
# none of their running samples in a blocking wait's kernel frames.
# Measured: 0.1 to 2.0 points over schedstat at 1 ms, -4.4 to +4.4 for a
# backend at 10 ms (their mean within 1.5).  make truth holds the issue's
# 2.5 points, make check 5.
pg_running_test() {
	local backends=$1 b line="" ok=1 tol max rc n run_p run_t sum_p=0 sum_t=0 k=0
	if timing_only "PostgreSQL backends on a CPU against their schedstat"; then return; fi
	tol=$(pick 5 2.5)
	max=1
	"$PP" -p "$PG_PM" --subprocesses -d 1ms -t 5s -o "$TMP/pgrun.folded" 2>"$TMP/pgrun.err" &
	local pp=$!
	sched_running "$TMP/pgrun.sched" 0.5 4 $backends
	wait $pp
	rc=$?
	while read -r b run_p run_t n; do
		[ "$run_t" != - ] && [ "$n" -ge 2000 ] && near "$run_p" "$run_t" "$tol" || ok=0
		line="$line $b: ${run_p}% (schedstat ${run_t}%) of $n;"
	done < <(running_against_sched "$TMP/pgrun.folded" "$TMP/pgrun.sched")
	if [ $rc = 0 ] && [ $ok = 1 ]; then
		pass "PostgreSQL $PGMAJOR, pgbench -c 4, -d 1ms: each backend's running share within $tol points of its schedstat:$line"
	else tfail "PostgreSQL $PGMAJOR, pgbench -c 4, -d 1ms: backends' running share" "within $tol points of schedstat, profiler exit $rc:$line" "$TMP/pgrun.folded"; fi
	line="" ok=1
	while read -r b run_p run_t n; do
		[ "$run_t" != - ] && [ "$n" -ge 500 ] || ok=0
		line="$line $b: ${run_p}% (schedstat ${run_t}%) of $n;"
		sum_p=$(awk -v a="$sum_p" -v b="$run_p" 'BEGIN { print a + b }')
		sum_t=$(awk -v a="$sum_t" -v b="${run_t/-/0}" 'BEGIN { print a + b }')
		k=$((k + 1))
	done < <(running_against_sched "$TMP/pg.folded" "$TMP/pg.sched")
	local mean_p mean_t
	mean_p=$(awk -v a="$sum_p" -v k="$k" 'BEGIN { printf "%.1f", k ? a / k : 0 }')
	mean_t=$(awk -v a="$sum_t" -v k="$k" 'BEGIN { printf "%.1f", k ? a / k : 0 }')
	if [ "$k" = 4 ] && [ $ok = 1 ] && near "$mean_p" "$mean_t" "$tol"; then
		pass "PostgreSQL $PGMAJOR, pgbench -c 4, -d 10ms: the backends' mean running share ${mean_p}% within $tol points of schedstat's ${mean_t}%:$line"
	else tfail "PostgreSQL $PGMAJOR, pgbench -c 4, -d 10ms: the backends' mean running share" "${mean_p}% within $tol points of schedstat's ${mean_t}%:$line" "$TMP/pg.folded"; fi
	local re wait1 wait10
	re="^postgres\\[($(echo "$backends" | paste -sd'|'))\\] client backend"
	wait1=$(pg_wait_running "$TMP/pgrun.folded" "$re")
	wait10=$(pg_wait_running "$TMP/pg.folded" "$re")
	if [ $rc = 0 ] && atleast "$max" "$wait1" && atleast "$max" "$wait10"; then
		pass "PostgreSQL $PGMAJOR, pgbench -c 4: backends' running samples in a blocking wait's kernel frames ${wait1}% at 1 ms, ${wait10}% at 10 ms (<= $max%)"
	else fail "PostgreSQL $PGMAJOR, pgbench -c 4: backends' running samples in a blocking wait's kernel frames" "${wait1}% at 1 ms, ${wait10}% at 10 ms (<= $max%)" "$TMP/pgrun.folded"; fi
}

# The report's reads (issue 33): under --max-overhead 1% at -d 1ms the
# rounds are spaced to a few a second, and each process's wait event is
# read between them without a stop, for the report's chart (activity.h).
# The pgbench backends' events in the file's reads (D.R) against
# pg_stat_activity sampled alongside, how many reads a second a backend
# got (more than the rounds' samples), and our CPU within the bound; and
# that the words were read through one process (pgprocs.h), a call a
# tick, not one call each.  Measured here: 30-54 reads a second a backend
# when each process was read its own way, 118 when read through one (a
# read tick of 10 processes 67-68 us of our CPU on this VM, a wake-up
# ~45 of it, the one call ~22), 5-6 rounds a second, 0.55-0.81 % of the
# machine.  Each event within 4.7 points; ClientRead 1-8 under the
# view's, which is the view's own doing: its sampler's work before each
# snapshot takes a CPU from the others (2 ms of busy loop there moved its
# CPU share from 24.5 to 16.8 % and its ClientRead up 2 points, our reads
# unmoved at 28-30 % CPU).  A light observer of the backends' own words
# (build/test/pg_status -w: their memory read every ms, no SQL) agreed
# with our reads (CPU 28.1-28.9 against 27.4-29.0, Client 15.6-16.2
# against 16.4-16.5) where the view said CPU 21.9-25.3, Client 21.5-22.8.
# So the promised figure (make truth: 4 points) is against the words,
# and the view, a sanity check of the events' names and rough shares,
# within 12: on 2026-12-07 it read ClientRead 7.6-8.5 points over the
# words and our reads (three runs; 8 missed a first try twice in three
# and a landing would sink on two misses).
pg_reads_test() {
	local backends=$1 sql=$2 out=$TMP/pgreads.html pp rc tol cpu_max
	# (under the sanitizers too: the reads' memory, against a real
	# server; the figures are time, noted there and not judged)
	if ! command -v python3 >/dev/null; then
		skip "PostgreSQL report's reads against pg_stat_activity" "python3 is needed"
		return
	fi
	local words words_tol
	tol=$((TOL + 4)) # the view's own sampling moves its shares (above)
	words_tol=$(pick $TOL 4)
	cpu_max=$(pick 1.5 1.2)
	"$sql" "${conn[@]}" -X -q -c "TRUNCATE pp_activity" postgres >/dev/null 2>&1
	"$PP" -p "$PG_PM" --subprocesses --pg-wait-events --pg-queries -d 1ms --max-overhead 1% -t 6s -v \
		-o "$out" 2>"$TMP/pgreads.err" &
	pp=$!
	# the backends' own words, read every ms by a light observer of their
	# memory (no ptrace, no SQL), real-time where it may be
	local -a chrt=()
	! command -v chrt >/dev/null || chrt=(chrt -f 1)
	"${chrt[@]}" "$PGS" -w -n 5000 -i 1 $backends >"$TMP/pgreads-words.txt" 2>&1 &
	words=$!
	pg_activity_sampler 6 "$TMP/pgreads-call.log"
	wait "$PSA_PID"
	wait $words
	wait $pp
	rc=$?
	awk -F '\t' 'NF == 3 { n[$3]++ } END { for (k in n) print k, n[k] }' "$TMP/pgreads-words.txt" \
		>"$TMP/pgreads-words.counts"
	"$sql" "${conn[@]}" -X -A -t -F ' ' -c "select coalesce(wtype || ':' || wevent, 'CPU'), count(*)
		from pp_activity group by 1" postgres >"$TMP/pgreads-psa.counts" 2>>"$TMP/pgreads-call.log"
	# the backends' reads by event, and a backend's fewest reads a second
	local rates
	rates=$(BACKENDS="$(echo $backends)" PYTHONPATH=test/tools python3 - "$out" "$TMP/pgreads.counts" <<'PY'
import os, sys, report_data
d = report_data.load(sys.argv[1])
V, R, RK = d['values'], d.get('R', []), d.get('RK', [])
mine = set(os.environ['BACKENDS'].split())
events, per = {}, dict((b, 0) for b in mine)
for i in range(0, len(R), 3):
    if R[i + 1] < 0:
        continue
    k = 5 * R[i + 1]
    proc = V[RK[k + 2]]
    pid = proc.split('[', 1)[1].split(']', 1)[0] if '[' in proc else ''
    if pid in mine:
        events[V[RK[k]]] = events.get(V[RK[k]], 0) + R[i + 2]
        per[pid] += R[i + 2]
with open(sys.argv[2], 'w') as f:
    for e, n in events.items():
        f.write('%s %d\n' % (e, n))
secs = d['duration_ns'] / 1e9
# the backends' stack samples (their threads: "postgres (tid PID)")
theirs = set(i for i, t in enumerate(d['threads']) if t.split('(tid ')[-1].rstrip(')') in mine)
samples = sum(1 for i in range(3, len(d['S']), 4) if d['S'][i] in theirs)
print('%.0f %.1f' % (min(per.values()) / secs if per else 0, samples / secs / max(len(mine), 1)))
PY
)
	local reads_s=${rates% *} samples_s=${rates#* } cpu
	cpu=$(sed -n 's/.*profiler CPU.* \([0-9.]*\)% of the machine.*/\1/p' "$TMP/pgreads.err")
	pg_shares "$TMP/pgreads.counts" >"$TMP/pgreads.shares"
	pg_shares "$TMP/pgreads-words.counts" >"$TMP/pgreads-words.shares"
	pg_shares_against "$TMP/pgreads.shares" "$TMP/pgreads-words.shares" "$words_tol"
	local words_bad=$SHARES_APART words_side=$SHARES_SIDE
	pg_shares "$TMP/pgreads-psa.counts" >"$TMP/pgreads-psa.shares"
	pg_shares_against "$TMP/pgreads.shares" "$TMP/pgreads-psa.shares" "$tol"
	local bad=$SHARES_APART side=$SHARES_SIDE
	local line="${reads_s:-?} reads a second a backend (the fewest), ${samples_s:-?} stack samples a second a backend; our CPU ${cpu:-?}% of the machine; reads/pg_stat_activity:$side"
	local statements
	statements=$(grep -c '"query=' "$out")
	if [ $rc = 0 ] && [ -n "$reads_s" ] && [ "$reads_s" != 0 ] && [ "${statements:-0}" -gt 0 ]; then
		pass "PostgreSQL $PGMAJOR, -d 1ms --max-overhead 1% --pg-queries: exit 0, every backend's wait event and statement read"
	else fail "PostgreSQL $PGMAJOR, -d 1ms --max-overhead 1% --pg-queries: the report's reads" "exit $rc, reads a second a backend ${reads_s:-none}, statement frames in the file: ${statements:-0}" "$TMP/pgreads.err"; fi
	local reads_min
	reads_min=$(pick 15 25)
	if [ -n "$reads_s" ] && atleast "$reads_s" "$reads_min" && awk -v r="$reads_s" -v s="$samples_s" 'BEGIN { exit !(r > 2 * s) }' &&
		[ -n "$cpu" ] && atleast "$cpu_max" "$cpu"; then
		pass "PostgreSQL $PGMAJOR, -d 1ms --max-overhead 1%: the report reads every backend's wait event between its spaced rounds: $line"
	else tfail "PostgreSQL $PGMAJOR, -d 1ms --max-overhead 1%: the report's reads" ">= $reads_min a second a backend, over twice the samples, CPU <= $cpu_max%: $line" "$TMP/pgreads.counts"; fi
	local through own
	through=$(sed -n "s/.*report's reads .* \([0-9]*\) through one process.*/\1/p" "$TMP/pgreads.err")
	own=$(sed -n "s/.*report's reads .* \([0-9]*\) each its own way.*/\1/p" "$TMP/pgreads.err")
	if [ -n "$through" ] && [ -n "$own" ] && [ "$through" -gt $((4 * own)) ]; then
		pass "PostgreSQL $PGMAJOR report's reads: $through wait words read through one process, $own each its own way"
	else fail "PostgreSQL $PGMAJOR report's reads through one process" "$through read so, $own each its own way (through > 4 x own)" "$TMP/pgreads.err"; fi
	if [ -s "$TMP/pgreads-words.counts" ] && [ -z "$words_bad" ]; then pass "PostgreSQL $PGMAJOR report's reads: the backends' events within $words_tol points of their own words read every ms beside us:$words_side"
	else tfail "PostgreSQL $PGMAJOR report's reads against the backends' own words" "apart by more than $words_tol points:${words_bad:- no words read} ($words_side)" "$TMP/pgreads-words.counts"; fi
	if [ -z "$bad" ]; then pass "PostgreSQL $PGMAJOR report's reads: the backends' events within $tol points of pg_stat_activity's:$side"
	else tfail "PostgreSQL $PGMAJOR report's reads against pg_stat_activity" "apart by more than $tol points:$bad ($side)" "$TMP/pgreads.counts"; fi
}

# Clients without a pool (pgbench -C: a backend per transaction, tens a
# second) under --subprocesses --pg-wait-events: a backend seized as it
# exits has no PostgreSQL state to read, and is counted without one - no
# line on stderr for each (issue 30: 527 of 590 lines in a minute).
pg_churn_test() {
	local name="PostgreSQL $PGMAJOR, pgbench -C -c 4 (a backend per transaction), 6 s"
	"$PGBENCH" "${PG_CONN[@]}" -n -C -c 4 -j 2 -T 30 postgres >"$TMP/pgc.log" 2>&1 &
	local bench=$!
	sleep 0.5
	"$PP" -p "$PG_PM" --subprocesses --pg-wait-events -d 10ms -t 6s -o "$TMP/pgc.folded" 2>"$TMP/pgc.err"
	local rc=$?
	kill $bench 2>/dev/null
	wait $bench 2>/dev/null
	local lines seized clients
	lines=$(grep -vc -e '^  ' -e '^ptrace_profiler: [0-9]* processes, ' "$TMP/pgc.err")
	seized=$(sed -n 's/^  subprocesses *\([0-9]*\) seized.*/\1/p' "$TMP/pgc.err")
	clients=$(grep ' client backend;' "$TMP/pgc.folded" | total /dev/stdin)
	if [ $rc = 0 ] && [ "${seized:-0}" -ge 20 ] && [ "$clients" -gt 0 ] && [ "$lines" -le 2 ]; then
		pass "$name: exit 0, ${seized} processes seized, $clients client-backend samples, $lines lines on stderr besides the summary (<= 2)"
	else fail "$name" "exit $rc, ${seized:-no} processes seized (>= 20), $clients client-backend samples, $lines lines on stderr besides the summary (<= 2)" "$TMP/pgc.err"; fi
}

# The same churn with 120 descriptors (ulimit -n 120, soft and hard: our
# own raise to the hard limit cannot help).  A backend whose program we
# had no descriptor left to open was called "not a PostgreSQL 14+ server
# process", a line each (124 in 10 s).  Now the shortage is said once
# with the limit, counted in the summary, never blamed on the process;
# every window is written (descriptors kept aside for it) and the middle
# ones hold client backends (issue 30).
pg_few_descriptors_test() {
	local name="PostgreSQL $PGMAJOR, pgbench -C under ulimit -n 120, --period 2s"
	local dir=$TMP/pgfd rc windows said blamed empty=0 f n=0 k
	mkdir -p "$dir"
	"$PGBENCH" "${PG_CONN[@]}" -n -C -c 4 -j 2 -T 30 postgres >"$TMP/pgfd.log" 2>&1 &
	local bench=$!
	sleep 0.5
	(ulimit -n 120 && exec "$PP" -p "$PG_PM" --subprocesses --pg-wait-events -d 10ms -t 6s \
		--period 2s -o "$dir/w.folded") 2>"$TMP/pgfd.err"
	rc=$?
	kill $bench 2>/dev/null
	wait $bench 2>/dev/null
	windows=$(find "$dir" -name 'w.*.folded' | wc -l)
	said=$(grep -c '^ptrace_profiler: out of descriptors (ulimit -n 120): ' "$TMP/pgfd.err")
	blamed=$(grep -c 'not a PostgreSQL' "$TMP/pgfd.err")
	for f in $(find "$dir" -name 'w.*.folded' | sort); do
		n=$((n + 1))
		k=$(grep ' client backend;' "$f" | total /dev/stdin)
		[ "$n" = 1 ] || [ "$n" = "$windows" ] || [ "$k" -gt 0 ] || empty=$((empty + 1))
	done
	if [ $rc = 0 ] && [ "$windows" -ge 3 ] && [ "$said" = 1 ] && [ "$blamed" = 0 ] && [ $empty = 0 ] &&
		grep -q '^  descriptors  *out at 120 (ulimit -n): [0-9]* process' "$TMP/pgfd.err"; then
		pass "$name: exit 0, the shortage said once with the limit and in the summary, no process called not PostgreSQL, $windows windows written, the middle ones with client backends"
	else fail "$name" "exit $rc, $windows windows (>= 3), $empty middle ones without client backends, shortage said $said times (1), $blamed processes called not PostgreSQL (0)" "$TMP/pgfd.err"; fi
}

# Half a minute of the same churn under --period, as a fleet runs it: what
# we hold must stay flat (issue 30).  Each ended backend's program, slot
# and record were kept to the end: RSS 45 -> 282 MB in 40 s, and after
# 4096 processes new backends were no longer followed (blind windows).
# Now they are let go once their window is written (retire.h).  Our RSS
# and descriptors are read every second; at the end within 1.3 times
# (+5 MB) and +50 of their reading at 10 s, every window but the first
# and last with client-backend samples, at most 40 lines on stderr.  (It
# ran 65 s under --period 10s, judged from 25 s, then 36 s under 6 s:
# CI's time; the old leak showed in seconds, today's build grows 2-5 MB
# of ~57 MB either way.)
# In the sanitizer's pass (memory, not time) a shorter run: ASan's
# quarantine grows our resident set, which is judged in the plain pass.
pg_soak_test() {
	local secs=24 period=4s from=10 want=5
	[ "$SANITIZED" = 1 ] && secs=12 period=3s from=6 want=3
	local name="PostgreSQL $PGMAJOR, pgbench -C -c 4 under --period $period for $secs s"
	local dir=$TMP/pgsoak rc windows empty=0 f n=0 k lines
	mkdir -p "$dir/w"
	"$PGBENCH" "${PG_CONN[@]}" -n -C -c 4 -j 2 -T 100 postgres >"$TMP/pgsoak.log" 2>&1 &
	local bench=$!
	sleep 0.5
	"$PP" -p "$PG_PM" --subprocesses --pg-wait-events --period "$period" -t "${secs}s" \
		-o "$dir/w/w.folded" 2>"$TMP/pgsoak.err" &
	local pp=$!
	readings $pp "$dir/readings"
	wait $pp
	rc=$?
	kill $bench 2>/dev/null
	wait $bench 2>/dev/null
	windows=$(find "$dir/w" -name 'w.*.folded' | wc -l)
	for f in $(find "$dir/w" -name 'w.*.folded' | sort); do
		n=$((n + 1))
		k=$(grep ' client backend;' "$f" | total /dev/stdin)
		[ "$n" = 1 ] || [ "$n" = "$windows" ] || [ "$k" -gt 0 ] || empty=$((empty + 1))
	done
	lines=$(wc -l <"$TMP/pgsoak.err")
	local seized flat r0 r1 d0 d1
	read -r flat r0 r1 d0 d1 < <(flat_since "$dir/readings" $from)
	seized=$(sed -n 's/^  subprocesses *\([0-9]*\) seized.*/\1/p' "$TMP/pgsoak.err")
	[ "$SANITIZED" = 1 ] && flat=1 # (ASan's own memory: not judged)
	local got="exit $rc, ${seized:-no} processes seized, RSS ${r0:-?} kB at $from s and ${r1:-?} kB at the end (<= 1.3x + 5 MB), descriptors ${d0:-?} and ${d1:-?} (<= +50)$([ "$SANITIZED" = 1 ] && echo ' (memory not judged under ASan)'), $windows windows (>= $want), $empty middle ones without client backends, $lines lines on stderr (<= 40)"
	if [ $rc = 0 ] && [ -n "$r0" ] && [ "$flat" = 1 ] && [ "$windows" -ge $want ] && [ $empty = 0 ] &&
		[ "$lines" -le 40 ]; then
		pass "$name: $got"
	else fail "$name" "$got" "$dir/readings"; fi
}

# A backend that serves a 2-3 ms query 50 times a second (pgbench -R 50):
# on a CPU some 10 % of its time, in bursts between ClientReads.  At -d
# 100us the profile said 2-7 % running where schedstat said 10-13 %
# (issue 20).  Its schedstat is read here, around the profiler's run.
pg_burst_test() {
	local sql=$1 q=$PG_WORK/burst.sql be= i d r0 r1 t0 t1 run_t run_p n warned ok=1 line="" tol
	# nothing but time: not the sanitizer pass's
	if timing_only "a PostgreSQL backend in bursts"; then return; fi
	# (make truth's 2.5 points, as issue 41 asks; make check's 5 as
	# pg_running_test's: at 100 us this day's host read 3.1-3.7 under,
	# in five tries of eight)
	tol=$(pick 5 2.5)
	echo "select count(*) from pgbench_accounts where aid < 30000;" >"$q"
	chmod 644 "$q"
	PGAPPNAME=pp_burst "$PGBENCH" "${PG_CONN[@]}" -n -c 1 -R 50 -T 60 -f "$q" postgres >"$TMP/pgb.log" 2>&1 &
	PG_BENCH=$!
	be=$(pg_clients 1 "application_name = 'pp_burst'") && [ -r "/proc/$be/schedstat" ] || be=
	if [ -z "$be" ]; then
		fail "a PostgreSQL backend in bursts" "no pgbench backend: $(tail -n 1 "$TMP/pgb.log")"
		return
	fi
	sleep 1
	for d in 100us 1ms; do
		# its schedstat over the 3 s the profiler samples (not its start
		# nor its naming after: the backend is not disturbed then)
		r0=0 r1=0
		"$PP" -p "$be" -d "$d" -t 3s -o "$TMP/pgb.$d.folded" 2>"$TMP/pgb.$d.err" &
		local pp=$!
		read -r r0 _ </proc/"$be"/schedstat
		t0=$(date +%s%N)
		sleep 3
		read -r r1 _ </proc/"$be"/schedstat
		t1=$(date +%s%N)
		wait $pp
		run_t=$(awk -v r=$((r1 - r0)) -v w=$((t1 - t0)) 'BEGIN { printf "%.1f", 100 * r / w }')
		run_p=$(share "$TMP/pgb.$d.folded" "^postgres.$be. client backend;R .running.;")
		n=$(total "$TMP/pgb.$d.folded")
		warned=$(grep -c 'warning: .* misread' "$TMP/pgb.$d.err")
		# (its self-check, which speaks past a few points, judged in make
		# truth: make check's host may read 3-4 points under, and then it
		# rightly speaks - both tries of a rehearsal today)
		[ "$n" -ge 1000 ] && [ "$r1" -gt "$r0" ] && near "$run_p" "$run_t" "$tol" &&
			{ [ "$warned" = 0 ] || [ "$TRUTH" != 1 ]; } || ok=0
		line="$line $d: running ${run_p}% (schedstat ${run_t}%) of $n samples$([ "$warned" = 0 ] || echo ', self-check spoke');"
	done
	kill "$PG_BENCH" 2>/dev/null
	wait "$PG_BENCH" 2>/dev/null
	PG_BENCH=
	if [ $ok = 1 ]; then pass "a PostgreSQL backend in bursts (pgbench -R 50, a 2-3 ms query):$line"
	else tfail "a PostgreSQL backend in bursts" "running +-$tol points of schedstat:$line" "$TMP/pgb.100us.folded"; fi
}

# A backend that connects after the profiler started: --subprocesses
# seizes it, --pg-wait-events names its wait (pg_sleep: Timeout:PgSleep).
pg_late_backend_test() {
	local sql=$1 before late
	kill "$PG_BENCH" 2>/dev/null
	wait "$PG_BENCH" 2>/dev/null
	PG_BENCH=
	before=$(pgrep -P "$PG_PM" | paste -sd' ')
	"$PP" -p "$PG_PM" --subprocesses --pg-wait-events -d 10ms -t 3s -o "$TMP/late.folded" 2>"$TMP/late.err" &
	local pp=$!
	sleep 0.5
	"$sql" "${PG_CONN[@]}" -X -q -c "select pg_sleep(1.5)" postgres >/dev/null 2>&1
	wait $pp
	local rc=$? pid new=0 sleeping=0
	for pid in $(sed -n 's/^postgres\[\([0-9]*\)\] client backend;event=Timeout:PgSleep (PostgreSQL state);.*/\1/p' "$TMP/late.folded" | sort -u); do
		case " $before " in *" $pid "*) ;; *) new=$((new + 1)); sleeping=$(grep "^postgres\[$pid\] client backend;" "$TMP/late.folded" | grep 'Timeout:PgSleep' | total /dev/stdin) ;; esac
	done
	# seized and named: function; how many of its 1.5 s's samples: time
	if [ $rc = 0 ] && [ $new = 1 ]; then
		pass "PostgreSQL: a backend that connected after the profiler started: seized, $sleeping samples in event=Timeout:PgSleep"
	else fail "PostgreSQL: a backend connecting during the run" "exit $rc, $new new backends in pg_sleep (1), $sleeping samples" "$TMP/late.err"; fi
	[ $new != 1 ] || [ "$sleeping" -ge 100 ] ||
		tfail "PostgreSQL: a backend connecting during the run: its samples" "$sleeping samples in event=Timeout:PgSleep (>= 100 of its 1.5 s)" "$TMP/late.folded"
}

# --- the db layer alone: type, state, statement against pg_stat_activity ----
# build/test/pg_status reads what --pg-queries will show through
# pgbackend.h alone (no sampler, no ptrace), every 10 ms for 5 s, of two
# pgbench backends running a script of two statements with random
# constants at a fixed rate (a key lookup that sleeps 2 ms, so that 10 ms
# reads catch it, and a count over the table); pg_stat_activity is sampled meanwhile by a
# PL/pgSQL procedure.  Once with compute_query_id = on (the server's ids),
# once off (the normalized text's hash).
PGS=build/test/pg_status
PGS_SQL='\set aid random(1, 100000)
\set delta random(-5000, 5000)
SELECT abalance, pg_sleep(0.002) FROM pgbench_accounts WHERE aid = :aid;
SELECT count(*) FROM pgbench_accounts WHERE abalance > :delta AND aid < :aid;'

pg_status_test() {
	local port=$((54920 + RANDOM % 60))
	PG_CONF="shared_buffers = 16MB
max_connections = 20
compute_query_id = on"
	pg_start_bench pp_pgs "$port" "PostgreSQL cluster for the status reader" || return
	"$PSQL" "${PG_CONN[@]}" -X -q -v ON_ERROR_STOP=1 postgres >"$TMP/pgs-setup.log" 2>&1 <<'EOF' ||
CREATE UNLOGGED TABLE pp_status (n int, pid int, state text, query_id bigint, query text);
CREATE PROCEDURE pp_status_sample(seconds float8) LANGUAGE plpgsql AS $$
DECLARE
	stop timestamptz := clock_timestamp() + seconds * interval '1 second';
	n int := 0;
BEGIN
	WHILE clock_timestamp() < stop LOOP
		n := n + 1;
		INSERT INTO pp_status SELECT n, pid, state, query_id, query FROM pg_stat_activity
			WHERE application_name = 'pgbench';
		COMMIT;
		PERFORM pg_sleep(0.01);
	END LOOP;
END $$;
EOF
		{ fail "pg_stat_activity sampler" "$(tail -n 1 "$TMP/pgs-setup.log")"; pg_test_stop; return; }
	printf '%s\n' "$PGS_SQL" >"$TMP/two.sql"
	pg_status_round on
	pg_sql "ALTER SYSTEM SET compute_query_id = off" >/dev/null && pg_sql "SELECT pg_reload_conf()" >/dev/null
	pg_status_round off
	pg_test_stop
}

# pg_status_types: every process of the instance, by pg_status and by
# pg_stat_activity.backend_type (the postmaster, which the view does not
# show, must read "postmaster").
pg_status_types() {
	local pm=$PG_POSTMASTER tab mine theirs joined bad pm_type kinds
	tab=$(printf '\t')
	# shellcheck disable=SC2046
	"$PGS" "$pm" $(pgrep -P "$pm") 2>/dev/null | awk -F'\t' '{ print $2 "\t" $3 }' | sort >"$TMP/pgs-types.mine"
	pg_sql "SELECT pid || chr(9) || backend_type FROM pg_stat_activity" | sort >"$TMP/pgs-types.theirs"
	join -t "$tab" "$TMP/pgs-types.mine" "$TMP/pgs-types.theirs" >"$TMP/pgs-types.joined"
	mine=$(grep -c . "$TMP/pgs-types.mine")
	theirs=$(grep -c . "$TMP/pgs-types.theirs")
	joined=$(grep -c . "$TMP/pgs-types.joined")
	bad=$(awk -F'\t' '$2 != $3 { printf "%s ", $0 }' "$TMP/pgs-types.joined" | head -c 300)
	pm_type=$(awk -F'\t' -v pm="$pm" '$1 == pm { print $2 }' "$TMP/pgs-types.mine")
	kinds=$(cut -f3 "$TMP/pgs-types.joined" | sort -u | paste -sd, -)
	# every process the view shows but the sampler backend, which may have
	# started after our look
	if [ -z "$bad" ] && [ "$joined" -ge $((theirs - 1)) ] && [ "$pm_type" = postmaster ] && [ "$mine" -ge 7 ]; then
		pass "PostgreSQL $PGMAJOR process types read from memory = pg_stat_activity.backend_type for $joined of the $theirs processes it shows ($kinds), the postmaster 'postmaster'"
	else fail "PostgreSQL process types against pg_stat_activity" "mine $mine, theirs $theirs, both $joined, postmaster '$pm_type', differing: ${bad:-none}" "$TMP/pgs-types.mine"; fi
}

pg_status_round() {
	local mode=$1 backends= i sampler_pid=
	"$PGBENCH" "${PG_CONN[@]}" -n -c 2 -j 2 -R 40 -T 60 -f "$TMP/two.sql" postgres >"$TMP/pgs-bench.log" 2>&1 &
	PG_BENCH=$!
	if ! backends=$(pg_clients 2 "application_name = 'pgbench'"); then
		fail "pgbench -R backends ($mode)" "not 2 in pg_stat_activity: $(tail -n 1 "$TMP/pgs-bench.log")"
		return
	fi
	sleep 0.5
	[ "$mode" = off ] || pg_status_types
	pg_sql "TRUNCATE pp_status" >/dev/null
	PGAPPNAME=pp_sampler "$PSQL" "${PG_CONN[@]}" -X -q -c "SET synchronous_commit = off" \
		-c "CALL pp_status_sample(5)" postgres >"$TMP/pgs-call.log" 2>&1 &
	local psa=$!
	for i in $(seq 50); do
		sampler_pid=$(pg_sql "SELECT pid FROM pg_stat_activity WHERE application_name = 'pp_sampler'" 2>/dev/null)
		[ -n "$sampler_pid" ] && break
		sleep 0.02
	done
	[ -z "$sampler_pid" ] || renice -n -20 -p "$sampler_pid" >/dev/null 2>&1
	# shellcheck disable=SC2086
	"$PGS" -n 500 -i 10 $backends >"$TMP/pgs-$mode.tsv" 2>"$TMP/pgs-$mode.err"
	wait $psa
	local cost=
	[ "$mode" = off ] || cost=$("$PGS" -c 20000 "$(echo "$backends" | head -n 1)")
	kill "$PG_BENCH" 2>/dev/null
	wait "$PG_BENCH" 2>/dev/null
	PG_BENCH=
	pg_sql "SELECT state || chr(9) || coalesce(query_id::text, '-') || chr(9) || coalesce(query, '') FROM pp_status" \
		>"$TMP/pgs-$mode.psa"
	pg_status_compare "$mode" "$cost"
}

# pg_status_compare MODE COST: the two views of the same 5 s.
pg_status_compare() {
	local mode=$1 cost=$2 f="$TMP/pgs-$1.tsv" p="$TMP/pgs-$1.psa"
	local n_mine n_theirs act_mine act_theirs
	n_mine=$(grep -c . "$f")
	n_theirs=$(grep -c . "$p")
	act_mine=$(awk -F'\t' '{ t++; if ($4 == "active") a++ } END { printf "%.1f", t ? 100 * a / t : 0 }' "$f")
	act_theirs=$(awk -F'\t' '{ t++; if ($1 == "active") a++ } END { printf "%.1f", t ? 100 * a / t : 0 }' "$p")
	# the shapes pg_stat_activity saw: its id, and our normalization of its
	# text with that text's hash (the id without one: compute_query_id off,
	# or a statement read while it was parsed, before the server computed it)
	awk -F'\t' '$1 == "active" { print $3 }' "$p" | "$PGS" -q >"$TMP/pgs-$mode.norm"
	awk -F'\t' '$1 == "active" { print $2 }' "$p" | paste - "$TMP/pgs-$mode.norm" |
		awk -F'\t' '{ if ($1 != "-") print $1 "\t" $3; print $2 "\t" $3 }' | sort -u >"$TMP/pgs-$mode.theirs"
	# ours: "query=ID TEXT", counted
	awk -F'\t' '$4 == "active" { t = $6; sub(/^query=(hash:)?[-0-9]+ ?/, "", t); print $5 "\t" t }' "$f" |
		sort | uniq -c | awk '{ n = $1; sub(/^ *[0-9]+ /, ""); print $0 "\t" n }' >"$TMP/pgs-$mode.mine"
	local shapes frames agree total ids_theirs nonnull idle_bad pct=0 want_ids=ok
	# two statements: two texts; their frames, one each but for a first run
	# read while it was parsed (pg_stat_activity shows no id then either)
	shapes=$(cut -f2 "$TMP/pgs-$mode.mine" | sort -u | grep -c .)
	frames=$(grep -c . "$TMP/pgs-$mode.mine")
	total=$(awk -F'\t' '{ t += $3 } END { print t + 0 }' "$TMP/pgs-$mode.mine")
	agree=$(awk -F'\t' 'NR == FNR { k[$1 "\t" $2] = 1; next } ($1 "\t" $2) in k { a += $3 } END { print a + 0 }' \
		"$TMP/pgs-$mode.theirs" "$TMP/pgs-$mode.mine")
	ids_theirs=$(cut -f2 "$TMP/pgs-$mode.theirs" | sort -u | grep -c .)
	# with ids on, how many samples carried the hash (read while parsed)
	local hashed=0
	[ "$mode" = off ] || hashed=$(awk -F'\t' 'NR == FNR { h[$1] = 1; next } $1 in h { n += $3 } END { print n + 0 }' \
		"$TMP/pgs-$mode.norm" "$TMP/pgs-$mode.mine")
	nonnull=$(awk -F'\t' '$1 == "active" && $2 != "-"' "$p" | grep -c .)
	# the idle predicate: ClientRead while idle is idle, nothing active is
	idle_bad=$(awk -F'\t' '($4 == "idle" && $7 == "Client:ClientRead" && $8 != 1) || ($4 == "active" && $8 != 0)' "$f" | grep -c .)
	[ "$total" -gt 0 ] && pct=$(awk -v a="$agree" -v t="$total" 'BEGIN { printf "%.1f", 100 * a / t }')
	if [ "$mode" = off ]; then [ "$nonnull" = 0 ] || want_ids="pg_stat_activity showed $nonnull query ids"
	else [ "$nonnull" -gt 0 ] || want_ids="pg_stat_activity showed no query id"; fi
	# ids, texts, the idle flag: function; the active share against the
	# view's, and how many rows its sampler got in 5 s: time
	if [ "$n_theirs" -ge 400 ] && near "$act_mine" "$act_theirs" $TOL; then
		pass "PostgreSQL $PGMAJOR status read from memory, compute_query_id = $mode: active ${act_mine}% (pg_stat_activity ${act_theirs}%, within $TOL points), $n_theirs pg_stat_activity rows"
	else tfail "PostgreSQL status read from memory (compute_query_id = $mode): active share" "active ${act_mine}%/${act_theirs}% (within $TOL), $n_theirs pg_stat_activity rows (>= 400)"; fi
	if [ "$n_mine" -ge 800 ] && [ "$n_theirs" -gt 0 ] &&
		[ "$shapes" = 2 ] && [ "$frames" -le 4 ] && [ "$ids_theirs" -ge 2 ] && atleast "$pct" 95 && [ "$idle_bad" = 0 ] &&
		[ "$want_ids" = ok ]; then
		pass "PostgreSQL $PGMAJOR status read from memory, compute_query_id = $mode, pgbench -R 40 running two statements with random constants, 5 s: active ${act_mine}% (pg_stat_activity ${act_theirs}%), $shapes statements in $frames query frames, ${pct}% of $total active samples with the id$([ "$mode" = off ] && echo ' (the text hash)') and normalized text of a statement pg_stat_activity showed$([ "$mode" = on ] && echo " ($hashed with the hash: read while parsed, before any read saw its id)"); idle ClientRead idle, active never${cost:+; status read: $cost}"
	else
		fail "PostgreSQL status read from memory (compute_query_id = $mode)" "$n_mine rows (>= 800), $n_theirs pg_stat_activity rows (> 0), $shapes statements (2) in $frames frames (<= 4), $ids_theirs statements in pg_stat_activity (>= 2), ${pct}% of $total agree (>= 95), $idle_bad idle flags wrong, ids: $want_ids"
		head -n 4 "$TMP/pgs-$mode.theirs" "$TMP/pgs-$mode.mine" "$TMP/pgs-$mode.err" 2>/dev/null | sed 's/^/    /'
	fi
}

# --- issue 21: backend types, --pg-queries, --group-by, --no-idle ----------
# Two pgbench clients, each running one statement with random constants at
# a fixed rate (-R), compute_query_id on then off: a key lookup that also
# sleeps 3 ms (client A), a count over part of the table (client B).  The
# instance is profiled with --pg-queries while a PL/pgSQL procedure samples
# pg_stat_activity every 10 ms, and each backend's shares under its query
# and under idle are compared.  Then --group-by type (and its pushes) and
# --no-idle.
PGQ_A='\set aid random(1, 100000)
SELECT abalance, pg_sleep(0.003) FROM pgbench_accounts WHERE aid = :aid;'
PGQ_B='\set aid random(1, 100000)
\set delta random(-5000, 5000)
SELECT count(*) FROM pgbench_accounts WHERE abalance > :delta AND aid < :aid;'

pg_queries_test() {
	local port=$((54980 + RANDOM % 15))
	PG_CONF="shared_buffers = 16MB
max_connections = 20
compute_query_id = on"
	pg_start_bench pp_pgq "$port" "PostgreSQL cluster for --pg-queries" || return
	"$PSQL" "${PG_CONN[@]}" -X -q -v ON_ERROR_STOP=1 postgres >"$TMP/pgq-setup.log" 2>&1 <<'EOF' ||
CREATE UNLOGGED TABLE pp_q (n int, pid int, state text, query_id bigint, query text);
CREATE PROCEDURE pp_q_sample(seconds float8) LANGUAGE plpgsql AS $$
DECLARE
	stop timestamptz := clock_timestamp() + seconds * interval '1 second';
	n int := 0;
BEGIN
	WHILE clock_timestamp() < stop LOOP
		n := n + 1;
		INSERT INTO pp_q SELECT n, pid, state, query_id, query FROM pg_stat_activity
			WHERE application_name IN ('pgq_a', 'pgq_b');
		COMMIT;
		PERFORM pg_sleep(0.01);
	END LOOP;
END $$;
EOF
		{ fail "pg_stat_activity sampler" "$(tail -n 1 "$TMP/pgq-setup.log")"; pg_test_stop; return; }
	printf '%s\n' "$PGQ_A" >"$TMP/pgq_a.sql"
	printf '%s\n' "$PGQ_B" >"$TMP/pgq_b.sql"
	pg_queries_round on
	# (ids off: the text's hash, read where the id's run reads the text:
	# 15's run holds it, as every major's did once, for CI's time)
	if [ -z "${PG_OTHER:-}" ]; then
		pg_sql "ALTER SYSTEM SET compute_query_id = off" >/dev/null && pg_sql "SELECT pg_reload_conf()" >/dev/null
		pg_queries_round off
	fi
	pg_test_stop
}

# pg_queries_clients: clients A and B started; their backends' pids in
# PGQ_PID_A and PGQ_PID_B.  1 when they did not come.
pg_queries_clients() {
	PGAPPNAME=pgq_a "$PGBENCH" "${PG_CONN[@]}" -n -c 1 -R 40 -T 120 -f "$TMP/pgq_a.sql" postgres >"$TMP/pgq-a.log" 2>&1 &
	PG_BENCH=$!
	PGAPPNAME=pgq_b "$PGBENCH" "${PG_CONN[@]}" -n -c 1 -R 40 -T 120 -f "$TMP/pgq_b.sql" postgres >"$TMP/pgq-b.log" 2>&1 &
	PG_BENCH2=$!
	# (a CI run took the pid of pgbench's own first connection for A's)
	PGQ_PID_A=$(pg_clients 1 "application_name = 'pgq_a' AND query LIKE 'SELECT abalance%'") &&
		PGQ_PID_B=$(pg_clients 1 "application_name = 'pgq_b' AND query LIKE 'SELECT count(*)%'")
}

pg_queries_stop_clients() {
	kill "$PG_BENCH" "$PG_BENCH2" 2>/dev/null
	wait "$PG_BENCH" "$PG_BENCH2" 2>/dev/null
	PG_BENCH= PG_BENCH2=
}

# pg_frames FOLDED PID: "FRAME<TAB>COUNT" for each frame right under PID's
# root (a client backend): its query frames and state words.
pg_frames() {
	awk -v root="postgres[$2] client backend" '{ n = $NF; i = index($0, ";"); if (i == 0) next
		if (substr($0, 1, i - 1) != root) next
		rest = substr($0, i + 1); j = index(rest, ";"); f = j ? substr(rest, 1, j - 1) : rest
		c[f] += n }
		END { for (f in c) print f "\t" c[f] }' "$1"
}

pg_queries_round() {
	local mode=$1 out=$TMP/pgq-$1.folded secs=8
	# (5 s for the other majors and under the sanitizers: CI's time)
	if [ -n "${PG_OTHER:-}" ] || [ "$SANITIZED" = 1 ]; then secs=5; fi
	if ! pg_queries_clients; then
		fail "pgbench -R clients ($mode)" "not in pg_stat_activity: $(tail -n 1 "$TMP/pgq-a.log") $(tail -n 1 "$TMP/pgq-b.log")"
		pg_queries_stop_clients
		return
	fi
	pg_sql "TRUNCATE pp_q" >/dev/null
	"$PP" -p "$PG_POSTMASTER" --subprocesses --pg-wait-events --pg-queries -d 10ms -t "${secs}s" -o "$out" 2>"$TMP/pgq-$mode.err" &
	local pp=$!
	PGAPPNAME=pp_sampler "$PSQL" "${PG_CONN[@]}" -X -q -c "SET synchronous_commit = off" \
		-c "CALL pp_q_sample($secs)" postgres >"$TMP/pgq-call.log" 2>&1 &
	local psa=$! sampler= i
	for i in $(seq 50); do
		sampler=$(pg_sql "SELECT pid FROM pg_stat_activity WHERE application_name = 'pp_sampler'" 2>/dev/null)
		[ -n "$sampler" ] && break
		sleep 0.02
	done
	[ -z "$sampler" ] || renice -n -20 -p "$sampler" >/dev/null 2>&1
	wait $psa
	wait $pp
	local rc=$?
	pg_sql "SELECT pid || chr(9) || state || chr(9) || coalesce(query_id::text, '-') || chr(9) || query FROM pp_q" >"$TMP/pgq-$mode.psa"
	if [ "$mode" = on ]; then
		pg_types_check "$out" "$TMP/pgq-$mode.err"
		# (the grouping, its push and --no-idle read what the types
		# and events are read from: 15's run holds them, CI's time is short)
		if [ -z "${PG_OTHER:-}" ]; then
			pg_group_by_type_check
			pg_group_push_check
			pg_no_idle_check
		fi
	fi
	pg_queries_stop_clients
	pg_queries_compare "$mode" "$rc" "$out" "$secs"
	[ "$mode" = off ] || pg_time_model_check "$TMP/pgq-$mode.err" "$out"
}

# pg_queries_compare MODE RC FOLDED SECONDS: each client's frames against
# pg_stat_activity over the same SECONDS: exactly one query frame - a run of
# its statement read while parsed, before its id was computed, is counted
# under the id after the run (pgshape.h) - its id (the server's, or with
# compute_query_id off the normalized text's hash), and the shares under
# it and under idle.
pg_queries_compare() {
	local mode=$1 rc=$2 out=$3 secs=$4 who pid bad= slow= side= frames queries id want q_mine i_mine q_theirs i_theirs hashed
	for who in A B; do
		pid=$PGQ_PID_A
		[ $who = B ] && pid=$PGQ_PID_B
		frames=$(pg_frames "$out" "$pid")
		queries=$(printf '%s\n' "$frames" | grep -c '^query=')
		id=$(printf '%s\n' "$frames" | grep '^query=' | sed -n 's/^query=\(hash:\)\{0,1\}\([-0-9]*\) .*/\2/p' | paste -sd, -)
		# a text's hash says so, and only it (issue 31): every frame
		# with ids off, none with them on
		hashed=$(printf '%s\n' "$frames" | grep -c '^query=hash:')
		if [ "$mode" = on ]; then [ "$hashed" = 0 ] || bad="$bad $who's frame marked a text hash with ids on;"
		else [ "$hashed" = "$queries" ] || bad="$bad $who's frame not marked a text hash with ids off;"; fi
		if [ "$mode" = on ]; then
			want=$(awk -F'\t' -v p="$pid" '$1 == p && $2 == "active" && $3 != "-" { print $3 }' "$TMP/pgq-$mode.psa" | sort -u | paste -sd, -)
		else
			want=$(awk -F'\t' -v p="$pid" '$1 == p && $2 == "active" { print $4 }' "$TMP/pgq-$mode.psa" | head -n 1 | "$PGS" -q | cut -f1)
			awk -F'\t' '$3 != "-"' "$TMP/pgq-$mode.psa" | grep -q . && want="(pg_stat_activity showed query ids)"
		fi
		read -r q_mine i_mine < <(printf '%s\n' "$frames" | awk -F'\t' '{ t += $2; if ($1 ~ /^query=/) q += $2; else if ($1 == "idle") i += $2 }
			END { printf "%.1f %.1f\n", t ? 100 * q / t : 0, t ? 100 * i / t : 0 }')
		read -r q_theirs i_theirs < <(awk -F'\t' -v p="$pid" '$1 == p { t++; if ($2 == "active") q++; else if ($2 == "idle") i++ }
			END { printf "%.1f %.1f\n", t ? 100 * q / t : 0, t ? 100 * i / t : 0 }' "$TMP/pgq-$mode.psa")
		side="$side $who: query ${q_mine}/${q_theirs}%, idle ${i_mine}/${i_theirs}%, its statement's frame with id $id;"
		awk -F'\t' -v p="$pid" '$1 == p { n++ } END { exit !n }' "$TMP/pgq-$mode.psa" ||
			echo "    $who (pid $pid) in no pg_stat_activity row; pgbench: $(tail -n 2 "$TMP/pgq-$(echo $who | tr AB ab).log" | tr '\n' ' '); pids seen: $(cut -f1 "$TMP/pgq-$mode.psa" | sort | uniq -c | tr '\n' ' ')"
		[ "$queries" = 1 ] || bad="$bad $who has $queries query frames ($(printf '%s\n' "$frames" | grep '^query=' | tr '\t\n' ' |' | cut -c1-300));"
		[ -n "$id" ] && [ "$id" = "$want" ] || bad="$bad $who's id $id, pg_stat_activity's ${want:-none};"
		# (the shares against the view's: time)
		near "$q_mine" "$q_theirs" $TOL && near "$i_mine" "$i_theirs" $TOL || slow="$slow $who's shares apart;"
		atleast "$q_mine" 5 || slow="$slow $who hardly active;"
	done
	local rows parsed
	rows=$(grep -c . "$TMP/pgq-$mode.psa")
	# (two rows a snapshot, ~100 snapshots a second: 1600 in 8 s here)
	[ "$rows" -ge $((secs * 120)) ] || slow="$slow $rows pg_stat_activity rows (>= $((secs * 120)));"
	# the samples read before the server computed their statement's id,
	# counted under it after the run: a first run read while parsed, a
	# sample or two; none without ids (a read that lost a known id would
	# make hundreds, hidden by the merge but for this count)
	parsed=$(sed -n 's/^  read while parsed *\([0-9]*\) samples.*/\1/p' "$TMP/pgq-$mode.err")
	parsed=${parsed:-0}
	if [ "$mode" = on ]; then
		# (how many samples land in a parse: time)
		[ "$parsed" -le 5 ] || slow="$slow $parsed samples read while parsed (<= 5);"
	else
		[ "$parsed" = 0 ] || bad="$bad $parsed samples renamed to an id with compute_query_id off;"
	fi
	side="$side $parsed samples read while parsed;"
	local what="the server's query ids"
	[ "$mode" = off ] && what="the normalized texts' hashes (pg_stat_activity: no id)"
	if [ "$rc" = 0 ] && [ -z "$bad" ]; then
		pass "PostgreSQL $PGMAJOR, --pg-queries, compute_query_id = $mode, two clients at pgbench -R, $secs s: per backend one query frame, profile/pg_stat_activity:$side ids are $what"
	else fail "PostgreSQL $PGMAJOR, --pg-queries against pg_stat_activity (compute_query_id = $mode)" "exit $rc;$bad ($side)" "$out"; fi
	if [ -z "$slow" ]; then pass "PostgreSQL $PGMAJOR, --pg-queries' shares against pg_stat_activity (compute_query_id = $mode, within $TOL points)"
	else tfail "PostgreSQL $PGMAJOR, --pg-queries' shares against pg_stat_activity (compute_query_id = $mode)" "${slow# } ($side)" "$out"; fi
}

# pg_types_check FOLDED ERR: every process's root names its backend type, as
# pg_stat_activity.backend_type does (the postmaster: "postmaster"), and
# so does its line in the summary.
pg_types_check() {
	local tab bad kinds joined want k summed
	tab=$(printf '\t')
	pg_sql "SELECT pid || chr(9) || backend_type FROM pg_stat_activity" | sort >"$TMP/pgq-types.theirs"
	sed -n 's/^postgres\[\([0-9]*\)\] \([^;/]*\)[;/].*/\1\t\2/p' "$1" | sort -u >"$TMP/pgq-types.mine"
	join -t "$tab" "$TMP/pgq-types.mine" "$TMP/pgq-types.theirs" >"$TMP/pgq-types.joined"
	joined=$(grep -c . "$TMP/pgq-types.joined")
	bad=$(awk -F'\t' '$2 != $3 { printf "%s ", $0 }' "$TMP/pgq-types.joined" | head -c 300)
	grep -q "^$PG_POSTMASTER${tab}postmaster\$" "$TMP/pgq-types.mine" || bad="$bad postmaster not named so;"
	kinds=$(cut -f2 "$TMP/pgq-types.mine" | sort -u | paste -sd, -)
	# the summary's lines: "  process PID postgres TYPE N thread(s) now"
	sed -n 's/^  process \([0-9]*\) *postgres \(.*[^ ]\)  *[0-9][0-9]* threads\{0,1\} now.*/\1\t\2/p' "$2" |
		sort -u >"$TMP/pgq-types.summary"
	summed=$(join -t "$tab" "$TMP/pgq-types.summary" "$TMP/pgq-types.mine" | awk -F'\t' '$2 == $3' | grep -c .)
	[ "$summed" = "$(grep -c . "$TMP/pgq-types.mine")" ] ||
		bad="$bad the summary names $summed of the $(grep -c . "$TMP/pgq-types.mine") processes by their roots' type;"
	for k in checkpointer walwriter 'background writer' 'autovacuum launcher' 'logical replication launcher' 'client backend'; do
		cut -f2 "$TMP/pgq-types.mine" | grep -qx "$k" || bad="$bad no $k;"
	done
	if [ -z "$bad" ] && [ "$joined" -ge 7 ]; then
		pass "PostgreSQL $PGMAJOR: each process's root is postgres[PID] TYPE, TYPE = pg_stat_activity.backend_type for all $joined processes both show ($kinds), the postmaster 'postmaster'; the summary's process lines name all $summed processes by the same type"
	else fail "PostgreSQL processes named by type" "$joined processes in both, differing or missing: ${bad:-none} (mine: $kinds)" "$1"; fi
}

# --group-by type: one root per type, no PID, the client backends merged.
pg_group_by_type_check() {
	local out=$TMP/pgq-type.folded rc pids clients pm ratio queries bad=
	"$PP" -p "$PG_POSTMASTER" --subprocesses --pg-queries --group-by type -d 10ms -t 3s -o "$out" 2>"$TMP/pgq-type.err"
	rc=$?
	pids=$(grep -c '^[^;]*\[' "$out")
	clients=$(grep '^client backend;' "$out" | total /dev/stdin)
	pm=$(grep '^postmaster;' "$out" | total /dev/stdin)
	ratio=$(awk -v c="$clients" -v p="$pm" 'BEGIN { printf "%.2f", p ? c / p : 0 }')
	# two statements, one frame each (with their ids)
	queries=$(grep '^client backend;query=' "$out" | cut -d';' -f2 | sort -u | grep -c .)
	for k in checkpointer walwriter 'background writer' 'autovacuum launcher' 'logical replication launcher'; do
		grep -q "^$k;" "$out" || bad="$bad no root '$k';"
	done
	# two clients' backends under one root: twice the postmaster's samples
	if [ $rc = 0 ] && [ "$pids" = 0 ] && [ -z "$bad" ] && [ "$queries" = 2 ] &&
		atleast "$ratio" 1.8 && atleast 2.2 "$ratio"; then
		pass "PostgreSQL $PGMAJOR, --group-by type: one root per type, no PID in any; 'client backend' holds both backends ($clients samples, ${ratio}x the postmaster's) and their 2 statements, one query frame each"
	else fail "PostgreSQL $PGMAJOR, --group-by type" "exit $rc, $pids roots with a PID,$bad client backend ${ratio}x the postmaster (2), $queries query frames (2)" "$out"; fi
}

# --push with --group-by type: a request per type, labelled with it, each
# body holding that type's stacks only.
pg_group_push_check() {
	local port_file=$TMP/pgq-ingest.port log=$TMP/pgq-ingest.log spid i verdict rc
	rm -f "$port_file" "$log"
	python3 test/tools/ingest_server.py ok "$port_file" "$log" 60 &
	spid=$!
	PIDS+=("$spid")
	for i in $(seq 1 50); do [ -s "$port_file" ] && break; sleep 0.1; done
	"$PP" -p "$PG_POSTMASTER" --subprocesses --group-by type -d 10ms -t 2.5s --period 1s \
		--push "http://127.0.0.1:$(cat "$port_file")" --app-name pg >/dev/null 2>"$TMP/pgq-push.err"
	rc=$?
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	verdict=$(python3 - "$log" <<'PY'
import json, re, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
bad, labels = [], set()
for r in reqs:
    bad += r["errors"]
    m = re.match(r"^pg\.wall\{backend_type=([^,}]+)\}$", r["params"].get("name", ""))
    if not m:
        bad.append("name %r" % r["params"].get("name")); continue
    label = m.group(1)
    labels.add(label)
    if re.search(r"[0-9]", label): bad.append("a number in label %r" % label)
    for line in r["head"]:
        root = line.split(";")[0] if ";" in line else line.rsplit(" ", 1)[0]
        if line and re.sub(r"[^!-~]|[\",={}\\\\]", "_", root) != label:
            bad.append("a %s line in the %s body" % (root, label))
for want in ("client_backend", "postmaster", "checkpointer", "walwriter"):
    if want not in labels: bad.append("no %s push" % want)
print("; ".join(bad[:4]) if bad else "ok %d requests, labels %s" % (len(reqs), ",".join(sorted(labels))))
PY
)
	if [ $rc = 0 ] && [ "${verdict%% *}" = ok ]; then
		pass "PostgreSQL $PGMAJOR, --push --group-by type: one request per type and window, labelled backend_type=TYPE, its body that type's stacks ($verdict)"
	else fail "PostgreSQL $PGMAJOR, --push --group-by type" "exit $rc: $verdict" "$TMP/pgq-push.err"; fi
}

# --no-idle: the background processes' main loops (Activity events) and
# the idle sessions' ClientRead left out, and said so.
pg_no_idle_check() {
	local out=$TMP/pgq-noidle.folded rc activity idle_read left taken ticks bg bg_pct queries
	"$PP" -p "$PG_POSTMASTER" --subprocesses --pg-wait-events --pg-queries --no-idle -d 10ms -t 3s \
		-o "$out" 2>"$TMP/pgq-noidle.err"
	rc=$?
	activity=$(grep -c 'event=Activity:' "$out")
	idle_read=$(grep -c '] client backend;idle;event=Client:ClientRead ' "$out")
	read -r left taken < <(sed -n 's/^  left out (--no-idle) *\([0-9]*\) samples in an idle wait, [0-9.]*% of the \([0-9]*\) taken.*/\1 \2/p' "$TMP/pgq-noidle.err")
	ticks=$(sed -n 's/^ptrace_profiler: .* \([0-9]*\) ticks in .*/\1/p' "$TMP/pgq-noidle.err")
	bg=$(grep -E '^postgres\[[0-9]+\] (checkpointer|walwriter|background writer|autovacuum launcher|logical replication launcher);' "$out" | total /dev/stdin)
	bg_pct=$(awk -v b="$bg" -v t="${ticks:-0}" 'BEGIN { printf "%.1f", t ? 100 * b / (5 * t) : 100 }')
	queries=$(grep -c '] client backend;query=' "$out")
	# what is left out: function; how much of the time was idle: time
	if [ $rc = 0 ] && [ "$activity" = 0 ] && [ "$idle_read" = 0 ] && [ -n "$left" ] && [ "$queries" -ge 2 ]; then
		pass "PostgreSQL $PGMAJOR, --no-idle: no Activity event nor idle ClientRead left in the profile; the five background processes kept in ${bg_pct}% of their ticks; $left of $taken samples left out, as the summary says"
	else fail "PostgreSQL $PGMAJOR, --no-idle" "exit $rc, $activity Activity lines (0), $idle_read idle ClientRead lines (0), left out ${left:-?} of ${taken:-?} (said), $queries query lines (>= 2)" "$out"; fi
	if [ -z "$left" ] || { atleast "$left" $((taken / 2)) && atleast 5 "$bg_pct"; }; then :
	else tfail "PostgreSQL $PGMAJOR, --no-idle: shares left out and kept" "left out $left of $taken (>= half), background processes in ${bg_pct}% of their ticks (<= 5)" "$out"; fi
}

# pg_time_model_check ERR FOLDED: the summary's top queries, each share as
# the profile counts it, both clients' among them.
pg_time_model_check() {
	local err=$1 out=$2 lines bad= n=0 share frame mine
	lines=$(sed -n 's/^ *[0-9]*\. *\([0-9.]*\)% of the samples, on CPU *[0-9.]*%: \(query=.*\)$/\1\t\2/p' "$err")
	while IFS="$(printf '\t')" read -r share frame; do
		[ -n "$frame" ] || continue
		n=$((n + 1))
		mine=$(share_str "$out" ";$frame;")
		near "$share" "$mine" 0.15 || bad="$bad '$frame' ${share}% in the summary, ${mine}% in the profile;"
	done <<<"$lines"
	for who in "pg_sleep" "count(\*)"; do
		printf '%s\n' "$lines" | grep -q "$who" || bad="$bad no query with $who;"
	done
	if [ -n "$lines" ] && [ -z "$bad" ] && grep -q '        waits: .*Timeout:PgSleep' "$err"; then
		pass "PostgreSQL $PGMAJOR, --pg-queries' time model: $n queries in the summary, each one's share as the profile counts it, the sleeping one waiting in Timeout:PgSleep"
	else fail "PostgreSQL $PGMAJOR, --pg-queries' time model" "${bad:- no lines or no Timeout:PgSleep wait}" "$err"; fi
}

# --- an idle instance: what our looks cost it (issue 40) -------------------
# The postmaster, its background processes and a session asleep in
# pg_sleep, profiled whole at -d 1ms for 4 s: each thread's run count
# (schedstat) over those 4 s against the 4 s just before, unprofiled (a
# stop ends epoll_wait: a thread we stop wakes); the profiler's CPU as its
# summary gives it; the share of R samples.
pg_idle_runs() {
	local p t
	for p in "$PG_PM" $(pgrep -P "$PG_PM"); do
		for t in /proc/"$p"/task/*; do
			echo "${t##*/} $(awk '{ print $3 }' "$t/schedstat")"
		done
	done 2>/dev/null | awk 'NF == 2' | sort
}
pg_idle_test() {
	if timing_only "an idle PostgreSQL instance at -d 1ms"; then return; fi
	local port=$((54980 + RANDOM % 20)) sl pp rc
	PG_CONF="shared_buffers = 16MB
max_connections = 20"
	if ! pg_start pp_pgi "$port" 2>"$TMP/pgi-start.log"; then
		fail "PostgreSQL cluster, idle" "$(tail -n 1 "$TMP/pgi-start.log")"
		pg_test_stop
		return
	fi
	local PG_PM=$PG_POSTMASTER
	"$PSQL" "${PG_CONN[@]}" -X -q -c "select pg_sleep(30)" postgres >/dev/null 2>&1 &
	sl=$!
	sleep 2 # the session asleep, the launchers past their start
	pg_idle_runs >"$TMP/pgi.r0"
	sleep 4
	pg_idle_runs >"$TMP/pgi.r1"
	"$PP" -p "$PG_PM" --subprocesses --pg-wait-events -d 1ms -t 6s -o "$TMP/pgi.folded" 2>"$TMP/pgi.err" &
	pp=$!
	sleep 1 # past the attach and the first looks
	pg_idle_runs >"$TMP/pgi.r2"
	sleep 4
	pg_idle_runs >"$TMP/pgi.r3"
	wait $pp
	rc=$?
	kill $sl 2>/dev/null
	wait $sl 2>/dev/null
	pg_test_stop
	# per thread, its runs profiled less its runs unprofiled; the most
	local extra cpu r n threads most_woken most_cpu most_r
	join "$TMP/pgi.r0" "$TMP/pgi.r1" >"$TMP/pgi.u"
	join "$TMP/pgi.r2" "$TMP/pgi.r3" >"$TMP/pgi.p"
	threads=$(join "$TMP/pgi.u" "$TMP/pgi.p" | wc -l)
	extra=$(join "$TMP/pgi.u" "$TMP/pgi.p" | awk '{ d = ($5 - $4) - ($3 - $2); if (NR == 1 || d > m) m = d } END { print m + 0 }')
	cpu=$(sed -n 's/^  profiler CPU .* \([0-9.]*\)% of the machine.s [0-9]* CPUs.*/\1/p' "$TMP/pgi.err")
	n=$(total "$TMP/pgi.folded")
	r=$(awk '/;R \(/ { r += $NF } { t += $NF } END { printf "%.2f", t ? 100 * r / t : 0 }' "$TMP/pgi.folded")
	most_woken=$(pick 40 10)
	most_cpu=$(pick 6 3)
	most_r=$(pick 2 1)
	local line="$threads threads, the most woken $extra times beyond its unprofiled count (<= $most_woken); the profiler ${cpu:-?}% of the machine (< $most_cpu); R ${r}% of $n samples (< $most_r)"
	if [ $rc = 0 ] && [ "$threads" -ge 6 ] && [ "$n" -ge 20000 ] && [ -n "$cpu" ] &&
		[ "$extra" -le "$most_woken" ] && ! atleast "$cpu" "$most_cpu" && ! atleast "$r" "$most_r"; then
		pass "an idle PostgreSQL $PGMAJOR instance and a pg_sleep session at -d 1ms, 4 s: $line"
	else tfail "an idle PostgreSQL $PGMAJOR instance at -d 1ms" "exit $rc; $line" "$TMP/pgi.err"; fi
}

# The same pgbench and --pg-queries tests on every other major the tool
# supports (scripts/pg_servers.sh: npm's servers, cached by make check's
# set-up), with Debian's clients; a major with no server here is a skip
# naming it.  Not under the sanitizers: the code each major runs is 15's,
# there (the same reads, other numbers), and time is short.
pg_other_majors() {
	local deb=$PGBIN debmajor=$PGMAJOR servers major dir
	if [ "$SANITIZED" = 1 ]; then
		skip "PostgreSQL's other majors under the sanitizers" "the same code as $debmajor's, whose tests ran; the other majors run in the plain pass"
		return
	fi
	servers=$(sh scripts/pg_servers.sh list)
	for major in $(sh scripts/pg_servers.sh wanted); do
		[ "$major" != "$debmajor" ] || continue
		dir=$(echo "$servers" | awk -v m="$major" '$1 == m { print $2 }')
		if [ -z "$dir" ]; then
			skip "PostgreSQL $major under pgbench" "no PostgreSQL $major server here (scripts/pg_servers.sh install: as root, with npm)"
			continue
		fi
		# (a retry runs again the major that missed, the test that missed)
		RETRY_TAG=pg_major_$major
		again "$RETRY_TAG" || continue
		PGBIN=$dir PGMAJOR=$major
		run_test pg_real_test other
		pg_test_stop
		PG_OTHER=1 run_test pg_queries_test
	done
	RETRY_TAG=
	PGBIN=$deb PGMAJOR=$debmajor
}

# A streaming replica pair (issue 31): a primary under pgbench, archiving,
# and its standby made by pg_basebackup -R, both profiled in one run
# (-p PM1,PM2 --subprocesses).  Every process of both named as its own
# instance's pg_stat_activity names it - the walsender and archiver of
# the primary, the walreceiver and startup of the standby among them -
# and each of those four in the wait events its view showed: the
# profile's commonest among the view's, the view's commonest among the
# profile's (both sampled over the same 5 s).
pg_replica_test() {
	if [ "$SANITIZED" = 1 ]; then
		skip "PostgreSQL $PGMAJOR replica pair under the sanitizers" "two instances' worth of processes: run in the plain pass"
		return
	fi
	local port=$((55520 + RANDOM % 60)) port2 pm2 conn2 rc pp viewer kind pid bad= seen= tab
	local out=$TMP/pgr.folded err=$TMP/pgr.err psa=$TMP/pgr.psa
	tab=$(printf '\t')
	PG_CONF="shared_buffers = 16MB
max_connections = 20
archive_mode = on
archive_command = '/bin/true'"
	pg_start_bench pp_pgr "$port" "PostgreSQL primary for the replica pair" || return
	port2=$((port + 60))
	PG_STANDBY=$(mktemp -d /tmp/pp_pgr2.XXXXXX)
	chown postgres: "$PG_STANDBY" && chmod 700 "$PG_STANDBY"
	if ! (cd "$PG_STANDBY" && runuser -u postgres -- "$PGBIN/pg_basebackup" -h "$PG_WORK" -p "$port" -U postgres \
		-D "$PG_STANDBY/data" -R -X stream) >"$TMP/pgr-base.log" 2>&1; then
		fail "pg_basebackup -R" "$(tail -n 1 "$TMP/pgr-base.log")"
		pg_test_stop
		return
	fi
	printf "port = %s\nunix_socket_directories = '%s'\n" "$port2" "$PG_STANDBY" >>"$PG_STANDBY/data/postgresql.conf"
	if ! (cd "$PG_STANDBY" && runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PG_STANDBY/data" -l "$PG_STANDBY/server.log" \
		-w -t 60 start) >/dev/null 2>&1; then
		fail "the standby" "$(tail -n 1 "$PG_STANDBY/server.log" 2>/dev/null)"
		pg_test_stop
		return
	fi
	pm2=$(head -n 1 "$PG_STANDBY/data/postmaster.pid")
	conn2=(-h "$PG_STANDBY" -p "$port2" -U postgres)
	local i streaming=
	for i in $(seq 100); do
		streaming=$("$PSQL" "${conn2[@]}" -X -A -t -q -c 'SELECT status FROM pg_stat_wal_receiver' postgres 2>&1)
		[ "$streaming" = streaming ] && break
		sleep 0.2
	done
	if [ "$streaming" != streaming ]; then
		fail "the standby streaming" "pg_stat_wal_receiver: $streaming"
		pg_test_stop
		return
	fi
	"$PGBENCH" "${PG_CONN[@]}" -c 2 -j 2 -T 60 postgres >"$TMP/pgr-bench.log" 2>&1 &
	PG_BENCH=$!
	sleep 1
	"$PP" -p "$PG_POSTMASTER,$pm2" --subprocesses --pg-wait-events -d 10ms -t 5s -o "$out" 2>"$err" &
	pp=$!
	# both views, as often as psql allows, while the profiler runs
	(
		q="SELECT pid || chr(9) || backend_type || chr(9) || coalesce(wait_event_type || ':' || wait_event, 'CPU') FROM pg_stat_activity"
		while kill -0 $pp 2>/dev/null; do
			"$PSQL" "${PG_CONN[@]}" -X -A -t -q -c "$q" postgres
			"$PSQL" "${conn2[@]}" -X -A -t -q -c "$q" postgres
			sleep 0.03
		done
	) >"$psa" 2>/dev/null &
	viewer=$!
	wait $pp
	rc=$?
	wait $viewer
	pg_test_stop
	# every process either view showed, by its root
	awk -F'\t' '{ print $1 "\t" $2 }' "$psa" | sort -u >"$TMP/pgr-types.theirs"
	sed -n 's/^postgres\[\([0-9]*\)\] \([^;/]*\)[;/].*/\1\t\2/p' "$out" | sort -u >"$TMP/pgr-types.mine"
	join -t "$tab" "$TMP/pgr-types.mine" "$TMP/pgr-types.theirs" >"$TMP/pgr-types.joined"
	bad=$(awk -F'\t' '$2 != $3 { printf "%s ", $0 }' "$TMP/pgr-types.joined" | head -c 300)
	for kind in walsender archiver walreceiver startup; do
		pid=$(awk -F'\t' -v k="$kind" '$2 == k { print $1; exit }' "$TMP/pgr-types.theirs")
		if [ -z "$pid" ]; then bad="$bad no $kind in the views;"; continue; fi
		grep -q "^$pid$tab$kind\$" "$TMP/pgr-types.mine" || { bad="$bad $kind ($pid) not named so;"; continue; }
		local pe ve pset vset
		# its events: the profile's, the views'
		pset=$(awk -v r="postgres[$pid] $kind" '{ n = $NF; split($0, f, ";"); if (f[1] != r) next
			e = f[2]; sub(/ \(PostgreSQL state\)$/, "", e); sub(/^event=/, "", e); if (e == "On CPU") e = "CPU"
			c[e] += n } END { for (e in c) print c[e] "\t" e }' "$out" | sort -k1,1nr)
		vset=$(awk -F'\t' -v p="$pid" '$1 == p { c[$3]++ } END { for (e in c) print c[e] "\t" e }' "$psa" | sort -k1,1nr)
		pe=$(printf '%s\n' "$pset" | head -n 1 | cut -f2)
		ve=$(printf '%s\n' "$vset" | head -n 1 | cut -f2)
		seen="$seen $kind $pid: profile $(printf '%s\n' "$pset" | head -n 3 | tr '\t\n' ' ,')view $(printf '%s\n' "$vset" | head -n 3 | tr '\t\n' ' ,');"
		printf '%s\n' "$vset" | cut -f2 | grep -qxF "$pe" || bad="$bad $kind's commonest event $pe not in its view;"
		printf '%s\n' "$pset" | cut -f2 | grep -qxF "$ve" || bad="$bad its view's commonest $ve not in $kind's profile;"
	done
	local joined
	joined=$(grep -c . "$TMP/pgr-types.joined")
	if [ $rc = 0 ] && [ -z "$bad" ] && [ "$joined" -ge 10 ]; then
		pass "PostgreSQL $PGMAJOR replica pair, both profiled in one run: the $joined processes both views show named as they name them, and the events of$seen"
	else fail "PostgreSQL $PGMAJOR replica pair" "exit $rc; $joined processes in both;${bad:- }$seen" "$err"; fi
}

# The report with a known incident (issue 33): pgbench -c 10 on the
# accounts, and 3 s into the profile another session holds LOCK TABLE
# pgbench_accounts IN ACCESS EXCLUSIVE MODE for 2 s.  Opened in headless
# Chromium: Lock:relation peaks in the lock's buckets (+-1), the page's
# selection of those 2 s holds the file's samples of them, Lock waits (of
# any kind) are >= 80 % of it; one statement clicked (only=) keeps its
# samples alone.
pg_report_test() {
	if [ "$SANITIZED" = 1 ]; then
		skip "PostgreSQL report with a lock under the sanitizers" "the writer's memory is checked by test_html and 74-report there"
		return
	fi
	if [ -z "$CHROMIUM" ] || ! command -v python3 >/dev/null; then
		skip "PostgreSQL report with a lock" "chromium and python3 are needed"
		return
	fi
	PG_CONF="shared_buffers = 16MB
max_connections = 20"
	pg_start_bench pp_pgrep $((55400 + RANDOM % 60)) "PostgreSQL cluster for the report" || return
	"$PGBENCH" "${PG_CONN[@]}" -c 10 -j 2 -T 60 postgres >"$TMP/pgrep-bench.log" 2>&1 &
	PG_BENCH=$!
	pg_clients 10 "application_name = 'pgbench' AND backend_type = 'client backend'" >/dev/null
	local out=$TMP/pgrep.html pp rc lock_ms
	"$PP" -p "$PG_POSTMASTER" --subprocesses --pg-wait-events --pg-queries -d 10ms -t 9s -o "$out" 2>"$TMP/pgrep.err" &
	pp=$!
	sleep 3
	lock_ms=$(date +%s%3N)
	"$PSQL" "${PG_CONN[@]}" -X -q -c "BEGIN" -c "LOCK TABLE pgbench_accounts IN ACCESS EXCLUSIVE MODE" \
		-c "SELECT pg_sleep(2)" -c "COMMIT" postgres >/dev/null 2>&1
	wait $pp
	rc=$?
	pg_test_stop
	# when the lock began, in the profile's seconds; its 2 s, and the page
	local from to bucket peak share got want only_q only_got only_want
	from=$(PYTHONPATH=test/tools python3 - "$out" "$lock_ms" <<'PY'
import sys, report_data
d = report_data.load(sys.argv[1])
print('%.2f' % ((int(sys.argv[2]) - d['start_unix_ms']) / 1000))
PY
)
	# the drag: over the lock's 2 s, its edges left out (psql connects,
	# then locks; the waiters take a moment to resume after)
	to=$(awk -v f="$from" 'BEGIN { printf "%.2f", f + 1.9 }')
	from=$(awk -v f="$from" 'BEGIN { printf "%.2f", f + 0.2 }')
	local dir=$TMP/pgrep-chrome
	CHROME_WINDOW=1280,900 chrome "$dir.1" --dump-dom "file://$out?by=event&from=$from&to=$to" >"$TMP/pgrep.1"
	bucket=$(grep -o 'id="chart"[^>]*data-bucket-s="[0-9.]*"' "$TMP/pgrep.1" | sed 's/.*data-bucket-s="\([0-9.]*\)"/\1/')
	peak=$(grep -o 'data-name="Lock:relation" data-share="[0-9.]*" data-peak-bucket="[0-9]*"' "$TMP/pgrep.1" |
		sed 's/.*data-peak-bucket="\([0-9]*\)"/\1/')
	# Lock waits of every kind: the relation's, and the row locks of
	# the transactions that held one when the lock was asked for
	share=$(grep -o '<tr data-dim="wait event" data-name="Lock:[A-Za-z]*" data-share="[0-9.]*"' "$TMP/pgrep.1" |
		sed 's/.*data-share="\([0-9.]*\)"/\1/' | awk '{ s += $1 } END { printf "%.1f", s }')
	got=$(grep -o 'id="sel"[^>]*data-samples="[0-9]*"' "$TMP/pgrep.1" | sed 's/.*data-samples="\([0-9]*\)"/\1/')
	want=$(PYTHONPATH=test/tools python3 - "$out" "$from" "$to" <<'PY'
import sys, report_data
d = report_data.load(sys.argv[1])
lo, hi = float(sys.argv[2]) * 1e4, float(sys.argv[3]) * 1e4
print(sum(1 for i in range(0, len(d['S']), 4)
          if lo <= d['S'][i] < hi and not d['kinds'][d['S'][i + 2] * 6 + 5]))
PY
)
	# the statement pgbench runs most, clicked: only its samples
	only_q=$(grep -o '<tr data-dim="statement" data-name="query=[^"]*"' "$TMP/pgrep.1" | head -n 1 |
		sed 's/.*data-name="\([^"]*\)"/\1/' | sed 's/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g')
	if [ -n "$only_q" ]; then
		CHROME_WINDOW=1280,900 chrome "$dir.2" --dump-dom "file://$out?by=query&from=$from&to=$to&only=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$only_q")" \
			>"$TMP/pgrep.2"
		only_got=$(grep -o 'id="flame"[^>]*data-samples="[0-9]*"' "$TMP/pgrep.2" | sed 's/.*data-samples="\([0-9]*\)"/\1/')
		only_want=$(grep -o '<tr data-dim="statement" data-name="[^"]*" data-share="[0-9.]*"' "$TMP/pgrep.2" | grep -c .)
	fi
	local line="the lock's drag ${from}-${to} s; Lock:relation's peak in bucket ${peak:-?} of ${bucket:-?} s; Lock waits ${share:-0}% of the lock's 2 s; the selection ${got:-?} samples, the file ${want:-?}; '${only_q:0:60}' alone: ${only_got:-?} samples, ${only_want:-?} statement rows"
	if [ $rc = 0 ] && [ -n "$peak" ] && [ -n "$bucket" ] && [ -n "$got" ] && [ "$got" = "$want" ] &&
		awk -v p="$peak" -v b="$bucket" -v f="$from" 'BEGIN { s = p * b; exit !(s >= f - 0.2 - b - 0.001 && s <= f + 1.8 + b) }' &&
		atleast "${share:-0}" 80 && [ "${only_want:-0}" = 1 ] && [ "${only_got:-0}" -gt 0 ]; then
		pass "PostgreSQL $PGMAJOR report with a lock held 2 s, in chromium: $line"
	else fail "PostgreSQL $PGMAJOR report with a lock held 2 s" "exit $rc; $line" "$TMP/pgrep.err"; fi
	# the reads (activity.h: every process's wait event and statement at
	# each tick, without a stop) over the lock's range: Lock waits, under
	# the statements pgbench runs
	local reads
	reads=$(PYTHONPATH=test/tools python3 - "$out" "$from" "$to" <<'PY'
import sys, report_data
d = report_data.load(sys.argv[1])
lo, hi = float(sys.argv[2]), float(sys.argv[3])
V, R, RK = d['values'], d.get('R', []), d.get('RK', [])
step, b, n, lock, named = d.get('read_bucket_ns', 1e8) / 1e9, 0, 0, 0, 0
for i in range(0, len(R), 3):
    b += R[i]
    k = 5 * R[i + 1]
    # (whole buckets inside the range)
    if R[i + 1] < 0 or RK[k + 4] or not (lo <= b * step and (b + 1) * step <= hi):
        continue
    n += R[i + 2]
    if V[RK[k]].startswith('Lock:'):
        lock += R[i + 2]
        named += R[i + 2] if V[RK[k + 3]].startswith('query=') else 0
print('%d %.1f %.1f' % (n, 100 * lock / n if n else 0, 100 * named / lock if lock else 0))
PY
)
	local r_n=${reads%% *} r_lock r_named
	r_lock=$(echo "$reads" | awk '{ print $2 }') r_named=$(echo "$reads" | awk '{ print $3 }')
	line="${r_n:-?} reads of active sessions over the lock's range, ${r_lock:-?}% of them Lock waits, ${r_named:-?}% of those under a statement's frame"
	if [ -n "$r_n" ] && [ "$r_n" -ge 100 ] && atleast "${r_lock:-0}" 80 && atleast "${r_named:-0}" 95; then
		pass "PostgreSQL $PGMAJOR report's reads with a lock held 2 s: $line"
	else fail "PostgreSQL $PGMAJOR report's reads with a lock held 2 s" "$line (>= 100 reads, >= 80% Lock, >= 95% under a statement)" "$TMP/pgrep.err"; fi
	# the summary's time model, from those reads: pgbench's statements,
	# one of them waiting in Lock:relation (the lock's 2 s of the 9)
	local model
	model=$(grep -o 'queries (--pg-queries) [0-9]* seen, in [0-9.]*% of the [0-9]* reads taken' "$TMP/pgrep.err")
	if [ -n "$model" ] && grep -q '^        waits: .*Lock:relation' "$TMP/pgrep.err"; then
		pass "PostgreSQL $PGMAJOR report's time model from its reads: $model; a statement waiting in Lock:relation"
	else fail "PostgreSQL $PGMAJOR report's time model from its reads" "${model:-no model from the reads}; Lock:relation in a statement's waits" "$TMP/pgrep.err"; fi
	# the same with the mouse (test/tools/report_drag.py): a drag over
	# the lock's range, then a click on that statement's row
	local drag mfrom mto mn mwant mshare monly mflame
	drag=$(python3 test/tools/report_drag.py "$CHROMIUM" "$out" "$from" "$to" statement "$only_q" 2>"$TMP/pgrep.drag")
	mfrom=$(drag_field "$drag" from) mto=$(drag_field "$drag" to) mn=$(drag_field "$drag" samples)
	monly=$(drag_field "$drag" only) mflame=$(drag_field "$drag" flame)
	mshare=$(echo "$drag" | python3 -c 'import json, sys
print("%.1f" % sum(r[2] for r in json.load(sys.stdin)["rows"] if r[0] == "wait event" and r[1].startswith("Lock:")))' 2>/dev/null)
	# (the file's samples of that statement in the range the page says)
	mwant=$([ -n "$mfrom" ] && PYTHONPATH=test/tools python3 - "$out" "$mfrom" "$mto" "$only_q" <<'PY'
import sys, report_data
d = report_data.load(sys.argv[1])
lo, hi = float(sys.argv[2]) * 1e4, float(sys.argv[3]) * 1e4
q = d['values'].index(sys.argv[4]) if sys.argv[4] in d['values'] else -1
k = d['kinds']
print(sum(1 for i in range(0, len(d['S']), 4)
          if lo <= d['S'][i] < hi and not k[d['S'][i + 2] * 6 + 5] and k[d['S'][i + 2] * 6 + 3] == q))
PY
)
	line="dragged ${mfrom:-?}-${mto:-?} s, then '${only_q:0:40}' clicked: ${mn:-?} samples (the file ${mwant:-?}), Lock waits ${mshare:-?}% of them, its flame graph ${mflame:-?} samples"
	if [ -n "$mn" ] && [ "$mn" = "$mwant" ] && near "$mfrom" "$from" 0.1 && [ "$monly" = "$only_q" ] &&
		[ "${mflame:-0}" = "$mn" ] && atleast "${mshare:-0}" 80; then
		pass "PostgreSQL $PGMAJOR report with a lock, with the mouse: $line"
	else fail "PostgreSQL $PGMAJOR report with a lock, with the mouse" "$line; $(head -c 200 "$TMP/pgrep.drag")"; fi
}

# A major newer than the tables (issue 31): npm's newest server, its
# version text patched to say 19 - the server runs as what it is, only the
# tool reads 19.  Types from the titles, as pg_stat_activity names them;
# wait events as numbers; no query frame; and one line saying so.
pg_next_major_test() {
	local src from dir rc out=$TMP/pgnext.folded err=$TMP/pgnext.err said named numbered queries
	src=$(sh scripts/pg_servers.sh list | awk '$2 ~ /embedded-postgres/ { d = $2 } END { print d }')
	if [ -z "$src" ]; then
		skip "PostgreSQL with a version we do not know" "no server of npm's here to patch (scripts/pg_servers.sh install)"
		return
	fi
	from=$(major_of_server "$src")
	dir=$(mktemp -d /tmp/pp_pgnext.XXXXXX) && chmod 755 "$dir" && mkdir "$dir/bin" &&
		ln -s "$src/../lib" "$dir/lib" && ln -s "$src/../share" "$dir/share" &&
		perl -0777 -pe "s/\\(PostgreSQL\\) $from\\./(PostgreSQL) 19./g" "$src/postgres" >"$dir/bin/postgres" &&
		chmod 755 "$dir/bin/postgres"
	if [ "$(major_of_server "$dir/bin")" != 19 ]; then
		fail "a $from server patched to say 19" "its --version: $("$dir/bin/postgres" --version 2>&1 | head -n 1)"
		rm -rf "$dir"
		return
	fi
	local deb=$PGBIN debmajor=$PGMAJOR
	PGBIN=$src PGMAJOR="19 (a $from patched)" PG_POSTGRES=$dir/bin/postgres
	PG_CONF="max_connections = 20"
	if ! pg_start pp_pgnext $((54320 + RANDOM % 600)) 2>"$TMP/pgnext-start.log"; then
		fail "a $from server patched to say 19" "$(tail -n 1 "$TMP/pgnext-start.log")"
	else
		PGAPPNAME=pp_next "$PSQL" "${PG_CONN[@]}" -X -q -c "SELECT pg_sleep(30)" postgres >/dev/null 2>&1 &
		PG_BENCH=$!
		pg_clients 1 "application_name = 'pp_next'" >/dev/null
		"$PP" -p "$PG_POSTMASTER" --subprocesses --pg-wait-events --pg-queries -d 10ms -t 3s -o "$out" 2>"$err"
		rc=$?
		pg_types_check "$out" "$err"
		said=$(grep -c "runs PostgreSQL 19, which this build does not know (it knows 14 to 18): wait events as numbers, its processes named by their titles, and no query frames" "$err")
		named=$(grep -c 'event=[A-Za-z]*:' "$out")
		numbered=$(grep -c 'event=0x' "$out")
		queries=$(grep -c ';query=' "$out")
		if [ $rc = 0 ] && [ "$said" = 1 ] && [ "$named" = 0 ] && [ "$numbered" -gt 0 ] && [ "$queries" = 0 ]; then
			pass "PostgreSQL 19 (a $from patched): exit 0, one line saying what is missing; $numbered stacks with events as numbers, none named; no query frame"
		else fail "PostgreSQL 19 (a $from patched)" "exit $rc; lines saying it $said (1); stacks with named events $named (0), numbered $numbered (> 0), query frames $queries (0)" "$err"; fi
	fi
	pg_test_stop
	PG_POSTGRES= PGBIN=$deb PGMAJOR=$debmajor
	rm -rf "$dir"
}

# major_of_server BINDIR: the major its postgres says it is.
major_of_server() { "$1/postgres" --version 2>/dev/null | sed -n 's/.*PostgreSQL) \([0-9]*\).*/\1/p'; }

# What the real test needs, or why it is skipped.
pg_find
PGMAJOR=
[ -z "$PGBIN" ] || PGMAJOR=$("$PGBIN/postgres" --version | sed -n 's/.*PostgreSQL) \([0-9]*\).*/\1/p')
if [ -z "$PGBIN" ]; then skip "PostgreSQL under pgbench" "PostgreSQL is not installed (apt-get install postgresql)"
elif [ "${PGMAJOR:-0}" -lt 14 ]; then skip "PostgreSQL under pgbench" "PostgreSQL $PGMAJOR is older than 14"
elif [ "$(id -u)" != 0 ]; then skip "PostgreSQL under pgbench" "needs root (a cluster run as the postgres user, traced)"
elif [ -z "$PGBENCH" ]; then skip "PostgreSQL under pgbench" "pgbench is not installed"
elif ! command -v runuser >/dev/null; then skip "PostgreSQL under pgbench" "runuser (util-linux) is missing"
else
	id postgres >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin postgres
	if ! id postgres >/dev/null 2>&1; then skip "PostgreSQL under pgbench" "no postgres user and none could be made"
	else
		trap 'pg_test_stop; cleanup' EXIT
		trap 'exit 130' INT
		trap 'exit 143' TERM
		case ${PG_PART:-} in
		majors) # 82-pg-majors.sh
			run_test pg_other_majors
			run_test pg_next_major_test
			;;
		sessions) # 83-pg-sessions.sh
			run_test pg_status_test
			run_test pg_queries_test
			run_test pg_idle_test
			run_test pg_replica_test
			run_test pg_report_test
			;;
		*)
			run_test pg_real_test
			pg_test_stop
			;;
		esac
		trap cleanup EXIT
		trap - INT TERM
	fi
fi
