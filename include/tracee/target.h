/* target.h - the traced process: its threads and every ptrace call.
 *
 * We PTRACE_SEIZE each thread once (no SIGSTOP is sent, the target does not
 * notice) and stop a thread only for the copy, resuming it the moment its
 * trap is seen (a thread queued for a CPU is asked, and copied when it gets
 * the CPU: meanwhile others are sampled).  Every stop we did not cause is
 * handed back: a signal-delivery stop is resumed with
 * its signal, a group stop (SIGSTOP, Ctrl-Z) is left in place with
 * PTRACE_LISTEN.  If we die, the kernel detaches the seized threads and they
 * run on: nothing here may leave a thread stopped across a blocking call.
 */
#ifndef PTRACE_PROFILER_TARGET_H
#define PTRACE_PROFILER_TARGET_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "base/clock.h"
#include "tracee/procfs.h"

struct thread {
	pid_t tid;
	int stat_fd;        /* /proc/PID/task/TID/stat, kept open */
	int stack_fd;       /* /proc/PID/task/TID/stack, -1 if unreadable */
	int syscall_fd;     /* /proc/PID/task/TID/syscall, -1 if unreadable */
	int sched_fd;       /* /proc/PID/task/TID/schedstat, opened at first
			       use: -1 not yet, -2 unreadable */
	int exec_fd;        /* /proc/PID/task/TID/sched, the same way */
	int wchan_fd;       /* /proc/PID/task/TID/wchan, the same way */
	bool gone;          /* exited: dropped at the next scan */
	bool group_stop;    /* in a group stop we left in place (LISTEN) */
	unsigned group_stops; /* group stops entered: tells one from the next */
	bool stop_pending;  /* interrupted, its trap not seen yet */
	uint64_t stop_asked_ns, stop_nudged_ns;
	uint32_t slot;      /* whoever samples it keeps its record of it here
			       (an index + 1; 0: none yet) */
};

struct target {
	pid_t pid;          /* thread group id */
	bool launched;      /* we forked it: we reap it */
	bool exited;        /* the whole process is gone */
	bool retired;       /* and its slot let go: free for the next
			       (the sampler's retire.h); no process */
	int exit_status;    /* wait status of the leader, when launched */
	bool kernel_stacks; /* /proc/.../stack readable */
	struct thread *threads;
	size_t n_threads, cap_threads;
	const pid_t *only_tids; /* --tid: the threads to sample; NULL = all */
	size_t n_only_tids;
	char comm[COMM_MAX];    /* the process's name, for several processes */
	int num_threads;        /* as the leader's stat last said; -1 unknown */
	uint64_t signals_forwarded;
	uint64_t ended_threads; /* threads gone during the run */
	unsigned execs;     /* execve calls seen since attach */
	/* Told of a thread that ended, before it leaves the list (its slot
	 * is free again after that); NULL: nobody. */
	void (*on_drop)(void *arg, struct target *t, struct thread *th);
	void *drop_arg;
};

/* ATTACH_INVALID: the pid itself is wrong (no such process, a zombie, a
 * kernel thread, ourselves): bad input.  ATTACH_DENIED, ATTACH_FAILED: a
 * process that is there but may not be traced now. */
enum attach_error { ATTACH_OK, ATTACH_INVALID, ATTACH_DENIED, ATTACH_FAILED };

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

/* Asks a thread to stop (PTRACE_INTERRUPT) and marks its stop pending.
 * *began_ns is when a thread on a CPU stopped running, as closely as we
 * can tell: the middle of the call, during which the interrupt reaches
 * it.  0, or -1 if the thread is gone. */
int thread_interrupt(struct thread *th, uint64_t *began_ns);

enum stop_result { STOP_OK, STOP_PENDING, STOP_GONE };

/* How long a tracer spins for the trap of a thread it asked to stop, when
 * the thread is on a CPU: it traps within microseconds there.  Every mode
 * (a sample, --dump, the stop-cost measure) spins this long. */
#define STOP_SPIN_NS 50000ULL

/* A stop whose trap has not come this long after it was asked is late:
 * a sample counts it so, --dump gives up and shows the thread from /proc. */
#define STOP_LATE_NS 200000000ULL

/* Waits, spinning, until the absolute CLOCK_MONOTONIC time spin_until
 * for the trap of a thread thread_interrupt asked to stop: a thread on a
 * CPU traps within microseconds, and a sleeping tracer would need a
 * cross-CPU wake-up that costs more than the whole copy.  Stops that are
 * not ours are handled on the way (signals re-injected).  STOP_OK: it is
 * stopped (*seen_ns: when we saw it), in our trap or in a group stop.
 * STOP_PENDING: not yet - a thread queued for a CPU traps when it gets
 * one; targets_poll and targets_wait_until hand the trap to on_trap. */
enum stop_result thread_wait_stop(struct target *t, struct thread *th, uint64_t spin_until,
				  uint64_t *seen_ns);

/* Asks a thread whose stop is pending again, at most every 10 ms: an
 * execve swallows a pending interrupt. */
void thread_nudge(struct thread *th, uint64_t now);

/* A thread whose stop was pending has exited (a main thread that exits
 * while others run stays a zombie and never traps): stop waiting. */
void thread_forget_stop(struct thread *th);

/* Lets a stopped thread run again (or stay in its group stop). */
void thread_resume(struct target *t, struct thread *th);

