/* resume_here.h - resuming a followed thread on its own CPU, and the next
 * tick from that CPU's own timer.
 *
 * A thread followed to its CPU (placement.h) is stopped there by the
 * sampler's tick.  PTRACE_CONT wakes it, and the kernel wakes a thread on
 * an idle CPU rather than on a busy one - and its own CPU is busy: the
 * sampler holds it.  So every resume moved the thread to another CPU (its
 * caches cold there), and the sampler moved after it, arriving as a
 * wake-up sent from another CPU: that holds the thread at its next return
 * to user mode, a system call's, until the sampler sleeps again.
 *
 * Here the sampler resumes it as a SCHED_IDLE task: a CPU whose runnable
 * tasks are all SCHED_IDLE counts as idle to a wake-up, so the thread
 * wakes where it was, and preempts the sampler at once.  A helper thread
 * of ours, SCHED_FIFO, kept off that CPU and asked just before the
 * resume (or visiting then on its own timer: a wake-up sent from the
 * thread's CPU is the thread's time, ~10 us here), moves the sampler - queued, not running: no migration stop - to
 * its own CPU and gives it SCHED_FIFO back; the sampler ends its round
 * there.  It must not come back as FOLLOW did: its arrival would hold the
 * thread at a system call's end, time its clock counts in the call and no
 * tick sees (sysmix's user work read 3-6 points over its clock so).  So
 * before the resume, while it is still on the thread's CPU, it arms the
 * next tick's timer there (a POSIX timer that signals the sampler,
 * RESUME_HERE_SIGNAL), and once it sleeps the helper - on the same CPU,
 * under the same priority, so that it runs only then - makes the thread's
 * CPU the sampler's only one.  The timer's interrupt wakes the sampler
 * there, and the thread is preempted at the instruction it was on, as by
 * FOLLOW's own sleep on that CPU, with no arrival before.
 *
 * Only for a stop our tick made on our CPU (a thread it preempted), by a
 * SCHED_FIFO sampler with another CPU to go to: else the thread is
 * resumed, and followed, as FOLLOW does.  The timer is armed for the
 * first tick far enough ahead for the round to end before it (capture.c,
 * TIMER_AHEAD_NS); the ticks due before it stand with the round it wakes
 * (schedule.h), as ticks due while a round runs do.  Followed by a move
 * instead, as before, a fifth of the rounds at 1 ms (exponential
 * intervals: 22 % are under 250 us) cost the thread a migration each.  The helper asked late (the
 * resumed thread slept at once and the sampler ran on) is called off;
 * one that is moving the sampler finishes first.
 *
 * The helper also keeps the bound of the tick's wait for the held
 * thread's trap (resume_here_wait_begin): from its own CPU, so that the
 * sampler sleeps in waitpid with no timer armed on the thread's.
 */
#ifndef PTRACE_PROFILER_SAMPLE_RESUME_HERE_H
#define PTRACE_PROFILER_SAMPLE_RESUME_HERE_H

#include <sched.h> /* cpu_set_t: its users define _GNU_SOURCE */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct resume_here;

/* Made by the sampler's own thread (the one moved), allowed the CPUs it
 * may use.  NULL when it cannot help: fewer than two CPUs, no thread, or
 * SCHED_FIFO refused to the helper. */
struct resume_here *resume_here_new(const cpu_set_t *allowed);

/* The signal the tick's timer sends the sampler: blocked in its thread
 * from resume_here_new on, taken by its wait (target.h,
 * targets_wait_tick).  (One real-time signal that no longer ends a run
 * while a thread is followed.) */
#define RESUME_HERE_SIGNAL (SIGRTMAX)

/* The signal the helper sends to end a wait for a held thread's trap
 * that outlasted its watch (resume_here_wait_begin): blocked in the
 * sampler's thread but during that wait, where a handler that does
 * nothing takes it and the wait returns EINTR.  (A second real-time
 * signal that no longer ends a run.) */
#define RESUME_HERE_WATCH_SIGNAL (SIGRTMAX - 1)

