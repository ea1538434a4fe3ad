/* stop_cost.c - a stop's unseen cost, on a child of ours (stop_cost.h). */
#define _GNU_SOURCE
#include "sample/stop_cost.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"

#define GAP_NS 2000            /* longer than a clock read and a loop */
#define SPACING_NS 100000ULL   /* between stops, as at -d 100us */
#define SPIN_NS 50000ULL       /* as capture.c's STOP_SPIN_NS */
#define END_WAIT_NS 200000000ULL /* the child's report, at most */

/* Between us and the child, in memory we both map: no signal, which
 * could reach it before it had a handler of its own (it begins with
 * ours), and no pipe to read in its loop. */
struct shared {
	volatile int done;     /* ours to set: report and exit */
	volatile int reported;
	uint64_t stop_gaps, stop_gap_ns; /* gaps a voluntary switch explains */
};

/* The child: spins on the clock until told, then reports. */
static __attribute__((noreturn)) void spin_and_report(struct shared *sh, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives us */
	if (getppid() != parent)
		_exit(0);
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	long switches = ru.ru_nvcsw;
	uint64_t last = now_ns(), gaps = 0, gap_ns = 0;
	while (!sh->done) {
		uint64_t t = now_ns();
		if (t - last > GAP_NS) {
			getrusage(RUSAGE_THREAD, &ru);
			if (ru.ru_nvcsw != switches) { /* it did not run: a stop */
				gaps++;
				gap_ns += t - last;
				switches = ru.ru_nvcsw;
			}
			t = now_ns();
		}
		last = t;
	}
	sh->stop_gaps = gaps;
	sh->stop_gap_ns = gap_ns;
	__atomic_store_n(&sh->reported, 1, __ATOMIC_RELEASE);
	_exit(0);
}

static void pause_ns(uint64_t ns)
{
	struct timespec ts = { 0, (long)ns };
	nanosleep(&ts, NULL);
}

/* One stop as the sampler makes it of a thread on a CPU: the time held. */
static int stop_once(pid_t pid, uint64_t *held_ns)
{
	int status;
	struct user_regs_struct regs;
	uint64_t t0 = now_ns();
	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) != 0)
		return -1;
	/* spun for, as capture.c waits for a running thread's trap */
	pid_t got = 0;
	while ((got = waitpid(pid, &status, __WALL | WNOHANG)) == 0 && now_ns() - t0 < SPIN_NS)
		;
	if (got == 0)
		got = waitpid(pid, &status, __WALL);
	if (got != pid || !WIFSTOPPED(status))
		return -1;
	ptrace(PTRACE_GETREGS, pid, 0, &regs);
	int rc = ptrace(PTRACE_CONT, pid, 0, 0);
	*held_ns += now_ns() - t0;
	return rc;
}

/* Waits for the child's end, at most END_WAIT_NS, then kills it. */
static void reap(pid_t pid)
{
	int status;
	uint64_t t0 = now_ns();
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (now_ns() - t0 > END_WAIT_NS) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return;
		}
		pause_ns(1000000);
	}
}

void stop_cost_measure(struct stop_cost *out)
{
	memset(out, 0, sizeof(*out));
	struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return;
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0)
		spin_and_report(sh, parent);
	if (pid < 0) {
		munmap(sh, sizeof(*sh));
		return;
	}
	uint64_t held = 0;
	int stops = 0, status;
	if (ptrace(PTRACE_SEIZE, pid, 0, 0) == 0) {
		pause_ns(2 * SPACING_NS); /* spinning by now */
		for (; stops < STOP_COST_STOPS && stop_once(pid, &held) == 0; stops++)
			pause_ns(SPACING_NS);
		/* let it go: stopped, then detached */
		if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) == 0 && waitpid(pid, &status, __WALL) == pid)
			ptrace(PTRACE_DETACH, pid, 0, 0);
	}
	sh->done = 1;
	reap(pid);
	bool reported = __atomic_load_n(&sh->reported, __ATOMIC_ACQUIRE);
	uint64_t gaps = sh->stop_gaps, gap_ns = sh->stop_gap_ns;
	munmap(sh, sizeof(*sh));
	/* (the last interrupt, before the detach, is a stop too; a stop
	 * shorter than GAP_NS is not seen) */
	if (!reported || stops < STOP_COST_STOPS / 2 || gaps < (uint64_t)stops * 9 / 10)
		return;
	out->known = true;
	out->stops = stops;
	out->held_us = (double)held / 1e3 / stops;
	out->lost_us = (double)gap_ns / 1e3 / (double)gaps;
	out->extra_us = out->lost_us > out->held_us ? out->lost_us - out->held_us : 0;
}
