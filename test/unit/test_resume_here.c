/* Unit tests: resume_here.h - a thread stopped on our CPU is resumed
 * there, and the helper takes the sampler to another CPU, real-time
 * again; then, asleep, put back there, and woken there by the tick's timer
 * armed before; its wait for a trap watched from there; a round that
 * tick began resumed with no wake-up sent, on the helper's visit; the
 * tick after armed a round ahead, and kept.  Against a real child that
 * spins, traced as the sampler traces: root and two CPUs (a real-time
 * policy and ptrace), else skipped. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "sample/resume_here.h"

static void one_cpu_is_not_enough(void **state)
{
	(void)state;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	assert_null(resume_here_new(&one));
}

/* stat's processor (field 39) of pid */
static int cpu_of(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')');
	assert_non_null(p);
	int field = 2;
	for (; *p && field < 39; p++)
		field += *p == ' ';
	return atoi(p);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#define TRIES 40

/* A child that spins, seized as the sampler seizes, and this thread
 * SCHED_FIFO with a helper (*h), as the sampler is; skipped without root
 * and two CPUs (a real-time policy and ptrace).  *allowed: our CPUs, given
 * back by spinner_end. */
static pid_t spinner_seized(cpu_set_t *allowed, struct resume_here **h)
{
	struct sched_param fifo = { .sched_priority = 1 };
	if (geteuid() != 0 || sched_getaffinity(0, sizeof(*allowed), allowed) != 0 ||
	    CPU_COUNT(allowed) < 2) {
		print_message("skipped: needs root and two CPUs\n");
		skip();
	}
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (volatile uint64_t x = 0;; x++)
			;
	}
	assert_int_equal(ptrace(PTRACE_SEIZE, child, NULL, NULL), 0);
	assert_int_equal(sched_setscheduler(0, SCHED_FIFO, &fifo), 0);
	*h = resume_here_new(allowed);
	assert_non_null(*h);
	return child;
}

/* This thread on cpu alone. */
static void pin_to(int cpu)
{
	cpu_set_t there;
	CPU_ZERO(&there);
	CPU_SET(cpu, &there);
	assert_int_equal(sched_setaffinity(0, sizeof(there), &there), 0);
}

/* The child stopped, as a tick stops a thread. */
static void stop_child(pid_t child)
{
	int status;
	assert_int_equal(ptrace(PTRACE_INTERRUPT, child, NULL, NULL), 0);
	assert_int_equal(waitpid(child, &status, __WALL), child);
	assert_true(WIFSTOPPED(status));
}

/* The tick's timer signal, waited for 50 ms at most: the signal, or -1. */
static int wait_tick(void)
{
	sigset_t tick;
	sigemptyset(&tick);
	sigaddset(&tick, RESUME_HERE_SIGNAL);
	struct timespec most = { 0, 50000000L };
	return sigtimedwait(&tick, NULL, &most);
}

static void spinner_end(pid_t child, struct resume_here *h, const cpu_set_t *allowed)
{
	struct sched_param other = { 0 };
	resume_here_free(h);
	sched_setscheduler(0, SCHED_OTHER, &other);
	sched_setaffinity(0, sizeof(*allowed), allowed);
	kill(child, SIGKILL);
	waitpid(child, NULL, __WALL);
}

