/* Unit tests: reuse, peek or stop - every case of decide.h's rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sample/decide.h"

#define GEN 7

/* A thread blocked in S, proven current at run count 41. */
static struct thread_memory verified_memory(void)
{
	struct thread_memory m;
	memset(&m, 0, sizeof(m));
	m.valid = true;
	m.generation = GEN;
	m.n_frames = 3;
	m.complete = 1;
	m.verified = true;
	m.runs_verified = 41;
	return m;
}

static struct tick_view view(char state, uint64_t runs)
{
	return (struct tick_view){ .state = state, .runs_known = true, .runs = runs,
				   .generation = GEN };
}

static void nothing_known_yet(void **state)
{
	(void)state;
	struct thread_memory m;
	memset(&m, 0, sizeof(m));
	struct tick_view v = view('S', 41);
	assert_int_equal(decide(&v, &m), ACT_PEEK); /* blocked: look, do not stop */
	v = view('D', 41);
	assert_int_equal(decide(&v, &m), ACT_PEEK);
	v = view('R', 41);
	assert_int_equal(decide(&v, &m), ACT_STOP);
}

/* Not put on a CPU since the stack was proven: it executed nothing. */
static void blocked_and_not_run_since(void **state)
{
	(void)state;
	struct thread_memory m = verified_memory();
	struct tick_view v = view('S', 41);
	assert_int_equal(decide(&v, &m), ACT_REUSE);
	v = view('D', 41);
	assert_int_equal(decide(&v, &m), ACT_REUSE);
}

/* Woke, ran, and went back to sleep in the same call: its run count moved,
 * so the last sample's stack is not reused without looking again. */
static void woke_ran_and_reblocked(void **state)
{
	(void)state;
	struct thread_memory m = verified_memory();
	struct tick_view v = view('S', 42);
	assert_int_equal(decide(&v, &m), ACT_PEEK);
	v = view('S', 1000);
	assert_int_equal(decide(&v, &m), ACT_PEEK);
}

/* Woken but still waiting for a CPU: it has not run, but it is R now. */
static void woken_not_yet_run(void **state)
{
	(void)state;
	struct thread_memory m = verified_memory();
	struct tick_view v = view('R', 41);
	assert_int_equal(decide(&v, &m), ACT_STOP);
}

/* Without a run count nothing is proven: look (the peek then reuses only
 * what is byte for byte the same). */
static void no_run_count(void **state)
{
	(void)state;
	struct thread_memory m = verified_memory();
	struct tick_view v = view('S', 41);
	v.runs_known = false;
	assert_int_equal(decide(&v, &m), ACT_PEEK);
}

/* A module appeared or went: unwinds made before may be wrong now. */
static void modules_changed(void **state)
{
	(void)state;
	struct thread_memory m = verified_memory();
	struct tick_view v = view('S', 41);
	v.generation = GEN + 1;
	assert_int_equal(decide(&v, &m), ACT_PEEK);
}

static void unverified_memory_is_not_reused(void **state)
{
	(void)state;
	struct thread_memory m = verified_memory();
	m.verified = false; /* from a stop: the thread ran again after it */
	struct tick_view v = view('S', 41);
	assert_int_equal(decide(&v, &m), ACT_PEEK);
	m = verified_memory();
	m.valid = false;
	assert_int_equal(decide(&v, &m), ACT_PEEK);
}

/* Our stop took it out of its wait; until it runs again it is R only
 * because of us, and is shown as it was. */
static void parked_by_our_stop(void **state)
{
	(void)state;
	struct thread_memory m = verified_memory();
	m.verified = false;
	m.aborted = true;
	m.state_before = 'S';
	m.capture_runs_known = true;
	m.runs_at_capture = 50;
	struct tick_view v = view('R', 50);
	assert_int_equal(decide(&v, &m), ACT_PARKED);
	v = view('R', 51); /* it ran: whatever it does now, look */
	assert_int_equal(decide(&v, &m), ACT_STOP);
	v = view('R', 50);
	v.runs_known = false;
	assert_int_equal(decide(&v, &m), ACT_STOP);
	v = view('S', 51); /* back in its wait */
	assert_int_equal(decide(&v, &m), ACT_PEEK);
}

/* Let go from our stop and queued for a CPU since: it has not run, its
 * stack is the one we copied - no second interrupt for it. */
