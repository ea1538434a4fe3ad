/* call_frames.c - a held thread's kernel frames from its stops (call_frames.h). */
#include "sample/call_frames.h"

#include <string.h>

#include "base/frame.h"
#include "name/syscall.h"

/* The frames, named as call nr, the same as the shape's named so? */
static bool same_call(const struct call_frames *cf, const char *kernel, int n, long nr)
{
	char read[MEMORY_KERNEL_BYTES], shape[MEMORY_KERNEL_BYTES];
	int a = syscall_frames_at_call(kernel, n, nr, read, sizeof(read));
	int b = syscall_frames_at_call(cf->call, cf->n_call, nr, shape, sizeof(shape));
	return a > 0 && a == b && memcmp(read, shape, frames_packed_len(read, a)) == 0;
}

void call_frames_learn(struct call_frames *cf, const char *kernel, int n, bool in_call, long nr)
{
	if (cf->broken)
		return;
	if (!in_call) {
		if (n == 0)
			cf->matched++;
		else
			cf->others++;
		return;
	}
	if (n <= 0)
		return; /* out of a call at its look: it ran since, not a shape */
	if (cf->n_call == 0) {
		memcpy(cf->call, kernel, frames_packed_len(kernel, n));
		cf->n_call = n;
	}
	if (same_call(cf, kernel, n, nr))
		cf->matched++;
	else
		cf->broken = true;
}

bool call_frames_known(const struct call_frames *cf)
{
	return !cf->broken && cf->n_call > 0 && cf->matched >= CALL_FRAMES_TRUSTED &&
	       (unsigned long long)cf->others * CALL_FRAMES_OTHERS <= cf->matched;
}

int call_frames_give(const struct call_frames *cf, bool in_call, char *out)
{
	if (!in_call)
		return 0;
	memcpy(out, cf->call, MEMORY_KERNEL_BYTES);
	return cf->n_call;
}
