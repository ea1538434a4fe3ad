/* priority.c - see priority.h for why the sampler asks for a short slice
 * (and no more), and names at the user's own nice value. */
#define _GNU_SOURCE
#include "base/priority.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* struct sched_attr (include/uapi/linux/sched/types.h), which glibc 2.36
 * does not declare; its first 48 bytes are the ones every kernel since
 * 3.14 knows. */
struct sched_attr_v1 {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

#define SAMPLING_SLICE_NS 100000ULL /* the smallest slice EEVDF accepts */

void priority_for_sampling(struct priority_report *r)
{
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0);
	r->nice = errno ? 0 : nice;
	/* A SCHED_OTHER task's sched_runtime is its slice on EEVDF kernels;
	 * older kernels ignore it (or refuse the call): nothing lost. */
	struct sched_attr_v1 a = {
		.size = sizeof(a), .sched_policy = SCHED_OTHER, .sched_nice = r->nice,
		.sched_runtime = SAMPLING_SLICE_NS,
	};
	r->short_slice = syscall(SYS_sched_setattr, 0, &a, 0) == 0;
	/* the lowest real-time priority; not inherited by any thread or
	 * process started from here */
	struct sched_param sp = { .sched_priority = 1 };
	r->realtime = sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0;
}

void priority_pause(const struct priority_report *r)
{
	if (!r->realtime)
		return;
	struct sched_attr_v1 a = { .size = sizeof(a), .sched_policy = SCHED_OTHER,
				   .sched_nice = r->nice };
	syscall(SYS_sched_setattr, 0, &a, 0);
}

void priority_resume(const struct priority_report *r)
{
	if (!r->realtime)
		return;
	struct sched_param sp = { .sched_priority = 1 };
	sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp);
}

void priority_for_naming(void)
{
	/* Out of SCHED_FIFO, back to a plain slice, at the nice value we were started with (the
	 * sampler never changes it): the target is let go, and the profile
	 * is what the user now waits for.  (At nice 19 naming took 5.7 s on
	 * a loaded server, and a stop signal meanwhile lost the profile.) */
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0);
	struct sched_attr_v1 a = { .size = sizeof(a), .sched_policy = SCHED_OTHER,
				   .sched_nice = errno ? 0 : nice };
	syscall(SYS_sched_setattr, 0, &a, 0); /* refused: the slice was never changed */
}

struct background {
	void *(*fn)(void *);
	void *arg;
};

static void *background_main(void *arg)
{
	struct background b = *(struct background *)arg;
	free(arg);
	setpriority(PRIO_PROCESS, (id_t)gettid(), 19); /* this thread only */
	return b.fn(b.arg);
}

int priority_start_background(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	struct background *b = malloc(sizeof(*b));
	if (!b)
		return ENOMEM;
	*b = (struct background){ fn, arg };
	/* The mask is inherited: all blocked from the first instruction. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(thread, NULL, background_main, b);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		free(b);
	return rc;
}
