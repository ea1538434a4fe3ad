#define _GNU_SOURCE
/* Unit tests: what ended is let go once its window is handed over
 * (retire.h) - records reused, process slots given back, and kept while
 * anything still names them.
 *
 * The sampler is a real one, made for this very process (the one given
 * at the start, slot 0); the processes "seized on the way" are slots 1
 * and 2 of its table, with no program (nothing counted: all named). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/array.h"
#include "profile/aggregate.h"
#include "sample/retire.h"
#include "sample/records.h"
#include "tracee/target.h"

#define SLOTS 3

struct world {
	struct options o;
	struct sampler_result r;
	struct target ts[SLOTS];
	struct thread th[4];
	size_t n_targets;
	struct stack_table *named;
	struct sampler *s;
};

static struct thread a_thread(pid_t tid)
{
	return (struct thread){ .tid = tid, .stat_fd = -1, .stack_fd = -1, .syscall_fd = -1,
				.sched_fd = -1, .exec_fd = -1, .wchan_fd = -1 };
}

static int setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	if (!w)
		return -1;
	w->o.interval_ns = 1000000;
	w->o.period_ns = 1000000000;
	for (int i = 0; i < 4; i++)
		w->th[i] = a_thread(100 + i);
	w->ts[0] = (struct target){ .pid = getpid(), .threads = &w->th[0], .n_threads = 1,
				    .cap_threads = 1, .num_threads = -1 };
	w->n_targets = 1;
	w->named = stack_table_new();
	w->s = sampler_new(&w->o, w->ts, &w->n_targets, SLOTS, NULL, w->named, NULL);
	if (!w->named || !w->s)
		return -1;
	w->s->r = &w->r;
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;
	w->ts[0].threads = NULL; /* (ours) */
	sampler_free(w->s);
	stack_table_free(w->named);
	free(w);
	return 0;
}

/* A process seized on the way, in the next free slot: pid, its threads
 * (none: all ended). */
static size_t seized(struct world *w, pid_t pid)
{
	struct sampler *s = w->s;
	size_t at = retire_slot_for_new(s);
	assert_int_not_equal(at, SIZE_MAX);
	assert_true(array_reserve((void **)&s->procs, s->n_targets + 1, &s->cap_procs,
				  sizeof(*s->procs)));
	w->ts[at] = (struct target){ .pid = pid, .num_threads = -1 };
	s->procs[at] = (struct process){ .t = &w->ts[at] };
	retire_slot_taken(s, at);
	return at;
}

static struct sampled_thread *record(struct world *w, size_t proc, struct thread *th)
{
	struct sampled_thread *st = sampled_of(w->s, &w->s->procs[proc], th);
	assert_non_null(st);
	return st;
}

/* An ended thread's record is let go, its samples summed to its process
 * (the summary's "ended"), and the next new thread takes it. */
static void ended_records_are_reused(void **state)
{
	struct world *w = *state;
	struct sampled_thread *a = record(w, 0, &w->th[0]);
	struct sampled_thread *b = record(w, 0, &w->th[1]);
	assert_int_equal(w->th[0].slot, 1);
	assert_int_equal(w->th[1].slot, 2);
	a->counts.samples = 5;
	a->ended = true;
	b->counts.samples = 7; /* still running */
	retire_ended(w->s, UINT64_MAX);
	assert_true(a->retired);
	assert_false(b->retired);
	assert_int_equal(a->counts.samples, 0);
	assert_int_equal(w->r.retired_threads, 1);
	assert_int_equal(sampler_retired_samples(w->s, getpid()), 5);
	struct thread_figures tf;
	sampler_thread_figures(w->s, 0, &tf);
	assert_int_equal(tf.tid, 0); /* no thread's */
	assert_true(tf.ended);
	struct sampled_thread *c = record(w, 0, &w->th[2]);
	assert_ptr_equal(c, a);
	assert_int_equal(w->th[2].slot, 1);
	assert_false(c->retired);
	assert_int_equal(c->tid, w->th[2].tid);
	assert_int_equal(sampler_thread_count(w->s), 2);
	retire_ended(w->s, UINT64_MAX); /* nothing more ended: nothing let go */
	assert_int_equal(w->r.retired_threads, 1);
}

