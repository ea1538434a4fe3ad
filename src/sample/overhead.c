/* overhead.c - the cost bound's controllers (overhead.h). */
#include "sample/overhead.h"

#include <math.h>

void overhead_thread_start(struct overhead_thread *t, uint64_t now_ns)
{
	*t = (struct overhead_thread){ .rate = 1, .last_ns = now_ns, .lowest_rate = 1 };
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
	if (rate < OVERHEAD_MIN_RATE)
		rate = OVERHEAD_MIN_RATE;
	return rate > 1 ? 1 : rate;
}

double overhead_next_scale(double budget, int cpus, double cpu_ns, double ticks,
			   double interval_ns)
{
	if (budget <= 0 || cpus <= 0 || cpu_ns <= 0 || ticks <= 0 || interval_ns <= 0)
		return 1;
	double per_tick = cpu_ns / ticks;
	double scale = per_tick / (0.7 * budget * cpus * interval_ns);
	if (scale > OVERHEAD_MAX_SCALE)
		scale = OVERHEAD_MAX_SCALE;
	return scale < 1 ? 1 : scale;
}

bool overhead_may_stop(struct overhead_thread *t, uint64_t now_ns, double budget)
{
	if (budget <= 0)
		return true;
	decay(t, now_ns);
	t->needs += 1;
	t->rate = overhead_next_rate(budget, t->wall_ns, t->needs, t->stops, t->stopped_ns);
	if (t->rate < t->lowest_rate)
		t->lowest_rate = t->rate;
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

void overhead_note_resume(struct overhead_thread *t, uint64_t wait_ns, uint64_t resumed_ns)
{
	t->resumed = true;
	t->wait_at_resume_ns = wait_ns;
	t->resumed_ns = resumed_ns;
}

void overhead_looked(struct overhead_thread *t, uint64_t wait_ns, uint64_t now_ns)
{
	if (!t->resumed || wait_ns < t->wait_at_resume_ns || now_ns < t->resumed_ns)
		return;
	t->resumed = false;
	uint64_t waited = wait_ns - t->wait_at_resume_ns, since = now_ns - t->resumed_ns;
	t->stopped_ns += (double)(waited < since ? waited : since);
}