static void resumed_where_it_stopped(void **state)
{
	(void)state;
	cpu_set_t allowed;
	struct resume_here *h;
	pid_t child = spinner_seized(&allowed, &h);
	int moved = 0, stayed = 0, timed = 0, woke_there = 0, late = 0, watched = 0, ended = 0;
	for (int i = 0; i < TRIES; i++) {
		/* on its CPU, as FOLLOW sleeps: our arrival takes the CPU from it */
		int cpu = cpu_of(child);
		pin_to(cpu);
		stop_child(child);
		/* the next tick in 2 ms, on this CPU's timer */
		uint64_t due = now_ns() + 2000000;
		bool armed = resume_here_arm(h, cpu, due, 0, false);
		assert_true(armed);
		assert_int_equal(ptrace(PTRACE_CONT, child, NULL, NULL), 0);
		int to = resume_here_done(h);
		/* real-time again, wherever we are */
		assert_int_equal(sched_getscheduler(0) & ~SCHED_RESET_ON_FORK, SCHED_FIFO);
		if (to >= 0) {
			cpu_set_t now;
			assert_int_equal(sched_getaffinity(0, sizeof(now), &now), 0);
			assert_true(to != cpu && CPU_COUNT(&now) == 1 && CPU_ISSET(to, &now));
			moved++;
		}
		stayed += cpu_of(child) == cpu;
		/* asleep until that tick: put back on the child's CPU meanwhile,
		 * and woken there by its timer */
		uint64_t timer_ns = 0;
		/* (a busy host may have kept us past the tick: then there is no
		 * time left to sleep there, rightly; such tries are not held
		 * against it - 1 ms is more than resume_here.c's own margin) */
		late += to >= 0 && now_ns() + 1000000 > due;
		if (resume_here_sleep_there(h, due, cpu, &timer_ns)) {
			assert_true(timer_ns == due); /* armed for that tick */
			int got = wait_tick();
			int woke_on = sched_getcpu(), placed = resume_here_woke(h);
			timed++;
			if (got == RESUME_HERE_SIGNAL && now_ns() >= due && placed == cpu && woke_on == cpu)
				woke_there++;
			/* the tick's wait for a trap is watched: one that never
			 * comes (the child runs on, not asked to stop) is ended
			 * by the helper's signal past the watch, and the watch
			 * ends with that wait */
			sigset_t during, old;
			if (resume_here_wait_begin(h, &during)) {
				int how;
				pthread_sigmask(SIG_SETMASK, &during, &old);
				pid_t r = waitpid(child, &how, __WALL);
				int e = errno;
				pthread_sigmask(SIG_SETMASK, &old, NULL);
				uint64_t at = now_ns();
				resume_here_wait_end(h, r < 0);
				watched++;
				ended += r < 0 && e == EINTR && at >= due + 1000000 && at < due + 500000000;
				assert_false(resume_here_wait_begin(h, &during));
			}
		}
	}
	print_message("%d tries: the helper moved us in %d, the child stayed on its CPU in %d "
		      "(%llu moves counted); %d ticks timed on its CPU (%d moves too late for "
		      "one), woken there in %d\n", TRIES, moved, stayed,
		      (unsigned long long)resume_here_count(h), timed, late, woke_there);
	/* (a resumed thread that preempts us leaves us queued: the helper's
	 * to take; called off only when it ran on first) */
	assert_true(moved >= TRIES * 3 / 4);
	assert_int_equal(resume_here_count(h), (uint64_t)moved);
	/* Without it the kernel wakes the child on the idle CPU, not under
	 * us: its CPU kept in most tries says the wake-up went where we were */
	assert_true(stayed >= TRIES / 2);
	/* every move in time asked for its tick on the child's CPU, and got
	 * it there */
	assert_true(timed <= moved && timed >= moved - late);
	assert_true(woke_there >= timed * 3 / 4);
	print_message("%d waits watched, %d ended by the helper past the watch\n", watched, ended);
	assert_true(watched >= timed * 3 / 4);
	assert_int_equal(ended, watched);
	assert_int_equal(resume_here_waits_ended(h), (uint64_t)ended);
	spinner_end(child, h, &allowed);
}

/* A thread our tick only preempted, not stopped (its copy made by the
 * kernel as it left the CPU, switch_copy.h), queued behind us on its
 * CPU: arming lets it run there at once, and the helper, asked before we
 * are SCHED_IDLE, takes us off behind it.  A try counts when we came back
 * moved (not called off) and the child never left its CPU. */
static void a_preempted_thread_runs_on_here(void **state)
{
	(void)state;
	cpu_set_t allowed;
	struct resume_here *h;
	pid_t child = spinner_seized(&allowed, &h);
	int moved = 0, stayed = 0;
	for (int i = 0; i < TRIES; i++) {
		int cpu = cpu_of(child);
		pin_to(cpu); /* real-time, there: the child waits for us */
		uint64_t due = now_ns() + 2000000;
		assert_true(resume_here_arm(h, cpu, due, 0, true));
		int to = resume_here_done(h);
		assert_int_equal(sched_getscheduler(0) & ~SCHED_RESET_ON_FORK, SCHED_FIFO);
		moved += to >= 0 && to != cpu;
		stayed += cpu_of(child) == cpu;
		uint64_t timer_ns = 0;
		if (resume_here_sleep_there(h, due, cpu, &timer_ns)) {
			wait_tick();
			resume_here_woke(h);
		}
	}
	print_message("%d tries: moved in %d, the child on its CPU after in %d\n", TRIES, moved,
		      stayed);
	assert_true(moved >= TRIES * 3 / 4);
	assert_true(stayed >= TRIES / 2);
	spinner_end(child, h, &allowed);
}

/* A round a timed tick began resumes its thread with no wake-up sent
 * from the thread's CPU: the helper visits on its own timer, once such
 * rounds have armed (70 us after the tick at first), and takes us then.
 * Counted over the rounds that armed well before that; the others, and
 * the first (not timed), wake it as before. */
