/* target.c - seize, stop, resume and release the target's threads. */
#define _GNU_SOURCE
#include "tracee/target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/array.h"
#include "base/descriptors.h"
#include "base/frame.h"

#define STOP_NUDGE_NS 10000000ULL     /* re-interrupt every 10 ms */

static void close_thread(struct thread *th);
static bool is_our_stop(struct target *t, struct thread *th, int status);

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static struct thread *find_thread(struct target *t, pid_t tid)
{
	for (size_t i = 0; i < t->n_threads; i++)
		if (t->threads[i].tid == tid)
			return &t->threads[i];
	return NULL;
}

static void close_thread(struct thread *th)
{
	if (th->stat_fd >= 0)
		close(th->stat_fd);
	if (th->stack_fd >= 0)
		close(th->stack_fd);
	if (th->syscall_fd >= 0)
		close(th->syscall_fd);
	if (th->sched_fd >= 0)
		close(th->sched_fd);
	if (th->exec_fd >= 0)
		close(th->exec_fd);
	if (th->wchan_fd >= 0)
		close(th->wchan_fd);
	th->stat_fd = th->stack_fd = th->syscall_fd = th->sched_fd = th->exec_fd = th->wchan_fd = -1;
}

static int open_task_file(pid_t pid, pid_t tid, const char *name)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid, (int)tid, name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* Seizes one thread and opens the /proc files a sample re-reads.
 * Returns 0, or the errno of PTRACE_SEIZE. */
static int add_thread(struct target *t, pid_t tid)
{
	if (!array_reserve((void **)&t->threads, t->n_threads + 1, &t->cap_threads,
			   sizeof(*t->threads)))
		return ENOMEM;
	/* PTRACE_O_TRACEEXEC: after an execve every address means something
	 * else, and we must know.  No PTRACE_O_EXITKILL: if the profiler dies
	 * the kernel detaches and the target runs on. */
	if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)(long)PTRACE_O_TRACEEXEC) != 0)
		return errno;
	struct thread *th = &t->threads[t->n_threads++];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->stat_fd = open_task_file(t->pid, tid, "stat");
	th->stack_fd = t->kernel_stacks ? open_task_file(t->pid, tid, "stack") : -1;
	th->syscall_fd = open_task_file(t->pid, tid, "syscall");
	th->sched_fd = -1; /* opened at first use */
	th->exec_fd = -1;
	th->wchan_fd = -1;
	return 0;
}

static void remove_gone_threads(struct target *t)
{
	size_t j = 0;
	for (size_t i = 0; i < t->n_threads; i++) {
		if (t->threads[i].gone) {
			t->ended_threads++;
			if (t->on_drop)
				t->on_drop(t->drop_arg, t, &t->threads[i]);
			close_thread(&t->threads[i]);
			continue;
		}
		t->threads[j++] = t->threads[i];
	}
	t->n_threads = j;
}

static bool wanted(const struct target *t, pid_t tid)
{
	if (!t->n_only_tids)
		return true;
	for (size_t i = 0; i < t->n_only_tids; i++)
		if (t->only_tids[i] == tid)
			return true;
	return false;
}

bool target_has_thread(const struct target *t, pid_t tid)
{
	for (size_t i = 0; i < t->n_threads; i++)
		if (t->threads[i].tid == tid)
			return true;
	return false;
}

/* Seizes every task of the process not seized yet.  Returns the first
 * seize error other than ESRCH (a thread that just ended), else 0. */
static int seize_new_tasks(struct target *t)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)t->pid);
	DIR *d = opendir(path);
	if (!d)
		return errno == ENOENT ? ESRCH : errno;
	int first_err = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		if (*end || tid <= 0 || find_thread(t, (pid_t)tid) || !wanted(t, (pid_t)tid))
			continue;
		int err = add_thread(t, (pid_t)tid);
		if (err && err != ESRCH && !first_err)
			first_err = err;
	}
	closedir(d);
	return first_err;
}

void target_scan_threads(struct target *t)
{
	remove_gone_threads(t);
	if (!t->exited)
		seize_new_tasks(t);
}

