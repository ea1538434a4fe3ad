/* session.c - the setup and the end every mode on a target shares
 * (session.h).
 *
 * Whatever ends a run - -n or -t reached, SIGINT/SIGTERM/SIGHUP/SIGPIPE,
 * the target's exit - the threads are detached first (the target must not
 * wait for our output), then what was collected is named and written.  A
 * signal that would end us never does, at any moment: before sampling it
 * ends the run at once, after it is only noted, and a second one makes
 * naming hurry.  SIGUSR1 asks for the profile so far and sampling goes on.
 */
#define _GNU_SOURCE
#include "cli/session.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/sigbus.h"
#include "db/pgstate.h"
#include "name/symbolize.h"
#include "output/output_file.h"
#include "tracee/snapshot.h"
#include "unwind/files.h"
#include "unwind/modules.h"

static volatile int quit;
static volatile sig_atomic_t dump;   /* SIGUSR1: the profile so far */
static volatile sig_atomic_t stops;  /* signals that asked us to end, up to 2 */
static volatile sig_atomic_t hurry;  /* the second: name no more (namer_hurry) */
static volatile sig_atomic_t naming; /* let go, not yet written: from the detach to naming's end */

static void say(const char *text)
{
	ssize_t w = write(STDERR_FILENO, text, strlen(text));
	(void)w; /* stderr gone: nothing else to say it with */
}

/* A signal that would end us.  The first ends sampling (or, once the
 * target is let go, is only noted: the profile is named and written as
 * it would have been); the second makes naming take what it knows and
 * leave the rest to the modules' names. */
static void on_quit(int sig)
{
	(void)sig;
	quit = 1;
	if (stops < 2)
		stops++;
	if (stops < 2 && naming)
		say("ptrace_profiler: naming the stacks, then writing the profile; a second signal "
		    "writes it at once, frames not named yet as [module]\n");
	if (stops >= 2)
		hurry = 1;
}

static void on_dump(int sig)
{
	(void)sig;
	dump = 1;
}

static void setup_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_quit; /* no SA_RESTART: waits return EINTR at once */
	sigemptyset(&sa.sa_mask);
	/* Every signal whose default would end us ends the run instead:
	 * detach, then write what was collected.  (Killed by the kernel -
	 * SIGKILL, a crash - the kernel detaches and the target runs on.) */
	int quit_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR2,
			       SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR,
			       SIGSTKFLT };
	for (size_t i = 0; i < sizeof(quit_signals) / sizeof(quit_signals[0]); i++)
		sigaction(quit_signals[i], &sa, NULL);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaction(sig, &sa, NULL);
	/* A file we mapped cut short by its owner: zeros, not our death
	 * (sigbus.h). */
	sigbus_install();
	/* SIGUSR1: write the profile so far, and go on (continuous.h). */
	sa.sa_handler = on_dump;
	sigaction(SIGUSR1, &sa, NULL);
	/* Tracee events arrive as SIGCHLD; it stays blocked and is waited for
	 * with sigtimedwait between ticks. */
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
}

