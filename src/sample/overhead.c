/* overhead.c - the cost bound's controllers (overhead.h). */
#include "sample/overhead.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void overhead_thread_start(struct overhead_thread *t, uint64_t now_ns)
{
	/* its first tick gets a stop; the rate starts low and rises as its
	 * costs are measured (overhead_may_stop).  The window starts full, of
	 * time without stops: a window of a few ms would read its first stop
	 * as a share of percents and its one tick as a thousand a second. */
	*t = (struct overhead_thread){ .rate = OVERHEAD_START_RATE, .credit = 1,
				       .wall_ns = (double)OVERHEAD_WINDOW_NS,
				       .last_ns = now_ns, .lowest_rate = 1 };
}

/* The window slides: older time weighs less, e^(-age/window). */
static void decay(struct overhead_thread *t, uint64_t now_ns)
{
	if (now_ns <= t->last_ns)
		return;
	double dt = (double)(now_ns - t->last_ns);
	double keep = exp(-dt / (double)OVERHEAD_WINDOW_NS);
	t->stopped_ns *= keep;
	t->needs *= keep;
	t->stops *= keep;
	t->wall_ns = t->wall_ns * keep + dt;
	t->last_ns = now_ns;
}

double overhead_share(const struct overhead_thread *t)
{
	return t->wall_ns > 0 ? t->stopped_ns / t->wall_ns : 0;
}

double overhead_next_rate(double budget, double wall_ns, double needs, double stops,
			 double stopped_ns)
{
	if (stops <= 0 || stopped_ns <= 0 || needs <= 0 || wall_ns <= 0)
		return 1;
	double per_stop = stopped_ns / stops, need_rate = needs / wall_ns;
	double rate = 0.7 * budget / (per_stop * need_rate);
	/* Over budget in the window already (a few long waits for a CPU after
	 * our stops decide a short window): lower it as far again. */
	double share = stopped_ns / wall_ns;
	if (share > budget)
		rate *= budget / share;
	double floor = overhead_floor(wall_ns, needs);
	if (rate < floor)
		rate = floor;
	return rate > 1 ? 1 : rate;
}

double overhead_floor(double wall_ns, double needs)
{
	if (wall_ns <= 0 || needs <= 0)
		return 1;
	double floor = OVERHEAD_MIN_STOPS_PER_S / (needs / wall_ns * 1e9);
	return floor > 1 ? 1 : floor;
}

double overhead_next_scale(double budget, int cpus, double cpu_ns, double ticks,
			   double interval_ns)
{
	return overhead_next_scale_beside(budget, cpus, cpu_ns, ticks, interval_ns, 0, 0);
}

static double within_scales(double scale)
{
	if (scale > OVERHEAD_MAX_SCALE)
		scale = OVERHEAD_MAX_SCALE;
	return scale < 1 ? 1 : scale;
}

double overhead_next_scale_beside(double budget, int cpus, double cpu_ns, double ticks,
				  double interval_ns, double reads_share, double part)
{
	if (budget <= 0 || cpus <= 0 || cpu_ns <= 0 || ticks <= 0 || interval_ns <= 0)
		return 1;
	double whole = 0.7 * budget * cpus, left = whole - (reads_share > 0 ? reads_share : 0);
	if (left < whole * (1 - part))
		left = whole * (1 - part);
	return within_scales(cpu_ns / ticks / (left * interval_ns));
}

double overhead_reads_scale(double budget, int cpus, double per_read_ns, double interval_ns,
			    double part)
{
	if (budget <= 0 || cpus <= 0 || per_read_ns <= 0 || interval_ns <= 0 || part <= 0)
		return 1;
	return within_scales(per_read_ns / (part * 0.7 * budget * cpus * interval_ns));
}

