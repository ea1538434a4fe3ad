/* stop_cost.h - what a stop costs a running thread beyond the time we
 * hold it: measured on the thread where it can be, else on a process of
 * our own.
 *
 * The sampler counts a stop from PTRACE_INTERRUPT to PTRACE_CONT.  A
 * thread on a CPU loses more: the interrupt that takes it off, the
 * kernel's way into the stop and back out, its CPU's wake from idle once
 * we let it go.  A CPU-bound thread at -d 100us lost 18 % of its work by
 * its own count while we held it 9.7 % of its time (on this machine, a
 * VM: an interrupt to another CPU is an exit to the host).
 *
 * On the thread (the summary's figure, when STOP_COST_MIN_PAIRS pairs
 * were measured): its time off a CPU around each stop, from its schedstat
 * read in the stops (overhead.h's overhead_offcpu; the wake-up is in it,
 * and it varies run to run: 17-25 us a stop in five runs here), and the
 * way in and out, which the kernel counts as its time on a CPU, in the
 * kernel: its stime over the run per such stop (15.5 us here, where the
 * thread's own clock lost 15.9 beyond its time off a CPU).  A thread that
 * makes system calls of its own has more stime than that, so the figure
 * is no more than the child's below.
 *
 * On a child: once the targets are let go, a child of ours, on another
 * CPU than ours, spins reading the clock and is stopped STOP_COST_STOPS
 * times, as the sampler stops a running thread (interrupt, wait for the
 * trap, registers, its schedstat, resume).  Each gap in its clock that a
 * voluntary switch explains is a stop: their mean less the time we held
 * it is extra_us (the figure for a thread whose pairs were too few); less
 * its time off a CPU by the same pairs, on_cpu_us.  About 30 ms of one
 * CPU, none of it the targets'.
 */
#ifndef PTRACE_PROFILER_STOP_COST_H
#define PTRACE_PROFILER_STOP_COST_H

#include <stdbool.h>
#include <stdint.h>

#define STOP_COST_STOPS 200

struct stop_cost {
	bool known;
	int stops;        /* stops seen in the child's clock */
	double held_us;   /* mean time we held it, interrupt to resume */
	double lost_us;   /* mean gap in its clock per stop */
	double extra_us;  /* lost less held, >= 0: the cost we do not see */
	bool on_cpu_known;
	double on_cpu_us; /* lost less its time off a CPU by its schedstat
			     (overhead.h's pairs), >= 0: what a stop costs
			     it that the kernel counts as its time on a CPU
			     (the way into the stop and out) */
};

/* Measures it; known is false when the child could not be made or
 * traced (then nothing is said of it). */
void stop_cost_measure(struct stop_cost *out);

/* Pairs of stops measured on a thread (overhead.h's overhead_offcpu)
 * that make its own figure worth more than the child's. */
#define STOP_COST_MIN_PAIRS 20

struct thread_figures;

/* Was its stops' time off a CPU measured on it (sampler.h's offcpu_*)? */
bool stop_cost_on_thread(const struct thread_figures *tf);

/* What a stop that took it off a CPU cost it on the CPU, in ns: its
 * stime per such stop, no more than c's on_cpu_us when known; 0 when
 * its stime is unknown. */
double stop_cost_on_cpu_ns(const struct thread_figures *tf, const struct stop_cost *c);

/* What it lost to us, percent of its time (the summary's figure). */
double stop_cost_lost(const struct thread_figures *tf, const struct stop_cost *c);

#endif
