/* sigprocmask.h - libunwind's signal masking, made free while we unwind.
 *
 * libunwind masks every signal around each access to its caches (two
 * rt_sigprocmask system calls per frame), so that a signal handler that
 * unwinds cannot find them half updated.  Its per-thread caches, which
 * need no lock, exist only when it is configured with
 * --enable-per-thread-cache, which Debian's is not.  We are one sampling
 * thread and our handlers only set a flag or map a page (sigbus.h), none
 * unwinds, so while we are inside
 * libunwind those calls are answered without a system call.  Measured:
 * 14 system calls and 17 us of a 19 us sample's work (p50) on a 2-vCPU VM.
 *
 * This file defines sigprocmask() for the whole process: every caller
 * outside such a stretch gets glibc's behaviour (through pthread_sigmask).
 */
#ifndef PTRACE_PROFILER_BASE_SIGPROCMASK_H
#define PTRACE_PROFILER_BASE_SIGPROCMASK_H

#include <stdbool.h>

/* Between sigprocmask_elide(true) and sigprocmask_elide(false), the
 * calling thread's sigprocmask() does nothing and reports an empty old
 * mask: only for code that saves and restores the mask in pairs. */
void sigprocmask_elide(bool on);

#endif