/* TracerPid from /proc/PID/status: who already traces it, 0 if nobody. */
static pid_t tracer_of(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	pid_t tracer = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &tracer) == 1)
			break;
	fclose(f);
	return tracer;
}

/* The process's name, sanitized (frame.h) as it enters: the target line
 * of every format, the summary and --top print it.  "" when unknown. */
static void comm_of(pid_t pid, char *out, size_t outsz)
{
	char path[64], raw[COMM_MAX];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	out[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, raw, sizeof(raw) - 1);
	close(fd);
	if (n > 0 && raw[n - 1] == '\n')
		n--; /* the kernel's; one inside the name is the name's */
	raw[n > 0 ? n : 0] = '\0';
	if (raw[0])
		frame_sanitize(raw, out, outsz);
}

static void init_target(struct target *t, pid_t pid)
{
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->num_threads = -1;
	comm_of(pid, t->comm, sizeof(t->comm));
	/* Reading another task's kernel stack needs CAP_SYS_ADMIN: probe once. */
	char path[64], buf[64];
	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	t->kernel_stacks = fd >= 0 && read(fd, buf, sizeof(buf)) >= 0;
	if (fd >= 0)
		close(fd);
}

static void explain_denied(pid_t pid, int err, char *msg, size_t len)
{
	int scope = -1;
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = -1;
		fclose(f);
	}
	if (scope == 3) {
		snprintf(msg, len, "cannot trace process %d: %s (kernel.yama.ptrace_scope is 3: "
			 "ptrace is disabled for everyone until reboot)", (int)pid, strerror(err));
		return;
	}
	if (geteuid() == 0) {
		/* Root was refused: not a matter of privilege. */
		snprintf(msg, len, "cannot trace process %d: %s, even as root (a security module "
			 "such as AppArmor or SELinux forbids it, or it is in another user namespace)",
			 (int)pid, strerror(err));
		return;
	}
	char yama[96] = "";
	if (scope > 0)
		snprintf(yama, sizeof(yama), "; kernel.yama.ptrace_scope is %d", scope);
	snprintf(msg, len,
		 "cannot trace process %d: %s (run as root or with CAP_SYS_PTRACE%s)",
		 (int)pid, strerror(err), yama);
}

/* Can pid be profiled at all?  Not ourselves, not a zombie, not a kernel
 * thread: each would fail later with a message that does not say why. */
static enum attach_error check_target(pid_t pid, char *err, size_t errlen)
{
	if (pid == getpid()) {
		snprintf(err, errlen, "cannot profile itself: process %d is this ptrace_profiler",
			 (int)pid);
		return ATTACH_INVALID;
	}
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	if (fd >= 0)
		close(fd);
	struct task_stat st;
	if (n <= 0 || parse_task_stat(buf, (size_t)n, &st) != 0) {
		snprintf(err, errlen, "no such process: %d", (int)pid);
		return ATTACH_INVALID;
	}
	if (st.kernel_thread) {
		snprintf(err, errlen, "process %d is a kernel thread (%.32s): it has no user stack",
			 (int)pid, st.comm);
		return ATTACH_INVALID;
	}
	/* A leader that exited while its threads run is Z too: not dead. */
	if ((st.state == 'Z' || st.state == 'X') && st.num_threads <= 1) {
		snprintf(err, errlen, "process %d has exited (zombie)", (int)pid);
		return ATTACH_INVALID;
	}
	return ATTACH_OK;
}

enum attach_error target_attach(struct target *t, pid_t pid, const pid_t *only_tids,
				size_t n_only, char *err, size_t errlen)
{
	enum attach_error bad = check_target(pid, err, errlen);
	if (bad != ATTACH_OK)
		return bad;
	init_target(t, pid);
	t->only_tids = only_tids;
	t->n_only_tids = n_only;
	pid_t tracer = tracer_of(pid);
	if (tracer > 0 && tracer != getpid()) {
		char comm[32];
		comm_of(tracer, comm, sizeof(comm));
		snprintf(err, errlen,
			 "process %d is already traced by process %d (%s); only one tracer at a time",
			 (int)pid, (int)tracer, comm[0] ? comm : "?");
		return ATTACH_DENIED;
	}
	int e = seize_new_tasks(t);
	if (t->n_threads == 0 && n_only && (e == 0 || e == ESRCH) && kill(pid, 0) == 0) {
		snprintf(err, errlen, "none of the threads given with --tid belongs to process %d",
			 (int)pid);
		return ATTACH_INVALID;
	}
	if (t->n_threads == 0) {
		target_free(t);
		if (e == ESRCH || e == 0) {
			snprintf(err, errlen, "no such process: %d", (int)pid);
			return ATTACH_INVALID;
		}
		if (e == EPERM || e == EACCES) {
			explain_denied(pid, e, err, errlen);
			return ATTACH_DENIED;
		}
		snprintf(err, errlen, "cannot trace process %d: %s", (int)pid, strerror(e));
		return ATTACH_FAILED;
	}
	return ATTACH_OK;
}

