/* perfmap.h - names of JIT code from the map a JIT writes for profilers.
 *
 * A JIT can list the code it generates in /tmp/perf-PID.map (node
 * --perf-basic-prof, Java's "jcmd PID Compiler.perfmap", .NET with
 * DOTNET_PerfMapEnabled=1, LuaJIT, Julia...), one line per piece of code:
 *     START SIZE NAME
 * START and SIZE in hex (a leading 0x allowed), NAME to the end of the
 * line.  node appends as it compiles; jcmd rewrites the whole file.
 *
 * The parser (perfmap_add, perfmap_lookup) is pure: bytes in, no I/O, any
 * input accepted.  Never a guess: an address is named only inside an
 * entry's [START, START+SIZE), and not at all where entries with different
 * names cover it (code freed and its memory reused: which one ran when the
 * sample was taken is not known).  Names are returned raw; the caller
 * sanitizes them (frame.h), as every other name.
 *
 * The file (perfmap_file_*) is the target's own: PID is its process id in
 * its own pid namespace (NStgid in /proc/PID/status) and /tmp its own
 * (under /proc/PID/root, opened when the symbolizer starts, so it can be
 * read after the process has exited).  Neither "tmp" nor the file may be a
 * symbolic link, the file must be a regular one owned by the process's
 * own effective user (not root: in a user namespace a root-only file can
 * be mounted there), it is opened without blocking, and at most
 * PERFMAP_FILE_MAX bytes of it are read.  It is read again when it has
 * grown or been replaced, at most every 100 ms.
 *
 * Memory is bounded by the file: its entries and names take at most 1.5
 * times the bytes read (PERFMAP_BUDGET_MIN for a small file); lines past
 * that are skipped and counted (perfmap_file_over_budget).  Processes whose
 * map is the same file (device and inode: hard links, one /tmp shared by
 * pid namespaces) share one parse of it.
 */
#ifndef PTRACE_PROFILER_PERFMAP_H
#define PTRACE_PROFILER_PERFMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PERFMAP_NAME_MAX 1024           /* longer names are cut */
#define PERFMAP_FILE_MAX (256u << 20)   /* bytes of a file read, at most */
#define PERFMAP_BUDGET_MIN (1u << 20)   /* bytes a small file's entries may take */

struct perfmap;

struct perfmap *perfmap_new(void);
void perfmap_free(struct perfmap *pm);

/* Adds the entries of the complete lines in buf[0..len) (those ending in
 * '\n'); lines that are not "START SIZE NAME" with SIZE > 0 are skipped.
 * Returns the bytes used: up to and including the last '\n' (the rest, a
 * line still being written, is for the next call). */
size_t perfmap_add(struct perfmap *pm, const char *buf, size_t len);

/* The name of the entry holding addr, or NULL: no entry holds it, or
 * entries with different names do.  Valid until the next perfmap_add or
 * perfmap_clear. */
const char *perfmap_lookup(struct perfmap *pm, uint64_t addr);

/* Forgets every entry (a file rewritten from its start). */
void perfmap_clear(struct perfmap *pm);

/* Keeps entries and names of at most bytes in all (0: no bound, the
 * default); a line past it is skipped, and counted by perfmap_over_budget
 * as well as perfmap_skipped. */
void perfmap_set_budget(struct perfmap *pm, size_t bytes);
size_t perfmap_over_budget(const struct perfmap *pm);

/* A copy of pm's entries, or NULL when out of memory. */
struct perfmap *perfmap_copy(const struct perfmap *pm);

/* Entries kept, lines skipped. */
size_t perfmap_entries(const struct perfmap *pm);
size_t perfmap_skipped(const struct perfmap *pm);

/* From the text of /proc/PID/status: the process id in its innermost pid
 * namespace (the last NStgid field; Tgid on kernels without it) and its
 * effective user id.  0, or -1 if either is missing. */
int perfmap_status_ids(const char *buf, size_t len, pid_t *nstgid, uid_t *euid);

struct perfmap_file;

/* The map of the process whose thread task is (any live thread of it: a
 * process whose main thread has exited is read through another), or NULL
 * when /proc does not say where it would be.  A file that does not exist
 * yet is looked for again later. */
struct perfmap_file *perfmap_file_open(pid_t task);

/* The same, for root_fd (taken), pid nstgid and owner euid, re-read at most
 * every recheck_ns: for tests. */
struct perfmap_file *perfmap_file_at(int root_fd, pid_t nstgid, uid_t euid, uint64_t recheck_ns);

/* The name at addr, as perfmap_lookup, from the file as it is now (read
 * again if it has grown or been replaced).  NULL if none; else a copy,
 * valid until the next call with f. */
const char *perfmap_file_lookup(struct perfmap_file *f, uint64_t addr);

/* A number that changes whenever the file, as it is now (read again as
 * perfmap_file_lookup would), may name an address otherwise: a name
 * looked up is good while it stays the same. */
unsigned perfmap_file_changes(struct perfmap_file *f);

/* The process has exec'd: the file is the new program's from now on.
 * What the old one wrote is read one last time - what was appended since
 * the last look, or all of it if there was no file then; nothing if the
 * file was rewritten or replaced since - and the file is never read again.
 * NULL is ignored. */
void perfmap_file_freeze(struct perfmap_file *f);

/* The entries f names from, read as perfmap_file_lookup would: the same
 * for two files that are one inode.  NULL before a file is found. */
const struct perfmap *perfmap_file_entries(struct perfmap_file *f);

/* Lines of the file skipped for the memory bound. */
size_t perfmap_file_over_budget(struct perfmap_file *f);

/* Of the whole run: the files whose entries reached the memory bound, and
 * in *bytes what was left of them unread (for the summary). */
size_t perfmap_files_over_budget(uint64_t *bytes);

/* Any thread may call these, for different files (a lock within). */
void perfmap_file_close(struct perfmap_file *f);

#endif
