/* syscall.h - a system call as a kernel frame, for a running thread our
 * tick found inside one.
 *
 * On a kernel that does not preempt system calls (Dynamic Preempt: none,
 * as many servers run), a thread inside a call when our tick comes runs
 * on to the call's next point that lets another task have the CPU: the
 * end of the call (its kernel stack then shows the way out,
 * exit_to_user_mode_loop, our doing), a cond_resched() deep in a long one
 * (generic_perform_write), or the sleep of a blocking one that was woken
 * before it slept (do_epoll_wait, folio_wait_bit).  Those frames are of
 * that later moment, and a wait's would show a thread on a CPU in a
 * blocking wait: PostgreSQL's backends under pgbench -c 4, 2-8 % of
 * their running samples at -d 10ms.  What it was doing at the tick is the
 * call its registers (orig_rax) name: that call's frame replaces them,
 * named as the kernel names its entry points and perf shows them
 * (__x64_sys_pread64).  Where the kernel preempts calls, the stack shows
 * the interrupt's return inside the call, where the tick found it: kept
 * as read.
 */
#ifndef PTRACE_PROFILER_NAME_SYSCALL_H
#define PTRACE_PROFILER_NAME_SYSCALL_H

#include <stddef.h>

/* x86-64's name of call nr, from the build's <asm/unistd_64.h>
 * ("pread64"); NULL for a number it does not know. */
const char *syscall_name(long nr);

/* The packed kernel frames of a thread our tick preempted inside call nr
 * (outermost first, as count_kernel_frames gives them: n of them in
 * kernel) written to out with the call in place of the frames below it:
 * the frames up to do_syscall_64, then "__x64_sys_NAME_[k]"
 * ("syscall_NR_[k]" for a number not known).  An interrupt's return among
 * them (preempted there at the tick), or no do_syscall_64, leaves them as
 * they are.  Returns the number written to
 * out (0 when it does not fit, as frames_pack). */
int syscall_frames_at_call(const char *kernel, int n, long nr, char *out, size_t cap);

#endif
