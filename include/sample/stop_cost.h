/* stop_cost.h - what a stop costs a running thread beyond the time we
 * hold it, measured on a process of our own.
 *
 * The sampler counts a stop from PTRACE_INTERRUPT to PTRACE_CONT.  A
 * thread on a CPU loses more: the interrupt that takes it off, the
 * kernel's way into the stop and back out, its CPU's wake from idle once
 * we let it go - in its own time, seen neither by us nor by its schedstat
 * as a wait.  A CPU-bound thread at -d 100us lost 18 % of its work by its
 * own count while we held it 9.7 % of its time: each stop cost it some
 * 19 us beyond the hold, on this machine (a VM: an interrupt to another
 * CPU is an exit to the host).
 *
 * So once the targets are let go, a child of ours spins reading the clock
 * and is stopped STOP_COST_STOPS times, as the sampler stops a running
 * thread (interrupt, wait for the trap, registers, resume).  Each gap in
 * its clock that a voluntary switch explains is a stop; their sum less
 * the time we held it, per stop, is the figure.  About 30 ms of one CPU,
 * none of it the targets'.
 */
#ifndef PTRACE_PROFILER_STOP_COST_H
#define PTRACE_PROFILER_STOP_COST_H

#include <stdbool.h>

#define STOP_COST_STOPS 200

struct stop_cost {
	bool known;
	int stops;        /* stops seen in the child's clock */
	double held_us;   /* mean time we held it, interrupt to resume */
	double lost_us;   /* mean gap in its clock per stop */
	double extra_us;  /* lost less held, >= 0: the cost we do not see */
};

/* Measures it; known is false when the child could not be made or
 * traced (then nothing is said of it). */
void stop_cost_measure(struct stop_cost *out);

#endif
