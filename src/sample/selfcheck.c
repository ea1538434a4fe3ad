/* selfcheck.c - profile against schedstat, per thread (selfcheck.h). */
#include "sample/selfcheck.h"

#include <math.h>
#include <string.h>

/* Two batches become one: the span doubles, the count halves. */
static void merge_pairs(struct selfcheck_thread *c)
{
	unsigned n = c->n / 2;
	for (unsigned i = 0; i < n; i++) {
		struct selfcheck_batch *a = &c->b[2 * i], *b = &c->b[2 * i + 1];
		c->b[i] = (struct selfcheck_batch){ a->samples + b->samples, a->on_cpu + b->on_cpu,
						    a->queued + b->queued, a->wall_ns + b->wall_ns,
						    a->run_ns + b->run_ns, a->wait_ns + b->wait_ns };
	}
	if (c->n % 2)
		c->b[n++] = c->b[c->n - 1];
	memset(&c->b[n], 0, (SELFCHECK_BATCHES - n) * sizeof(c->b[0]));
	c->n = n;
	c->batch_ns *= 2;
}

void selfcheck_sched(struct selfcheck_thread *c, uint64_t now_ns, uint64_t run_ns,
		     uint64_t wait_ns)
{
	if (!c->seen) {
		c->seen = true;
		c->batch_ns = SELFCHECK_FIRST_BATCH_NS;
		c->batch_start_ns = now_ns;
		c->n = 1;
	} else if (now_ns >= c->last_ns && run_ns >= c->last_run_ns && wait_ns >= c->last_wait_ns) {
		struct selfcheck_batch *b = &c->b[c->n - 1];
		b->wall_ns += now_ns - c->last_ns;
		b->run_ns += run_ns - c->last_run_ns;
		b->wait_ns += wait_ns - c->last_wait_ns;
		if (now_ns - c->batch_start_ns >= c->batch_ns) {
			if (c->n == SELFCHECK_BATCHES)
				merge_pairs(c);
			c->n++;
			c->batch_start_ns = now_ns;
		}
	}
	c->last_ns = now_ns;
	c->last_run_ns = run_ns;
	c->last_wait_ns = wait_ns;
}

void selfcheck_samples(struct selfcheck_thread *c, uint64_t count, uint64_t on_cpu,
		       uint64_t queued)
{
	if (!c->n)
		return;
	c->b[c->n - 1].samples += count;
	c->b[c->n - 1].on_cpu += on_cpu;
	c->b[c->n - 1].queued += queued;
}

struct selfcheck_verdict selfcheck_judge(const struct selfcheck_thread *c, enum selfcheck_kind kind,
					 uint64_t samples, uint64_t in_kind, double kernel_percent)
{
	struct selfcheck_verdict v = { false, 0, kernel_percent, 0, 0 };
	if (samples)
		v.sampled = 100.0 * (double)in_kind / (double)samples;
	/* the batch-by-batch differences: their spread gives the error */
	double sum = 0, sum2 = 0;
	unsigned k = 0;
	for (unsigned i = 0; i < c->n; i++) {
		const struct selfcheck_batch *b = &c->b[i];
		if (!b->samples || !b->wall_ns)
			continue;
		bool queued = kind == SELFCHECK_QUEUED;
		double d = 100.0 * ((double)(queued ? b->queued : b->on_cpu) / (double)b->samples -
				    (double)(queued ? b->wait_ns : b->run_ns) / (double)b->wall_ns);
		sum += d;
		sum2 += d * d;
		k++;
	}
	v.batches = k;
	if (k < 2)
		return v;
	double mean = sum / k, var = (sum2 - k * mean * mean) / (k - 1);
	v.error = sqrt(var > 0 ? var : 0) / sqrt((double)k);
	/* Twenty-odd batches of a few samples each can spread less than
	 * chance does: never claim less than the error of independent
	 * samples at the kernel's share. */
	double p = kernel_percent / 100.0;
	if (samples && p > 0 && p < 1) {
		double independent = 100.0 * sqrt(p * (1 - p) / (double)samples);
		if (independent > v.error)
			v.error = independent;
	}
	double diff = fabs(v.sampled - v.kernel);
	v.disagrees = k >= SELFCHECK_MIN_BATCHES && samples >= SELFCHECK_MIN_SAMPLES &&
		      diff > SELFCHECK_POINTS && diff > SELFCHECK_SIGMAS * v.error;
	return v;
}
