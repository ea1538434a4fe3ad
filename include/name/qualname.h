/* qualname.h - the text of a C++ name that DWARF gives only in pieces.
 *
 * An inlined function is named from its DWARF description.  Most C++
 * functions carry their mangled name there, and demangling it gives what
 * c++filt prints for the out-of-line copy.  GCC leaves it out for a
 * lambda's operator() in a function that is not a template, and for
 * templates instantiated with such a lambda (std::invoke<main(int,
 * char**)::<lambda()>&>): there DW_AT_name is the bare "operator()" or an
 * unqualified "invoke<...>", and the rest of the name is the chain of
 * namespaces, classes and functions the DIE sits in.  These functions turn
 * that chain, once read from DWARF (symbolize.c), into text; they do no
 * I/O and know nothing of libdw, so they are tested on their own.
 *
 * The spelling is c++filt's, as perf, gdb's backtrace of an out-of-line
 * copy and our own names from the symbol table print it (issue 34: one
 * search finds both): "app::churn(int)::{lambda(int)#2}::operator()(int)
 * const", "char const*", "unsigned long".  A closure's number is its place
 * among the lambdas of the function it is in, from 1, as GCC numbers them
 * when it mangles (in source order, whatever their parameters); the
 * DWARF reader counts them.  A template's DW_AT_name keeps GCC's own
 * spelling of its arguments ("std::invoke<app::churn(int)::<lambda(int)>&,
 * int&>"): that text is not taken apart.
 */
#ifndef PTRACE_PROFILER_QUALNAME_H
#define PTRACE_PROFILER_QUALNAME_H

#include <stdbool.h>
#include <stddef.h>

enum qual_kind {
	QUAL_NAMESPACE, /* name, or NULL: "(anonymous namespace)" */
	QUAL_CLASS,     /* class, struct, union or enum: name, or NULL */
	QUAL_LAMBDA,    /* a closure type: "<lambda" params ">" */
	QUAL_FUNCTION,  /* a function the next part is local to */
};

/* One enclosing scope, outermost first.  For QUAL_FUNCTION, full says
 * name is already complete and qualified (a demangled linkage name,
 * "app::churn(int)"): it replaces whatever came before.  Otherwise a
 * function is name followed by params, if any (c++filt gives none for a
 * function whose mangled name has no types: main, extern "C").  For
 * QUAL_LAMBDA params is the operator()'s parameter list, "(int)", or NULL
 * when unknown, and number its place, from 1 ("{lambda(int)#2}"), 0 when
 * unknown ("{lambda(int)}"). */
struct qual_part {
	enum qual_kind kind;
	const char *name;
	const char *params;
	bool full;
	unsigned number;
};

/* parts[0..n) joined with "::", then leaf (the DIE's own DW_AT_name).
 * Writes out (always NUL-terminated, truncated to fit); returns false if
 * it had to truncate or outsz is 0. */
bool qualname_join(const struct qual_part *parts, size_t n, const char *leaf,
		   char *out, size_t outsz);

/* A type as c++filt prints it, built from the named type inward to
 * outward: steps[0] is the outermost modifier, steps[n-1] a TYPE_NAMED
 * one (a base type by qualname_base_type's name, a class by its qualified
 * name; typedefs are seen through, as mangling does).  Qualifiers follow
 * what they qualify: "char const*", "char* const", "app::Acc const&",
 * "int&&". */
enum type_step_kind {
	TYPE_NAMED, TYPE_CONST, TYPE_VOLATILE, TYPE_POINTER, TYPE_REFERENCE, TYPE_RVALUE_REFERENCE,
};
struct type_step {
	enum type_step_kind kind;
	const char *name; /* TYPE_NAMED only */
};
/* Returns false (out then holds "") if the steps do not end with exactly
 * one TYPE_NAMED, or the text does not fit. */
bool qualname_type(const struct type_step *steps, size_t n, char *out, size_t outsz);

/* A base type's name as c++filt prints it, from the name GCC gives it in
 * DWARF: "long int" is "long", "long unsigned int" "unsigned long", "short
 * int" "short"; a name c++filt spells the same is returned as it is. */
const char *qualname_base_type(const char *dwarf_name);

/* Drops GCC's clone suffixes from a symbol's name, as it names the
 * out-of-line copies it makes of one function: in a demangled name
 * everything from " [clone ." on ("f(int) [clone .isra.0]" -> "f(int)"),
 * in a plain one everything from a '.' that starts one of GCC's clone
 * kinds ("foo.part.0", "foo.cold", "foo.constprop.0.isra.0" -> "foo").
 * A '.' followed by anything else is kept. */
void qualname_strip_clone(char *name);

#endif
