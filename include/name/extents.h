/* extents.h - a file's addresses cut wherever a symbol or a section starts
 * or ends, so that libdw is asked for a symbol once an extent, not once an
 * address.
 *
 * dwfl_module_addrinfo reads the whole symbol table on every call (each
 * entry through gelf_getsym and gelf_getshdr).  On MariaDB's mariadbd,
 * 29,761 symbols, a run at -d 1ms looked up 3,884 addresses in 725
 * functions, and naming them took 2.7 s of CPU after the run; under --top
 * the same work is done while the target runs.
 *
 * Why one answer holds for a whole extent: libdw's choice for an address
 * depends only on which symbols hold it (start <= address < end), which
 * sizeless symbols start at or below it, and which section holds it.
 * Between two neighbouring cuts none of these changes: every start and end
 * is a cut, a sizeless symbol at v cuts at v and v + 1, and so do
 * sections' bounds.  The answer for one address of an extent - the symbol,
 * or none - is therefore libdw's for every address of it, with the
 * offset measured from the same start; and where one symbol alone holds
 * an extent, and no sizeless one starts there, libdw answers with that
 * one (a sized symbol is always preferred to sizeless ones).
 * test/unit/test_extents.c holds this against libdw itself, address by address, in real files.
 */
#ifndef PTRACE_PROFILER_NAME_EXTENTS_H
#define PTRACE_PROFILER_NAME_EXTENTS_H

#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdwfl.h>

struct extents;

/* The cuts of mod's symbol table (all of it: libdw's, the minidebuginfo
 * table's) and its sections, read once.  NULL when out of memory; the
 * caller then asks libdw itself. */
struct extents *extents_new(Dwfl_Module *mod);
void extents_free(struct extents *e);

/* The symbol that holds vaddr as dwfl_module_addrinfo(mod, vaddr, off,
 * sym, ...) finds it - its answer when that is a symbol with a size that
 * holds vaddr or a sizeless one that starts there, else none - with libdw
 * asked at most once an extent, and not at all where one symbol alone or
 * none can hold it: the symbol's name (NULL: none), *off from its start
 * and *sym as libdw fills them (*off is 0 when there is none). */
const char *extents_symbol(struct extents *e, uint64_t vaddr, GElf_Off *off, GElf_Sym *sym);

/* How many times libdw was asked, and how many extents there are. */
uint64_t extents_asked(const struct extents *e);
size_t extents_count(const struct extents *e);

#endif
