/* sampler.c - the sampler's life: made, run tick after tick, names its
 * stacks after detaching, freed (sampler.h). */
#define _GNU_SOURCE
#include "sample/sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/priority.h"
#include "continuous/continuous.h" /* window_free */
#include "profile/timeline.h"
#include "sample/capture.h"
#include "sample/activity_reads.h"
#include "sample/app.h"
#include "sample/count.h"
#include "sample/family.h"
#include "sample/cold.h"
#include "sample/owed.h"
#include "sample/retire.h"
#include "sample/round.h"
#include "sample/schedule.h"
#include "sample/records.h"
#include "sample/windows.h"
#include "tracee/procfs.h"

#define SCAN_FALLBACK_NS 100000000ULL /* read the task list anyway 10x/s */
#define END_WAIT_NS 200000000ULL      /* at the end, wait this long for traps */

/* Threads watched for their registers at most (switch_regs.h): each
 * holds a descriptor, so a quarter of ours. */
static size_t watches_allowed(void)
{
	struct rlimit rl;
	size_t most = 512;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 4 < most)
		most = (size_t)(rl.rlim_cur / 4);
	return most;
}

/* Every watch ended: when sampling ends, not when we exit, so that the
 * targets' switches cost them nothing while we name. */
static void unwatch_all(struct sampler *s)
{
	for (size_t i = 0; i < s->n_threads; i++) {
		switch_regs_unwatch(s->switches, sampled_at(s, i)->switched);
		sampled_at(s, i)->switched = NULL;
		capture_follow_end(s, sampled_at(s, i));
	}
}

struct sampler *sampler_new(const struct options *o, struct target *ts, size_t *n_targets,
			    size_t cap_targets, const struct event_names *names,
			    struct stack_table *table, FILE *out)
{
	struct sampler *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	*s = (struct sampler){
		.o = o, .names = names, .out = out, .ts = ts, .n_targets = *n_targets,
		.cap_targets = cap_targets, .n_out = n_targets, .table = table,
		.me.sched_fd = -1, .trace = tick_trace_from_env(),
		.own = { .tick_scale = 1, .highest_scale = 1 }, .cpus = (int)sysconf(_SC_NPROCESSORS_ONLN),
	};
	const struct symbolize_options names_wanted = {
		.inline_frames = !o->no_inline, .lines = o->lines, .addresses = o->addresses };
	s->shared.files = files_new(o->debuginfo_path);
	s->shared.namer = namer_new(&names_wanted);
	cuts_start(&s->cuts);
	s->shared.cuts = &s->cuts;
	s->procs = calloc(s->n_targets, sizeof(*s->procs));
	s->snap = calloc(1, sizeof(*s->snap)); /* (no words read yet) */
	s->switches = switch_regs_new(watches_allowed());
	if (!s->procs || !s->snap || !s->switches || !s->shared.files || !s->shared.namer) {
		sampler_free(s);
		return NULL;
	}
	s->cap_procs = s->n_targets;
	s->retire.fixed = s->n_targets;
	s->snap->n_words = 0;
	if (format_info(o->format)->keeps_time && !(s->timeline = timeline_new())) {
		/* (timeline_new sets errno) */
		fprintf(stderr, "ptrace_profiler: cannot keep the samples: %s\n", strerror(errno));
		sampler_free(s);
		return NULL;
	}
	for (size_t i = 0; i < s->n_targets; i++) {
		struct process *p = &s->procs[i];
		p->t = &ts[i];
		p->execs_seen = ts[i].execs;
		ts[i].on_drop = capture_thread_ended;
		ts[i].drop_arg = s;
		p->program = program_open(ts[i].pid, &s->shared, table, s->timeline);
		if (!p->program) { /* (program_open sets errno) */
			fprintf(stderr, "ptrace_profiler: cannot read the modules of process %d: %s\n",
				(int)ts[i].pid, strerror(errno));
			sampler_free(s);
			return NULL;
		}
		/* (main has refused a server too old for --pg-wait-events) */
		char msg[512];
		if (family_probe_pg(s, p, msg, sizeof(msg)) == PG_PROBE_TOO_OLD)
			fprintf(stderr, "ptrace_profiler: warning: %s: [no PostgreSQL state]\n", msg);
	}
	return s;
}

