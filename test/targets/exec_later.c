/* exec_later.c - runs before_exec on CPU for 0.5 s, then execs argv[1..].
 * A profiler attached before the exec must name the new program's frames
 * with the new program's symbols. */
#include <stdint.h>
#include <time.h>
#include <unistd.h>

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void before_exec(void)
{
	uint64_t end = now() + 500000000ULL;
	while (now() < end)
		;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	before_exec();
	execv(argv[1], argv + 1);
	return 127;
}
