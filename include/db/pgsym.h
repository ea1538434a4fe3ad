/* pgsym.h - the postgres binary of a process: its exported globals.
 *
 * The postgres binary exports its globals in .dynsym, for extensions
 * (Debian's is stripped of everything else): my_wait_event_info,
 * MyBackendType, MyBEEntry...  They are looked up there, in the program's
 * file as modules.h opened it, once per process; their addresses in the
 * process are the ELF value plus the program's load bias.  Nothing here is
 * for the sampling loop but pg_read.
 */
#ifndef PTRACE_PROFILER_PGSYM_H
#define PTRACE_PROFILER_PGSYM_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "db/pgwait.h"
#include "unwind/modules.h"

struct pg_binary {
	Elf *elf;      /* the program's file, as the run's files hold it */
	uint64_t bias; /* target address = ELF value + bias */
};

/* The program of process pid (the module holding its text, whose start
 * /proc/PID/stat gives) among its modules m.  0, or -1 when it has no
 * file we can read. */
int pg_binary_of(pid_t pid, struct modules *m, struct pg_binary *out);

/* The target addresses of the defined data symbols names[0..n) in its
 * .dynsym, in one pass: addr[i] is 0 for a name it does not have.
 * Returns how many were found. */
size_t pg_binary_symbols(const struct pg_binary *b, const char *const *names, size_t n,
			 uint64_t *addr);

/* The version text the binary prints for --version.  0 or -1. */
int pg_binary_version(const struct pg_binary *b, struct pg_version *v);

/* len bytes of process pid at addr, without stopping it (one
 * process_vm_readv).  0, or -1 when not all could be read. */
int pg_read(pid_t pid, uint64_t addr, void *out, size_t len);

#endif