void sampler_free(struct sampler *s)
{
	if (!s)
		return;
	priority_lift_free(s->lift); /* sampler_run's end, should it not have come */
	resume_here_free(s->here);
	for (size_t i = 0; s->procs && i < s->n_targets; i++) {
		program_free(s->procs[i].program);
		s->procs[i].t->on_drop = NULL;
	}
	free(s->procs);
	if (s->r) { /* the summary has been written from them */
		pg_time_free(&s->r->pg_time);
		pg_time_free(&s->r->read_time);
	}
	pg_shape_ids_free(&s->shapes);
	/* After every program: they name with these. */
	namer_free(s->shared.namer);
	files_free(s->shared.files);
	cuts_end(&s->cuts);
	free(s->snap);
	unwatch_all(s);
	switch_regs_free(s->switches);
	free(s->pg_skipped);
	timeline_free(s->timeline);
	activity_free(s->reads.series);
	free(s->reads.time_entry);
	free(s->cur.running);
	free(s->stops.resumed);
	free(s->stops.pending);
	free(s->stops.follow);
	free(s->retire.records);
	free(s->retire.procs);
	for (size_t i = 0; i < s->n_threads; i++) {
		free(sampled_at(s, i)->memory);
		free(sampled_at(s, i)->refused.owed);
		free(sampled_at(s, i)->pending);
	}
	for (size_t b = 0; b < s->cap_threads / 64; b++)
		free(s->blocks[b]);
	free(s->blocks);
	thread_list_clear(&s->threads);
	if (s->me.sched_fd >= 0)
		close(s->me.sched_fd);
	window_free(s->win.closing);
	stack_table_free(s->win.table);
	tick_trace_close(s->trace);
	free(s);
}

/* Did threads start or end since the last scan? */
static bool threads_changed(const struct target *t)
{
	int alive = 0;
	for (size_t i = 0; i < t->n_threads; i++) {
		if (t->threads[i].gone)
			return true;
		alive++;
	}
	return t->num_threads >= 0 && t->num_threads != alive;
}

/* Our own CPU time, user and system: what sampling costs the machine. */
static uint64_t cpu_ns(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ULL +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ULL;
}

/* The machine's CPU time as /proc/stat counts it: what the hypervisor
 * took (steal) is time no thread of ours or the target's ran, seen by no
 * tick; the summary says how much.  -1 where it cannot be read. */
static int cpu_times_now(struct cpu_times *ct)
{
	char buf[512];
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 ? parse_proc_stat_cpu(buf, (size_t)n, ct) : -1;
}

static bool any_alive(const struct target *ts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!ts[i].exited)
			return true;
	return false;
}

static bool any_pending(const struct sampler *s)
{
	for (size_t i = 0; i < s->n_threads; i++)
		if (sampled_at(s, i)->pending && !sampled_at(s, i)->ended)
			return true;
	return false;
}

/* Between rounds: processes born (--subprocesses), threads born or gone. */
static void scan(struct sampler *s, uint64_t now, uint64_t *last_scan)
{
	/* (a scan that left some for later is followed by another after
	 * the next round: FAMILY_SEIZE_MAX per round) */
	if (s->o->subprocesses && now - s->last_family_scan >= FAMILY_SCAN_NS &&
	    family_follow(s))
		s->last_family_scan = now;
	bool due = now - *last_scan >= SCAN_FALLBACK_NS, scanned = false;
	for (size_t i = 0; i < s->n_targets; i++) {
		struct process *p = &s->procs[i];
		/* The leader's stat, read anyway, counts the threads: the task
		 * directory is read only when that count or a thread's end says
		 * something changed. */
		if (due || (!p->t->n_only_tids && threads_changed(p->t))) {
			target_scan_threads(p->t);
			scanned = true;
		}
	}
	if (scanned)
		*last_scan = now;
}

/* --max-overhead: the sampler's own CPU, checked every 100 ms, sets how
 * far apart the ticks fall (overhead.h). */
#define SCALE_CHECK_NS 100000000ULL