int target_launch(struct target *t, char **argv, char *err, size_t errlen)
{
	int go[2], status_pipe[2];
	if (pipe2(go, O_CLOEXEC) != 0 || pipe2(status_pipe, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "cannot start '%s': %s", argv[0], strerror(errno));
		return -1;
	}
	pid_t child = fork();
	if (child < 0) {
		snprintf(err, errlen, "cannot start '%s': %s", argv[0], strerror(errno));
		return -1;
	}
	if (child == 0) {
		/* Undo what the profiler set up for itself before exec. */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		for (int s = 1; s < NSIG; s++)
			signal(s, SIG_DFL);
		descriptors_restore();
		char c;
		/* Wait until the parent has seized us, so the run is profiled
		 * from its first instruction. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		int e = errno;
		if (write(status_pipe[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(status_pipe[1]);
	init_target(t, child);
	t->launched = true;
	int e = add_thread(t, child);
	if (write(go[1], "g", 1) != 1 && !e)
		e = errno;
	close(go[1]);
	int exec_err = 0;
	ssize_t n;
	do
		n = read(status_pipe[0], &exec_err, sizeof(exec_err));
	while (n < 0 && errno == EINTR);
	close(status_pipe[0]);
	if (!e && n == 0) {
		/* The exec we asked for reports itself (PTRACE_O_TRACEEXEC):
		 * let it go on. */
		int status;
		while (waitpid(child, &status, __WALL) < 0 && errno == EINTR)
			;
		if (WIFSTOPPED(status))
			ptrace(PTRACE_CONT, child, NULL, NULL);
		else
			e = ECHILD;
		comm_of(child, t->comm, sizeof(t->comm)); /* ours until the exec */
	}
	if (e || n > 0) {
		snprintf(err, errlen, "cannot run '%s': %s", argv[0],
			 strerror(n > 0 ? exec_err : e));
		kill(child, SIGKILL);
		waitpid(child, NULL, __WALL);
		for (size_t i = 0; i < t->n_threads; i++)
			close_thread(&t->threads[i]);
		target_free(t);
		return -1;
	}
	return 0;
}

/* Marks a thread gone; the leader's end is the process's end. */
static void thread_ended(struct target *t, struct thread *th, pid_t tid, int status)
{
	if (th)
		th->gone = true;
	if (tid == t->pid) {
		t->exited = true;
		t->exit_status = status;
	}
}

static void enter_group_stop(struct thread *th, bool stopped)
{
	if (stopped && !th->group_stop)
		th->group_stops++;
	th->group_stop = stopped;
}

