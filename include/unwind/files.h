/* files.h - the ELF files the target processes map, each read once per run.
 *
 * The processes of a run map mostly the same files: PostgreSQL's backends
 * one program and its libraries, every process libc, the loader and the
 * vDSO.  This registry holds each file once, whatever the number of
 * processes and execs: its image (the bytes the unwinder reads .eh_frame
 * and code from), its program headers, and one libdw session in which
 * that file alone is reported at bias 0, so that its addresses are its
 * ELF virtual addresses (vaddr) and its symbols and debug info are read
 * once.  A process says only where it mapped the file (address = vaddr +
 * bias, modules.h); names are cached by vaddr, per file (symbolize.h).
 *
 * Identity: two mappings are one file only when that is proven.
 *  - The same inode (device and inode number, as fstat says of the file
 *    opened) with the same size and modification time as a file already
 *    held.  The registry keeps every inode it has seen open for the run,
 *    so its number cannot pass to another file meanwhile.
 *  - Else the same GNU build-id, the same size and the same bytes,
 *    compared in full (once per inode: the inode is held from then on).
 *    The build-id alone proves nothing: strip and objcopy keep it in a
 *    file whose symbols differ, prelink rewrites addresses and keeps it.
 * Anything else is another file, even at the same path: a package upgrade
 * between two forks leaves a new inode, and new bytes, at the old path.
 *
 * The vDSO has no file: its image is read from the target's memory and
 * shared by build-id and bytes (a kernel's vDSO is the same in every
 * process).
 *
 * Files stay until files_free: a retired program's stacks are named with
 * them after the run.
 */
#ifndef PTRACE_PROFILER_FILES_H
#define PTRACE_PROFILER_FILES_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "unwind/layout.h"

#define FILES_BUILD_ID_MAX 64 /* GNU build-ids are 20 bytes (SHA-1), 16 (MD5/UUID) */

struct files;
struct file;

/* debuginfo_path: where separate debug files are looked for, as libdw's
 * Dwfl_Callbacks take it (":.debug:/usr/lib/debug" when NULL); found by
 * debuginfo.h, which opens only regular files and takes only a proven
 * one, then by debuginfod. */
struct files *files_new(const char *debuginfo_path);
void files_free(struct files *fs);

/* The file open on fd (a regular file; fd is the registry's from then on,
 * kept or closed), mapped by a process at path (without " (deleted)"):
 * the file already held if it is provably the same, else a new one.
 * NULL if it is no ELF executable or shared object, or out of memory.
 * *added says whether it was read for the first time. */
struct file *files_add_fd(struct files *fs, int fd, const char *path, bool *added);

/* The same for an image in memory (the vDSO, or a deleted file, read
 * from the target), copied; name is what libdw calls it ("[vdso]"). */
struct file *files_add_memory(struct files *fs, const void *image, size_t size, const char *name,
			      bool *added);

/* Files held: each was read once, whoever mapped it. */
size_t files_count(const struct files *fs);

/* 0 .. files_count - 1, in the order they came. */
uint32_t file_index(const struct file *f);
const char *file_path(const struct file *f);
const struct elf_layout *file_layout(const struct file *f);

/* Where .eh_frame_hdr is (vaddr) and its size; 0 if the file has none. */
uint64_t file_eh_frame_hdr(const struct file *f, uint64_t *size);

/* For a file without .eh_frame_hdr, a search table over its .eh_frame
 * (eh_frame.h), made on first use: *n entries relative to *base (a
 * vaddr).  NULL if it has none. */
struct eh_frame_entry;
const struct eh_frame_entry *file_eh_frame_index(struct file *f, size_t *n, uint64_t *base);

/* Reads len bytes at vaddr from the file's loadable contents (code,
 * read-only data, unwind tables), as a mapping of it holds them: bytes
 * past the end of the file read as zero.  The file is mapped on the
 * first read (its headers were read without a mapping).  0, or -1 if no
 * PT_LOAD holds vaddr in the file, or the file was found changed
 * (file_intact): a read that met a page cut short under us (sigbus.h)
 * looks at the file again. */
int file_read(struct file *f, uint64_t vaddr, void *out, size_t len);

/* Is the file still what was read: the same size and modification time
 * (fstat of the descriptor held)?  Not, when its owner truncated or
 * rewrote it in place while we ran; it is then not read again (file_read
 * fails, names are looked up no more), for its bytes would be zeros or
 * another file's.  Looked at again at most once a second, or at once
 * when a page of a mapped file was found cut short (sigbus.h); an image
 * from memory is always intact. */
bool file_intact(struct file *f);

/* The libdw module of the file, at bias 0 (addresses are vaddrs), made
 * on first use; symbols and debug info are read when asked for.  NULL if
 * libdw cannot read the file, or it is no longer intact then. */
Dwfl_Module *file_dwfl_module(struct file *f);

/* --- identity, pure: for the tests ------------------------------------- */

/* An inode as fstat saw it: the fallback identity of a file. */
struct file_key {
	uint64_t dev, ino, size;
	int64_t mtime_sec;
	int64_t mtime_nsec;
};

void file_key_of(const struct stat *st, struct file_key *out);
bool file_key_equal(const struct file_key *a, const struct file_key *b);

/* The GNU build-id of elf, copied to out (up to max bytes); its length,
 * 0 if it has none (or one longer than max). */
size_t file_build_id(Elf *elf, uint8_t *out, size_t max);

#endif
