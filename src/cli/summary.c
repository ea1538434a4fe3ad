/* summary.c - the end-of-run summary (summary.h). */
#define _GNU_SOURCE
#include "cli/summary.h"

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/array.h"
#include "base/descriptors.h"
#include "base/sigbus.h"
#include "name/perfmap.h"
#include "profile/cut.h"
#include "sample/family.h"
#include "tracee/procfs.h"

uint64_t summary_peak_rss_kb(void)
{
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	if (fd >= 0)
		close(fd);
	uint64_t kb = 0;
	if (len <= 0 || parse_status_kb(buf, (size_t)len, "VmHWM", &kb) != 0)
		return 0;
	return kb;
}

const char *format_duration(uint64_t ns, char *out, size_t outsz)
{
	static const struct {
		uint64_t ns;
		const char *unit;
	} units[] = { { 86400000000000ULL, "days" }, { 1000000000ULL, "s" },
		      { 1000000ULL, "ms" }, { 1000ULL, "us" }, { 1, "ns" } };
	/* the largest unit ns reaches; ns for 0 */
	size_t i = 0;
	while (i + 1 < sizeof(units) / sizeof(units[0]) && ns < units[i].ns)
		i++;
	double v = (double)ns / (double)units[i].ns;
	snprintf(out, outsz, v < 10 && ns % units[i].ns ? "%.3g %s" : "%.0f %s", v, units[i].unit);
	return out;
}

static void print_hist(FILE *f, const char *what, const struct duration_hist *h)
{
	if (!h->count) {
		fprintf(f, "  %-22s none\n", what);
		return;
	}
	fprintf(f, "  %-22s mean %.1f us, p50 %.1f us, p99 %.1f us, max %.1f us\n", what,
		(double)h->total_ns / (double)h->count / 1e3,
		(double)hist_quantile(h, 0.50) / 1e3, (double)hist_quantile(h, 0.99) / 1e3,
		(double)h->max_ns / 1e3);
}

/* The rate: asked (the mean interval) and achieved - the share of the
 * ticks due that were sampled (not missed in a stall), which holds for a
 * run of one tick as of thousands; then how many rounds looked at the
 * threads: a tick that fell due while a round ran stands with it. */
static void print_rate(FILE *f, const struct options *o, const struct sampler_result *r)
{
	char every[32];
	format_duration(o->interval_ns, every, sizeof(every));
	double asked = 1e9 / (double)o->interval_ns;
	double share = r->ticks ? (double)r->ticks / (double)(r->ticks + r->skipped_ticks) : 0;
	if (r->highest_scale > 1.001 && r->ticks > 1 && r->last_due_ns > r->first_due_ns)
		/* --max-overhead spaced the ticks: what came, not what was asked */
		fprintf(f, "  rate                   asked every %s, spaced by --max-overhead to "
			"%.4g/s (%.0f%% of those due sampled)\n", every, (double)(r->ticks - 1) * 1e9 /
			(double)(r->last_due_ns - r->first_due_ns), 100.0 * share);
	else
		fprintf(f, "  rate                   asked every %s (%.4g/s), achieved %.4g/s (%.0f%%): "
			"%" PRIu64 " ticks sampled\n", every, asked, asked * share, 100.0 * share,
			r->ticks);
	fprintf(f, "  rounds                 %" PRIu64 " for %" PRIu64 " ticks (%" PRIu64 " due "
		"mid-round), %" PRIu64 " skipped\n", r->rounds, r->ticks, r->merged_ticks,
		r->skipped_ticks);
}

const char *summary_check_line(const struct options *o, const struct thread_figures *t,
			       enum selfcheck_kind kind, size_t n_threads, char *out, size_t outsz)
{
	const char *advice = o->interval_ns < 1000000 ? "sample less often (-d 1ms or more)" :
							"sample less often, or with a spare CPU";
	const struct selfcheck_verdict *v = kind == SELFCHECK_QUEUED ? &t->queue_check : &t->check;
	char whose[32];
	snprintf(whose, sizeof(whose), n_threads == 1 ? "1 thread's" : "%zu threads'", n_threads);
	if (kind == SELFCHECK_QUEUED)
		snprintf(out, outsz, "warning: %s wait for a CPU misread: sample with a spare CPU\n"
			 "  %sthread %d (%s) queued %.1f%% by schedstat, in %.1f%% of samples "
			 "(+-%.1f)", whose, n_threads > 1 ? "worst: " : "", (int)t->tid, t->comm,
			 v->kernel, v->sampled, v->error);
	else
		snprintf(out, outsz, "warning: %s CPU time misread: %s\n  %sthread %d (%s) ran "
			 "%.1f%% by schedstat, in %.1f%% of samples (+-%.1f)", whose, advice,
			 n_threads > 1 ? "worst: " : "", (int)t->tid, t->comm, v->kernel, v->sampled,
			 v->error);
	return out;
}

/* Per thread: its share of samples on a CPU, and what its schedstat says
 * it spent on one over the same ticks. */
