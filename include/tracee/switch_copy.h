/* switch_copy.h - a running thread's registers and stack, as the kernel
 * copies them when it leaves a CPU: the copy a stop makes, without one.
 *
 * A followed thread (issue 41) is sampled by our tick on its own CPU:
 * the sampler, woken there, takes the CPU from it, and a stop then costs
 * the thread a trap and two more switches (PTRACE_INTERRUPT, its trap,
 * our copy, PTRACE_CONT: ~15 us of its time at 1 ms on this machine, of
 * the ~50 a tick takes).  But the moment our tick takes its CPU is a
 * switch off a CPU, and a perf software event on the thread can have the
 * kernel copy, right then, the user registers its entry into the kernel
 * saved and the top of its user stack: a sample of that very instant,
 * the thread never stopped.
 *
 * One copy per watch is taken at a time: armed, the event records the
 * thread's next switches off a CPU; read (switch_copy_take), the newest
 * one since a given time is the copy.  Disarmed, it records nothing and
 * costs the thread nothing.  Arming and disarming are system calls on
 * the thread's event, cheap only while the thread is not running (else
 * the kernel interrupts its CPU to do it): made by a sampler that holds
 * the thread's CPU.
 *
 * What a copy lacks against a stop's (PTRACE_GETREGS): orig_rax (which
 * system call it was in, if any), the segment registers and fs_base.
 * Every other general register is there; rip and rsp are those a stop
 * would read at that instant.
 *
 * Without permission for perf events (perf_event_paranoid above 1 and no
 * CAP_PERFMON), none is opened.  The event ends with its descriptor:
 * when we exit, however we do.
 */
#ifndef PTRACE_PROFILER_SWITCH_COPY_H
#define PTRACE_PROFILER_SWITCH_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

/* The most of a stack a copy holds, from its stack pointer up: the
 * kernel copies a sample's stack into the ring, whose records are at most
 * 64 KiB.  A stack deeper than what a watch copies unwinds as far as the
 * copy reaches. */
#define SWITCH_COPY_STACK_MAX 32768

struct switch_copy; /* one thread's watch */

/* Watches tid's switches off a CPU, disarmed, copying stack_bytes of its
 * stack at each (rounded up to 8, at most SWITCH_COPY_STACK_MAX).  NULL
 * and *err the errno when it cannot (ESRCH: the thread is gone; EACCES,
 * EPERM: no permission; EMFILE, ENOMEM...). */
struct switch_copy *switch_copy_open(pid_t tid, size_t stack_bytes, int *err);
void switch_copy_close(struct switch_copy *c); /* NULL is fine */

/* Records the thread's switches off a CPU from now on, until disarmed.
 * 0, or -1 with errno. */
int switch_copy_arm(struct switch_copy *c);
int switch_copy_disarm(struct switch_copy *c);

/* A copy: the thread's registers and stack as it left a CPU. */
struct switch_copied {
	uint64_t at_ns;          /* when, CLOCK_MONOTONIC */
	int cpu;                 /* the CPU it left */
	struct user_regs_struct regs; /* orig_rax -1, segments and fs_base 0: unknown */
	size_t stack_len;        /* bytes of its stack copied, from regs.rsp */
};

/* What the watch recorded since the last take. */
enum switch_take {
	TAKE_NONE,  /* no switch off a CPU at or after from_ns */
	TAKE_COPY,  /* the newest one at or after from_ns: *out, its stack in stack */
	TAKE_LOST,  /* switches were dropped (the ring full): none is trusted */
};

/* Reads the switches recorded since the last take, and gives the newest
 * one at or after from_ns (CLOCK_MONOTONIC), its stack into stack (room
 * for stack_room bytes; a longer copy is cut).  The records read are
 * gone: a second take finds none of them. */
enum switch_take switch_copy_take(struct switch_copy *c, uint64_t from_ns,
				  struct switch_copied *out, void *stack, size_t stack_room);

#endif
