/* call_frames.h - the kernel frames of a followed thread our tick took
 * its CPU from, as its stops show them, so that its look need not read
 * them.
 *
 * On a kernel that does not preempt system calls (syscall.h), such a
 * thread is either in user code (its kernel stack shows the interrupt it
 * was taken at: no frames, kernel_stack_filter) or leaving a system call
 * (the call's entry frames, then the way out, which name/syscall.h
 * replaces with the call its registers name).  Its stop's registers tell
 * which, so the frames need not be read at its look (7 us, the kernel
 * unwinds and names each frame): none, or the entry frames of the first
 * call seen, named as this one.  The shape is learnt from stops that
 * read them: known once CALL_FRAMES_TRUSTED did, and found it.  A call
 * with other frames (a kernel that preempts calls shows where in the call
 * the tick came) breaks it for the run; frames out of a call (a page
 * fault's way out) are tolerated while rare, and such a tick not read
 * shows its user code alone.  A call whose look read no frames (user
 * code then: the thread ran between its look and its trap, taken by
 * another CPU meanwhile) tells nothing of the shape.
 */
#ifndef PTRACE_PROFILER_SAMPLE_CALL_FRAMES_H
#define PTRACE_PROFILER_SAMPLE_CALL_FRAMES_H

#include <stdbool.h>

#include "sample/decide.h"

/* Stops that must read the shape before a look may leave it unread; and
 * at most one in CALL_FRAMES_OTHERS of them with frames out of a call. */
#define CALL_FRAMES_TRUSTED 8
#define CALL_FRAMES_OTHERS 64

struct call_frames {
	unsigned matched;       /* stops that read frames the shape gives */
	unsigned others;        /* stops out of a call that read frames */
	bool broken;            /* a call's frames not the shape's: read always */
	int n_call;             /* the first call's frames as read, before */
	char call[MEMORY_KERNEL_BYTES]; /* naming: packed, outermost first
					   (count_kernel_frames); 0 none */
};

/* Frames read at a tick (kernel, n: packed, before naming), our stop's
 * registers showing it in system call nr (in_call) or not: added to what
 * the shape knows. */
void call_frames_learn(struct call_frames *cf, const char *kernel, int n, bool in_call, long nr);

/* May a look leave them unread? */
bool call_frames_known(const struct call_frames *cf);

/* The frames of a tick not read (before naming): written to out
 * (MEMORY_KERNEL_BYTES), their number returned; none out of a call. */
int call_frames_give(const struct call_frames *cf, bool in_call, char *out);

#endif