/* A stop we did not ask for: hand it back unchanged. */
static void handle_event(struct target *t, pid_t tid, int status)
{
	struct thread *th = find_thread(t, tid);
	if (th && th->stop_pending && WIFSTOPPED(status) && (status >> 16) == PTRACE_EVENT_STOP) {
		/* The trap of a stop we asked for and did not wait out; it
		 * came after whoever wanted it gave up: let it go. */
		is_our_stop(t, th, status);
		thread_resume(t, th);
		return;
	}
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		thread_ended(t, th, tid, status);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	int sig = WSTOPSIG(status);
	int event = status >> 16;
	if (event == PTRACE_EVENT_STOP) {
		if (is_stop_signal(sig)) {
			/* Group stop (SIGSTOP, Ctrl-Z): it stays stopped, yet
			 * we keep hearing about SIGCONT. */
			if (th)
				enter_group_stop(th, true);
			ptrace(PTRACE_LISTEN, tid, NULL, NULL);
		} else {
			if (th)
				th->group_stop = false;
			ptrace(PTRACE_CONT, tid, NULL, NULL);
		}
	} else if (event == PTRACE_EVENT_EXEC) {
		/* A new program: the sampler re-reads the modules. */
		t->execs++;
		comm_of(t->pid, t->comm, sizeof(t->comm));
		ptrace(PTRACE_CONT, tid, NULL, NULL);
	} else if (event == 0) {
		/* Signal-delivery stop: deliver the signal as it came. */
		t->signals_forwarded++;
		ptrace(PTRACE_CONT, tid, NULL, (void *)(long)sig);
	} else {
		ptrace(PTRACE_CONT, tid, NULL, NULL);
	}
}

int thread_interrupt(struct thread *th, uint64_t *began_ns)
{
	uint64_t asked = now_ns();
	if (ptrace(PTRACE_INTERRUPT, th->tid, NULL, NULL) != 0) {
		th->gone = true;
		return -1;
	}
	uint64_t done = now_ns();
	/* A running thread is interrupted by an IPI that lands at some moment
	 * inside the call; under a hypervisor the call takes tens of us. */
	*began_ns = asked + (done - asked) / 2;
	th->stop_pending = true;
	th->stop_asked_ns = done;
	th->stop_nudged_ns = done;
	return 0;
}

/* An event of a thread we asked to stop: is it the stop?  Our trap
 * (PTRACE_EVENT_STOP with SIGTRAP), or a group stop that came first (the
 * thread is stopped either way).  Anything else is handled as usual. */
static bool is_our_stop(struct target *t, struct thread *th, int status)
{
	if (!WIFSTOPPED(status) || (status >> 16) != PTRACE_EVENT_STOP)
		return false;
	(void)t;
	enter_group_stop(th, is_stop_signal(WSTOPSIG(status)));
	th->stop_pending = false;
	return true;
}

enum stop_result thread_wait_stop(struct target *t, struct thread *th, uint64_t spin_until,
				  uint64_t *seen_ns)
{
	for (;;) {
		int status;
		pid_t r = waitpid(th->tid, &status, __WALL | WNOHANG);
		if (r == 0) {
			if (now_ns() < spin_until)
				continue;
			return STOP_PENDING;
		}
		if (r < 0) {
			if (errno == EINTR)
				continue; /* finish this stop even on Ctrl-C */
			th->gone = true;
			th->stop_pending = false;
			return STOP_GONE;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			thread_ended(t, th, th->tid, status);
			th->stop_pending = false;
			return STOP_GONE;
		}
		if (is_our_stop(t, th, status)) {
			*seen_ns = now_ns();
			return STOP_OK;
		}
		/* A signal arrived before our trap: deliver it, our trap
		 * is still pending and comes next. */
		handle_event(t, th->tid, status);
		if ((status >> 16) == PTRACE_EVENT_EXEC) {
			/* An execve swallows a pending interrupt: ask again. */
			ptrace(PTRACE_INTERRUPT, th->tid, NULL, NULL);
		}
	}
}

void thread_nudge(struct thread *th, uint64_t now)
{
	/* An execve can swallow a pending interrupt: ask again, now and then. */
	if (th->stop_pending && now - th->stop_nudged_ns >= STOP_NUDGE_NS) {
		ptrace(PTRACE_INTERRUPT, th->tid, NULL, NULL);
		th->stop_nudged_ns = now;
	}
}

void thread_forget_stop(struct thread *th)
{
	th->stop_pending = false;
}

void thread_resume(struct target *t, struct thread *th)
{
	(void)t;
	if (th->group_stop)
		ptrace(PTRACE_LISTEN, th->tid, NULL, NULL);
	else
		ptrace(PTRACE_CONT, th->tid, NULL, NULL);
}

void thread_detach(struct target *t, struct thread *th)
{
	(void)t;
	/* In a group stop it stays stopped: the kernel puts it back there. */
	ptrace(PTRACE_DETACH, th->tid, NULL, NULL);
	th->gone = true; /* ours no more: target_detach passes it by */
}

