/* record.c - the default mode: sample the targets, detach, name the
 * stacks, write the profile and the summary.  SIGUSR1 asks for the profile
 * so far and sampling goes on; with --period or --push the windows go to a
 * writer thread, and on to a sender (continuous.h). */
#define _GNU_SOURCE
#include "cli/modes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/session.h"
#include "cli/summary.h"
#include "continuous/continuous.h"
#include "continuous/window.h"
#include "name/symbolize.h"
#include "output/output.h"
#include "output/pyroscope.h"
#include "profile/aggregate.h"
#include "sample/sampler.h"

/* What a recording holds besides the session. */
struct recording {
	struct stack_table *table;
	struct sampler *sampler;
	struct continuous *cont;   /* the writer and sender threads, or NULL */
	struct sampler_result r;
};

/* Below 1 ms, unbounded, the cost is said before it is paid: measured
 * here (bench/cost_table.sh), a thread on a CPU is kept stopped 23-27 %
 * of its time at -d 100us, 4.5-5.2 % at 1 ms, and the sampler takes 43-47 %
 * of a CPU.  (A bound by default would make -d mean another interval.) */
static void say_cost(const struct options *o)
{
	if (o->interval_ns >= 1000000 || o->max_overhead > 0)
		return;
	char every[32];
	format_duration(o->interval_ns, every, sizeof(every));
	fprintf(stderr, "ptrace_profiler: note: -d %s stops a thread that runs at every tick: about a "
		"quarter of its time at 100 us (about 5 %% at 1 ms); --max-overhead 1%% bounds it\n", every);
}

/* The sampler, and the writer (SIGUSR1, --period) and sender (--push)
 * threads.  rec->sampler stays NULL when they cannot start. */
static void start(struct recording *rec, struct session *s)
{
	const struct options *o = s->o;
	say_cost(o);
	rec->table = stack_table_new();
	rec->sampler = rec->table ? sampler_new(o, s->ts, &s->n, MAX_TARGETS, s->names, rec->table,
						s->out)
				  : NULL;
	session_target_line(s);
	if (!rec->sampler)
		return;
	if (format_info(o->format)->streams) {
		sampler_continuous(rec->sampler, NULL, s->dump); /* stap: SIGUSR1 flushes */
		return;
	}
	char app[PYROSCOPE_NAME_MAX + 1], err[512];
	if (o->app_name)
		snprintf(app, sizeof(app), "%s", o->app_name);
	else
		pyroscope_app_name_from(s->ts[0].comm, app);
	if (!(rec->cont = continuous_start(o, s->command, s->target, app, err, sizeof(err)))) {
		fprintf(stderr, "ptrace_profiler: %s\n", err);
		sampler_free(rec->sampler);
		rec->sampler = NULL;
		return;
	}
	sampler_continuous(rec->sampler, rec->cont, s->dump);
}

/* After SIGUSR1 profiles went to stdout, the whole run's follows a
 * separator.  (To -o FILE: the whole run's replaces them at the end.) */
static void after_earlier_profiles(struct recording *rec, struct session *s)
{
	const struct options *o = s->o;
	char sep[128];
	if (continuous_writes(rec->cont) && !o->output_path && !o->period_ns &&
	    window_separator(o->format, "the profile of the whole run", sep, sizeof(sep)))
		fputs(sep, s->out);
}

/* The profile of the whole run: stap went out sample by sample, and the
 * windows of --period with the last one; every other format now. */
static void write_profile(struct recording *rec, struct session *s, int rc)
{
	const struct options *o = s->o;
	struct sampler_result *r = &rec->r;
	if (rc == 0 && !format_info(o->format)->streams && !o->period_ns && s->out) {
		struct profile profile = {
			.stacks = rec->table,
			.command = s->command,
			.target = s->target,
			.interval_ns = o->interval_ns,
			.start_unix_ns = r->start_unix_ns,
			.duration_ns = r->wall_ns,
			.total_samples = r->samples,
		};
		sampler_profile(rec->sampler, &profile);
		if (output_write(s->out, o->format, &profile) != 0 && !r->error[0])
			snprintf(r->error, sizeof(r->error), "cannot write the %s output: %s",
				 format_name(o->format), strerror(errno));
	}
	if (s->out && (fflush(s->out) != 0 || ferror(s->out)) && !r->error[0])
		snprintf(r->error, sizeof(r->error), "cannot write the output: %s", strerror(errno));
}

/* The summary on stderr, and the notes of processes that exited. */
static void report(struct recording *rec, struct session *s)
{
	for (size_t i = 0; i < s->n && !s->o->subprocesses; i++)
		if (s->exited[i])
			fprintf(stderr, "ptrace_profiler: process %d exited; profile covers its run until then\n",
				(int)s->ts[i].pid);
	rec->r.peak_rss_kb = summary_peak_rss_kb();
	summary_print(stderr, s->o, s->ts, s->n, rec->sampler, &rec->r);
	continuous_summary(stderr, rec->cont);
}

int mode_record(const struct options *o, const char *command)
{
	struct session s;
	int status = session_start(&s, o, command);
	if (status != 0)
		return status;
	static struct recording rec; /* large: the result's histograms */
	start(&rec, &s);
	int rc = rec.sampler ? sampler_run(rec.sampler, s.quit, &rec.r) : -1;
	session_detach(&s);
	rec.r.detach = s.detached;
	if (rec.sampler && sampler_stopped_running(rec.sampler)) /* the targets let go */
		stop_cost_measure(&rec.r.stop_cost);
	struct namer *namer = rec.sampler ? sampler_namer(rec.sampler) : NULL;
	session_naming(&s, namer, true);
	if (rc == 0 && sampler_name_stacks(rec.sampler, &rec.r) != 0)
		rc = -1;
	session_naming(&s, namer, false);
	if (session_hurried(&s) && namer && namer_hurried(namer))
		fprintf(stderr, "ptrace_profiler: naming cut short by a second signal: %" PRIu64
			" addresses named after their module only ([module])\n", namer_hurried(namer));
	/* Every window and SIGUSR1 profile written, and pushed (or given up). */
	continuous_stop(rec.cont);
	after_earlier_profiles(&rec, &s);
	write_profile(&rec, &s, rc);
	if (!rec.sampler && !rec.r.error[0])
		snprintf(rec.r.error, sizeof(rec.r.error), "cannot start sampling");
	if (rec.r.error[0]) {
		fprintf(stderr, "ptrace_profiler: %s\n", rec.r.error);
		rc = -1;
	}
	report(&rec, &s);
	/* Ended before its first tick (a signal while it attached): no
	 * profile to give, and FILE is not emptied for it. */
	if (rc == 0 && rec.r.samples + rec.r.left_out == 0 && o->output_path &&
	    output_file_replaces(&s.file)) {
		output_file_discard(&s.file);
		fprintf(stderr, "ptrace_profiler: no samples: '%s' kept as it was\n", o->output_path);
	}
	continuous_free(rec.cont);
	sampler_free(rec.sampler);
	stack_table_free(rec.table);
	return session_end(&s, rc);
}