/* A process seized on the way that exited, all its threads gone and its
 * stacks named, gives its slot back; the next process takes it.  With
 * every slot held, none is found. */
static void exited_processes_give_their_slot_back(void **state)
{
	struct world *w = *state;
	size_t one = seized(w, 1001), two = seized(w, 1002);
	assert_int_equal(one, 1);
	assert_int_equal(two, 2);
	assert_int_equal(w->n_targets, 3);
	assert_int_equal(retire_slot_for_new(w->s), SIZE_MAX); /* full */
	w->s->procs[one].retired_samples = 3;
	w->ts[one].exited = true;
	w->ts[one].signals_forwarded = 2;
	retire_ended(w->s, UINT64_MAX);
	assert_true(w->ts[one].retired);
	assert_false(w->ts[two].retired);
	assert_int_equal(w->r.retired_processes, 1);
	assert_int_equal(w->r.retired_samples, 3);
	assert_int_equal(w->r.retired_signals, 2);
	assert_int_equal(w->s->procs[one].retired_samples, 0);
	assert_int_equal(sampler_retired_samples(w->s, 1001), 0); /* no process now */
	assert_int_equal(retire_slot_for_new(w->s), one);
	assert_int_equal(seized(w, 1003), one);
	assert_int_equal(w->n_targets, 3);
	assert_false(w->ts[one].retired);
	assert_int_equal(retire_slot_for_new(w->s), SIZE_MAX);
	retire_ended(w->s, UINT64_MAX); /* let go once only */
	assert_int_equal(w->r.retired_processes, 1);
}

/* Kept: a process given at the start, one still running or with a thread
 * left, one whose record is not let go (a stop's trap to come).  A stop
 * listed for a thread that is gone names nobody: the list is pruned. */
static void kept_while_anything_names_them(void **state)
{
	struct world *w = *state;
	struct sampler *s = w->s;
	w->ts[0].exited = true; /* given at the start: the summary names it */
	w->ts[0].n_threads = 0;
	size_t one = seized(w, 1001), two = seized(w, 1002);
	retire_ended(s, UINT64_MAX); /* both running */
	assert_int_equal(w->r.retired_processes, 0);

	w->ts[one].exited = w->ts[two].exited = true;
	w->ts[one].threads = &w->th[3]; /* a thread not dropped yet */
	w->ts[one].n_threads = 1;
	struct sampled_thread *st = record(w, two, &w->th[1]);
	st->pending = calloc(1, sizeof(*st->pending)); /* its stop's trap to come */
	assert_non_null(st->pending);
	st->ended = true;
	retire_ended(s, UINT64_MAX);
	assert_int_equal(w->r.retired_processes, 0);
	assert_false(st->retired);

	free(st->pending);
	st->pending = NULL;
	w->ts[one].threads = NULL;
	w->ts[one].n_threads = 0;
	struct thread_ref ref = { two, 101, 0 };
	s->stops.pending = &ref; /* listed, its thread gone */
	s->stops.n_pending = 1;
	retire_ended(s, UINT64_MAX);
	assert_int_equal(s->stops.n_pending, 0);
	s->stops.pending = NULL;
	assert_true(st->retired);
	assert_true(w->ts[one].retired);
	assert_true(w->ts[two].retired);
	assert_false(w->ts[0].retired);
	assert_int_equal(w->r.retired_processes, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(ended_records_are_reused, setup, teardown),
		cmocka_unit_test_setup_teardown(exited_processes_give_their_slot_back, setup,
						teardown),
		cmocka_unit_test_setup_teardown(kept_while_anything_names_them, setup, teardown),
	};
	return cmocka_run_group_tests_name("retire", tests, NULL, NULL);
}