static void print_thread(FILE *f, const struct thread_figures *t)
{
	fprintf(f, "    thread %-7d %-15s %" PRIu64 " samples", (int)t->tid, t->comm, t->samples);
	if (t->samples)
		fprintf(f, ", on CPU in %.1f%%", 100.0 * (double)t->samples_on_cpu /
							(double)t->samples);
	if (t->sched_known)
		fprintf(f, "; schedstat: on CPU %.1f%%", t->sched_on_cpu);
	fputc('\n', f);
}

/* A process's samples, and those of its threads that ended. */
struct process_figures {
	const struct target *t;
	uint64_t samples, ended_samples;
};

/* Those still running first, busiest first; then those that exited. */
static int running_busiest_first(const void *a, const void *b)
{
	const struct process_figures *x = a, *y = b;
	if (x->t->exited != y->t->exited)
		return x->t->exited ? 1 : -1;
	return x->samples > y->samples ? -1 : x->samples < y->samples;
}

#define PROCESSES_SHOWN 20
#define THREADS_SHOWN 10 /* of each process */
#define THREAD_ROWS 12   /* of all processes: the summary fits a screen */

void summary_process_head(FILE *f, pid_t pid, const char *comm, const char *words,
			  size_t n_threads)
{
	char name[256];
	snprintf(name, sizeof(name), "%s%s%s", comm, words && words[0] ? " " : "",
		 words ? words : "");
	fprintf(f, "  process %-6d %-15s %zu thread%s now", (int)pid, name, n_threads,
		n_threads == 1 ? "" : "s");
}

size_t summary_rows_shown(size_t n, size_t cap)
{
	return n > cap + 2 ? cap : n; /* never "and 1 more" */
}

