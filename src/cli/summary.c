/* summary.c - the end-of-run summary (summary.h). */
#include "cli/summary.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "profile/cut.h"

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

/* The rate: asked (the mean interval) and achieved, as long as the run
 * lasted a whole interval; a percentage of a shorter run means nothing. */
static void print_rate(FILE *f, const struct options *o, const struct sampler_result *r)
{
	char every[32];
	format_duration(o->interval_ns, every, sizeof(every));
	fprintf(f, "  rate                   asked one round every %s on average", every);
	double wall_s = (double)r->wall_ns / 1e9;
	if (r->wall_ns >= o->interval_ns && wall_s > 0) {
		double asked = 1e9 / (double)o->interval_ns, achieved = (double)r->rounds / wall_s;
		fprintf(f, " (%.4g/s), achieved %.4g/s (%.0f%%)", asked, achieved,
			100.0 * achieved / asked);
	} else {
		fprintf(f, "; the run was shorter than one interval");
	}
	fprintf(f, ", skipped ticks %" PRIu64 "\n", r->skipped_ticks);
}

/* Per thread: its share of samples on a CPU, and what its schedstat says
 * it spent on one over the same ticks - where they disagree, say so. */
static void print_thread(FILE *f, const struct thread *th)
{
	fprintf(f, "    thread %-7d %-15s %" PRIu64 " samples", (int)th->tid, th->comm, th->samples);
	if (th->samples)
		fprintf(f, ", on CPU in %.1f%%", 100.0 * (double)th->samples_on_cpu /
							(double)th->samples);
	if (th->sched_seen && th->sched_last_ns > th->sched_first_ns)
		fprintf(f, "; schedstat: on CPU %.1f%% of its time",
			100.0 * (double)(th->sched_last_run_ns - th->sched_first_run_ns) /
				(double)(th->sched_last_ns - th->sched_first_ns));
	fputc('\n', f);
}

static uint64_t process_samples(const struct target *t)
{
	uint64_t n = t->ended_samples;
	for (size_t i = 0; i < t->n_threads; i++)
		n += t->threads[i].samples;
	return n;
}

static int busiest_first(const void *a, const void *b)
{
	uint64_t na = process_samples(*(const struct target *const *)a);
	uint64_t nb = process_samples(*(const struct target *const *)b);
	return na > nb ? -1 : na < nb;
}

#define PROCESSES_SHOWN 20

static void print_process(FILE *f, const struct target *t)
{
	fprintf(f, "  process %-6d %-15s %zu thread%s now", (int)t->pid, t->comm, t->n_threads,
		t->n_threads == 1 ? "" : "s");
	if (t->ended_threads)
		fprintf(f, ", %" PRIu64 " ended (%" PRIu64 " samples)", t->ended_threads,
			t->ended_samples);
	if (t->exited)
		fputs(", exited", f);
	fputc('\n', f);
	for (size_t i = 0; i < t->n_threads; i++)
		print_thread(f, &t->threads[i]);
}

/* Stacks that did not reach a thread's first frame, where most stopped,
 * and, when that is JIT code, what would let it be unwound and named. */
static void print_cut(FILE *f, const struct sampler_result *r)
{
	struct cut_tally c = cut_tally();
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

void summary_print(FILE *f, const struct options *o, const struct target *ts, size_t n_targets,
		   const struct sampler_result *r)
{
	double wall_s = (double)r->wall_ns / 1e9;
	fprintf(f, "ptrace_profiler: %zu process%s, %" PRIu64 " rounds in %.3f s, %" PRIu64
		" thread samples\n", n_targets, n_targets > 1 ? "es" : "", r->rounds, wall_s,
		r->samples);
	print_rate(f, o, r);
	uint64_t forwarded = 0;
	for (size_t p = 0; p < n_targets; p++)
		forwarded += ts[p].signals_forwarded;
	if (r->family_joined || r->family_full)
		fprintf(f, "  subprocesses           %" PRIu64 " seized on the way%s\n", r->family_joined,
			r->family_full ? ", more not: no room for them" : "");
	/* The busiest processes; a server's hundreds in one line. */
	const struct target **order = malloc(n_targets * sizeof(*order));
	size_t shown = n_targets;
	if (order) {
		for (size_t p = 0; p < n_targets; p++)
			order[p] = &ts[p];
		qsort(order, n_targets, sizeof(*order), busiest_first);
		if (shown > PROCESSES_SHOWN + 2)
			shown = PROCESSES_SHOWN;
	}
	for (size_t k = 0; k < shown; k++)
		print_process(f, order ? order[k] : &ts[k]);
	if (shown < n_targets) {
		uint64_t rest = 0;
		for (size_t k = shown; k < n_targets; k++)
			rest += process_samples(order[k]);
		fprintf(f, "  and %zu more processes, %" PRIu64 " samples\n", n_targets - shown, rest);
	}
	free(order);
	fprintf(f, "  unwind failures        %" PRIu64 " of %" PRIu64 " samples\n",
		r->unwind_failures, r->samples);
	print_cut(f, r);
	fprintf(f, "  without a stop         %" PRIu64 " samples of blocked threads read as they "
		"were, %" PRIu64 " known unchanged\n", r->peeked, r->reused);
	if (r->queued)
		fprintf(f, "  queued for a CPU       %" PRIu64 " stops collected when the thread got one\n",
			r->queued);
	if (r->stop_timeouts)
		fprintf(f, "  late stops             %" PRIu64 " times a thread did not stop within 200 ms\n",
			r->stop_timeouts);
	if (r->no_user_stack)
		fprintf(f, "  no user stack          %" PRIu64 " samples of threads that never stopped\n",
			r->no_user_stack);
	/* Per thread: stops of different threads add up to more than the
	 * wall time while each thread lost only its own share. */
	double threads = r->rounds ? (double)r->samples / (double)r->rounds : 1;
	fprintf(f, "  target stopped         %.3f ms in total, %.3f%% of each thread's wall time\n",
		(double)r->frozen.total_ns / 1e6,
		r->wall_ns ? 100.0 * (double)r->frozen.total_ns / ((double)r->wall_ns * threads) : 0);
	print_hist(f, "stopped per stop", &r->frozen);
	print_hist(f, "work per sample", &r->work);
	if (r->samples)
		fprintf(f, "  profiler CPU           %.1f us per sample (user and system, from the first tick)\n",
			(double)r->cpu_ns / (double)r->samples / 1e3);
	if (r->peak_rss_kb)
		fprintf(f, "  profiler memory        %.1f MB at the peak (VmHWM)\n",
			(double)r->peak_rss_kb / 1024.0);
	fprintf(f, "  sampler priority       nice %d%s\n", r->nice,
		r->short_slice ? ", 0.1 ms slice" : "");
	if (r->naming_ns)
		fprintf(f, "  naming                 %.1f ms after detaching, at nice 19; %u ELF files, each read once, maps re-read %u times\n",
			(double)r->naming_ns / 1e6, r->images_opened, r->maps_reads);
	if (forwarded)
		fprintf(f, "  signals forwarded      %" PRIu64 "\n", forwarded);
}
