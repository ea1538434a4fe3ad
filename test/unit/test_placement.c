/* Unit tests: which CPUs the sampler keeps to (placement.h). */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sample/placement.h"

static cpu_set_t cpus(int a, int b, int c)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	int list[] = { a, b, c };
	for (int i = 0; i < 3; i++)
		if (list[i] >= 0)
			CPU_SET(list[i], &s);
	return s;
}

/* On 2 CPUs, a target thread woken onto ours: we go to the other one. */
static void leaves_a_wanted_cpu(void **state)
{
	(void)state;
	cpu_set_t allowed = cpus(0, 1, -1), current = allowed, wanted = cpus(1, -1, -1), out;
	assert_true(placement_choose(&allowed, &current, &wanted, 1, &out));
	assert_true(CPU_EQUAL(&out, &(cpu_set_t){ 0 }) == 0);
	cpu_set_t expect = cpus(0, -1, -1);
	assert_true(CPU_EQUAL(&out, &expect));
}

/* Already kept off the wanted CPUs: nothing to do. */
static void stays_where_nobody_waits(void **state)
{
	(void)state;
	cpu_set_t allowed = cpus(0, 1, 2), current = cpus(0, -1, -1), wanted = cpus(1, 2, -1), out;
	assert_false(placement_choose(&allowed, &current, &wanted, 0, &out));
}

/* Every CPU we may use is wanted: any of them, as we started - a
 * narrower affinity from an earlier round would tie us to one CPU as
 * busy as the others (measured: a round of 500 idle threads took 80 ms). */
static void all_wanted_gives_all(void **state)
{
	(void)state;
	cpu_set_t allowed = cpus(0, 1, -1), current = allowed, wanted = cpus(0, 1, -1), out;
	assert_false(placement_choose(&allowed, &current, &wanted, 0, &out));
	current = cpus(1, -1, -1);
	assert_true(placement_choose(&allowed, &current, &wanted, 1, &out));
	assert_true(CPU_EQUAL(&out, &allowed));
}

/* Nobody wants a CPU now (a thread between its bursts): stay off the
 * last ones wanted - it sleeps on the CPU it will wake on. */
static void none_wanted_keeps_away(void **state)
{
	(void)state;
	cpu_set_t allowed = cpus(0, 1, -1), current = cpus(1, -1, -1), wanted, out;
	CPU_ZERO(&wanted);
	assert_false(placement_choose(&allowed, &current, &wanted, 1, &out));
}

/* The user's taskset is kept: never a CPU outside it. */
static void keeps_to_the_users_cpus(void **state)
{
	(void)state;
	cpu_set_t allowed = cpus(2, 3, -1), current = allowed, wanted = cpus(2, -1, -1), out;
	assert_true(placement_choose(&allowed, &current, &wanted, 2, &out));
	cpu_set_t expect = cpus(3, -1, -1);
	assert_true(CPU_EQUAL(&out, &expect));
	/* several free: all of them, the scheduler picks */
	allowed = cpus(0, 1, 2);
	current = allowed;
	wanted = cpus(0, -1, -1);
	assert_true(placement_choose(&allowed, &current, &wanted, 0, &out));
	expect = cpus(1, 2, -1);
	assert_true(CPU_EQUAL(&out, &expect));
	/* already there: no change to make */
	current = expect;
	assert_false(placement_choose(&allowed, &current, &wanted, 0, &out));
}

/* FOLLOW: to the CPU a target thread runs on, one CPU, and no move while
 * we are on one that is wanted. */
static void follows_to_a_wanted_cpu(void **state)
{
	(void)state;
	cpu_set_t allowed = cpus(0, 1, -1), current = allowed, wanted = cpus(1, -1, -1), out;
	assert_true(placement_follow(&allowed, &current, &wanted, &out));
	cpu_set_t expect = cpus(1, -1, -1);
	assert_true(CPU_EQUAL(&out, &expect));
	current = out; /* there now: stays */
	assert_false(placement_follow(&allowed, &current, &wanted, &out));
	/* the thread moved (woken on the CPU we left idle): after it */
	wanted = cpus(0, -1, -1);
	assert_true(placement_follow(&allowed, &current, &wanted, &out));
	expect = cpus(0, -1, -1);
	assert_true(CPU_EQUAL(&out, &expect));
	/* several wanted, ours among them: no move */
	current = cpus(1, -1, -1);
	wanted = cpus(0, 1, -1);
	assert_false(placement_follow(&allowed, &current, &wanted, &out));
	/* none wanted: stays where the thread last ran */
	CPU_ZERO(&wanted);
	assert_false(placement_follow(&allowed, &current, &wanted, &out));
	/* never outside the user's CPUs */
	allowed = cpus(2, 3, -1);
	current = allowed;
	wanted = cpus(0, 1, -1);
	assert_false(placement_follow(&allowed, &current, &wanted, &out));
	wanted = cpus(1, 3, -1);
	assert_true(placement_follow(&allowed, &current, &wanted, &out));
	expect = cpus(3, -1, -1);
	assert_true(CPU_EQUAL(&out, &expect));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(leaves_a_wanted_cpu),
		cmocka_unit_test(stays_where_nobody_waits),
		cmocka_unit_test(all_wanted_gives_all),
		cmocka_unit_test(none_wanted_keeps_away),
		cmocka_unit_test(keeps_to_the_users_cpus),
		cmocka_unit_test(follows_to_a_wanted_cpu),
	};
	return cmocka_run_group_tests_name("placement", tests, NULL, NULL);
}
