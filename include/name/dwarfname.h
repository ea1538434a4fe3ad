/* dwarfname.h - a function's name from the DWARF that describes it.
 *
 * The reading half of naming an inlined function (symbolize.c decides in
 * which order the sources are tried; qualname.h turns the pieces into
 * text without libdw).  For what GCC leaves unmangled in C++ - a lambda's
 * operator() in a function that is not a template, a template
 * instantiated with such a lambda - the name is built from the chain of
 * namespaces, classes and functions the declaration sits in, spelt as
 * c++filt would print the mangled name an out-of-line copy would have:
 * "app::churn(int)::{lambda(int)#2}::operator()(int) const".  A closure's
 * number is counted from the closures its function declares (through its
 * lexical blocks) in source order, by declaration line and column, as GCC
 * numbers them when it mangles; DWARF's own order is not that (a block's
 * closures come after the function's).  Everything here reads DWARF
 * only: no symbol tables, no caches.
 */
#ifndef PTRACE_PROFILER_DWARFNAME_H
#define PTRACE_PROFILER_DWARFNAME_H

#include <stdbool.h>
#include <stddef.h>

#include <elfutils/libdw.h>

/* The DIE that declares a function: DW_AT_abstract_origin and
 * DW_AT_specification followed to the end (at most 8 steps). */
void dwarf_declaring_die(Dwarf_Die *die, Dwarf_Die *out);

/* Its DW_AT_linkage_name (or DW_AT_MIPS_linkage_name), on it or on the
 * DIE it completes; NULL when it has none.  Mangled or not. */
const char *dwarf_linkage_name(Dwarf_Die *die);

/* Is die in a C++ compile unit (C++ to C++14 as libdw reports them)? */
bool dwarf_is_cxx(Dwarf_Die *die);

/* die's name qualified by the namespaces, classes and functions around
 * it, as above, into out (cut at outsz - 1 bytes when longer: a type or
 * parameter list that does not fit is left out whole, so the cut is only
 * ever at the end).  false when it has no name, or the scopes are deeper
 * than a few lambdas in lambdas. */
bool dwarf_scoped_name(Dwarf_Die *die, char *out, size_t outsz);

#endif