/* On a CPU most first, then most samples, then the lowest id. */
static int busiest_thread_first(const void *a, const void *b)
{
	const struct thread_figures *x = a, *y = b;
	if (x->samples_on_cpu != y->samples_on_cpu)
		return x->samples_on_cpu > y->samples_on_cpu ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* A process of one thread: its figures on the process's line. */
static void print_only_thread(FILE *f, const struct thread_figures *t)
{
	fprintf(f, ": %" PRIu64 " samples", t->samples);
	if (t->samples)
		fprintf(f, ", %.1f%% on CPU", 100.0 * (double)t->samples_on_cpu / (double)t->samples);
	if (t->sched_known)
		fprintf(f, " (schedstat %.1f%%)", t->sched_on_cpu);
	fputc('\n', f);
}

/* A process's line, and its live threads: the busiest THREADS_SHOWN, no
 * more than *rows_left of all processes' (a server of thousands of
 * threads, a PostgreSQL instance of a dozen processes fit a screen), the
 * rest in one line; --all-threads lists them all.  A process of one
 * thread is one line. */
static void print_process(FILE *f, const struct options *o, const struct process_figures *pf,
			  const struct sampler *s, size_t *rows_left)
{
	const struct target *t = pf->t;
	summary_process_head(f, t->pid, t->comm, sampler_process_words(s, t->pid), t->n_threads);
	if (t->ended_threads)
		fprintf(f, ", %" PRIu64 " ended (%" PRIu64 " samples)", t->ended_threads,
			pf->ended_samples);
	if (t->exited)
		fputs(", exited", f);
	size_t n = 0, cap = 0;
	bool as_they_come = false; /* out of memory */
	struct thread_figures *live = NULL;
	for (size_t i = 0; i < sampler_thread_count(s); i++) {
		struct thread_figures tf;
		sampler_thread_figures(s, i, &tf);
		if (tf.pid != t->pid || tf.ended)
			continue;
		if (!array_reserve((void **)&live, n + 1, &cap, sizeof(*live))) {
			if (!as_they_come)
				fputc('\n', f);
			as_they_come = true;
			print_thread(f, &tf);
			continue;
		}
		live[n++] = tf;
	}
	if (n == 1 && !as_they_come) {
		print_only_thread(f, &live[0]);
		free(live);
		return;
	}
	if (!as_they_come)
		fputc('\n', f);
	if (!n)
		return;
	qsort(live, n, sizeof(*live), busiest_thread_first);
	size_t cap_rows = *rows_left < THREADS_SHOWN ? *rows_left : THREADS_SHOWN;
	size_t shown = o->all_threads ? n : summary_rows_shown(n, cap_rows);
	*rows_left -= shown < *rows_left ? shown : *rows_left;
	uint64_t rest = 0, rest_on_cpu = 0;
	for (size_t k = 0; k < n; k++) {
		if (k < shown) {
			print_thread(f, &live[k]);
			continue;
		}
		rest += live[k].samples;
		rest_on_cpu += live[k].samples_on_cpu;
	}
	if (shown < n)
		fprintf(f, "    and %zu more threads, %" PRIu64 " samples, on CPU in %.1f%% "
			"(--all-threads lists them)\n", n - shown, rest,
			rest ? 100.0 * (double)rest_on_cpu / (double)rest : 0.0);
	free(live);
}

/* The processes, busiest first; a server's hundreds in one line. */
static void print_processes(FILE *f, const struct options *o, const struct target *ts,
			    size_t n_slots, const struct sampler *s, const struct sampler_result *r)
{
	struct process_figures *pf = calloc(n_slots ? n_slots : 1, sizeof(*pf));
	if (!pf)
		return;
	/* the processes in a slot; those let go are summed (retire.h) */
	size_t n_targets = 0;
	for (size_t p = 0; p < n_slots; p++) {
		if (ts[p].retired)
			continue;
		uint64_t retired = sampler_retired_samples(s, ts[p].pid);
		pf[n_targets++] = (struct process_figures){ &ts[p], retired, retired };
	}
	for (size_t i = 0; i < sampler_thread_count(s); i++) {
		struct thread_figures tf;
		sampler_thread_figures(s, i, &tf);
		for (size_t p = 0; p < n_targets; p++)
			if (pf[p].t->pid == tf.pid) {
				pf[p].samples += tf.samples;
				if (tf.ended)
					pf[p].ended_samples += tf.samples;
				break;
			}
	}
	qsort(pf, n_targets, sizeof(*pf), running_busiest_first);
	/* Those that exited are listed when they are few: a server whose
	 * clients connect without a pool ends hundreds of backends a minute
	 * (pgbench -C: 14 of the 20 lines were ended backends of 5 samples) */
	size_t running = 0;
	while (running < n_targets && !pf[running].t->exited)
		running++;
	size_t exited = n_targets - running;
	size_t listed = running + (exited <= 2 ? exited : 0);
	size_t shown = summary_rows_shown(listed, PROCESSES_SHOWN);
	size_t rows_left = THREAD_ROWS;
	for (size_t k = 0; k < shown; k++)
		print_process(f, o, &pf[k], s, &rows_left);
	uint64_t rest = 0, gone = r->retired_samples;
	for (size_t k = shown; k < n_targets; k++)
		*(k < listed ? &rest : &gone) += pf[k].samples;
	if (shown < listed)
		fprintf(f, "  and %zu more processes, %" PRIu64 " samples\n", listed - shown, rest);
	uint64_t not_listed = n_targets - listed + r->retired_processes;
	if (not_listed)
		fprintf(f, "  and %" PRIu64 " processes that exited, %" PRIu64 " samples\n",
			not_listed, gone);
	free(pf);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Of process pid's sampled threads, how many share their name with
 * another: one root for all of them by default. */
static size_t sharing_a_name(const struct sampler *s, pid_t pid, const char **names, size_t cap)
{
	size_t n = 0, shared = 0;
	for (size_t i = 0; i < sampler_thread_count(s) && n < cap; i++) {
		struct thread_figures tf;
		sampler_thread_figures(s, i, &tf);
		if (tf.pid == pid && tf.samples)
			names[n++] = tf.comm;
	}
	qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++)
		shared += (i > 0 && !strcmp(names[i], names[i - 1])) ||
			  (i + 1 < n && !strcmp(names[i], names[i + 1]));
	return shared;
}

/* Threads of one name are one root by default (a thread server's: every
 * MariaDB thread is named mariadbd, its connections beside InnoDB's
 * workers): said, for the process with most of them, with the way to keep
 * them apart.  The default roots stay as they were: a flame graph of
 * today's is comparable with yesterday's (--diff). */
static void print_shared_names(FILE *f, const struct options *o, const struct target *ts,
			       size_t n_targets, const struct sampler *s)
{
	size_t cap = s ? sampler_thread_count(s) : 0;
	if (o->group_by != GROUP_PID || !cap)
		return;
	const char **names = malloc(cap * sizeof(*names));
	size_t most = 0, at = 0;
	for (size_t p = 0; names && p < n_targets; p++) {
		if (ts[p].retired)
			continue;
		size_t shared = sharing_a_name(s, ts[p].pid, names, cap);
		if (shared > most)
			most = shared, at = p;
	}
	free(names);
	if (most)
		fprintf(f, "  threads of one name    %zu in %s[%d] share a root: --group-by thread keeps "
			"them apart\n", most, ts[at].comm, (int)ts[at].pid);
}

/* The thread that paid most, as a share of its own time: one figure,
 * then what it is made of. */
/* The thread our stops cost most (stop_cost.h), into most; its loss in
 * percent of its time, 0 when none lost anything (most->tid 0). */
static double most_lost_thread(const struct sampler *s, const struct stop_cost *c,
			       struct thread_figures *most)
{
	*most = (struct thread_figures){ 0 };
	double most_lost = 0;
	for (size_t i = 0; s && i < sampler_thread_count(s); i++) {
		struct thread_figures tf;
		sampler_thread_figures(s, i, &tf);
		double lost = tf.sched_known ? stop_cost_lost(&tf, c) : 0; /* a short-lived one's says little */
		if (lost > most_lost)
			*most = tf, most_lost = lost;
	}
	return most_lost;
}

/* What the run cost, in one line near the top: the share of their time
 * our stops took from the target's threads, the thread they cost most
 * (the waits for a CPU after them included), and our own CPU beside how
 * idle the machine was.  On a machine with no CPU to spare, ours is
 * taken from its work: a server of threads that kept 2 CPUs busy lost
 * 24 % of its throughput at 1 ms with 11 % of the machine ours and its
 * threads stopped 0.2 % of their time (docs/performance.md).  Our CPU
 * is the next line, user and system from the first tick, per sample and
 * as a share of the machine: within 100 columns each. */
static void print_cost(FILE *f, const struct sampler *s, const struct sampler_result *r,
		       double stopped_pct)
{
	fprintf(f, "  cost                   threads stopped %.3f%% of their time", stopped_pct);
	struct thread_figures most;
	double lost = most_lost_thread(s, &r->stop_cost, &most);
	if (most.tid)
		fprintf(f, ", thread %d lost %.1f%% in all", (int)most.tid, lost);
	fputc('\n', f);
	/* ours, the next line: one line of both would not fit a screen */
	uint64_t taken = r->samples + r->left_out;
	if (!r->wall_ns || !r->cpus || !taken)
		return;
	double ours = 100.0 * (double)r->cpu_ns / ((double)r->wall_ns * r->cpus);
	fprintf(f, "  profiler CPU           %.1f us per sample, %.2f%% of the machine's %d CPUs",
		(double)r->cpu_ns / (double)taken / 1e3, ours, r->cpus);
	if (r->idle_known) { /* below: ours came out of others' work */
		double idle = 100.0 * r->idle_share;
		fprintf(f, "; %.1f%% idle%s", idle, idle < ours ? ", below ours" : "");
	}
	fputc('\n', f);
}

static void print_most_stopped(FILE *f, const struct sampler *s, const struct stop_cost *c)
{
	struct thread_figures most;
	double most_lost = most_lost_thread(s, c, &most);
	if (!most.tid)
		return;
	fprintf(f, "  target cost            thread %d (%s) lost %.1f%% of its time to us: ",
		(int)most.tid, most.comm, most_lost);
	if (stop_cost_on_thread(&most)) {
		double other = most.stopped - most.running_stopped + most.waited_after -
			       most.running_waited;
		fprintf(f, "%.2f%% around %" PRIu64 " stops that took it off a CPU (each %.1f us "
			"off it by its schedstat, %.1f us in the kernel on the way), ",
			most_lost - other - most.held, most.running_stops, most.offcpu_ns / 1e3,
			stop_cost_on_cpu_ns(&most, c) / 1e3);
		if (most.held > 0)
			fprintf(f, "%.2f%% held off its CPU by our rounds, ", most.held);
		fprintf(f, "%.2f%% in other stops and the waits after them\n", other);
		return;
	}
	/* A stop costs a thread more than the stop: once resumed it waits
	 * for a CPU (a busy machine's, or the one it lost to us), and one
	 * that took it off a CPU costs it the way in and out. */
	if (most.held > 0) /* followed to its CPU: our rounds there held it */
		fprintf(f, "%.2f%% held off its CPU by our rounds, ", most.held);
	fprintf(f, "%.2f%% stopped, %.2f%% waiting for a CPU after we resumed it", most.stopped,
		most.waited_after);
	double around = most_lost - most.held - most.stopped - most.waited_after;
	if (c->known && most.running_stops)
		fprintf(f, ", %.2f%% around %" PRIu64 " stops that took it off a CPU (%.1f us each "
			"beyond the stop, measured after the run on a process of ours)",
			around > 0 ? around : 0.0, most.running_stops, c->extra_us); /* no -0.00 */
	fputc('\n', f);
}

/* --max-overhead: what the bound held, where it held anything. */
static void print_guard(FILE *f, const struct options *o, const struct sampler *s,
			const struct sampler_result *r)
{
	if (o->max_overhead <= 0)
		return;
	fprintf(f, "  --max-overhead %.3g%%    ", 100 * o->max_overhead);
	/* the threads held hardest, a few: a server has hundreds */
	enum { SHOWN = 3, HELD_MIN_SAMPLES = 50 };
	struct thread_figures held[SHOWN];
	size_t n_held = 0, n_shown = 0;
	for (size_t i = 0; i < sampler_thread_count(s); i++) {
		struct thread_figures tf;
		sampler_thread_figures(s, i, &tf);
		if (tf.lowest_rate >= 0.999)
			continue;
		n_held++;
		if (tf.samples < HELD_MIN_SAMPLES)
			continue; /* a thread of a few ticks: its lowest rate says little */
		size_t at = n_shown;
		while (at > 0 && held[at - 1].lowest_rate > tf.lowest_rate) {
			if (at < SHOWN)
				held[at] = held[at - 1];
			at--;
		}
		if (at < SHOWN)
			held[at] = tf;
		if (n_shown < SHOWN)
			n_shown++;
	}
	bool said = false;
	for (size_t i = 0; i < n_shown; i++) {
		fprintf(f, "%sthread %d (%s) stopped at 1 in %.0f of its running ticks at the least",
			said ? "; " : "", (int)held[i].tid, held[i].comm, 1 / held[i].lowest_rate);
		said = true;
	}
	if (n_held > n_shown)
		fprintf(f, "%s%zu %sthreads held", said ? "; " : "", n_held - n_shown,
			said ? "more " : "");
	said = said || n_held > 0;
	if (r->highest_scale > 1.001) {
		char every[32];
		format_duration((uint64_t)((double)o->interval_ns * r->highest_scale), every,
				sizeof(every));
		fprintf(f, "%sticks as far apart as %s for the sampler's own CPU", said ? "; " : "",
			every);
		said = true;
	}
	fprintf(f, "%s\n", said ? "" : "nothing to hold: every stop within it");
}

/* How far a verdict's figures are apart, beyond their error. */
static double check_miss(const struct selfcheck_verdict *v)
{
	return fabs(v->kernel - v->sampled) - v->error;
}

/* The self-check first, a warning a kind however many threads it holds
 * (a server of hundreds): how many, the worst of them, what to do. */
static void print_checks(FILE *f, const struct options *o, const struct sampler *s)
{
	static const enum selfcheck_kind kinds[] = { SELFCHECK_ON_CPU, SELFCHECK_QUEUED };
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		size_t n = 0;
		struct thread_figures worst = { 0 };
		for (size_t i = 0; i < sampler_thread_count(s); i++) {
			struct thread_figures tf;
			sampler_thread_figures(s, i, &tf);
			const struct selfcheck_verdict *v =
				kinds[k] == SELFCHECK_QUEUED ? &tf.queue_check : &tf.check;
			const struct selfcheck_verdict *w =
				kinds[k] == SELFCHECK_QUEUED ? &worst.queue_check : &worst.check;
			if (!v->disagrees)
				continue;
			if (!n++ || check_miss(v) > check_miss(w))
				worst = tf;
		}
		char line[512];
		if (n)
			fprintf(f, "ptrace_profiler: %s\n",
				summary_check_line(o, &worst, kinds[k], n, line, sizeof(line)));
	}
}