static void queued_since_our_stop(void **state)
{
	(void)state;
	struct thread_memory m = verified_memory();
	m.verified = false;
	m.capture_runs_known = true;
	m.runs_at_capture = 60;
	struct tick_view v = view('R', 60);
	assert_int_equal(decide(&v, &m), ACT_QUEUED);
	v = view('R', 61); /* it ran since: stop it */
	assert_int_equal(decide(&v, &m), ACT_STOP);
	m.capture_runs_known = false; /* no run count read in that stop */
	v = view('R', 60);
	assert_int_equal(decide(&v, &m), ACT_STOP);
	m.capture_runs_known = true;
	v.generation = GEN + 1; /* a module came or went */
	assert_int_equal(decide(&v, &m), ACT_STOP);
}

static void group_stop(void **state)
{
	(void)state;
	struct thread_memory m = verified_memory();
	m.in_group_stop = true;
	m.group_stops = 3;
	struct tick_view v = view('t', 41);
	v.group_stop = true;
	v.group_stops = 3;
	assert_int_equal(decide(&v, &m), ACT_REUSE); /* the same stop: it ran nothing */
	v.group_stops = 4;                           /* stopped again since */
	assert_int_equal(decide(&v, &m), ACT_STOP);
	m.in_group_stop = false;
	v.group_stops = 3;
	assert_int_equal(decide(&v, &m), ACT_STOP);
}

static void dead_threads_are_skipped(void **state)
{
	(void)state;
	struct thread_memory m = verified_memory();
	const char dead[] = { 'Z', 'X', 'x' };
	for (size_t i = 0; i < sizeof(dead); i++) {
		struct tick_view v = view(dead[i], 41);
		assert_int_equal(decide(&v, &m), ACT_SKIP);
	}
}

static void states_as_shown(void **state)
{
	(void)state;
	assert_string_equal(reported_state('R', false, true), "R (running)");
	assert_string_equal(reported_state('R', false, false), "R (runnable)");
	assert_string_equal(reported_state('S', false, false), "S (sleeping)");
	assert_string_equal(reported_state('D', false, true), "D (disk sleep)");
	/* a ptrace stop that is not a group stop: ours, or a signal on its
	 * way - never shown as a tracing stop */
	assert_string_equal(reported_state('t', false, false), "R (running)");
	assert_string_equal(reported_state('t', true, false), "T (stopped)");
	assert_string_equal(reported_state('T', true, false), "T (stopped)");
}

static void matches_only_the_same_inputs(void **state)
{
	(void)state;
	struct thread_memory m = verified_memory();
	m.sp = 0x7ffd1000;
	m.pc = 0x401234;
	m.stack_start = 0x7ffd0f80;
	m.stack_len = 4096;
	m.stack_hash = 99;
	const struct unwind_input same = { 0x7ffd1000, 0x401234, 0x7ffd0f80, 4096, 99, GEN };
	assert_true(memory_matches(&m, &same));
	struct unwind_input other = same;
	other.sp = 0x7ffd1008;
	assert_false(memory_matches(&m, &other));
	other = same, other.pc = 0x401236;
	assert_false(memory_matches(&m, &other));
	other = same, other.stack_hash = 98;
	assert_false(memory_matches(&m, &other));
	other = same, other.stack_len = 4088;
	assert_false(memory_matches(&m, &other));
	other = same, other.generation = GEN + 1;
	assert_false(memory_matches(&m, &other));
	m.valid = false;
	assert_false(memory_matches(&m, &same));
}

static void stack_hash_sees_every_byte(void **state)
{
	(void)state;
	uint8_t a[100];
	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)i;
	uint64_t h = stack_hash(a, sizeof(a));
	for (size_t i = 0; i < sizeof(a); i++) {
		a[i] ^= 1;
		assert_true(stack_hash(a, sizeof(a)) != h);
		a[i] ^= 1;
	}
	assert_true(stack_hash(a, 99) != h); /* the length counts */
}

/* A stop's facts: proven only by a peek afterwards; its run count is
 * what QUEUED and PARKED compare with. */
