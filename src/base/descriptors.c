/* descriptors.c - our own open files (descriptors.h). */
#define _GNU_SOURCE
#include "base/descriptors.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

uint64_t descriptors_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	return (uint64_t)rl.rlim_cur;
}

static struct rlimit before; /* as we were started, if raised */
static bool raised;

uint64_t descriptors_raise(void)
{
	struct rlimit rl;
	if (!raised && getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		struct rlimit want = { rl.rlim_max, rl.rlim_max };
		if (setrlimit(RLIMIT_NOFILE, &want) == 0) /* a limit kept is no error */
			before = rl, raised = true;
	}
	return descriptors_limit();
}

void descriptors_restore(void)
{
	if (raised)
		(void)setrlimit(RLIMIT_NOFILE, &before);
}

static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static int spare[DESCRIPTORS_SPARE] = { -1, -1, -1, -1, -1, -1, -1, -1 };
_Static_assert(DESCRIPTORS_SPARE == 8, "one -1 for each spare above");

void descriptors_keep_spare(void)
{
	int saved = errno;
	pthread_mutex_lock(&spare_lock);
	for (size_t i = 0; i < DESCRIPTORS_SPARE; i++)
		if (spare[i] < 0)
			spare[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pthread_mutex_unlock(&spare_lock);
	errno = saved;
}

bool descriptors_lend(void)
{
	bool lent = false;
	pthread_mutex_lock(&spare_lock);
	for (size_t i = 0; i < DESCRIPTORS_SPARE; i++)
		if (spare[i] >= 0) {
			close(spare[i]);
			spare[i] = -1;
			lent = true;
		}
	pthread_mutex_unlock(&spare_lock);
	return lent;
}

bool descriptors_short(void)
{
	int saved = errno;
	int fd[2] = { -1, -1 };
	bool shortage = false;
	for (size_t i = 0; i < 2 && !shortage; i++) {
		fd[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		shortage = fd[i] < 0 && (errno == EMFILE || errno == ENFILE);
	}
	for (size_t i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	errno = saved;
	return shortage;
}
