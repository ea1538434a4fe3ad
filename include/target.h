/* target.h - the traced process: its threads and every ptrace call.
 *
 * We PTRACE_SEIZE each thread once (no SIGSTOP is sent, the target does not
 * notice) and only ever stop one thread at a time, for the copy.  Every stop
 * we did not cause is handed back: a signal-delivery stop is resumed with
 * its signal, a group stop (SIGSTOP, Ctrl-Z) is left in place with
 * PTRACE_LISTEN.  If we die, the kernel detaches the seized threads and they
 * run on: nothing here may leave a thread stopped across a blocking call.
 */
#ifndef PTRACE_PROFILER_TARGET_H
#define PTRACE_PROFILER_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "procfs.h"

struct blocked_sample; /* the sampler's, see sampler.c */

struct thread {
	pid_t tid;
	int stat_fd;        /* /proc/PID/task/TID/stat, kept open */
	int stack_fd;       /* /proc/PID/task/TID/stack, -1 if unreadable */
	uint64_t stack_low; /* the mapping holding sp at the last sample; */
	uint64_t stack_top; /* 0 = not known yet */
	int syscall_fd;     /* /proc/PID/task/TID/syscall, -1 if unreadable */
	int sched_fd;       /* /proc/PID/task/TID/schedstat, opened at first
			       use: -1 not yet, -2 unreadable */
	bool gone;          /* exited: dropped at the next scan */
	bool group_stop;    /* in a group stop we left in place (LISTEN) */
	unsigned group_stops; /* group stops entered: tells one from the next */
	uint64_t samples;
	uint64_t samples_unstopped; /* blocked and unchanged: not stopped */
	uint64_t stop_timeouts;     /* did not stop within 200 ms: no sample */
	struct blocked_sample *blocked; /* freed with the thread */
	char comm[COMM_MAX];
};

struct target {
	pid_t pid;          /* thread group id */
	bool launched;      /* we forked it: we reap it */
	bool exited;        /* the whole process is gone */
	int exit_status;    /* wait status of the leader, when launched */
	bool kernel_stacks; /* /proc/.../stack readable */
	struct thread *threads;
	size_t n_threads, cap_threads;
	const pid_t *only_tids; /* --tid: the threads to sample; NULL = all */
	size_t n_only_tids;
	char comm[COMM_MAX];    /* the process's name, for several processes */
	int num_threads;        /* as the leader's stat last said; -1 unknown */
	uint64_t signals_forwarded;
	uint64_t ended_threads, ended_samples; /* threads gone during the run */
	unsigned execs;     /* execve calls seen since attach */
};

enum attach_error { ATTACH_OK, ATTACH_NO_PROCESS, ATTACH_DENIED, ATTACH_FAILED };

/* Seizes every thread of pid, or only those of only_tids (n_only > 0) that
 * belong to it.  On failure err holds a one-line reason. */
enum attach_error target_attach(struct target *t, pid_t pid, const pid_t *only_tids,
				size_t n_only, char *err, size_t errlen);

/* Does t hold thread tid? */
bool target_has_thread(const struct target *t, pid_t tid);

/* Starts argv[0] (PATH searched) and seizes it once it has exec'd.
 * Returns 0, or -1 with a reason in err. */
int target_launch(struct target *t, char **argv, char *err, size_t errlen);

/* Seizes threads created since the last scan, forgets the ones gone. */
void target_scan_threads(struct target *t);

enum stop_result { STOP_OK, STOP_GONE, STOP_TIMEOUT };

/* Interrupts one thread and waits for it to be stopped.  Stops that are
 * not ours are handled on the way (signals re-injected).  A thread that
 * does not stop within 200 ms (uninterruptible sleep) gives STOP_TIMEOUT:
 * never wait for the target, it does not wait for us.  For a running
 * thread, *began_ns is when it stopped running, as closely as we can tell:
 * the middle of the PTRACE_INTERRUPT call, during which the interrupt
 * reaches it.  *seen_ns is when we saw it stopped. */
enum stop_result thread_stop(struct target *t, struct thread *th, uint64_t *began_ns,
			     uint64_t *seen_ns);

/* Lets a thread stopped by thread_stop() run again. */
void thread_resume(struct target *t, struct thread *th);

/* Handles events (signal-delivery stops, group stops, exits) of all n
 * targets until the absolute CLOCK_MONOTONIC deadline, until *quit
 * becomes nonzero, or until every target has exited. */
void targets_wait_until(struct target *ts, size_t n, uint64_t deadline_ns,
			volatile int *quit);

/* Detaches every thread; the target runs on as if we never came. */
void target_detach(struct target *t);

/* Frees the thread list (after the summary has been printed). */
void target_free(struct target *t);

/* Reads a thread's state and kernel stack into the caller's buffers
 * (pread at 0 of the kept descriptors).  0 or -1 if the thread is gone. */
int thread_read_proc(struct target *t, struct thread *th, struct task_stat *st,
		     struct kernel_stack *ks);

/* Where a blocked thread waits, read without stopping it.  0, or -1 if it
 * runs or is not in a system call. */
int thread_read_syscall(struct thread *th, struct blocked_syscall *out);

/* How many times the thread has been put on a CPU (schedstat), for
 * telling whether it has run at all since we last let it go.  0, or -1 if
 * the kernel does not say (no CONFIG_SCHED_INFO) or the thread is gone. */
int thread_read_runs(struct target *t, struct thread *th, uint64_t *runs);

/* CLOCK_MONOTONIC in ns. */
uint64_t now_ns(void);

#endif