/* Lets a stopped thread go for good: detached from its stop, so that
 * target_detach need not stop it again (--dump looks at each thread once).
 * It is marked gone. */
void thread_detach(struct target *t, struct thread *th);

/* The trap of a thread whose stop was pending: it is stopped now, and
 * the callee must call thread_resume. */
typedef void (*trap_fn)(void *arg, struct target *t, struct thread *th, uint64_t seen_ns);

/* The same for one thread: its events only.  waitpid for one pid costs
 * the same whatever the number of tracees; for any pid it visits every
 * one of them (50 us with 500 threads). */
void thread_poll(struct target *t, struct thread *th, trap_fn on_trap, void *arg);

/* Handles every event that is there (signal-delivery stops, group stops,
 * exits, traps of pending stops), without waiting. */
void targets_poll(struct target *ts, size_t n, trap_fn on_trap, void *arg);

/* The same until the absolute CLOCK_MONOTONIC deadline, until *quit
 * becomes nonzero, or until every target has exited.  A trap whose
 * waiter gave up (on_trap NULL, or a thread no longer pending) is
 * resumed. */
void targets_wait_until(struct target *ts, size_t n, uint64_t deadline_ns,
			volatile int *quit, trap_fn on_trap, void *arg);
/* The same until due_ns, woken by signal sig (blocked) rather than by our
 * own timeout: a timer armed on another CPU signals the tick, and its
 * wake-up is that CPU's (resume_here.h).  A sig that comes before due_ns
 * is a stale timer's: waited past.  Without sig, it ends late_ns after
 * due_ns. */
void targets_wait_tick(struct target *ts, size_t n, uint64_t due_ns, int sig, uint64_t late_ns,
		       volatile int *quit, trap_fn on_trap, void *arg);

/* The same until th's stop is no longer pending (its trap handed to
 * on_trap), or the deadline: the caller sleeps meanwhile, and a thread
 * that waits for the CPU we hold gets it and traps. */
void targets_wait_for(struct target *ts, size_t n, const struct thread *th, uint64_t deadline_ns,
		      trap_fn on_trap, void *arg);

/* The same without a bound of its own: asleep in waitpid, which arms no
 * timer (on a virtual CPU, arming and cancelling one costs ~10 us, all
 * while the thread waits for the CPU we hold), under the signal mask
 * during, whose signal a watcher on another CPU sends past the bound
 * (resume_here.h).  Every tracee's event is handled as it comes (under
 * the caller's own mask).  false: ended by a signal, or no tracee left,
 * its stop perhaps pending still. */
bool targets_wait_unbounded(struct target *ts, size_t n, const struct thread *th,
			    const sigset_t *during, trap_fn on_trap, void *arg);

/* Detaches every thread; the target runs on as if we never came. */
void target_detach(struct target *t);

/* What letting go of the targets took. */
struct detach_stats {
	uint64_t threads; /* asked to stop so as to be detached */
	uint64_t left;    /* not stopped in time: the kernel detaches them
			     when we exit */
	uint64_t ns;      /* from the first ask to the last detach */
};

/* The same for ts[0..n) at once: every thread is asked to stop, then each
 * is detached as its stop comes, in whatever order (never a wait per
 * thread).  A signal that was on its way is delivered with the detach.
 * Gives up on the ones left when none stopped for 200 ms and none of them
 * is runnable (asleep in D), or after 5 s in all.  out (or NULL) is added
 * to. */
void targets_detach(struct target *ts, size_t n, struct detach_stats *out);

/* Frees the thread list (after the summary has been printed). */
void target_free(struct target *t);

/* Reads a thread's stat (pread at 0 of the kept descriptor).  0, or -1
 * (and the thread marked gone) if it has ended. */
int thread_read_stat(struct thread *th, struct task_stat *st);

/* Its kernel stack as /proc prints it; no frames if unreadable. */
void thread_read_kernel_stack(const struct target *t, struct thread *th, struct kernel_stack *ks);

/* Where a blocked thread waits, read without stopping it.  0, or -1 if it
 * runs. */
int thread_read_syscall(struct thread *th, struct blocked_syscall *out);

/* Its schedstat: time on a CPU, time queued, and how many times it has
 * been put on a CPU (while that stays the same it has not run).  0, or -1
 * if the kernel does not say (no CONFIG_SCHED_INFO) or it is gone. */
int thread_read_sched(struct target *t, struct thread *th, struct sched_counts *out);

/* The children of t's threads (/proc/PID/task/TID/children), up to max;
 * returns their number.  A process forked since is in the next read. */
size_t target_children(const struct target *t, pid_t *out, size_t max);

/* Is it in the state R, on a CPU or queued for one?  Its wchan says so
 * cheaply: "0" for a task in the state R, without unwinding its stack
 * (about 1 us, where stat takes 3 and a preempted thread's kernel stack
 * 7).  1 yes, 0 no (asleep, stopped, ended), -1 unknown (no
 * CONFIG_KALLSYMS, or unreadable). */
int thread_read_runnable(struct target *t, struct thread *th);

/* se.exec_start of its /proc/.../sched (procfs.h), for telling whether the
 * profiler itself took its CPU.  0, or -1 (no CONFIG_SCHED_DEBUG). */
int thread_read_exec_start(struct target *t, struct thread *th, uint64_t *ns);

#endif