static void keep_own_cost(struct sampler *s, struct schedule *sc, uint64_t now)
{
	/* The first look after 10 ms, against the start (sampler_run): a run
	 * at full rate costs most.  (Taken as a mere baseline, it left the
	 * first 110 ms at the full rate: 755 rounds in the first 100 ms of a
	 * run at -d 100us, then about 120.) */
	uint64_t every = s->own.settled ? SCALE_CHECK_NS : SCALE_CHECK_NS / 10;
	if (s->o->max_overhead <= 0 || now - s->own.checked_ns < every)
		return;
	s->own.settled = true;
	uint64_t cpu = cpu_ns(), rounds = s->r->rounds;
	/* the report's reads: their CPU apart (their wake-ups too), and the
	 * share of the budget they took */
	struct reads_state *rs = &s->reads;
	double round_cpu = (double)(cpu - s->own.cpu_ns);
	double reads_cpu = (double)(rs->cpu_ns - rs->checked_cpu_ns);
	double wall = (double)(now - s->own.checked_ns);
	if (rs->series) /* (their own interval: activity_reads.c) */
		round_cpu = round_cpu > reads_cpu ? round_cpu - reads_cpu : 0;
	rs->checked_cpu_ns = rs->cpu_ns;
	if (rounds > s->own.rounds && round_cpu > 0) {
		s->own.tick_scale = overhead_next_scale_beside(s->o->max_overhead, s->cpus, round_cpu,
							   (double)(rounds - s->own.rounds),
							   (double)s->o->interval_ns,
							   wall > 0 ? reads_cpu / wall : 0,
							   READS_BUDGET_PART);
		if (s->own.tick_scale > s->own.highest_scale)
			s->own.highest_scale = s->own.tick_scale;
		sc->interval_ns = (uint64_t)((double)s->o->interval_ns * s->own.tick_scale);
		/* the rate it holds, said once about 0.3 s in (-d 1ms
		 * --max-overhead 1% samples 22 times a second, and -n 5000
		 * at -d 100us took 20 s, with nothing said before the end;
		 * --top's screen is its own): from the rounds of 0.2-0.3 s,
		 * past the first ones, which read every process's maps and
		 * unwind tables - said from 0.01-0.11 s, a PostgreSQL
		 * instance's was 15-16 a second against 23 held; from
		 * 0.21-0.31 s, 17-19 against 18-20 */
		char line[256];
		if (++s->own.checks == 4 && s->o->mode != MODE_TOP &&
		    overhead_rate_line(line, sizeof(line), s->o->max_overhead, s->o->interval_ns,
				       s->own.tick_scale, s->o->count,
				       round_cpu / (double)(rounds - s->own.rounds)))
			fprintf(stderr, "%s\n", line);
	}
	s->own.checked_ns = now;
	s->own.cpu_ns = cpu;
	s->own.rounds = rounds;
}

/* At the end: ticks a thread's budget refused a stop and no stop came
 * after - counted as such. */
static void count_owed(struct sampler *s)
{
	for (size_t i = 0; i < s->n_threads; i++) {
		struct sampled_thread *st = sampled_at(s, i);
		if (owed_any(st))
			owed_count(s, &s->procs[st->proc], st, NULL, 0, 1);
	}
}

/* The longest a tick timed on a followed thread's CPU is waited for past
 * its time (resume_here.h): then the sampler's own clock says it is due. */
#define TICK_LATE_NS 200000ULL

/* FOLLOW's arrival on a CPU preempts the thread there, at its next return
 * to user mode, often a system call's (the move's interrupt is slow to
 * come): a round begun at once, for a tick due meanwhile, would find it
 * where we stopped it.  The next round waits until it has run again, a
 * random while (half an interval on average) after the arrival. */
static uint64_t settled(struct schedule *sc, uint64_t next, uint64_t end)
{
	uint64_t at = now_ns() + schedule_interval(sc) / 2;
	if (at > end)
		at = end;
	return at > next ? at : next;
}

/* One round and its ticks: run, count for the ticks it stands for, cut
 * a window if one ends. */
static void tick(struct sampler *s, struct schedule *sc, volatile int *quit)
{
	struct sampler_result *r = s->r;
	uint64_t due = sc->due_ns;
	activity_read_tick(s, now_ns()); /* the report's reads: the tick's first */
	round_run(s, due, quit);
	/* the round's span, for the ticks it stands for: until it let the
	 * last thread go (what follows holds none) */
	uint64_t ended = s->cur.released_ns;
	hist_add(&r->round, ended - s->cur.tick_ns);
	struct round_ticks rt = schedule_round(sc, s->cur.tick_ns, ended);
	if (s->o->count && r->ticks + rt.stands_for > s->o->count)
		rt.stands_for = s->o->count - r->ticks; /* -n ticks, not more */
	round_end(s, &rt, ended);
	tick_trace_commit(s->trace, s->cur.number, ended, rt.stands_for, rt.missed);
	if (!r->rounds) {
		r->first_round_ns = s->cur.tick_ns;
		r->first_due_ns = due;
	}
	r->last_round_ns = s->cur.tick_ns;
	r->last_due_ns = rt.stands_for == 1 ? due :
			 rt.n_timed >= rt.stands_for - 1 ? rt.timed_ns[rt.stands_for - 2] : ended;
	r->rounds++;
	r->ticks += rt.stands_for;
	r->merged_ticks += rt.stands_for - 1;
	r->skipped_ticks += rt.missed;
	windows_round(s);
	keep_own_cost(s, sc, ended);
}

