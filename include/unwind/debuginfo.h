/* debuginfo.h - separate debug files, found without trusting the paths
 * that lead to them.
 *
 * libdw asks its Dwfl_Callbacks.find_debuginfo for a module's separate
 * debug file, and for the dwz file (.gnu_debugaltlink) its debug info
 * refers to.  libdw's own dwfl_standard_find_debuginfo opens each
 * candidate with a blocking open(): a FIFO named by the target's
 * .gnu_debuglink, next to its program or in its .debug/ folder, hung the
 * profiler for ever, its targets in tracing stop.  This finder looks in
 * the same places, in the same order, but opens each candidate with
 * open_regular (regular_file.h): FIFOs, devices, directories and files of
 * more than DEBUGINFO_MAX_SIZE bytes are skipped, never opened for
 * reading.  A candidate is taken only if it is the module's: the same GNU
 * build-id when the module has one, else the CRC-32 its .gnu_debuglink
 * records (a file with neither proof is never taken), and never the
 * module's own file under another name.
 *
 * The places, for a module mapped at FILE (absolute) in DIR, whose
 * .gnu_debuglink names LINK, and each entry of the debuginfo path (":"
 * separated, default ":.debug:/usr/lib/debug"; a leading "+" or "-" on
 * the path or an entry, libdw's switch for CRC checks, is accepted and
 * ignored: the proof above is always asked for):
 *  1. by build-id, in each absolute entry E: E/.build-id/NN/REST.debug;
 *  2. by name, each entry in turn: "" is DIR/LINK, a relative entry R is
 *     DIR/R/LINK, an absolute entry E is E/DIR/LINK, then with DIR's
 *     leading folders dropped one by one, down to E/LINK (Debian's
 *     /usr/lib/debug/usr/bin/prog.debug).  A module with a build-id but
 *     no .gnu_debuglink is looked for as LINK = basename(FILE).debug, and
 *     outside DIR also as basename(FILE) (Fedora's older layout).
 * The dwz file named ALT, with ALT's build-id: by build-id as in 1; ALT
 * itself when absolute, else DIR/ALT; then in each absolute entry E,
 * E/basename(ALT) and E/.dwz/basename(ALT), in DIR/.dwz/basename(ALT),
 * and DIR/R/ALT for a relative entry R.  When it is not found, libdw is
 * told there is none, so that it does not look for it itself with a
 * blocking open (dwarf_getalt).
 * Paths are never taken relative to our working directory: a module
 * without an absolute FILE is looked for by build-id alone.  FILE is the
 * path as the target maps it (the kernel's canonical path): symbolic
 * links are not resolved to look again under the target's name.
 *
 * When nothing is found this way and DEBUGINFOD_URLS is set, libdw's
 * debuginfod client is asked by build-id (dwfl_standard_find_debuginfo,
 * with an empty path and no file name or link: it then reaches no path
 * of the file system, only the server and the client's cache).
 */
#ifndef PTRACE_PROFILER_DEBUGINFO_H
#define PTRACE_PROFILER_DEBUGINFO_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* The biggest debug file taken: a CRC check reads it whole, and a sparse
 * file of any size costs its owner nothing.  Debian 12's libc's is 4 MB:
 * the bound leaves room for programs a thousand times bigger, and costs
 * seconds of reading at most. */
#define DEBUGINFO_MAX_SIZE (4ull << 30)

#define DEBUGINFO_DEFAULT_PATH ":.debug:/usr/lib/debug"

/* The CRC-32 of .gnu_debuglink (ISO-HDLC, as zlib's crc32): crc of the
 * bytes before, 0 at the start; the CRC with len bytes at data after. */
uint32_t debuginfo_crc32(uint32_t crc, const void *data, size_t len);

/* What the debug file looked for must be. */
struct debuginfo_want {
	const uint8_t *build_id;  /* the module's (or ALT's), or NULL: */
	size_t build_id_len;      /* 0: proven by crc instead */
	uint32_t crc;             /* the .gnu_debuglink's */
	bool has_crc;             /* false: no proof, nothing is taken */
	bool alt;                 /* a dwz file: link is ALT, the search above */
	dev_t main_dev;           /* the module's own file, never taken; */
	ino_t main_ino;           /* both 0 when it has none */
};

/* The search above, pure of libdw: path as the debuginfo path (NULL for
 * the default), file the module's path (NULL or relative: by build-id
 * only), link the .gnu_debuglink's name or ALT (NULL if none).  A
 * descriptor of the file found (O_RDONLY, close-on-exec) and its path in
 * *found (malloc'd), or -1 with *found untouched. */
int debuginfo_search(const char *path, const char *file, const char *link,
		     const struct debuginfo_want *want, char **found);

/* Dwfl_Callbacks.find_debuginfo's work for a module of ours: the search
 * above with the module's build-id (from libdw), the debuginfo path path
 * (NULL for the default) and main (the module's own file's fstat, or
 * NULL), then debuginfod.  The callback's other arguments as libdw gives
 * them.  libdw's own Dwfl_Callbacks.debuginfo_path must point to "" for
 * the debuginfod step to reach no path. */
int debuginfo_find(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		   const char *path, const struct stat *main, const char *file_name,
		   const char *debuglink, GElf_Word crc, char **debuginfo_file_name);

#endif