/* Both Oracle fields must be readable in the target before we start. */
static int oracle_addresses_readable(const struct options *o, const struct target *t,
				     char *err, size_t errlen)
{
	static struct snapshot probe; /* large: not on the stack */
	const char *names[2] = { "--ksuseopc", "--ksusetim" };
	uint64_t addr[2] = { o->ksuseopc_addr, o->ksusetim_addr };
	for (int i = 0; i < 2; i++) {
		probe.n_words = 1;
		probe.word_addr[0] = addr[i];
		if (snapshot_read_words(t->pid, &probe) != 0) {
			snprintf(err, errlen, "cannot read %s address 0x%llx (%llu) in process %d: %s",
				 names[i], (unsigned long long)addr[i], (unsigned long long)addr[i],
				 (int)t->pid, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* --pg-wait-events or --pg-queries on a server older than 14, which keeps
 * no pointer to its wait event (nor a query id): refused before sampling,
 * as bad input is.  (Processes
 * that are no PostgreSQL server at all are only warned about, by the
 * sampler: their samples say [no PostgreSQL state].) */
static int pg_servers_supported(const struct options *o, const struct target *ts, size_t n,
				char *err, size_t errlen)
{
	struct files *fs = files_new(o->debuginfo_path);
	int rc = 0;
	for (size_t i = 0; i < n && fs && rc == 0; i++) {
		struct modules *m = modules_open(fs, ts[i].pid);
		struct pg_process pg;
		if (m && pg_probe(ts[i].pid, m, &pg, err, errlen) == PG_PROBE_TOO_OLD)
			rc = -1;
		modules_close(m);
	}
	files_free(fs);
	return rc;
}

/* Detaches the targets attached so far (on an error before sampling). */
static void release(struct session *s)
{
	targets_detach(s->ts, s->n, NULL);
	for (size_t i = 0; i < s->n; i++) {
		if (s->o->command)
			kill(s->ts[i].pid, SIGTERM);
		target_free(&s->ts[i]);
	}
	s->n = 0;
}

/* Every --tid must be a thread of one of the processes. */
static bool missing_thread(const struct options *o, const struct target *ts, size_t n,
			   char *err, size_t errlen)
{
	for (size_t k = 0; k < o->n_tids; k++) {
		bool found = false;
		for (size_t i = 0; i < n && !found; i++)
			found = target_has_thread(&ts[i], o->tids[k]);
		if (!found) {
			snprintf(err, errlen, "no thread %d in the process%s given with -p",
				 (int)o->tids[k], n > 1 ? "es" : "");
			return true;
		}
	}
	return false;
}

const char *session_target_line(struct session *s)
{
	if (s->n == 1)
		snprintf(s->target, sizeof(s->target), "%s (PID %d)", s->ts[0].comm,
			 (int)s->ts[0].pid);
	else
		snprintf(s->target, sizeof(s->target), "%zu processes", s->n);
	return s->target;
}

/* Opens where the output goes: stdout, or a file beside -o FILE that
 * replaces it at the end (output_file.h); with --period only checks that
 * FILE's directory takes the windows' files.  0, or -1. */
static int open_output(struct session *s)
{
	const struct options *o = s->o;
	s->out = stdout;
	if (!o->output_path)
		return 0;
	if (output_file_open(&s->file, o->output_path) != 0) {
		fprintf(stderr, "ptrace_profiler: %s\n", s->file.why);
		return -1;
	}
	if (o->period_ns)
		output_file_discard(&s->file); /* FILE itself is never made */
	else
		s->out = s->file.f;
	return 0;
}

/* Launches the command or attaches to every process.  With several
 * processes, one that cannot be traced is named with its reason and the
 * others are taken.  0, or the exit status. */
static int take_targets(struct session *s)
{
	const struct options *o = s->o;
	char err[512];
	if (o->command) {
		if (target_launch(&s->ts[0], o->command, err, sizeof(err)) != 0) {
			fprintf(stderr, "ptrace_profiler: %s\n", err);
			return 2;
		}
		s->n = 1;
		return 0;
	}
	bool invalid = false, denied = false;
	for (size_t k = 0; k < o->n_pids; k++) {
		enum attach_error e = target_attach(&s->ts[s->n], o->pids[k], o->tids, o->n_tids, err,
						    sizeof(err));
		if (e == ATTACH_OK) {
			s->n++;
			continue;
		}
		fprintf(stderr, "ptrace_profiler: %s\n", err);
		invalid |= e == ATTACH_INVALID;
		denied |= e != ATTACH_INVALID;
	}
	if (s->n == 0)
		return invalid && !denied ? 2 : 1;
	if (missing_thread(o, s->ts, s->n, err, sizeof(err))) {
		fprintf(stderr, "ptrace_profiler: %s\n", err);
		release(s);
		return 2;
	}
	return 0;
}

/* What can only be checked in the attached targets.  0, or 2. */
static int check_targets(struct session *s)
{
	const struct options *o = s->o;
	char err[512];
	if ((o->ksuseopc_addr && oracle_addresses_readable(o, &s->ts[0], err, sizeof(err)) != 0) ||
	    ((o->pg_wait_events || o->pg_queries) &&
	     pg_servers_supported(o, s->ts, s->n, err, sizeof(err)) != 0)) {
		fprintf(stderr, "ptrace_profiler: %s\n", err);
		release(s);
		return 2;
	}
	for (size_t i = 0; i < s->n; i++)
		if (!s->ts[i].kernel_stacks) {
			fprintf(stderr, "ptrace_profiler: warning: cannot read /proc/%d/stack "
				"(needs root): user stacks only\n", (int)s->ts[i].pid);
			break;
		}
	return 0;
}

int session_start(struct session *s, const struct options *o, const char *command)
{
	static struct target ts[MAX_TARGETS];
	static bool exited[MAX_TARGETS];
	memset(s, 0, sizeof(*s));
	s->o = o;
	s->ts = ts;
	s->exited = exited;
	s->quit = &quit;
	s->dump = &dump;
	snprintf(s->command, sizeof(s->command), "%s", command);
	/* From here on a signal that would end us ends the run instead. */
	setup_signals();

	/* Everything the user gave is checked before the target is touched. */
	char err[512];
	if (o->event_names && !(s->names = oracle_names_load(o->event_names, err, sizeof(err)))) {
		fprintf(stderr, "ptrace_profiler: %s\n", err);
		return 2;
	}
	if (open_output(s) != 0) {
		oracle_names_free(s->names);
		return 2;
	}
	int rc = take_targets(s);
	if (rc == 0)
		rc = check_targets(s);
	if (rc != 0) {
		output_file_discard(&s->file); /* FILE as it was */
		oracle_names_free(s->names);
		return rc;
	}
	/* Wake up on time: the default 50 us timer slack is half of a 100 us
	 * tick.  Only now: a command we launch keeps the slack it would have
	 * had (a child inherits its parent's, and its default with it). */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	session_target_line(s);
	return 0;
}

void session_detach(struct session *s)
{
	for (size_t i = 0; i < s->n; i++)
		s->exited[i] = s->ts[i].exited;
	targets_detach(s->ts, s->n, &s->detached);
	if (s->o->command && !s->exited[0]) {
		/* Launched and still running: it was started for this run, so
		 * it ends with it, as with perf record -- COMMAND. */
		kill(s->ts[0].pid, SIGTERM);
		waitpid(s->ts[0].pid, NULL, 0);
	}
	/* From here a stop signal is only noted, and said: what comes before
	 * the naming (the stop's cost measured, record.c) is part of it. */
	naming = 1;
}

void session_naming(struct session *s, struct namer *n, bool now)
{
	(void)s;
	if (n)
		namer_hurry(n, now ? &hurry : NULL);
	naming = now;
}

bool session_hurried(const struct session *s)
{
	(void)s;
	return hurry;
}

int session_end(struct session *s, int rc)
{
	oracle_names_free(s->names);
	for (size_t i = 0; i < s->n; i++)
		target_free(&s->ts[i]);
	/* The new file in FILE's place, or FILE left as it was. */
	if (rc != 0) {
		output_file_discard(&s->file);
	} else if (output_file_commit(&s->file) != 0) {
		fprintf(stderr, "ptrace_profiler: cannot write '%s': %s\n", s->o->output_path,
			strerror(errno));
		rc = -1;
	}
	if (rc != 0)
		return 1;
	/* Launched: the command's own status, as a shell reports it, when it
	 * ended by itself; ended by us at the end of the run, 0. */
	if (s->o->command && s->n && s->exited[0]) {
		int st = s->ts[0].exit_status;
		return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 0;
	}
	return 0;
}