static void after_a_stop(void **state)
{
	(void)state;
	struct thread_memory m = verified_memory();
	const struct unwind_input in = { 0x7ffd1000, 0x401234, 0x7ffd0f80, 4096, 99, GEN };
	struct unwound_frame frames[2] = { { 0x401234, FRAME_EXACT }, { 0x401100, FRAME_CALL } };
	memory_remember(&m, &in, frames, 2, 1);
	assert_true(memory_matches(&m, &in));
	assert_int_equal(m.n_frames, 2);
	struct stop_facts f = { .runs_known = true, .runs = 50, .aborted = true,
				.state_before = 'S' };
	memory_after_stop(&m, &f);
	assert_false(m.verified);
	assert_true(m.aborted);
	assert_int_equal(m.state_before, 'S');
	/* R, not run since the stop: parked by our stop */
	struct tick_view v = view('R', 50);
	assert_int_equal(decide(&v, &m), ACT_PARKED);
	/* it ran: stop it again */
	v = view('R', 51);
	assert_int_equal(decide(&v, &m), ACT_STOP);
	/* an abort needs the run count to be known: else no parking */
	f.runs_known = false;
	memory_after_stop(&m, &f);
	assert_false(m.aborted);
	v = view('R', 50);
	assert_int_equal(decide(&v, &m), ACT_STOP);
}

/* A peek proves the memory current at its run count only when the count
 * did not move while it read. */
static void after_a_peek(void **state)
{
	(void)state;
	struct thread_memory m = verified_memory();
	m.aborted = true;
	memory_after_peek(&m, true, 60);
	assert_true(m.verified);
	assert_false(m.aborted); /* back in its wait */
	struct tick_view v = view('S', 60);
	assert_int_equal(decide(&v, &m), ACT_REUSE);
	memory_after_peek(&m, false, 61);
	v = view('S', 61);
	assert_int_equal(decide(&v, &m), ACT_PEEK);
	/* queued for a CPU and not run since a stop */
	memory_after_parked_stop(&m, true, 70);
	v = view('R', 70);
	assert_int_equal(decide(&v, &m), ACT_QUEUED);
}

/* A stop's copy stands for a tick that saw the thread blocked only if it
 * ran no user code in between (decide.h). */
static void blocked_tick_and_its_stop(void **state)
{
	(void)state;
	struct stop_facts f = { .runs_known = true, .runs = 11 };
	/* woken once (by our interrupt), trapped in the call: the tick's */
	assert_true(stop_shows_blocked_tick(&f, true, true, 10));
	/* not even woken (a D wait that ended, trapped on the way out) */
	f.runs = 10;
	assert_true(stop_shows_blocked_tick(&f, true, true, 10));
	/* caught in user code: it ran since, whatever the count */
	f.runs = 11;
	assert_false(stop_shows_blocked_tick(&f, false, true, 10));
	/* in a call again, but put on a CPU twice: it woke, ran, slept again */
	f.runs = 12;
	assert_false(stop_shows_blocked_tick(&f, true, true, 10));
	/* no run count to tell: the call's boundary alone */
	f.runs_known = false;
	assert_true(stop_shows_blocked_tick(&f, true, true, 10));
	assert_false(stop_shows_blocked_tick(&f, false, true, 10));
	f.runs_known = true;
	assert_true(stop_shows_blocked_tick(&f, true, false, 0));
}

/* A stop's registers: lent only at its pc and sp, its callee-saved ones
 * alone, and its frames known again only if every address is the same;
 * SLEEP_PLACES places kept, the oldest replaced. */
static void sleep_regs_lent_where_they_were_found(void **state)
{
	(void)state;
	struct sleep_places places = { 0 };
	struct blocked_syscall at = { .nr = 232, .sp = 0x7ffd1000, .pc = 0x401000 };
	assert_null(sleep_regs_find(&places, &at)); /* none kept */
	assert_false(sleep_regs_at_pc(&places, at.pc));
	struct user_regs_struct r = { .rbx = 1, .rbp = 0x7ffd1100, .r12 = 3, .r13 = 4, .r14 = 5,
				      .r15 = 6, .rax = 7, .rsp = 0x7ffd1000, .rip = 0x401000 };
	struct unwound_frame f[3] = { { 0x401000, FRAME_EXACT }, { 0x402010, FRAME_CALL },
				      { 0x403020, FRAME_CALL } };
	sleep_regs_keep(&places, &at, &r, f, 3);
	const struct sleep_regs *g = sleep_regs_find(&places, &at);
	assert_non_null(g);
	assert_true(sleep_regs_at_pc(&places, at.pc));
	struct blocked_syscall deeper = at, elsewhere = at;
	deeper.sp -= 16;
	elsewhere.pc += 2;
	assert_null(sleep_regs_find(&places, &deeper));
	assert_null(sleep_regs_find(&places, &elsewhere));
	struct user_regs_struct peek = { .rsp = 0x7ffd1000, .rip = 0x401000, .rax = 99 };
	sleep_regs_lend(g, &peek);
	assert_int_equal(peek.rbp, 0x7ffd1100);
	assert_int_equal(peek.rbx + peek.r12 + peek.r13 + peek.r14 + peek.r15, 1 + 3 + 4 + 5 + 6);
	assert_int_equal(peek.rax, 99); /* not a register a call keeps */
	assert_true(sleep_regs_same_frames(g, f, 3));
	assert_false(sleep_regs_same_frames(g, f, 2));
	struct unwound_frame other[3] = { f[0], f[1], { 0x403028, FRAME_CALL } };
	assert_false(sleep_regs_same_frames(g, other, 3));
	other[2] = (struct unwound_frame){ 0x403020, FRAME_EXACT };
	assert_false(sleep_regs_same_frames(g, other, 3));
	/* the same place again: replaced in place */
	sleep_regs_keep(&places, &at, &r, other, 3);
	assert_true(sleep_regs_same_frames(sleep_regs_find(&places, &at), other, 3));
	/* SLEEP_PLACES other places: the first kept is the one let go */
	for (int i = 1; i <= SLEEP_PLACES; i++) {
		struct blocked_syscall there = at;
		there.sp -= (uint64_t)(64 * i);
		assert_null(sleep_regs_find(&places, &there));
		sleep_regs_keep(&places, &there, &r, f, 3);
		assert_non_null(sleep_regs_find(&places, &there));
		if (i < SLEEP_PLACES)
			assert_non_null(sleep_regs_find(&places, &at));
	}
	assert_null(sleep_regs_find(&places, &at));
}

