/* call_sites.h - which system call a followed thread was leaving, by the
 * address its user code resumes at, learnt from its stops.
 *
 * A copy the kernel makes as our tick takes a followed thread's CPU
 * (switch_copy.h) has every user register but orig_rax: whether the
 * thread was leaving a system call, and which.  On a kernel that does not
 * preempt system calls, a thread our tick preempted is either in user
 * code (taken at an interrupt) or leaving a call, and then it resumes
 * just after its `syscall` instruction.  That instruction, at a given
 * address, makes the same call every time in all but the generic
 * syscall(2) wrapper and code that computes its number: so the stops
 * teach each address's call (their orig_rax), and a copy at an address
 * they taught is named without a stop.
 *
 * An address stops saw in a call is a call site from then on, though a
 * stop may also find the thread there back in user code, interrupted
 * the moment the call returned (at most one instruction's time: not
 * worth a stop at every tick there).  An address seen in two different
 * calls is never named by a copy (CALL_VARIES).  Unknown addresses need
 * a stop; so do addresses lost when the table, of a fixed size for the
 * run, puts another in their place.
 */
#ifndef PTRACE_PROFILER_SAMPLE_CALL_SITES_H
#define PTRACE_PROFILER_SAMPLE_CALL_SITES_H

#include <stdbool.h>
#include <stdint.h>

#define CALL_SITES 512 /* addresses kept, a power of two */

#define CALL_NONE (-1)   /* user code there: no call */
#define CALL_VARIES (-2) /* two different calls there: always stopped */

struct call_sites {
	uint64_t ip[CALL_SITES]; /* 0: free */
	int32_t nr[CALL_SITES];  /* the call, CALL_NONE or CALL_VARIES */
};

/* A stop's registers: at ip, in call nr (orig_rax; negative: none). */
void call_sites_learn(struct call_sites *cs, uint64_t ip, long nr);

/* What the stops taught of ip: true and *nr the call (CALL_NONE for user
 * code); false when a stop must tell (unknown, or CALL_VARIES). */
bool call_sites_known(const struct call_sites *cs, uint64_t ip, long *nr);

#endif
