/* fake_oracle.c - stands in for an Oracle server process.
 *   fake_oracle ADDR_FILE
 * A SysV shared memory segment plays the SGA; two 4-byte fields at odd
 * offsets play X$KSUSE.KSUSEOPC (event#) and KSUSETIM.  In 100 ms cycles
 * it spends 60 ms in cpu_phase (KSUSETIM > 0: on CPU) and 40 ms in
 * wait_phase, a "wait" for event 146 spent in nanosleep (KSUSEOPC = 146,
 * KSUSETIM = 0 while waiting), as Oracle's wait interface does.  Writes the
 * two addresses, in decimal as the SQL script prints them, to ADDR_FILE. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <time.h>

#define EVENT 146
#define CYCLE_NS 100000000ULL

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static volatile uint32_t *ksuseopc, *ksusetim;
volatile uint64_t sink;

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
	uint64_t start = now();
	*ksuseopc = EVENT; /* the wait begins */
	*ksusetim = 0;
	struct timespec ts = { (time_t)(until / 1000000000ULL), (long)(until % 1000000000ULL) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
		;
	uint32_t us = (uint32_t)((now() - start) / 1000);
	*ksusetim = us ? us : 1; /* the wait is over: on CPU */
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	int id = shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0600);
	if (id < 0)
		return 1;
	char *sga = shmat(id, NULL, 0);
	shmctl(id, IPC_RMID, NULL); /* goes away with us */
	if (sga == (void *)-1)
		return 1;
	memset(sga, 0, 1 << 20);
	ksuseopc = (volatile uint32_t *)(sga + 0x1001);
	ksusetim = (volatile uint32_t *)(sga + 0x2003);
	*ksusetim = 1;
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 1;
	fprintf(f, "%llu %llu\n", (unsigned long long)(uintptr_t)ksuseopc,
		(unsigned long long)(uintptr_t)ksusetim);
	fclose(f);
	for (uint64_t cycle = now();; cycle += CYCLE_NS) {
		cpu_phase(cycle + CYCLE_NS * 6 / 10);
		wait_phase(cycle + CYCLE_NS);
	}
}