/* Just before resuming a thread the sampler stopped on cpu, its own: the
 * helper kept off cpu and asked to take the sampler, the sampler made
 * SCHED_IDLE; the next tick's timer armed on cpu for next_due_ns (0:
 * none), and a second for the tick after, then_due_ns (0: none; later
 * than next_due_ns): the next round keeps that one when it is the tick it
 * wants, and the CPU's own timer needs no programming of ours (a write
 * that leaves the guest on a virtual CPU).  In a round a timed tick began, the helper is not woken: it
 * visits on its own timer, at the time such rounds have armed by (their
 * 90th percentile), and takes the sampler then; a resume armed later, or
 * near the next tick, wakes it.  false, nothing done: no other CPU for the
 * helper.
 *
 * queued: the thread was not stopped but only preempted by our tick, and
 * waits on cpu behind the sampler (switch_copy.h).  Made SCHED_IDLE as
 * for a stopped thread, the sampler lets it run the moment it changes
 * its policy, before it has asked the helper: left queued behind a
 * thread that never sleeps, it came back a third of the ticks late at
 * 1 ms on sysmix.  So the helper is asked first and the sampler sleeps
 * on the ask: the thread runs as it sleeps, and the helper moves the
 * sampler asleep and wakes it on its own CPU, real-time.  Returns once
 * moved (or false, nothing asked: the helper could not be woken). */
bool resume_here_arm(struct resume_here *h, int cpu, uint64_t next_due_ns, uint64_t then_due_ns,
		     bool queued);
/* When a queued thread's resume let it run (CLOCK_MONOTONIC). */
uint64_t resume_here_idle_at(const struct resume_here *h);
/* How long after its tick a timed round arms its resume, half the time
 * or sooner (learnt): then_due_ns is best the first tick due this long
 * and the round's margin after next_due_ns. */
uint64_t resume_here_lag_ns(const struct resume_here *h);
/* Ticks whose timer was armed a round before, and kept (NULL: 0). */
uint64_t resume_here_armed_ahead(const struct resume_here *h);

/* Just after the resume (the sampler runs again, wherever the helper put
 * it): SCHED_FIFO again.  Returns the CPU the helper moved the sampler
 * to (its affinity now that one alone), -1 when it did not. */
int resume_here_done(struct resume_here *h);

/* After the round, the sampler about to sleep until due_ns, the followed
 * thread on thread_cpu: was the timer armed for that tick or a later one
 * (*timer_ns: for when) on that CPU, and the sampler taken from it?  Then
 * the helper is asked to put the sampler back there once it sleeps, and
 * the tick is the timer's: true.  (The helper, yielding its CPU to the
 * sampler since the move, takes the ask when the sampler sleeps: no
 * wake-up is sent then.)  Else the timer is disarmed: false (the
 * sampler moves as FOLLOW does). */
bool resume_here_sleep_there(struct resume_here *h, uint64_t due_ns, int thread_cpu, uint64_t *timer_ns);

/* After that sleep: the CPU the helper put the sampler on (its affinity
 * now that one alone), -1 when it could not (the sampler was not asleep
 * when the helper came: the tick then comes from another CPU). */
int resume_here_woke(struct resume_here *h);

/* In the round the timer woke the sampler for (resume_here_sleep_there
 * watched it), its wait for the held thread's trap: may it sleep in
 * waitpid without a timer of its own (target.h, targets_wait_unbounded)?
 * The helper watches it from its own CPU until WATCH_BOUND_NS past the
 * tick, and ends it then with RESUME_HERE_WATCH_SIGNAL.  true: *during is
 * the mask to wait under (the sampler's, that signal let through); call
 * resume_here_wait_end after, ended: the wait returned with the stop
 * still pending.  false (not watched, or the watch over): a wait with a
 * bound of its own. */
bool resume_here_wait_begin(struct resume_here *h, sigset_t *during);
void resume_here_wait_end(struct resume_here *h, bool ended);

/* The waits so ended with the stop pending. */
uint64_t resume_here_waits_ended(const struct resume_here *h);

/* Resumes the helper took on its visit, no wake-up sent to it from the
 * thread's CPU (resume_here_arm). */
uint64_t resume_here_visited(const struct resume_here *h);

/* Moves the helper made. */
uint64_t resume_here_count(const struct resume_here *h);

/* Ends the helper (NULL: nothing). */
void resume_here_free(struct resume_here *h);

#endif
