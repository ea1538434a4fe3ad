/* session.h - what every mode that takes a target shares: the signals that
 * end a run, every input checked before the target is touched, the output
 * opened, the processes attached (or the command launched), and at the end
 * the targets let go and the exit status.
 *
 * A mode (modes.h) is a short function on it: start the session, do its
 * work on the attached targets, detach, write, end.
 */
#ifndef PTRACE_PROFILER_SESSION_H
#define PTRACE_PROFILER_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct namer;

#include "db/oracle.h"
#include "options.h"
#include "output/output_file.h"
#include "tracee/target.h"

struct session {
	const struct options *o;
	struct target *ts;           /* MAX_TARGETS of room (--subprocesses adds) */
	size_t n;                    /* attached */
	bool *exited;                /* per target: had exited before we let go */
	struct event_names *names;   /* --event-names, or NULL */
	FILE *out;                   /* where the output goes: stdout or file.f */
	struct output_file file;     /* -o FILE: written beside, renamed over at the end */
	char command[512];           /* the command line as typed */
	char target[128];            /* "postgres (PID 1234)" or "13 processes" */
	volatile int *quit;          /* set by a signal that ends the run */
	volatile sig_atomic_t *dump; /* set by SIGUSR1 */
	struct detach_stats detached; /* what session_detach took */
};

/* Checks every input o names (command: the command line as typed), opens the output, installs the signal
 * handlers, and attaches to the processes (or launches the command).
 * 0, or the exit status to return at once (the reason is on stderr). */
int session_start(struct session *s, const struct options *o, const char *command);

/* Lets every target go: each one's exit noted in s->exited, its threads
 * detached (all at once, targets_detach; the figures in s->detached),
 * and a launched command still running ended (it was started
 * for this run, as with perf record -- COMMAND).  From then on a stop
 * signal is handled as during naming (session_naming). */
void session_detach(struct session *s);

/* Naming after detaching begins (now) or ends.  Signals meanwhile do not
 * end us: the first is only told what comes (the profile, named), the
 * second of the run makes n name what it does not know yet after its
 * module (namer_hurry), so the profile is written at once.  (n NULL:
 * nothing to name.) */
void session_naming(struct session *s, struct namer *n, bool now);

/* Did a second stop signal cut naming short? */
bool session_hurried(const struct session *s);

/* After the mode's output (flushed): frees the targets; with rc 0 the
 * file written replaces -o FILE, otherwise it is removed and FILE left
 * as it was.  Returns the exit status: 1 when rc is not 0 (or the file
 * cannot be put in place); a launched command's own status when it ended
 * by itself; else 0. */
int session_end(struct session *s, int rc);

/* "postgres (PID 1234)" or "13 processes" (s->target, made again: with
 * --subprocesses the count grows during the run). */
const char *session_target_line(struct session *s);

#endif