/* --no-idle: what it left out; the shares below are of every sample
 * taken, left out or not, so that they read the same without it. */
static void print_left_out(FILE *f, const struct options *o, const struct sampler_result *r)
{
	if (!o->no_idle)
		return;
	uint64_t taken = r->samples + r->left_out;
	fprintf(f, "  left out (--no-idle)   %" PRIu64 " samples in an idle wait, %.1f%% of the %" PRIu64
		" taken; not in the profile\n", r->left_out,
		taken ? 100.0 * (double)r->left_out / (double)taken : 0, taken);
}

/* A virtual machine's CPUs lent to other guests (steal): time no thread
 * here ran and no tick was taken in.  Said from half a per cent, where
 * the truth tests here saw bursts stretched and shares a few points off. */
static void print_steal(FILE *f, const struct sampler_result *r)
{
	if (r->steal_share < 0.005)
		return;
	fprintf(f, "  host steal             %.1f%% of the CPUs' time went to other guests: shares "
		"a few points off\n", 100 * r->steal_share);
}

/* What reading PostgreSQL processes' status cost (--pg-queries, --no-idle). */
static void print_status_reads(FILE *f, const struct sampler_result *r)
{
	if (!r->status_reads && !r->status_reused)
		return;
	fprintf(f, "  PostgreSQL status      %" PRIu64 " reads without a stop", r->status_reads);
	if (r->status_reads)
		fprintf(f, ", %.1f us each (%.1f%% of the profiler's CPU)",
			(double)r->status_ns / (double)r->status_reads / 1e3,
			r->cpu_ns ? 100.0 * (double)r->status_ns / (double)r->cpu_ns : 0);
	fprintf(f, "; %" PRIu64 " saved: no thread of the process had run since\n", r->status_reused);
}