static void a_timed_round_is_visited(void **state)
{
	(void)state;
	cpu_set_t allowed;
	struct resume_here *h;
	pid_t child = spinner_seized(&allowed, &h);
	int moved = 0, timed = 0, early = 0, visited = 0, cpu = -1;
	uint64_t tick = 0; /* the timed tick that began this round, 0 none */
	for (int i = 0; i < TRIES; i++) {
		/* its CPU read first, as a round's look reads its stat */
		int on = cpu_of(child);
		if (!tick) { /* (a timed tick put us there) */
			cpu = on;
			pin_to(cpu);
		}
		stop_child(child);
		uint64_t at = now_ns(), before = resume_here_visited(h), due = at + 2000000;
		assert_true(resume_here_arm(h, cpu, due, 0, false));
		assert_int_equal(ptrace(PTRACE_CONT, child, NULL, NULL), 0);
		/* asleep past the visit, as the sampler is queued behind the
		 * thread it resumed (here the kernel does not always let the
		 * child preempt us at once) */
		struct timespec nap = { 0, 300000L };
		nanosleep(&nap, NULL);
		int to = resume_here_done(h);
		moved += to >= 0;
		if (tick && at < tick + 50000) {
			early++;
			visited += to >= 0 && resume_here_visited(h) == before + 1;
		}
		tick = 0;
		uint64_t timer_ns = 0;
		if (resume_here_sleep_there(h, due, cpu, &timer_ns)) {
			int got = wait_tick();
			int woke_on = sched_getcpu(), placed = resume_here_woke(h);
			timed++;
			if (got == RESUME_HERE_SIGNAL && placed == cpu && woke_on == cpu)
				tick = timer_ns;
		}
	}
	print_message("%d tries: moved in %d, %d ticks timed; %d rounds armed within 50 us of "
		      "theirs, the helper's visit took %d of them (%llu visits in all)\n", TRIES,
		      moved, timed, early, visited, (unsigned long long)resume_here_visited(h));
	assert_true(moved >= TRIES * 3 / 4);
	assert_true(resume_here_visited(h) <= resume_here_count(h));
	if (early >= 5)
		assert_true(visited >= early / 2);
	else
		print_message("(too few rounds armed early on this host to hold the visit to them)\n");
	spinner_end(child, h, &allowed);
}

/* The round a timer woke finds the next tick's timer armed a round
 * before, when it asks for that tick: kept (the CPU's timer needs no
 * programming of ours), and it fires then.  One that asks for another
 * tick (every fourth round here: 200 us later) has it armed anew, and
 * the tick armed before does not fire. */
static void a_tick_armed_ahead_is_kept(void **state)
{
	(void)state;
	cpu_set_t allowed;
	struct resume_here *h;
	pid_t child = spinner_seized(&allowed, &h);
	int timed = 0, on_time = 0, asked_ahead = 0, asked_other = 0, cpu = -1;
	uint64_t then = 0; /* the tick after, armed by the last round; 0 none */
	for (int i = 0; i < TRIES; i++) {
		if (!then) { /* (no timed tick put us there) */
			cpu = cpu_of(child);
			pin_to(cpu);
		}
		stop_child(child);
		uint64_t due = then ? then : now_ns() + 2000000;
		if (then && i % 4 == 3) {
			due += 200000;
			asked_other++;
		} else {
			asked_ahead += then != 0;
		}
		then = 0;
		assert_true(resume_here_arm(h, cpu, due, due + 1000000, false));
		assert_int_equal(ptrace(PTRACE_CONT, child, NULL, NULL), 0);
		struct timespec nap = { 0, 300000L }; /* (as a_timed_round_is_visited) */
		nanosleep(&nap, NULL);
		resume_here_done(h);
		uint64_t timer_ns = 0;
		if (!resume_here_sleep_there(h, due, cpu, &timer_ns))
			continue; /* (late on a busy host: the next round arms anew) */
		assert_true(timer_ns == due);
		int got = wait_tick();
		resume_here_woke(h);
		timed++;
		on_time += got == RESUME_HERE_SIGNAL && now_ns() >= due;
		if (got == RESUME_HERE_SIGNAL && sched_getcpu() == cpu)
			then = due + 1000000;
	}
	print_message("%d tries: %d ticks timed, %d woken at their tick or after; %d rounds asked "
		      "for the tick armed ahead (%llu kept), %d for another\n", TRIES, timed, on_time,
		      asked_ahead, (unsigned long long)resume_here_armed_ahead(h), asked_other);
	assert_int_equal(resume_here_armed_ahead(h), (uint64_t)asked_ahead);
	assert_int_equal(on_time, timed);
	assert_true(timed >= TRIES * 3 / 4 && asked_ahead >= TRIES / 2 && asked_other >= 2);
	spinner_end(child, h, &allowed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_cpu_is_not_enough),
		cmocka_unit_test(resumed_where_it_stopped),
		cmocka_unit_test(a_preempted_thread_runs_on_here),
		cmocka_unit_test(a_timed_round_is_visited),
		cmocka_unit_test(a_tick_armed_ahead_is_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
