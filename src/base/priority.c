/* priority.c - see priority.h for why the sampler asks for a short slice
 * (and no more), and names at the user's own nice value. */
#define _GNU_SOURCE
#include "base/priority.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <time.h>
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

struct priority_lift {
	pthread_t thread;
	pid_t sampler;          /* the thread lifted */
	pthread_mutex_t lock;   /* guards what follows */
	pthread_cond_t wake;    /* armed, or told to end */
	uint64_t due_ns;        /* 0: not armed */
	uint64_t sleeps_until;  /* when its wait ends by itself (0: never) */
	bool end;
	uint64_t lifts;
};

static void *lift_main(void *arg)
{
	struct priority_lift *l = arg;
	struct sched_param sp = { .sched_priority = 1 };
	/* its own wake-up must preempt whoever runs, as the sampler's does */
	sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp);
	pthread_mutex_lock(&l->lock);
	while (!l->end) {
		if (!l->due_ns) {
			l->sleeps_until = 0;
			pthread_cond_wait(&l->wake, &l->lock);
			continue;
		}
		uint64_t due = l->due_ns;
		struct timespec ts = { (time_t)(due / 1000000000ULL), (long)(due % 1000000000ULL) };
		l->sleeps_until = due;
		int rc = pthread_cond_timedwait(&l->wake, &l->lock, &ts);
		if (rc == ETIMEDOUT && l->due_ns == due) {
			l->due_ns = 0;
			l->lifts++;
			sched_setscheduler(l->sampler, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp);
		}
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

struct priority_lift *priority_lift_new(const struct priority_report *r)
{
	if (!r->realtime)
		return NULL;
	struct priority_lift *l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->sampler = (pid_t)syscall(SYS_gettid);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* the ticks' clock */
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->wake, &ca);
	pthread_condattr_destroy(&ca);
	/* every signal is the sampler's (SIGCHLD above all): none here */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(&l->thread, NULL, lift_main, l);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		pthread_cond_destroy(&l->wake);
		pthread_mutex_destroy(&l->lock);
		free(l);
		return NULL;
	}
	return l;
}

void priority_lift_at(struct priority_lift *l, uint64_t due_ns)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->due_ns = due_ns ? due_ns : 1;
	/* A lift that sleeps until an earlier time (one cancelled) wakes then
	 * and sleeps again until this one: a signal only when it would
	 * sleep past it. */
	if (!l->sleeps_until || l->sleeps_until > l->due_ns)
		pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
}

void priority_lift_cancel(struct priority_lift *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->due_ns = 0; /* it wakes at the time it had, and finds nothing to do */
	pthread_mutex_unlock(&l->lock);
}

uint64_t priority_lift_count(const struct priority_lift *l)
{
	if (!l)
		return 0;
	pthread_mutex_lock((pthread_mutex_t *)&l->lock);
	uint64_t n = l->lifts;
	pthread_mutex_unlock((pthread_mutex_t *)&l->lock);
	return n;
}

void priority_lift_free(struct priority_lift *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->end = true;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
	pthread_join(l->thread, NULL);
	pthread_cond_destroy(&l->wake);
	pthread_mutex_destroy(&l->lock);
	free(l);
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