/* Sleepers whose stacks needed more registers than /proc shows: read
 * from their last switch off a CPU, or why not (switch_regs.h). */
static void print_switches(FILE *f, const struct switch_stats *w)
{
	if (w->most)
		fprintf(f, "  sleepers' registers    %zu threads watched (perf context switches), %" PRIu64
			" reads of the registers they slept with", w->most, w->found);
	if (w->most && w->lost)
		fprintf(f, ", %" PRIu64 " after switches were dropped", w->lost);
	if (w->most && w->no_room)
		fprintf(f, "; %" PRIu64 " threads not watched, no room", w->no_room);
	if (w->most)
		fputc('\n', f);
	if (w->refused_errno)
		fprintf(f, "  sleepers' registers    no perf events (%s): a sleeping thread whose "
			"stack needs rbp is stopped, and so woken\n", strerror(w->refused_errno));
}

#define QUERIES_SHOWN 10
#define EVENTS_SHOWN 3

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* One query of the time model: its share of the instance, on CPU, and its
 * top wait events as shares of its own samples. */
static void print_query(FILE *f, size_t rank, const struct pg_time_entry *e, uint64_t taken,
			const char *unit)
{
	fprintf(f, "    %2zu. %5.1f%% of the %s, on CPU %5.1f%%: %s\n", rank, pct(e->samples, taken), unit,
		pct(e->on_cpu, e->samples), e->frame);
	const struct pg_time_event *top[EVENTS_SHOWN];
	size_t n = pg_time_top_events(e, top, EVENTS_SHOWN);
	fprintf(f, "        waits:");
	for (size_t k = 0; k < n; k++)
		fprintf(f, "%s %s %.1f%%", k ? "," : "", top[k]->name, pct(top[k]->samples, e->samples));
	fprintf(f, "%s\n", n ? "" : " none");
}

