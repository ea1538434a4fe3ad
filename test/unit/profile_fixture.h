/* profile_fixture.h - a struct profile made by hand, for the writers'
 * tests and test/tools/write_formats.c.
 *
 *   struct fixture fx;
 *   fixture_init(&fx, "ptrace_profiler -p 42 -d 1ms", "db (PID 42)", 1000000);
 *   size_t w = fixture_thread(&fx, 42, 43, "db", "db_writer");
 *   fixture_sample(&fx, w, 1000000, 1000000, (const char *[]){ "db_writer",
 *                  "R (running)", "main", "work", NULL });
 *   ... output_write(f, FORMAT_SVG, fixture_profile(&fx)) ...
 *   fixture_free(&fx);
 *
 * Samples are kept in an array and read through a sample_source as the
 * sampler's would be; each adds its stack (a NULL-terminated frame list,
 * root first) to the stack table with count 1.
 */
#ifndef PROFILE_FIXTURE_H
#define PROFILE_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "profile/aggregate.h"
#include "profile/profile.h"

#define FIXTURE_MAX_THREADS 64

struct fixture {
	struct stack_table *t;
	struct profile_thread threads[FIXTURE_MAX_THREADS];
	size_t n_threads;
	struct profile_sample *samples;
	size_t n, cap;
	size_t pos;       /* the source's cursor */
	size_t rewinds;   /* how often a writer started a pass */
	size_t reads;     /* samples read in all passes */
	struct sample_source src;
	struct profile p;
};

static inline int fixture_next(void *arg, struct profile_sample *out)
{
	struct fixture *fx = arg;
	if (fx->pos >= fx->n)
		return 0;
	*out = fx->samples[fx->pos++];
	fx->reads++;
	return 1;
}

static inline int fixture_rewind(void *arg)
{
	struct fixture *fx = arg;
	fx->pos = 0;
	fx->rewinds++;
	return 0;
}

static inline void fixture_init(struct fixture *fx, const char *command, const char *target,
				uint64_t interval_ns)
{
	memset(fx, 0, sizeof(*fx));
	fx->t = stack_table_new();
	fx->src = (struct sample_source){ fixture_next, fixture_rewind, fx };
	fx->p.command = command;
	fx->p.target = target;
	fx->p.interval_ns = interval_ns;
	fx->p.start_unix_ns = 1764000000ULL * 1000000000ULL;
}

/* Returns the thread's index. */
static inline size_t fixture_thread(struct fixture *fx, pid_t pid, pid_t tid, const char *process,
				    const char *name)
{
	fx->threads[fx->n_threads] = (struct profile_thread){ pid, tid, process, name };
	return fx->n_threads++;
}

static inline long fixture_stack(struct fixture *fx, const char *const *frames, uint64_t count)
{
	size_t n = 0;
	while (frames[n])
		n++;
	return stack_table_add(fx->t, frames, n, count);
}

static inline void fixture_sample(struct fixture *fx, size_t thread, uint64_t time_ns,
				  uint64_t weight_ns, const char *const *frames)
{
	long id = fixture_stack(fx, frames, 1);
	if (fx->n == fx->cap) {
		fx->cap = fx->cap ? fx->cap * 2 : 64;
		fx->samples = realloc(fx->samples, fx->cap * sizeof(*fx->samples));
	}
	fx->samples[fx->n++] = (struct profile_sample){ time_ns, weight_ns, (uint32_t)id,
							(uint32_t)thread };
	if (time_ns > fx->p.duration_ns)
		fx->p.duration_ns = time_ns;
}

/* The profile, samples included (with_samples) or counts only. */
static inline const struct profile *fixture_profile_as(struct fixture *fx, int with_samples)
{
	fx->p.stacks = fx->t;
	fx->p.samples = with_samples ? &fx->src : NULL;
	fx->p.threads = fx->threads;
	fx->p.n_threads = fx->n_threads;
	fx->p.total_samples = stack_table_total(fx->t);
	return &fx->p;
}

static inline const struct profile *fixture_profile(struct fixture *fx)
{
	return fixture_profile_as(fx, 1);
}

static inline void fixture_free(struct fixture *fx)
{
	stack_table_free(fx->t);
	free(fx->samples);
	memset(fx, 0, sizeof(*fx));
}

#endif