/* The target an event of tid belongs to. */
static struct target *owner_of(struct target *ts, size_t n, pid_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (ts[i].pid == tid || find_thread(&ts[i], tid))
			return &ts[i];
	return &ts[0]; /* a thread we no longer list: only resume it */
}

static bool all_exited(const struct target *ts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!ts[i].exited)
			return false;
	return true;
}

/* What waitpid reported of tid: our stop's trap to on_trap, anything
 * else handled as an event. */
static void dispatch_status(struct target *ts, size_t n, pid_t tid, int status, trap_fn on_trap,
			    void *arg)
{
	struct target *t = owner_of(ts, n, tid);
	struct thread *th = find_thread(t, tid);
	if (th && th->stop_pending && on_trap && is_our_stop(t, th, status)) {
		on_trap(arg, t, th, now_ns());
		return;
	}
	handle_event(t, tid, status);
}

/* One event of any tracee: the trap of a stop we are waiting for goes to
 * on_trap, everything else is handled.  Returns false when there is none. */
static bool dispatch_one(struct target *ts, size_t n, trap_fn on_trap, void *arg)
{
	int status;
	pid_t tid = waitpid(-1, &status, __WALL | WNOHANG);
	if (tid <= 0)
		return false;
	dispatch_status(ts, n, tid, status, on_trap, arg);
	return true;
}

void thread_poll(struct target *t, struct thread *th, trap_fn on_trap, void *arg)
{
	int status;
	pid_t tid = th->tid;
	while (waitpid(tid, &status, __WALL | WNOHANG) == tid) {
		if (th->stop_pending && on_trap && is_our_stop(t, th, status)) {
			on_trap(arg, t, th, now_ns());
			return;
		}
		handle_event(t, tid, status);
		if (th->gone)
			return;
	}
}

/* Has a tracee reported an event since SIGCHLD was last taken?  A wait
 * for any pid visits every tracee (100 us with 1000 threads): asked only
 * when one has.  (Events reaped by a wait for one thread leave SIGCHLD
 * pending: a wait for any pid then finds nothing, which is harmless.) */
static bool event_reported(void)
{
	sigset_t pending;
	return sigpending(&pending) != 0 || sigismember(&pending, SIGCHLD);
}

/* Every event there is, SIGCHLD taken first: an event after the waits
 * raises it again. */
static void dispatch_all(struct target *ts, size_t n, trap_fn on_trap, void *arg)
{
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	struct timespec none = { 0, 0 };
	sigtimedwait(&chld, NULL, &none);
	while (dispatch_one(ts, n, on_trap, arg))
		;
}

void targets_poll(struct target *ts, size_t n, trap_fn on_trap, void *arg)
{
	if (event_reported())
		dispatch_all(ts, n, on_trap, arg);
}

/* Sleeps until a tracee reports an event or the deadline, and handles
 * every event there is then.  false: the deadline had passed. */
static bool wait_for_events(struct target *ts, size_t n, uint64_t deadline_ns, trap_fn on_trap,
			    void *arg)
{
	uint64_t now = now_ns();
	if (now >= deadline_ns)
		return false;
	uint64_t left = deadline_ns - now;
	struct timespec wait = { (time_t)(left / 1000000000ULL), (long)(left % 1000000000ULL) };
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	/* SIGCHLD is blocked: it wakes us here for any tracee event, so a
	 * signal for the target, or the trap of a thread queued for a CPU,
	 * waits for no tick.  (Taken by the wait: what it reports is
	 * dispatched whatever the pending set says.) */
	if (sigtimedwait(&chld, NULL, &wait) == SIGCHLD)
		while (dispatch_one(ts, n, on_trap, arg))
			;
	return true;
}

void targets_wait_until(struct target *ts, size_t n, uint64_t deadline_ns, volatile int *quit,
			trap_fn on_trap, void *arg)
{
	targets_poll(ts, n, on_trap, arg);
	while (!*quit && !all_exited(ts, n) && wait_for_events(ts, n, deadline_ns, on_trap, arg))
		;
}