void summary_time_model(FILE *f, const struct pg_time *t, uint64_t taken, bool reads)
{
	const char *unit = reads ? "reads" : "samples";
	uint64_t in_queries = 0;
	size_t queries = 0;
	for (size_t i = 0; i < t->n; i++)
		if (pg_time_is_query(t->e[i].frame)) {
			queries++;
			in_queries += t->e[i].samples;
		}
	size_t top[QUERIES_SHOWN];
	size_t n = pg_time_top(t, top, QUERIES_SHOWN);
	fprintf(f, "  queries (--pg-queries) %zu seen, in %.1f%% of the %" PRIu64 " %s taken", queries,
		pct(in_queries, taken), taken, unit);
	if (reads)
		fprintf(f, " (the report's: every process's state at every tick, read without a stop; "
			"on CPU: no wait event)");
	if (n)
		fprintf(f, "; the heaviest, waits as shares of each one's %s:", unit);
	fputc('\n', f);
	for (size_t k = 0; k < n; k++)
		print_query(f, k + 1, &t->e[top[k]], taken, unit);
	bool said = false;
	for (size_t i = 0; i < t->n; i++) {
		if (pg_time_is_query(t->e[i].frame))
			continue;
		fprintf(f, "%s%s %.1f%%", said ? ", " : "  sessions not in a query ", t->e[i].frame,
			pct(t->e[i].samples, taken));
		said = true;
	}
	if (said)
		fputc('\n', f);
	if (t->renamed_samples)
		fprintf(f, "  read while parsed      %" PRIu64 " samples of statements read before the "
			"server computed their id, counted under the id the run saw for the same text\n",
			t->renamed_samples);
}

/* Stacks that did not reach a thread's first frame, where most stopped,
 * and, when that is JIT code, what would let it be unwound and named. */
static void print_cut(FILE *f, const struct sampler_result *r)
{
	struct cut_tally c = r->cut;
	fprintf(f, "  cut stacks             %" PRIu64 " of %" PRIu64 " samples end in [truncated]",
		c.samples, r->samples);
	if (c.samples)
		fprintf(f, ", most in %s (%" PRIu64 ")", c.most.name, c.most.samples);
	fputc('\n', f);
	if (c.samples && c.most.anon)
		fputs("  JIT code               without frame pointers: run Java with "
		      "-XX:+PreserveFramePointer; JIT names come from /tmp/perf-PID.map "
		      "(jcmd PID Compiler.perfmap, node --perf-basic-prof); docs/names.md\n", f);
}

/* Per thread: stops of different threads add up to more than the wall
 * time while each thread lost only its own share.  (--no-idle's samples
 * left out were taken all the same.) */
static double stopped_share(const struct sampler_result *r)
{
	uint64_t taken = r->samples + r->left_out;
	double threads = r->ticks ? (double)taken / (double)r->ticks : 1;
	return r->wall_ns ? 100.0 * (double)r->frozen.total_ns / ((double)r->wall_ns * threads) : 0;
}

/* -v: how the samples were read and timed - what the default summary
 * leaves out to fit a screen (docs/summary.md). */