/* sampler_run's start: the sampler's priority and CPUs, the resume
 * helper; then the clocks the summary reads, and the report's reads.
 * Returns the run's start, after the first. */
static uint64_t run_begin(struct sampler *s, struct sampler_result *r)
{
	const struct options *o = s->o;
	priority_for_sampling(&s->prio);
	r->nice = s->prio.nice;
	r->realtime = s->prio.realtime;
	r->short_slice = s->prio.short_slice;
	placement_start(&s->placement, true, s->prio.realtime);
	if (s->placement.on && s->placement.can_follow)
		s->here = resume_here_new(&s->placement.allowed);
	CPU_ZERO(&s->cur.followed);
	uint64_t start = now_ns();
	s->start_ns = start;
	struct timespec wall;
	clock_gettime(CLOCK_REALTIME, &wall);
	r->start_unix_ns = (uint64_t)wall.tv_sec * 1000000000ULL + (uint64_t)wall.tv_nsec;
	s->win.start_ns = start;
	s->win.due_ns = start + o->period_ns;
	s->own.checked_ns = start; /* keep_own_cost's first look is against these */
	s->own.cpu_ns = cpu_ns();
	s->own.rounds = 0;
	if (activity_reads_wanted(o)) {
		s->reads = (struct reads_state){ .series = activity_new(start), .scale = 1 };
		for (size_t i = 0; i < sizeof(s->reads.events) / sizeof(s->reads.events[0]); i++)
			s->reads.events[i].id = ACTIVITY_NONE;
		if (!s->reads.series)
			fprintf(stderr, "ptrace_profiler: warning: the report's chart will be drawn from "
				"the samples: cannot keep its reads (%s)\n", strerror(errno));
	}
	return start;
}

/* The ticks until the end (end_ns), the count, the targets' end, an error
 * or *quit; between them the scans, the windows, the retired records and
 * the report's reads, then the wait for the next tick. */
static void run_ticks(struct sampler *s, struct schedule *sc, uint64_t end, volatile int *quit)
{
	const struct options *o = s->o;
	struct sampler_result *r = s->r;
	uint64_t last_scan = s->start_ns;
	while (!*quit && any_alive(s->ts, s->n_targets) && !s->error) {
		if ((o->count && r->ticks >= o->count) || now_ns() >= end)
			break;
		unsigned follows = s->placement.follows;
		tick(s, sc, quit);
		if (o->count && r->ticks >= o->count)
			break;
		scan(s, now_ns(), &last_scan);
		uint64_t next = sc->due_ns < end ? sc->due_ns : end;
		if (s->placement.follows != follows)
			next = settled(sc, next, end);
		windows_between_ticks(s, next, sc, quit);
		if (s->retire.due) {
			s->retire.due = false;
			retire_ended(s, next);
		}
		if (!s->tick_timed) /* (a tick timed on a followed thread's CPU: none) */
			activity_reads_between(s, next, quit);
		if (s->tick_timed && next == sc->due_ns)
			targets_wait_tick(s->ts, s->n_targets, s->timed_ns, RESUME_HERE_SIGNAL, TICK_LATE_NS, quit,
					  capture_on_trap, s);
		else
			targets_wait_until(s->ts, s->n_targets, next, quit, capture_on_trap, s);
		if (s->tick_timed) {
			int cpu = resume_here_woke(s->here);
			if (cpu >= 0)
				placement_moved(&s->placement, cpu);
		}
		s->tick_timed = false;
	}
}

/* After the last tick: the reads closed, the stops still pending waited
 * for a little, and everything not counted yet counted. */