void targets_wait_tick(struct target *ts, size_t n, uint64_t due_ns, int sig, uint64_t late_ns,
		       volatile int *quit, trap_fn on_trap, void *arg)
{
	targets_poll(ts, n, on_trap, arg);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, sig);
	while (!*quit && !all_exited(ts, n)) {
		uint64_t now = now_ns(), until = due_ns + late_ns;
		if (now >= until)
			return; /* no signal: the tick as the clock says */
		uint64_t left = until - now;
		struct timespec wait = { (time_t)(left / 1000000000ULL), (long)(left % 1000000000ULL) };
		int got = sigtimedwait(&set, NULL, &wait);
		if (got == SIGCHLD) {
			while (dispatch_one(ts, n, on_trap, arg))
				;
		} else if (got == sig && now_ns() >= due_ns) {
			return; /* (a signal before it: a timer of a tick gone by) */
		}
	}
}

void targets_wait_for(struct target *ts, size_t n, const struct thread *th, uint64_t deadline_ns,
		      trap_fn on_trap, void *arg)
{
	targets_poll(ts, n, on_trap, arg);
	while (th->stop_pending && !th->gone && !all_exited(ts, n) &&
	       wait_for_events(ts, n, deadline_ns, on_trap, arg))
		;
}

bool targets_wait_unbounded(struct target *ts, size_t n, const struct thread *th,
			    const sigset_t *during, trap_fn on_trap, void *arg)
{
	while (th->stop_pending && !th->gone && !all_exited(ts, n)) {
		sigset_t old;
		int status;
		pthread_sigmask(SIG_SETMASK, during, &old);
		pid_t tid = waitpid(-1, &status, __WALL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (tid <= 0)
			return false; /* a signal (EINTR), or no tracee left */
		dispatch_status(ts, n, tid, status, on_trap, arg);
	}
	return true;
}

/* Detaching waits for the stops it asked for while one of the threads
 * left is runnable (it traps the moment it gets a CPU: behind 400
 * spinning processes of a fork bomb that is up to a second) or a stop
 * came within DETACH_QUIET_NS; it gives up on threads asleep in D (a long
 * uninterruptible sleep would keep us from ever exiting) and after
 * DETACH_MAX_NS in all: when we exit the kernel detaches what is left,
 * and until then a thread left traps and waits stopped.  Never a wait
 * per thread: the fork bomb's 400 threads took 200 ms each when they
 * were waited for one after the other. */
#define DETACH_QUIET_NS 200000000ULL
#define DETACH_MAX_NS 5000000000ULL

/* An exited thread's last event, collected so that it is released. */
static void collect_exit(pid_t tid)
{
	int status;
	while (waitpid(tid, &status, __WALL | WNOHANG) > 0 && !WIFEXITED(status) &&
	       !WIFSIGNALED(status))
		;
}

/* A thread detaching waits for: which target, which thread. */
struct detachee {
	pid_t tid;
	uint32_t target, thread;
};

static int by_tid(const void *a, const void *b)
{
	pid_t x = ((const struct detachee *)a)->tid, y = ((const struct detachee *)b)->tid;
	return (x > y) - (x < y);
}

/* The thread of ts an event of tid is about, or NULL (one we no longer
 * list).  ix: every thread waited for, sorted by tid; NULL (no memory for
 * it): each list is looked through. */
static struct thread *detachee_of(struct target *ts, size_t n, const struct detachee *ix,
				  size_t n_ix, pid_t tid, struct target **t)
{
	if (ix) {
		struct detachee key = { .tid = tid };
		const struct detachee *d = bsearch(&key, ix, n_ix, sizeof(*ix), by_tid);
		if (!d)
			return NULL;
		*t = &ts[d->target];
		return &ts[d->target].threads[d->thread];
	}
	for (size_t i = 0; i < n; i++) {
		struct thread *th = find_thread(&ts[i], tid);
		if (th) {
			*t = &ts[i];
			return th;
		}
	}
	return NULL;
}

/* Asks a thread to stop so that it can be detached: 1 if its stop is to
 * be waited for, else 0 (it is done with: exited, or a zombie). */
static int ask_detach_stop(struct target *t, struct thread *th)
{
	/* A main thread that exited while the others run stays a zombie
	 * until they end: it never stops, and needs no detaching. */
	struct task_stat st;
	if (thread_read_stat(th, &st) != 0 || st.state == 'Z' || st.state == 'X') {
		/* Another thread that exited while we were not waiting: a
		 * zombie until its tracer collects it, and its main thread
		 * with it (a launched command waited for would never end). */
		if (th->tid != t->pid)
			collect_exit(th->tid);
		th->gone = true;
		return 0;
	}
	/* PTRACE_DETACH needs a stopped tracee.  (A group stop left in
	 * place with PTRACE_LISTEN reports itself again.) */
	if (ptrace(PTRACE_INTERRUPT, th->tid, NULL, NULL) != 0) {
		if (errno == ESRCH && th->tid != t->pid)
			collect_exit(th->tid); /* it died since */
		th->gone = true;
		return 0;
	}
	return 1;
}

/* One event of a thread being detached: 1 when it is done with. */
static int detach_event(struct target *t, struct thread *th, pid_t tid, int status)
{
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		if (t)
			thread_ended(t, th, tid, status);
		return 1;
	}
	if (!WIFSTOPPED(status))
		return 0;
	if ((status >> 16) == 0) {
		/* A signal on its way: detach with it.  (If that fails it
		 * was killed meanwhile: its exit comes next.) */
		if (t)
			t->signals_forwarded++;
		return ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)WSTOPSIG(status)) == 0;
	}
	/* Our trap, an execve, or a group stop: in a group stop it stays
	 * stopped (the kernel puts it back there). */
	ptrace(PTRACE_DETACH, tid, NULL, NULL);
	return 1;
}