static void print_mechanics(FILE *f, const struct sampler *s, const struct sampler_result *r)
{
	fprintf(f, "  without a stop         %" PRIu64 " samples of blocked threads read as they "
		"were, %" PRIu64 " known unchanged (%" PRIu64 " by their run count alone",
		r->peeked, r->reused, r->still);
	if (r->still_unmoved)
		fprintf(f, ", %" PRIu64 " of them by their record of switches, with no read",
			r->still_unmoved);
	fputs(")\n", f);
	/* --period: what ended, let go once its stacks were named (retire.h) */
	if (r->retired_processes || r->retired_threads)
		fprintf(f, "  let go once named      %" PRIu64 " processes and %" PRIu64 " thread records "
			"of what ended, their samples summed; slots and records reused\n",
			r->retired_processes, r->retired_threads);
	if (r->peeked_early)
		fprintf(f, "  read before the look   %" PRIu64 " of those read without a stop: where it "
			"slept and its stack, read just before the look that proved them\n",
			r->peeked_early);
	if (r->copies_extended)
		fprintf(f, "  short copies           %" PRIu64 " reads without a stop copied the stack "
			"up to where the last unwind ended, found it too short, and read the rest\n",
			r->copies_extended);
	if (r->peeked_lent || r->lent_refused)
		fprintf(f, "  frame pointers         %" PRIu64 " of those read unwound with rbp from an "
			"earlier stop at the same sp; %" PRIu64 " times it found other frames, and the "
			"thread was stopped\n", r->peeked_lent, r->lent_refused);
	print_switches(f, &r->switches);
	if (r->words_reused)
		fprintf(f, "  state words            %" PRIu64 " samples kept their process's last read: "
			"none of its threads had run since\n", r->words_reused);
	if (r->words_foreign)
		fprintf(f, "  others' words          %" PRIu64 " samples counted without their state "
			"words: those at hand had been read through another process\n",
			r->words_foreign);
	if (r->read_ticks)
		fprintf(f, "  report's reads         %" PRIu64 " ticks, %.1f us of our CPU each (a wake-up "
			"included between rounds), read %" PRIu64 " wait words: %" PRIu64 " through one "
			"process, in one call a tick, %" PRIu64 " each its own way\n",
			r->read_ticks, (double)r->read_cpu_ns / 1e3 / (double)r->read_ticks,
			r->read_through + r->read_own, r->read_through, r->read_own);
	if (r->queued)
		fprintf(f, "  queued for a CPU       %" PRIu64 " stops collected when the thread got one\n",
			r->queued);
	if (r->woke_in_round)
		fprintf(f, "  woken in the round     %" PRIu64 " looks found a thread runnable that slept "
			"at the tick and had not run since: counted asleep\n", r->woke_in_round);
	if (r->no_user_stack)
		fprintf(f, "  no user stack          %" PRIu64 " samples of threads that never stopped, "
			"or that ran before their stop came\n", r->no_user_stack);
	if (r->kernel_late)
		fprintf(f, "  no kernel stack        %" PRIu64 " samples of blocked threads that woke "
			"while their kernel frames were read, counted without them\n", r->kernel_late);
	fprintf(f, "  target stopped         %.3f ms in total, %.3f%% of each thread's wall time\n",
		(double)r->frozen.total_ns / 1e6, stopped_share(r));
	print_hist(f, "stopped per stop", &r->frozen);
	print_most_stopped(f, s, &r->stop_cost);
	print_hist(f, "work per sample", &r->work);
	print_hist(f, "round", &r->round);
	print_status_reads(f, r);
	if (r->realtime && r->lifts)
		fprintf(f, "  sampler priority       SCHED_FIFO 1 (naming windows at nice %d, lifted "
			"back for a tick %" PRIu64 " times)", r->nice, r->lifts);
	else if (r->realtime)
		fprintf(f, "  sampler priority       SCHED_FIFO 1 (naming windows at nice %d)", r->nice);
	else
		fprintf(f, "  sampler priority       nice %d%s", r->nice,
			r->short_slice ? ", 0.1 ms slice" : "");
	if (r->cpu_moves > r->cpu_follows)
		fprintf(f, "; left a CPU its targets wanted %u times", r->cpu_moves - r->cpu_follows);
	if (r->followed_threads)
		fprintf(f, "; followed %u thread%s caught leaving system calls to its CPU %u times "
			"(%u again, the thread moved), resumed there %" PRIu64 " times (%" PRIu64 " with no "
			"wake-up sent: our helper's visit; %" PRIu64 " ticks on a timer armed a round "
			"before)", r->followed_threads,
			r->followed_threads > 1 ? "s" : "", r->cpu_follows, r->follow_moves, r->resumed_here,
			r->resumed_visited, r->armed_ahead);
	if (r->held_looks)
		fprintf(f, "; %" PRIu64 " looks held by our tick read its schedstat alone "
			"(%" PRIu64 " its kernel frames from the call)", r->held_looks, r->assumed_frames);
	if (r->copied || r->copy_unknown)
		fprintf(f, "; %" PRIu64 " samples copied by the kernel as our tick took the CPU, no "
			"stop (%" PRIu64 " stopped: the call at its address not known yet)", r->copied,
			r->copy_unknown);
	if (r->followed_threads && r->copy_refused)
		fprintf(f, "; no copies at our tick (perf events: %s)", strerror(r->copy_refused));
	if (r->yields_unbounded)
		fprintf(f, "; %" PRIu64 " traps waited for in waitpid (%" PRIu64 " waits ended by "
			"the watch)", r->yields_unbounded, r->yields_ended);
	fputc('\n', f);
}