static void run_settle(struct sampler *s, volatile int *quit)
{
	s->r->read_ticks = s->reads.ticks;
	s->r->read_through = s->reads.read_through;
	s->r->read_own = s->reads.read_own;
	s->r->read_cpu_ns = s->reads.cpu_ns;
	if (s->reads.time_failed) /* (out of memory: the samples' model) */
		pg_time_free(&s->r->read_time);
	int reads_error = s->reads.series ? activity_end(s->reads.series) : 0;
	if (reads_error) { /* (a full disk) */
		fprintf(stderr, "ptrace_profiler: warning: the report's reads could not be kept (%s): "
			"its chart is drawn from the samples\n", strerror(reads_error));
		activity_free(s->reads.series);
		s->reads.series = NULL;
	}
	/* Stops still pending complete when their threads get a CPU: wait
	 * for them a little, as for any stop; what never stops is counted
	 * without its user stack. */
	uint64_t give_up = now_ns() + END_WAIT_NS;
	volatile int never = 0;
	while (!*quit && any_pending(s) && now_ns() < give_up)
		targets_wait_until(s->ts, s->n_targets, now_ns() + 1000000, &never, capture_on_trap, s);
	cold_flush_all(s);
	for (size_t i = 0; i < s->n_threads; i++)
		capture_unstopped(s, &s->procs[sampled_at(s, i)->proc], sampled_at(s, i));
	count_owed(s);
}

/* The helpers ended, and the run's own figures into r (since start, the
 * machine's CPU times from machine_start when machine_known). */
static void run_end(struct sampler *s, struct sampler_result *r, uint64_t start, uint64_t cpu_start,
		    const struct cpu_times *machine_start, bool machine_known)
{
	r->switches = switch_regs_stats(s->switches);
	unwatch_all(s);
	r->lifts = priority_lift_count(s->lift);
	priority_lift_free(s->lift);
	s->lift = NULL;
	r->resumed_here = resume_here_count(s->here);
	r->resumed_visited = resume_here_visited(s->here);
	r->armed_ahead = resume_here_armed_ahead(s->here);
	r->copy_refused = s->copy_refused;
	r->yields_ended = resume_here_waits_ended(s->here);
	resume_here_free(s->here);
	s->here = NULL;
	placement_end(&s->placement);
	r->cpu_moves = s->placement.moves;
	r->cpu_follows = s->placement.follows;
	r->highest_scale = s->own.highest_scale;
	r->cpus = s->cpus;
	r->wall_ns = now_ns() - start;
	r->cpu_ns = cpu_ns() - cpu_start;
	r->steal_share = -1;
	struct cpu_times machine_end;
	if (machine_known && cpu_times_now(&machine_end) == 0 &&
	    machine_end.total > machine_start->total) {
		double total = (double)(machine_end.total - machine_start->total);
		r->steal_share = (double)(machine_end.steal - machine_start->steal) / total;
		r->idle_share = (double)(machine_end.idle - machine_start->idle) / total;
		r->idle_known = true;
	}
	if (s->trace)
		tick_trace_close(s->trace), s->trace = NULL;
}

int sampler_run(struct sampler *s, volatile int *quit, struct sampler_result *r)
{
	const struct options *o = s->o;
	memset(r, 0, sizeof(*r));
	s->r = r;
	uint64_t start = run_begin(s, r);
	uint64_t cpu_start = s->own.cpu_ns;
	struct schedule sc;
	schedule_start(&sc, o->interval_ns, start, start);
	s->sched = &sc;
	struct cpu_times machine_start;
	bool machine_known = cpu_times_now(&machine_start) == 0;
	uint64_t end = o->duration_ns ? start + o->duration_ns : UINT64_MAX;
	run_ticks(s, &sc, end, quit);
	s->sched = NULL;
	run_settle(s, quit);
	run_end(s, r, start, cpu_start, &machine_start, machine_known);
	return s->error ? -1 : 0;
}

void sampler_profile(struct sampler *s, struct profile *p)
{
	p->samples = s->timeline ? timeline_source(s->timeline) : NULL;
	p->activity = s->reads.series;
	p->threads = s->threads.v;
	p->n_threads = s->threads.n;
}

int sampler_name_stacks(struct sampler *s, struct sampler_result *r)
{
	priority_for_naming();
	uint64_t start = now_ns();
	int error = 0;
	for (size_t i = 0; i < s->n_targets; i++) {
		struct program *p = s->procs[i].program;
		if (program_name_all(p) != 0)
			error = 1;
		for (; p; p = p->older) {
			struct modules_skips k;
			r->maps_reads += modules_refresh_count(p->modules);
			modules_skips(p->modules, &k);
			r->maps_skipped += k.lookups;
			r->maps_skipped_addrs += k.addresses;
			r->maps_skipped_more |= k.more;
			if (k.slowest_read_ns > r->maps_read_max_ns)
				r->maps_read_max_ns = k.slowest_read_ns;
			if (k.lookups && k.longest_wait_ns > r->maps_wait_max_ns)
				r->maps_wait_max_ns = k.longest_wait_ns;
		}
	}
	/* one statement, one frame: those read while parsed, under its id */
	if (!error && (app_merge_shapes(s, s->table, s->o->period_ns ? NULL : s->timeline) != 0 ||
		       pg_time_merge_shapes(&r->pg_time, &s->shapes) < 0))
		error = 1;
	r->images_opened = (unsigned)files_count(s->shared.files);
	r->naming_ns = now_ns() - start;
	if (error && !r->error[0])
		snprintf(r->error, sizeof(r->error), "out of memory naming the stacks");
	if (!error && s->cont && s->o->period_ns)
		error = windows_last(s) != 0;
	r->cut = cut_tally(&s->cuts);
	return error ? -1 : 0;
}