/* Is a thread still waited for runnable (R), so that its stop comes when
 * it gets a CPU? */
static bool any_runnable(struct target *ts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < ts[i].n_threads; k++) {
			struct thread *th = &ts[i].threads[k];
			struct task_stat st;
			if (!th->gone && thread_read_stat(th, &st) == 0 && st.state == 'R')
				return true;
		}
	return false;
}

void targets_detach(struct target *ts, size_t n, struct detach_stats *out)
{
	uint64_t began = now_ns();
	size_t total = 0, waiting = 0;
	for (size_t i = 0; i < n; i++)
		total += ts[i].n_threads;
	struct detachee *ix = n > 1 && total ? malloc(total * sizeof(*ix)) : NULL;
	size_t n_ix = 0;
	/* Every thread is asked first, then every stop collected as it
	 * comes, in whatever order their CPUs let them: the wait is the
	 * slowest thread's, not the sum of all. */
	for (size_t i = 0; i < n; i++) {
		struct target *t = &ts[i];
		for (size_t k = 0; k < t->n_threads; k++) {
			struct thread *th = &t->threads[k];
			if (th->gone || !ask_detach_stop(t, th))
				continue;
			waiting++;
			if (ix)
				ix[n_ix++] = (struct detachee){ th->tid, (uint32_t)i, (uint32_t)k };
		}
	}
	size_t asked = waiting;
	if (ix)
		qsort(ix, n_ix, sizeof(*ix), by_tid);
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	uint64_t last = now_ns(), cap = last + DETACH_MAX_NS;
	while (waiting) {
		int status;
		pid_t tid = waitpid(-1, &status, __WALL | WNOHANG);
		if (tid < 0 && errno == EINTR)
			continue;
		if (tid < 0)
			break; /* no tracee left at all */
		if (tid == 0) {
			uint64_t now = now_ns(), until = last + DETACH_QUIET_NS;
			if (now >= until && now < cap && any_runnable(ts, n)) {
				last = now; /* on its way: another quiet span */
				until = now + DETACH_QUIET_NS;
			}
			if (until > cap)
				until = cap;
			if (now >= until)
				break; /* not stopped in time: the kernel detaches them when we exit */
			uint64_t left = until - now;
			struct timespec nap = { (time_t)(left / 1000000000ULL),
						(long)(left % 1000000000ULL) };
			sigtimedwait(&chld, NULL, &nap);
			continue;
		}
		struct target *t = NULL;
		struct thread *th = detachee_of(ts, n, ix, n_ix, tid, &t);
		if (th && th->gone)
			th = NULL; /* done with already */
		if (!detach_event(th ? t : NULL, th, tid, status) || !th)
			continue;
		th->gone = true;
		waiting--;
		last = now_ns();
	}
	free(ix);
	/* The thread lists stay for the summary; target_free() drops them. */
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < ts[i].n_threads; k++) {
			ts[i].threads[k].gone = true;
			close_thread(&ts[i].threads[k]);
		}
	if (out) {
		out->threads += asked;
		out->left += waiting;
		out->ns += now_ns() - began;
	}
}