void summary_print(FILE *f, const struct options *o, const struct target *ts, size_t n_targets,
		   const struct sampler *s, const struct sampler_result *r)
{
	double wall_s = (double)r->wall_ns / 1e9;
	print_checks(f, o, s);
	/* every process seen: those in a slot, those let go (retire.h) */
	uint64_t seen = r->retired_processes;
	for (size_t p = 0; p < n_targets; p++)
		seen += !ts[p].retired;
	fprintf(f, "ptrace_profiler: %" PRIu64 " process%s, %" PRIu64 " ticks in %.3f s, %" PRIu64
		" thread samples\n", seen, seen > 1 ? "es" : "", r->ticks, wall_s, r->samples);
	print_rate(f, o, r);
	print_cost(f, s, r, stopped_share(r));
	uint64_t forwarded = r->retired_signals;
	for (size_t p = 0; p < n_targets; p++)
		forwarded += ts[p].retired ? 0 : ts[p].signals_forwarded;
	if (r->family_joined || r->family_full) {
		fprintf(f, "  subprocesses           %" PRIu64 " seized on the way%s", r->family_joined,
			r->family_full ? ", more not: no room for them" : "");
		if (r->family_deferred)
			fprintf(f, "; %" PRIu64 " scan%s found more than %d new ones, the rest "
				"seized after the next rounds", r->family_deferred,
				r->family_deferred > 1 ? "s" : "", FAMILY_SEIZE_MAX);
		if (r->family_exiting)
			fprintf(f, "; %" PRIu64 " of them seen only as they exited, with no "
				"PostgreSQL state", r->family_exiting);
		if (r->family_exec_gone)
			fprintf(f, "; %" PRIu64 " ended as they ran a new program, before it was "
				"read", r->family_exec_gone);
		if (r->family_not_pg)
			fprintf(f, "; %" PRIu64 " no PostgreSQL server (said of the first)",
				r->family_not_pg);
		fputc('\n', f);
	}
	if (r->family_no_room)
		fprintf(f, "  descriptors            out at %" PRIu64 " (ulimit -n): %" PRIu64 " process%s' "
			"PostgreSQL state not read\n", descriptors_limit(), r->family_no_room,
			r->family_no_room > 1 ? "es" : "");
	print_processes(f, o, ts, n_targets, s, r);
	print_shared_names(f, o, ts, n_targets, s);
	print_left_out(f, o, r);
	if (o->pg_queries && r->read_time.n) /* (the report's reads: many more) */
		summary_time_model(f, &r->read_time, r->read_through + r->read_own, true);
	else if (o->pg_queries)
		summary_time_model(f, &r->pg_time, r->samples + r->left_out, false);
	fprintf(f, "  unwind failures        %" PRIu64 " of %" PRIu64 " samples\n",
		r->unwind_failures, r->samples);
	print_cut(f, r);
	if (r->stop_timeouts)
		fprintf(f, "  late stops             %" PRIu64 " times a thread did not stop within 200 ms\n",
			r->stop_timeouts);
	print_guard(f, o, s, r);
	print_steal(f, r);
	if (r->peak_rss_kb)
		fprintf(f, "  profiler memory        %.1f MB at the peak (VmHWM)\n",
			(double)r->peak_rss_kb / 1024.0);
	if (o->verbose)
		print_mechanics(f, s, r);
	if (r->detach.threads)
		fprintf(f, "  detaching              %.1f ms, %" PRIu64 " thread%s%s\n",
			(double)r->detach.ns / 1e6, r->detach.threads,
			r->detach.threads > 1 ? "s" : "",
			r->detach.left ? "; some not stopped in time, left to the kernel "
			"(it detaches them when we exit)" : "");
	if (r->naming_ns)
		fprintf(f, "  naming                 %.1f ms after detaching, at nice %d; %u ELF files, %u "
			"re-read%s of maps\n", (double)r->naming_ns / 1e6, r->nice, r->images_opened,
			r->maps_reads, r->maps_reads == 1 ? "" : "s");
	/* A process of many mappings that jumps where none is: its maps are
	 * re-read only as often as their reading allows (modules.h). */
	if (r->maps_skipped)
		fprintf(f, "  maps not re-read       %u%s address%s left unknown (%" PRIu64 " look-up%s): "
			"slowest read %.1f ms, longest wait %.0f ms\n", r->maps_skipped_addrs,
			r->maps_skipped_more ? "+" : "", r->maps_skipped_addrs == 1 &&
			!r->maps_skipped_more ? "" : "es", r->maps_skipped, r->maps_skipped == 1 ? "" : "s",
			(double)r->maps_read_max_ns / 1e6, (double)r->maps_wait_max_ns / 1e6);
	if (forwarded)
		fprintf(f, "  signals forwarded      %" PRIu64 "\n", forwarded);
	/* A file truncated by its owner while we ran (sigbus.h). */
	uint64_t cut_short = sigbus_zero_pages();
	if (cut_short)
		fprintf(f, "  files cut short        %" PRIu64 " page%s of ELF files we mapped, truncated "
			"under us, read as zeros; frames in such a file named as far as read before, "
			"else [file]\n", cut_short, cut_short > 1 ? "s" : "");
	/* A JIT map too big for its bound (perfmap.h). */
	uint64_t unread;
	size_t over = perfmap_files_over_budget(&unread);
	if (over)
		fprintf(f, "  JIT maps cut short     %zu file%s past the memory bound (1.5 times the file); "
			"%.1f MB of %s not read (code listed there: [anon])\n", over, over > 1 ? "s" : "",
			(double)unread / 1048576.0, over > 1 ? "them" : "it");
}
