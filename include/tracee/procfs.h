/* procfs.h - parsers for the /proc files a sample reads.
 *
 * All parsers take a buffer already read (the sampler keeps the files open
 * and preads them at offset 0), never touch the file system, and accept
 * truncated or hostile input without reading out of bounds.
 */
#ifndef PTRACE_PROFILER_PROCFS_H
#define PTRACE_PROFILER_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define COMM_MAX 64   /* comm is at most 15 bytes; room for escaping */
#define KSTACK_MAX 64 /* frames kept from /proc/.../stack */
#define KSYM_MAX 128  /* a kernel symbol name, truncated beyond */

/* /proc/PID/task/TID/stat: the fields a sample needs. */
struct task_stat {
	char state;          /* R, S, D, T, t, Z, X, I, P ... */
	char comm[COMM_MAX]; /* raw, not sanitized */
	int processor;       /* CPU it last ran on, -1 if absent */
	int num_threads;     /* threads in its process, -1 if absent */
	bool kernel_thread;  /* PF_KTHREAD in its flags: no user stack */
	long long stime;     /* its time in the kernel, clock ticks
				(sysconf(_SC_CLK_TCK)); -1 if absent */
};

/* Returns 0, or -1 if the text is not a stat line.  comm may contain
 * spaces and parentheses: the last ')' ends it. */
int parse_task_stat(const char *buf, size_t len, struct task_stat *out);

/* The words /proc/PID/status uses for a state letter, "R (running)".
 * Unknown letters give "? (unknown)". */
const char *state_description(char state);

/* /proc/PID/task/TID/stack, innermost frame first, as the kernel prints. */
struct kernel_stack {
	int depth;
	char frame[KSTACK_MAX][KSYM_MAX]; /* bare symbol: no [<addr>], offset, module */
};

/* Parses every "[<addr>] sym+0x1/0x2 [mod]" line; lines that do not parse
 * are skipped.  Returns the number of frames kept. */
int parse_kernel_stack(const char *buf, size_t len, struct kernel_stack *out);

/* Removes what is not the target's own kernel work:
 *  - a stack that passes through a ptrace or job-control stop is our own
 *    artifact (the thread is still leaving our previous stop): emptied;
 *  - a stack whose outermost frame is an interrupt entry (asm_sysvec_*,
 *    asm_common_interrupt...) belongs to a thread preempted in user mode:
 *    emptied, the user stack alone tells where it was.
 * Returns the new depth. */
int kernel_stack_filter(struct kernel_stack *ks);

/* Is a thread that /proc calls R on a CPU?  From its kernel stack as read,
 * before kernel_stack_filter: a task on a CPU has none to show (the kernel
 * does not unwind a task that runs).  One queued for a CPU shows where it
 * was preempted - in the kernel, or on the way back to user mode - the
 * wait it was woken from, or the ptrace stop we let it go from: it is
 * queued for a CPU either way (a thread we stopped at the last tick can
 * still wait behind another one at this tick).  Needs the stack to be
 * readable (root); 0 frames then mean on a CPU. */
bool kernel_stack_on_cpu(const struct kernel_stack *raw);

/* /proc/PID/task/TID/syscall of a thread blocked in a system call:
 * "nr arg1 ... arg6 sp pc"; of one blocked outside a system call (a page
 * fault), "-1 sp pc".  Read without stopping the thread: its sp and pc are
 * where an unwind starts, and tell whether it is still where a previous
 * sample found it. */
struct blocked_syscall {
	long nr;         /* -1: blocked outside a system call (args all 0) */
	uint64_t args[6];
	uint64_t sp, pc;
};

/* Returns 0 for a blocked thread; -1 for "running" or malformed text. */
int parse_proc_syscall(const char *buf, size_t len, struct blocked_syscall *out);

/* /proc/PID/task/TID/schedstat: "run_ns wait_ns timeslices". */
struct sched_counts {
	uint64_t run_ns;  /* time on a CPU */
	uint64_t wait_ns; /* time queued for a CPU */
	uint64_t runs;    /* times put on a CPU: while it stays the same, the
			     thread has not executed an instruction */
};

/* Returns 0, or -1 on malformed text. */
int parse_schedstat(const char *buf, size_t len, struct sched_counts *out);

/* /proc/PID/task/TID/sched (CONFIG_SCHED_DEBUG): "se.exec_start" in ns,
 * the run-queue clock when the thread last started or stopped running.
 * A thread the profiler preempted at its own tick stopped running the
 * instant the profiler started: on that CPU both values are the same.
 * Returns 0, or -1 when the line is missing or malformed. */
int parse_sched_exec_start(const char *buf, size_t len, uint64_t *ns);

/* /proc/stat's first line, all CPUs together, in clock ticks: the time
 * accounted in all (user, nice, system, idle, iowait, irq, softirq, steal)
 * and of it the steal, time the hypervisor gave this machine's CPUs to
 * something else (0 where the line has no steal field). */
struct cpu_times {
	uint64_t total, steal;
	uint64_t idle; /* idle and iowait: time no task wanted a CPU */
};

/* Returns 0, or -1 when the first line is not "cpu" and at least four
 * numbers. */
int parse_proc_stat_cpu(const char *buf, size_t len, struct cpu_times *out);

/* /proc/PID/status: a field counted in kB ("VmHWM:\t   24072 kB", the
 * peak resident set).  Returns 0, or -1 when it is missing or malformed. */
int parse_status_kb(const char *buf, size_t len, const char *field, uint64_t *kb);

/* /proc/PID/status: one of the numbers of a field that lists some
 * ("Uid:\t1000\t1001\t1001\t1001", "NStgid:\t4242\t17\t1"): the which-th
 * (1, 2...), or the last for which -1.  Returns 0, or -1 when the field is
 * missing, has fewer numbers, or holds anything but numbers of at most 15
 * digits. */
int parse_status_number(const char *buf, size_t len, const char *field, int which,
			uint64_t *out);

/* One line of /proc/PID/maps. */
struct map_entry {
	uint64_t start, end, offset;
	char perms[5];
	uint32_t dev_major, dev_minor; /* "fe:01": with inode, which file it is */
	uint64_t inode;
	const char *path; /* points into the parsed line, not NUL-terminated */
	size_t path_len;  /* 0 if anonymous; "[stack]", "/x (deleted)" kept whole */
};

/* Returns 0, or -1 if the line is not a maps line.  The line need not be
 * NUL-terminated; path points into it (the caller's buffer must stay
 * alive) and runs to the end of the line, newline excluded. */
int parse_maps_line(const char *line, size_t len, struct map_entry *out);

#endif