/* Found R by its look: asleep when the round began and not run since, it
 * was asleep at the tick; run since, or R then, it is what the look saw. */
static void woken_after_the_tick_is_asleep_at_it(void **state)
{
	(void)state;
	assert_int_equal(state_at_tick('R', 'S', 41, 41), 'S');
	assert_int_equal(state_at_tick('R', 'D', 41, 41), 'D');
	assert_int_equal(state_at_tick('R', 'S', 41, 42), 'R'); /* it ran */
	assert_int_equal(state_at_tick('R', 'R', 41, 41), 'R'); /* queued then */
	assert_int_equal(state_at_tick('S', 'S', 41, 41), 'S');
	assert_int_equal(state_at_tick('S', 'R', 41, 42), 'S'); /* the look's */
	assert_int_equal(state_at_tick('Z', 'S', 41, 41), 'Z');
}

/* A look that finds the run count and the time on a CPU as the round's
 * first read left them keeps that read's stat; either moved, it reads
 * its own. */
static void a_thread_not_run_keeps_its_stat(void **state)
{
	(void)state;
	const struct sched_counts then = { .run_ns = 5000, .wait_ns = 70, .runs = 41 };
	struct sched_counts now = then;
	assert_true(not_run_between(&then, &now));
	now.wait_ns = 90; /* its wait is not compared */
	assert_true(not_run_between(&then, &now));
	now.runs = 42; /* put on a CPU */
	assert_false(not_run_between(&then, &now));
	now.runs = 41;
	now.run_ns = 5100; /* taken off one (it was running) */
	assert_false(not_run_between(&then, &now));
}

/* A tick due mid-round, read again then: its look's observation while the
 * thread has not run since (runnable if it waited off a CPU), else the
 * state it was in then. */
static void a_tick_read_again_mid_round(void **state)
{
	(void)state;
	const struct sched_counts look = { .run_ns = 5000, .wait_ns = 70, .runs = 41 };
	struct sched_counts then = look;
	assert_int_equal(mid_tick_verdict(&look, &then, 'S', false, false), MID_SAME);
	assert_int_equal(mid_tick_verdict(&look, &then, 'R', true, true), MID_SAME); /* still running */
	assert_int_equal(mid_tick_verdict(&look, &then, 'R', false, true), MID_HELD); /* behind us */
	assert_int_equal(mid_tick_verdict(&look, &then, 't', false, true), MID_SKIP); /* our stop */
	then.runs = 42; /* it ran: then's state, not the look's */
	assert_int_equal(mid_tick_verdict(&look, &then, 'S', false, true), MID_ASLEEP);
	assert_int_equal(mid_tick_verdict(&look, &then, 'D', false, false), MID_ASLEEP);
	/* seen running (or stopped by us, and run since): its look's stack */
	assert_int_equal(mid_tick_verdict(&look, &then, 'R', true, true), MID_SAME);
	assert_int_equal(mid_tick_verdict(&look, &then, 'R', false, true), MID_HELD);
	/* seen asleep, woken and run since: R, owed its next stop's stack */
	assert_int_equal(mid_tick_verdict(&look, &then, 'R', true, false), MID_OWED);
	assert_int_equal(mid_tick_verdict(&look, &then, 'R', false, false), MID_OWED);
	assert_int_equal(mid_tick_verdict(&look, &then, 'Z', false, false), MID_SKIP);
	then.runs = 41;
	then.run_ns = 5100; /* taken off a CPU since */
	assert_int_equal(mid_tick_verdict(&look, &then, 'S', false, true), MID_ASLEEP);
}