size_t sampler_thread_count(const struct sampler *s)
{
	return s ? s->n_threads : 0;
}

const char *sampler_process_words(const struct sampler *s, pid_t pid)
{
	for (size_t i = 0; s && i < s->n_targets; i++) {
		const struct process *p = &s->procs[i];
		if (p->t->pid != pid || p->t->retired)
			continue;
		if (p->pgb_ok)
			return pg_backend_type_last(&p->pgb);
		return p->title[0] ? p->title : NULL;
	}
	return NULL;
}

uint64_t sampler_retired_samples(const struct sampler *s, pid_t pid)
{
	for (size_t i = 0; s && i < s->n_targets; i++)
		if (s->procs[i].t->pid == pid && !s->procs[i].t->retired)
			return s->procs[i].retired_samples;
	return 0;
}

struct namer *sampler_namer(struct sampler *s)
{
	return s->shared.namer;
}

bool sampler_stopped_running(const struct sampler *s)
{
	for (size_t i = 0; i < s->n_threads; i++)
		if (sampled_at(s, i)->stopped.running)
			return true;
	return false;
}

void sampler_thread_figures(const struct sampler *s, size_t i, struct thread_figures *out)
{
	const struct sampled_thread *st = sampled_at(s, i);
	*out = (struct thread_figures){
		.pid = st->pid, .tid = st->tid, .comm = st->comm, .ended = st->ended,
		.samples = st->counts.samples, .samples_on_cpu = st->counts.on_cpu,
		.samples_queued = st->counts.queued,
		.sched_known = st->sched_seen && st->sched_last.at_ns > st->sched_first.at_ns,
	};
	if (out->sched_known) {
		double span = (double)(st->sched_last.at_ns - st->sched_first.at_ns);
		out->sched_on_cpu = 100.0 * (double)(st->sched_last.run_ns - st->sched_first.run_ns) / span;
		out->sched_queued = 100.0 * (double)(st->sched_last.wait_ns - st->sched_first.wait_ns) / span;
		out->stopped = 100.0 * (double)st->stopped.ns / span;
		out->held = 100.0 * (double)st->stopped.held_ns / span;
		out->waited_after = 100.0 * (double)st->cost.waited_after_ns / span;
		out->running_stopped = 100.0 * (double)st->stopped.running_ns / span;
		out->running_waited = 100.0 * (double)st->cost.waited_after_running_ns / span;
	}
	out->lowest_rate = st->cost.lowest_rate;
	out->lost_ns = st->stopped.held_ns + st->stopped.ns + st->cost.waited_after_ns;
	out->running_stops = st->stopped.running;
	out->offcpu_pairs = st->stopped.offcpu.pairs;
	if (st->stopped.offcpu.pairs)
		out->offcpu_ns = (double)st->stopped.offcpu.sum_ns / (double)st->stopped.offcpu.pairs;
	out->kernel_ns = -1;
	if (out->sched_known) {
		out->span_ns = (double)(st->sched_last.at_ns - st->sched_first.at_ns);
		if (st->sched_first.stime >= 0 && st->sched_last.stime >= st->sched_first.stime)
			out->kernel_ns = (double)(st->sched_last.stime - st->sched_first.stime) * 1e9 /
					 (double)sysconf(_SC_CLK_TCK);
	}
	out->check = selfcheck_judge(&st->check, SELFCHECK_ON_CPU, st->counts.samples, st->counts.on_cpu,
				     out->sched_on_cpu);
	out->queue_check = selfcheck_judge(&st->check, SELFCHECK_QUEUED, st->counts.samples,
					   st->counts.queued, out->sched_queued);
	if (!out->sched_known)
		out->check.disagrees = out->queue_check.disagrees = false;
}
