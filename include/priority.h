/* priority.h - when the profiler gets a CPU.
 *
 * Sampling: a tick must land when it is due, also on the CPU where a
 * target thread runs.  A thread that wakes there otherwise runs its whole
 * burst before the profiler gets the CPU back, and no tick ever sees it
 * running: a thread that works 1 ms every 10 ms showed 0.0-0.7 % of its
 * samples in that work instead of 10 %.  So the sampler asks for nice -20
 * and, on kernels that take one (EEVDF, Linux 6.12 and later), a 0.1 ms
 * scheduler slice: at its tick it preempts the target for the few
 * microseconds a round takes, as perf's interrupt would.  It uses no more
 * CPU for that, it only gets it on time.
 *
 * Naming, after detaching: nice 19, so that reading debug info takes a CPU
 * from the database only when it leaves one idle.
 */
#ifndef PTRACE_PROFILER_PRIORITY_H
#define PTRACE_PROFILER_PRIORITY_H

#include <stdbool.h>

struct priority_report {
	int nice;        /* the nice value the sampler runs at */
	bool short_slice; /* the 0.1 ms slice was granted */
};

/* For the sampling loop: as high as we are allowed (nice -20 needs root
 * or CAP_SYS_NICE; otherwise the nice value stays).  Fills *r. */
void priority_for_sampling(struct priority_report *r);

/* After detaching: nice 19, with the kernel's own slice again. */
void priority_for_naming(void);

#endif
