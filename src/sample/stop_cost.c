/* stop_cost.c - what a stop costs a thread on a CPU, on a child of ours
 * and on the thread (stop_cost.h). */
#define _GNU_SOURCE
#include "sample/stop_cost.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
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
#include "sample/overhead.h"
#include "sample/sampler.h"
#include "tracee/procfs.h"
#include "tracee/target.h"

#define GAP_NS 2000            /* longer than a clock read and a loop */
#define SPACING_NS 100000ULL   /* between stops, as at -d 100us */
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

/* Our CPU, and another we may use for the child; false when there is
 * none (one CPU allowed) or we cannot tell.  was: our affinity now. */
static bool apart_cpus(cpu_set_t *was, cpu_set_t *ours, cpu_set_t *its)
{
	int cpu = sched_getcpu();
	if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof(*was), was) != 0 ||
	    CPU_COUNT(was) < 2)
		return false;
	CPU_ZERO(ours);
	CPU_SET(cpu, ours);
	CPU_ZERO(its);
	for (int k = 1; k < CPU_SETSIZE; k++)
		if (CPU_ISSET((cpu + k) % CPU_SETSIZE, was)) {
			CPU_SET((cpu + k) % CPU_SETSIZE, its);
			return true;
		}
	return false;
}

static void pause_ns(uint64_t ns)
{
	struct timespec ts = { 0, (long)ns };
	nanosleep(&ts, NULL);
}

/* Its schedstat, read while it is stopped, into the pairs (overhead.h),
 * as capture.c reads a target's. */
static void note_offcpu(int sched_fd, struct overhead_offcpu *o)
{
	char buf[128];
	struct sched_counts sc;
	ssize_t n = sched_fd >= 0 ? pread(sched_fd, buf, sizeof(buf) - 1, 0) : -1;
	if (n > 0 && parse_schedstat(buf, (size_t)n, &sc) == 0)
		overhead_offcpu_stop(o, true, sc.run_ns, sc.runs, now_ns());
	else
		o->known = false;
}

/* One stop as the sampler makes it of a thread on a CPU: the time held. */
static int stop_once(pid_t pid, int sched_fd, struct overhead_offcpu *o, uint64_t *held_ns)
{
	int status;
	struct user_regs_struct regs;
	uint64_t t0 = now_ns();
	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) != 0)
		return -1;
	/* spun for, as capture.c waits for a running thread's trap */
	pid_t got = 0;
	while ((got = waitpid(pid, &status, __WALL | WNOHANG)) == 0 && now_ns() - t0 < STOP_SPIN_NS)
		;
	if (got == 0)
		got = waitpid(pid, &status, __WALL);
	if (got != pid || !WIFSTOPPED(status))
		return -1;
	ptrace(PTRACE_GETREGS, pid, 0, &regs);
	note_offcpu(sched_fd, o);
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
	/* Apart, as a target on a CPU is from us (our affinity given back
	 * at the end): on our CPU it would wait for us at every resume and
	 * run twice between stops. */
	cpu_set_t was, ours, its;
	bool apart = apart_cpus(&was, &ours, &its);
	if (apart)
		sched_setaffinity(0, sizeof(ours), &ours);
	pid_t pid = fork();
	if (pid == 0) {
		if (apart)
			sched_setaffinity(0, sizeof(its), &its);
		spin_and_report(sh, parent);
	}
	if (pid < 0) {
		if (apart)
			sched_setaffinity(0, sizeof(was), &was);
		munmap(sh, sizeof(*sh));
		return;
	}
	uint64_t held = 0;
	int stops = 0, status;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, (int)pid);
	int sched_fd = open(path, O_RDONLY | O_CLOEXEC);
	struct overhead_offcpu off = { 0 };
	if (ptrace(PTRACE_SEIZE, pid, 0, 0) == 0) {
		pause_ns(2 * SPACING_NS); /* spinning by now */
		for (; stops < STOP_COST_STOPS && stop_once(pid, sched_fd, &off, &held) == 0; stops++)
			pause_ns(SPACING_NS);
		/* let it go: stopped, then detached */
		if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) == 0 && waitpid(pid, &status, __WALL) == pid)
			ptrace(PTRACE_DETACH, pid, 0, 0);
	}
	if (sched_fd >= 0)
		close(sched_fd);
	sh->done = 1;
	reap(pid);
	if (apart)
		sched_setaffinity(0, sizeof(was), &was);
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
	if (off.pairs >= (uint64_t)stops / 2) {
		double offcpu = (double)off.sum_ns / 1e3 / (double)off.pairs;
		out->on_cpu_known = true;
		out->on_cpu_us = out->lost_us > offcpu ? out->lost_us - offcpu : 0;
	}
}

bool stop_cost_on_thread(const struct thread_figures *tf)
{
	return tf->offcpu_pairs >= STOP_COST_MIN_PAIRS && tf->span_ns > 0;
}

/* What a stop that took it off a CPU cost it on its CPU: the way into
 * the stop and out, which the kernel counts as its own time (in the
 * kernel, as a system call's).  Its stime per such stop: all of it for
 * a thread that runs in user space, too much for one that makes system
 * calls of its own, so no more than the child's (stop_cost.h). */
double stop_cost_on_cpu_ns(const struct thread_figures *tf, const struct stop_cost *c)
{
	double each = tf->kernel_ns > 0 && tf->running_stops ?
			      tf->kernel_ns / (double)tf->running_stops : 0;
	if (c->known && c->on_cpu_known && each > c->on_cpu_us * 1e3)
		each = c->on_cpu_us * 1e3;
	return each;
}

/* What a thread lost to us, as a share of its time.  Measured on it: a
 * stop that took it off a CPU costs its time off the CPU (stopped, its
 * CPU's wake-up, its wait for it) and its way in and out; another stop,
 * its time stopped and its wait after.  Else: stopped, the wait after,
 * and what the child's stops cost beyond the time held.  Either way, the
 * time it waited for the CPU our round held before its stop. */
double stop_cost_lost(const struct thread_figures *tf, const struct stop_cost *c)
{
	if (stop_cost_on_thread(tf)) {
		double each = tf->offcpu_ns + stop_cost_on_cpu_ns(tf, c);
		return tf->held + tf->stopped - tf->running_stopped + tf->waited_after -
		       tf->running_waited + 100.0 * (double)tf->running_stops * each / tf->span_ns;
	}
	double around = c->known && tf->span_ns > 0 ?
				100.0 * (double)tf->running_stops * c->extra_us * 1e3 / tf->span_ns : 0;
	return tf->held + tf->stopped + tf->waited_after + around;
}
