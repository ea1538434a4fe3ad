/* push.h - the sender thread: windows as folded text to Pyroscope's
 * /ingest, with libcurl.
 *
 * Each window waits in a bounded queue (--push-queue); when it is full
 * the oldest is dropped and counted.  A push that fails (no connection, a
 * time-out, HTTP 5xx, 408 or 429) is tried again after a back-off (0.25 s,
 * then twice as long each time, at most the period), up to PUSH_TRIES in
 * all, then given up and counted; any other answer but 2xx is a refusal,
 * not tried again.  One attempt lasts at most the period (at least 1 s,
 * at most 30 s).  At the end of the run the sender has PUSH_GRACE_NS to
 * send what it still holds: a transfer under way then is cut short.
 */
#ifndef PTRACE_PROFILER_PUSH_H
#define PTRACE_PROFILER_PUSH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "options.h"

#define PUSH_TRIES 3
#define PUSH_GRACE_NS 2000000000ULL

struct pusher;

/* NULL with a message in err when libcurl or the thread cannot start. */
struct pusher *push_start(const struct options *o, const char *app, char *err, size_t errlen);

/* body (malloc'd folded text, owned by the pusher from now on) for the
 * window [start, end] (UNIX ns) of samples thread samples; stamp names it
 * in notes.  With --group-by type the window goes out as one push per
 * root frame (a type), each labelled GROUP_LABEL=its type (options.h):
 * the window is sent when all are.  Never waits.  0, or -1 (ENOMEM: body
 * freed, not queued). */
int push_submit(struct pusher *p, char *body, size_t len, uint64_t start_unix_ns,
		uint64_t end_unix_ns, uint64_t samples, const char *stamp);

/* Sends what is queued until the grace period ends, then stops and joins
 * the thread. */
void push_stop(struct pusher *p);

void push_summary(FILE *f, const struct pusher *p);
void push_free(struct pusher *p);

#endif
