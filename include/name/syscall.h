/* syscall.h - a system call as a kernel frame, for a running thread our
 * tick found inside one.
 *
 * On a kernel that does not preempt system calls (Dynamic Preempt: none,
 * as many servers run), a thread inside a call when our tick comes is
 * preempted only when the call ends; its kernel stack then shows the way
 * out (exit_to_user_mode_loop), which is our doing, and its registers
 * (orig_rax) the call it was in.  That call is what it was doing at the
 * tick: its frame replaces the way out, named as the kernel names its
 * entry points and perf shows them (__x64_sys_pread64).  Where the kernel
 * does preempt calls the stack shows the call's own frames, kept as read.
 */
#ifndef PTRACE_PROFILER_NAME_SYSCALL_H
#define PTRACE_PROFILER_NAME_SYSCALL_H

#include <stddef.h>

/* x86-64's name of call nr, from the build's <asm/unistd_64.h>
 * ("pread64"); NULL for a number it does not know. */
const char *syscall_name(long nr);

/* The packed kernel frames of a thread preempted at the end of call nr
 * (outermost first, as count_kernel_frames gives them: n of them in
 * kernel) written to out with the call in place of the way out: the
 * frames up to do_syscall_64, then "__x64_sys_NAME_[k]" ("syscall_NR_[k]"
 * for a number not known).  Frames that are not the way out, or no
 * do_syscall_64, leave them as they are.  Returns the number written to
 * out (0 when it does not fit, as frames_pack). */
int syscall_frames_at_call(const char *kernel, int n, long nr, char *out, size_t cap);

#endif