size_t overhead_rate_line(char *out, size_t outsz, double budget, uint64_t interval_ns,
			  double scale, uint64_t count, double round_cpu_ns)
{
	if (!outsz)
		return 0;
	out[0] = '\0';
	if (scale < 1.5 || !interval_ns)
		return 0;
	double asked = 1e9 / (double)interval_ns, held = asked / scale;
	/* -d as it would be written: 1ms, 100us, 2s */
	char d[32];
	if (interval_ns % 1000000000ULL == 0)
		snprintf(d, sizeof(d), "%llus", (unsigned long long)(interval_ns / 1000000000ULL));
	else if (interval_ns % 1000000ULL == 0)
		snprintf(d, sizeof(d), "%llums", (unsigned long long)(interval_ns / 1000000ULL));
	else
		snprintf(d, sizeof(d), "%.6gus", (double)interval_ns / 1e3);
	int n = snprintf(out, outsz, "ptrace_profiler: --max-overhead %.3g%%: about %.*f ticks a "
			 "second, not the %.0f of -d %s (a round costs %.0f us of our CPU)",
			 100 * budget, held < 10 ? 1 : 0, held, asked, d, round_cpu_ns / 1e3);
	if (count && n > 0 && (size_t)n < outsz) {
		double secs = (double)count / held;
		n += snprintf(out + n, outsz - (size_t)n, "; -n %llu takes about %.2g %s",
			      (unsigned long long)count, secs < 120 ? secs : secs / 60,
			      secs < 120 ? "s" : "min");
	}
	return n > 0 ? strlen(out) : 0;
}

bool overhead_may_stop(struct overhead_thread *t, uint64_t now_ns, double budget)
{
	if (budget <= 0)
		return true;
	uint64_t since = now_ns > t->last_ns ? now_ns - t->last_ns : 0;
	decay(t, now_ns);
	t->needs += 1;
	double want = overhead_next_rate(budget, t->wall_ns, t->needs, t->stops, t->stopped_ns);
	/* Down at once, up at most twice as high each OVERHEAD_RAMP_NS: a
	 * stop's full cost (the wait for a CPU after it) is known only at the
	 * thread's next look, and a start at every tick cost a CPU-bound
	 * thread 1 % of a 3 s run in its first 100 ms on a loaded machine. */
	double cap = t->rate * exp2((double)since / (double)OVERHEAD_RAMP_NS);
	t->rate = want < cap ? want : cap;
	double floor = overhead_floor(t->wall_ns, t->needs);
	if (t->rate < floor)
		t->rate = floor;
	/* what the budget held (the floor included), not the start */
	double held = want > floor ? want : floor;
	if (held < t->lowest_rate)
		t->lowest_rate = held;
	t->credit += t->rate;
	if (t->credit < 1)
		return false;
	t->credit -= 1;
	return true;
}

void overhead_stopped(struct overhead_thread *t, uint64_t frozen_ns)
{
	t->stopped_ns += (double)frozen_ns;
	t->stops += 1;
}

void overhead_note_resume(struct overhead_thread *t, uint64_t wait_ns, uint64_t runs,
			  uint64_t resumed_ns, bool was_running)
{
	t->resumed = true;
	t->resumed_running = was_running;
	t->wait_at_resume_ns = wait_ns;
	t->runs_at_resume = runs;
	t->resumed_ns = resumed_ns;
}

void overhead_looked(struct overhead_thread *t, uint64_t wait_ns, uint64_t runs, uint64_t now_ns)
{
	if (!t->resumed || runs == t->runs_at_resume)
		return; /* not run since: its wait, if any, is not counted yet */
	if (wait_ns < t->wait_at_resume_ns || now_ns < t->resumed_ns) {
		t->resumed = false;
		return;
	}
	t->resumed = false;
	/* The budget counts all of its queued time since (at most the time
	 * since): a promise errs on the safe side.  The summary's estimate:
	 * put on a CPU more than once since, the first wait is taken as
	 * their mean (a thread that competes for a CPU queues anyway). */
	uint64_t waited = wait_ns - t->wait_at_resume_ns, since = now_ns - t->resumed_ns;
	uint64_t first = waited / (runs - t->runs_at_resume);
	t->stopped_ns += (double)(waited < since ? waited : since);
	t->waited_after_ns += first < since ? first : since;
	if (t->resumed_running)
		t->waited_after_running_ns += first < since ? first : since;
}

void overhead_offcpu_stop(struct overhead_offcpu *o, bool was_running, uint64_t run_ns,
			  uint64_t runs, uint64_t at_ns)
{
	if (was_running && o->known && runs == o->runs + 1 && at_ns > o->at_ns &&
	    run_ns >= o->run_ns && run_ns - o->run_ns <= at_ns - o->at_ns) {
		o->sum_ns += (at_ns - o->at_ns) - (run_ns - o->run_ns);
		o->pairs++;
	}
	o->known = was_running;
	o->at_ns = at_ns;
	o->run_ns = run_ns;
	o->runs = runs;
}