/* Preempted by our round, shown by schedstat alone: put on a CPU once
 * since the resume and on it all the time since, within the slack. */
static void on_a_cpu_until_our_round(void **state)
{
	(void)state;
	const struct sched_counts resume = { .run_ns = 1000000, .wait_ns = 5, .runs = 10 };
	/* resumed at 2,000,000 ns, our round at 3,000,000: 1 ms since */
	struct sched_counts now = { .run_ns = 1000000 + 990000, .wait_ns = 5, .runs = 11 };
	assert_true(ran_until(&resume, 2000000, &now, 3000000, 50000));
	now.run_ns = 1000000 + 940000; /* 60 us short: another task ran */
	assert_false(ran_until(&resume, 2000000, &now, 3000000, 50000));
	now.run_ns = 1000000 + 990000;
	now.runs = 12; /* off its CPU and back meanwhile: unknown */
	assert_false(ran_until(&resume, 2000000, &now, 3000000, 50000));
	now.runs = 10; /* not put on one since: not running either */
	assert_false(ran_until(&resume, 2000000, &now, 3000000, 50000));
	now.runs = 11;
	assert_false(ran_until(&resume, 3000001, &now, 3000000, 50000)); /* clocks out of order */
	now.run_ns = 999999; /* a count gone back: another life */
	assert_false(ran_until(&resume, 2000000, &now, 3000000, 50000));
}

/* Seen on a CPU after the resume, once put on one since, and not again
 * by the round: still there. */
static void still_on_the_cpu_it_was_seen_on(void **state)
{
	(void)state;
	struct placed_seen placed = { .known = true, .runs = 11, .cpu = 1 };
	struct sched_counts now = { .run_ns = 5000, .wait_ns = 5, .runs = 11 };
	assert_true(still_where_placed(&placed, 10, &now, 1));
	assert_false(still_where_placed(&placed, 10, &now, 0)); /* another CPU than ours */
	now.runs = 12; /* put on a CPU again: maybe another one */
	assert_false(still_where_placed(&placed, 10, &now, 1));
	now.runs = 11;
	placed.runs = 10; /* seen before it ran: queued, it may move */
	assert_false(still_where_placed(&placed, 10, &now, 1));
	placed.runs = 11;
	assert_false(still_where_placed(&placed, 11, &now, 1)); /* seen before the last resume */
	placed.known = false;
	assert_false(still_where_placed(&placed, 10, &now, 1));
	placed = (struct placed_seen){ .known = true, .runs = 11, .cpu = -1 };
	assert_false(still_where_placed(&placed, 10, &now, -1)); /* no CPU known */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(after_a_stop),
		cmocka_unit_test(on_a_cpu_until_our_round),
		cmocka_unit_test(still_on_the_cpu_it_was_seen_on),
		cmocka_unit_test(a_tick_read_again_mid_round),
		cmocka_unit_test(after_a_peek),
		cmocka_unit_test(nothing_known_yet),
		cmocka_unit_test(blocked_and_not_run_since),
		cmocka_unit_test(woke_ran_and_reblocked),
		cmocka_unit_test(woken_not_yet_run),
		cmocka_unit_test(no_run_count),
		cmocka_unit_test(modules_changed),
		cmocka_unit_test(unverified_memory_is_not_reused),
		cmocka_unit_test(parked_by_our_stop),
		cmocka_unit_test(queued_since_our_stop),
		cmocka_unit_test(group_stop),
		cmocka_unit_test(dead_threads_are_skipped),
		cmocka_unit_test(states_as_shown),
		cmocka_unit_test(woken_after_the_tick_is_asleep_at_it),
		cmocka_unit_test(a_thread_not_run_keeps_its_stat),
		cmocka_unit_test(matches_only_the_same_inputs),
		cmocka_unit_test(stack_hash_sees_every_byte),
		cmocka_unit_test(blocked_tick_and_its_stop),
		cmocka_unit_test(sleep_regs_lent_where_they_were_found),
	};
	return cmocka_run_group_tests_name("decide", tests, NULL, NULL);
}