void target_detach(struct target *t)
{
	targets_detach(t, 1, NULL);
}

void target_free(struct target *t)
{
	free(t->threads);
	t->threads = NULL;
	t->n_threads = t->cap_threads = 0;
}

static ssize_t pread_all(int fd, char *buf, size_t len)
{
	ssize_t n;
	do
		n = pread(fd, buf, len, 0);
	while (n < 0 && errno == EINTR);
	return n;
}

int thread_read_stat(struct thread *th, struct task_stat *st)
{
	char buf[4096];
	ssize_t n = th->stat_fd >= 0 ? pread_all(th->stat_fd, buf, sizeof(buf)) : -1;
	if (n <= 0 || parse_task_stat(buf, (size_t)n, st) != 0) {
		th->gone = true;
		return -1;
	}
	return 0;
}

void thread_read_kernel_stack(const struct target *t, struct thread *th, struct kernel_stack *ks)
{
	char buf[4096];
	ks->depth = 0;
	if (th->stack_fd >= 0 && t->kernel_stacks) {
		ssize_t n = pread_all(th->stack_fd, buf, sizeof(buf));
		if (n > 0)
			parse_kernel_stack(buf, (size_t)n, ks);
	}
}

int thread_read_sched(struct target *t, struct thread *th, struct sched_counts *out)
{
	if (th->sched_fd == -1 && (th->sched_fd = open_task_file(t->pid, th->tid, "schedstat")) < 0)
		th->sched_fd = -2;
	char buf[128];
	ssize_t n = th->sched_fd >= 0 ? pread_all(th->sched_fd, buf, sizeof(buf)) : -1;
	return n > 0 ? parse_schedstat(buf, (size_t)n, out) : -1;
}

size_t target_children(const struct target *t, pid_t *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n_threads && n < max; i++) {
		char path[64], buf[4096];
		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)t->pid,
			 (int)t->threads[i].tid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[len > 0 ? len : 0] = '\0';
		/* "123 456 " - a truncated last number is read again next time */
		for (char *p = buf, *end; n < max; p = end) {
			long v = strtol(p, &end, 10);
			if (end == p || (*end != ' ' && *end != '\n'))
				break;
			if (v > 0)
				out[n++] = (pid_t)v;
		}
	}
	return n;
}

int thread_read_runnable(struct target *t, struct thread *th)
{
	if (th->wchan_fd == -1 && (th->wchan_fd = open_task_file(t->pid, th->tid, "wchan")) < 0)
		th->wchan_fd = -2;
	char buf[128];
	ssize_t n = th->wchan_fd >= 0 ? pread_all(th->wchan_fd, buf, sizeof(buf)) : -1;
	if (n <= 0)
		return -1;
	return n == 1 && buf[0] == '0';
}

int thread_read_exec_start(struct target *t, struct thread *th, uint64_t *ns)
{
	if (th->exec_fd == -1 && (th->exec_fd = open_task_file(t->pid, th->tid, "sched")) < 0)
		th->exec_fd = -2;
	char buf[4096];
	ssize_t n = th->exec_fd >= 0 ? pread_all(th->exec_fd, buf, sizeof(buf)) : -1;
	return n > 0 ? parse_sched_exec_start(buf, (size_t)n, ns) : -1;
}

int thread_read_syscall(struct thread *th, struct blocked_syscall *out)
{
	char buf[256];
	ssize_t n = th->syscall_fd >= 0 ? pread_all(th->syscall_fd, buf, sizeof(buf)) : -1;
	return n > 0 ? parse_proc_syscall(buf, (size_t)n, out) : -1;
}
