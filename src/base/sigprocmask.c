/* sigprocmask.c - see sigprocmask.h: why, and what it saves. */
#define _GNU_SOURCE
#include "base/sigprocmask.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>

static __thread bool elided;

void sigprocmask_elide(bool on)
{
	elided = on;
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	if (elided) {
		/* Only save/restore pairs get here; the saved mask is handed
		 * back to us unread. */
		if (old)
			sigemptyset(old);
		return 0;
	}
	int err = pthread_sigmask(how, set, old);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}
