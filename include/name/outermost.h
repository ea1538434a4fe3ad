/* outermost.h - functions a thread's stack begins with, known by name.
 *
 * The unwinder tells a whole stack from a cut one by what the code says
 * where the unwind ended (unwind.h): unwind info with no return address,
 * or a zero frame pointer.  Some runtimes' first frames say neither.  Go's
 * scheduler runs on a stack of its own that begins in runtime.mstart
 * (started by clone with the parent's frame pointer), and runtime.mcall
 * switches to it from a goroutine that is then parked: the goroutine's
 * frames are no longer the thread's.  Go has no unwind tables, and these
 * frames' rbp points into another stack.  Their names tell, after the run
 * (naming, program.h): a stack cut there is whole after all.
 */
#ifndef PTRACE_PROFILER_OUTERMOST_H
#define PTRACE_PROFILER_OUTERMOST_H

#include <stdbool.h>

/* Is name (a frame's function, as symbolize.h gives it, with or without
 * --lines' suffix) one that begins a thread's stack and says so only by
 * its name: Go's runtime.mstart, runtime.mcall, runtime.goexit,
 * runtime.rt0_go (with or without Go's ".abi0")?
 *  - Not Go's runtime.systemstack and runtime.morestack: the goroutine
 *    that called them runs on, its frames on another stack.
 *  - Not glibc's _start, clone, clone3, start_thread: their unwind info
 *    says where a stack begins, and only there.  A thread inside the
 *    clone3 system call (glibc ends the unwind info before it, as the
 *    child starts on a new stack there) sits at the very address where
 *    the child begins, but its callers go on: by name it would be whole. */
bool outermost_name(const char *name);

#endif
