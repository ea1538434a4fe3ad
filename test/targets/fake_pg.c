/* fake_pg.c - stands in for a PostgreSQL 15 server process.
 *   fake_pg
 * Exports my_wait_event_info (built -rdynamic, as postgres is) and carries
 * the version text postgres prints for --version.  As a backend does, it
 * first reports into a variable of its own (initial_phase: 400 ms waiting
 * in Activity:CheckpointerMain, 0x05000004 in 15), then points the pointer
 * at shared memory, its "PGPROC", and leaves a decoy in the old variable
 * (0x0900ffff, which no version names): a profiler that did not follow
 * the pointer would show it.  Then, in 100 ms cycles, 60 ms in cpu_phase
 * (no wait: 0) and 40 ms in wait_phase, an IO:WALSync (0x0a000046) wait
 * spent in nanosleep.
 * Built -DPG13 it is a PostgreSQL 13 server instead: no my_wait_event_info.
 * Built -DNO_VERSION_TEXT (fake_pg_nover) it carries no version text: the
 * version is then its working directory's PG_VERSION, as a data
 * directory's. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>

#ifdef PG13
const char pg_version_text[] = "postgres (PostgreSQL) 13.11 (fake)\n";
#elif defined(NO_VERSION_TEXT)
const char pg_version_text[] = "a server that does not say its version\n";
static uint32_t local_wait_event_info;
uint32_t *volatile my_wait_event_info = &local_wait_event_info;
#else
const char pg_version_text[] = "postgres (PostgreSQL) 15.4 (fake)\n";
static uint32_t local_wait_event_info;
uint32_t *volatile my_wait_event_info = &local_wait_event_info;
#endif

#define CYCLE_NS 100000000ULL
#define WAL_SYNC 0x0a000046u
#define CHECKPOINTER_MAIN 0x05000004u

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

volatile uint64_t sink;

static void sleep_until(uint64_t until)
{
	struct timespec ts = { (time_t)(until / 1000000000ULL), (long)(until % 1000000000ULL) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
		;
}

static void report(uint32_t w)
{
#ifndef PG13
	*(volatile uint32_t *)my_wait_event_info = w;
#else
	sink += w;
#endif
}

__attribute__((noinline)) void initial_phase(uint64_t until)
{
	report(CHECKPOINTER_MAIN);
	sleep_until(until);
	report(0);
}

__attribute__((noinline)) void cpu_phase(uint64_t until)
{
	uint64_t x = sink;
	do {
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005ULL + 1;
		sink = x;
	} while (now() < until);
}

__attribute__((noinline)) void wait_phase(uint64_t until)
{
	report(WAL_SYNC);
	sleep_until(until);
	report(0);
}

int main(void)
{
	sink = (uint64_t)(uintptr_t)pg_version_text;
	initial_phase(now() + 400000000ULL);
#ifndef PG13
	uint32_t *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return 1;
	my_wait_event_info = shared + 16;
	local_wait_event_info = 0x0900ffffu;
#endif
	for (uint64_t cycle = now();; cycle += CYCLE_NS) {
		cpu_phase(cycle + CYCLE_NS * 6 / 10);
		wait_phase(cycle + CYCLE_NS);
	}
}
