/* sigbus.h - a file cut short under our mappings reads as zeros, not as
 * our death.
 *
 * We map the ELF files the targets map (files.c's images, and libelf's
 * own mappings of the descriptors we give libdw).  Their owner may
 * truncate one while we run (`: > libfoo.so`, a package manager writing
 * in place); a read of a mapped page past the new end is then a SIGBUS,
 * whose default ends us with no profile written and, before the kernel
 * detaches them, the targets stopped where we left them.
 *
 * With the handler installed, a SIGBUS that is a fault in a file mapping
 * of ours (BUS_ADRERR: the page is past the file's end, or could not be
 * read) is answered by mapping a page of zeros over the faulting page,
 * with the mapping's protection, and counting it: the faulting read is
 * done again and reads zeros, and so does every later read of that page
 * (files.h: file_read no longer trusts a file that changed).  Everything
 * the handler calls is async-signal-safe: open, read and close of
 * /proc/self/maps (to prove the address is in a file mapping), mmap.
 * Any other SIGBUS (an address in no file mapping, a misaligned access,
 * a machine check, one sent with kill, /proc not mounted) does what it
 * did without the handler: the default action, which ends the process
 * with SIGBUS.
 */
#ifndef PTRACE_PROFILER_BASE_SIGBUS_H
#define PTRACE_PROFILER_BASE_SIGBUS_H

#include <stdint.h>

/* Installs the handler for the whole process (all threads): once, before
 * any file is mapped.  0, or -1 (errno) if sigaction refused. */
int sigbus_install(void);

/* Pages of files mapped by us that were found cut short, and read as
 * zeros since: 0 for a run whose files stayed as they were.  Grows only;
 * safe to read from any thread at any time. */
uint64_t sigbus_zero_pages(void);

#endif
