/* dwarfname.c - a C++ function's name from the DWARF around it
 * (dwarfname.h): scopes, parameter types, closures and their numbers. */
#include "name/dwarfname.h"

#include <dwarf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "name/demangle.h"
#include "name/qualname.h"

#define NAME_MAX_LEN 1024
#define SCOPE_DEPTH 6 /* lambdas in lambdas in ...: types and scopes */

void dwarf_declaring_die(Dwarf_Die *die, Dwarf_Die *out)
{
	*out = *die;
	for (int i = 0; i < 8; i++) {
		Dwarf_Attribute attr;
		Dwarf_Die next;
		if (!dwarf_formref_die(dwarf_attr(out, DW_AT_abstract_origin, &attr), &next) &&
		    !dwarf_formref_die(dwarf_attr(out, DW_AT_specification, &attr), &next))
			return;
		*out = next;
	}
}

const char *dwarf_linkage_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	return n ? n : dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
}

bool dwarf_is_cxx(Dwarf_Die *die)
{
	Dwarf_Die cu;
	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return false;
	switch (dwarf_srclang(&cu)) {
	case DW_LANG_C_plus_plus: case DW_LANG_C_plus_plus_03: case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
		return true;
	default:
		return false;
	}
}

static bool scoped_name(Dwarf_Die *die, char *out, size_t outsz, int depth);

/* A closure type, as GCC describes one: no name, and an artificial
 * constructor called "<lambda>".  Its operator() into *op. */
static bool is_closure(Dwarf_Die *type, Dwarf_Die *op)
{
	Dwarf_Die child;
	bool lambda = false, have_op = false;
	if (dwarf_diename(type) || dwarf_child(type, &child) != 0)
		return false;
	do {
		if (dwarf_tag(&child) != DW_TAG_subprogram || !dwarf_diename(&child))
			continue;
		if (strcmp(dwarf_diename(&child), "<lambda>") == 0)
			lambda = true;
		else if (strcmp(dwarf_diename(&child), "operator()") == 0) {
			if (have_op)
				return false; /* a generic lambda's instances: no one list */
			*op = child;
			have_op = true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return lambda && have_op;
}

/* A type as c++filt prints it ("app::Acc const&"), or false. */
static bool type_text(Dwarf_Die *type, char *out, size_t outsz, int depth)
{
	struct type_step steps[16];
	char named[NAME_MAX_LEN];
	size_t n = 0;
	Dwarf_Die t = *type;
	for (;;) {
		if (n == 16)
			return false;
		Dwarf_Attribute attr;
		Dwarf_Die next;
		bool has_next = dwarf_formref_die(dwarf_attr(&t, DW_AT_type, &attr), &next) != NULL;
		switch (dwarf_tag(&t)) {
		case DW_TAG_const_type: steps[n++].kind = TYPE_CONST; break;
		case DW_TAG_volatile_type: steps[n++].kind = TYPE_VOLATILE; break;
		case DW_TAG_pointer_type: steps[n++].kind = TYPE_POINTER; break;
		case DW_TAG_reference_type: steps[n++].kind = TYPE_REFERENCE; break;
		case DW_TAG_rvalue_reference_type: steps[n++].kind = TYPE_RVALUE_REFERENCE; break;
		case DW_TAG_typedef:
			break; /* seen through, as a mangled name sees it */
		case DW_TAG_base_type: case DW_TAG_unspecified_type:
		case DW_TAG_structure_type: case DW_TAG_class_type: case DW_TAG_union_type:
		case DW_TAG_enumeration_type:
			if (!scoped_name(&t, named, sizeof(named), depth + 1))
				return false;
			steps[n++] = (struct type_step){ TYPE_NAMED, named };
			return qualname_type(steps, n, out, outsz);
		default:
			return false; /* arrays, functions, members: not spelled here */
		}
		if (!has_next) { /* "void*", "void const" */
			if (dwarf_tag(&t) == DW_TAG_typedef)
				return false;
			steps[n++] = (struct type_step){ TYPE_NAMED, "void" };
			return qualname_type(steps, n, out, outsz);
		}
		t = next;
	}
}

/* "(int, char**)" from a function DIE's parameters (its own or, for a
 * concrete copy, its origin's types), or false. */
static bool param_list(Dwarf_Die *fn, char *out, size_t outsz, int depth)
{
	Dwarf_Die child, type;
	Dwarf_Attribute attr;
	char one[NAME_MAX_LEN];
	size_t len = 0;
	bool first = true;
	if (outsz < 3)
		return false;
	out[len++] = '(';
	if (dwarf_child(fn, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);
			if (tag == DW_TAG_unspecified_parameters) {
				snprintf(one, sizeof(one), "...");
			} else if (tag == DW_TAG_formal_parameter) {
				bool artificial = false;
				if (dwarf_formflag(dwarf_attr_integrate(&child, DW_AT_artificial, &attr),
						   &artificial) == 0 && artificial)
					continue; /* this, __closure */
				if (!dwarf_formref_die(dwarf_attr_integrate(&child, DW_AT_type, &attr), &type) ||
				    !type_text(&type, one, sizeof(one), depth))
					return false;
			} else {
				continue;
			}
			int w = snprintf(out + len, outsz - len, "%s%s", first ? "" : ", ", one);
			if (w < 0 || (size_t)w >= outsz - len)
				return false;
			len += (size_t)w;
			first = false;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (len + 2 > outsz)
		return false;
	out[len++] = ')';
	out[len] = '\0';
	return true;
}

/* A function that a class is local to, complete: its demangled linkage
 * name, else (main, an extern "C" function: a mangled name that carries
 * no types) its own scoped name, as c++filt prints it: "main". */
static bool function_scope(Dwarf_Die *fn, char *out, size_t outsz, int depth)
{
	const char *l = dwarf_linkage_name(fn);
	if (l && demangle(l, out, outsz))
		return true;
	Dwarf_Die decl;
	dwarf_declaring_die(fn, &decl);
	return scoped_name(&decl, out, outsz, depth + 1);
}

/* A closure type for counting: an unnamed class with the artificial
 * constructor GCC calls "<lambda>" (generic lambdas too). */
static bool closure_type(Dwarf_Die *die)
{
	Dwarf_Die child;
	int tag = dwarf_tag(die);
	if ((tag != DW_TAG_class_type && tag != DW_TAG_structure_type) || dwarf_diename(die) ||
	    dwarf_child(die, &child) != 0)
		return false;
	do
		if (dwarf_tag(&child) == DW_TAG_subprogram && dwarf_diename(&child) &&
		    strcmp(dwarf_diename(&child), "<lambda>") == 0)
			return true;
	while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* Where a DIE is declared, line and column as one number, or 0. */
static uint64_t declared_at(Dwarf_Die *die)
{
	int line = 0, column = 0;
	if (dwarf_decl_line(die, &line) != 0 || line <= 0)
		return 0;
	if (dwarf_decl_column(die, &column) != 0 || column < 0)
		column = 0;
	return (uint64_t)line << 20 | (uint64_t)column;
}

/* How many closure types function fn declares (through its lexical
 * blocks, not inside other closures) before the place at; *found set if
 * one is declared there. */
static unsigned closures_before(Dwarf_Die *fn, uint64_t at, bool *found, int depth)
{
	Dwarf_Die child;
	unsigned n = 0;
	if (depth > 16 || dwarf_child(fn, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_lexical_block) {
			n += closures_before(&child, at, found, depth + 1);
		} else if (closure_type(&child)) {
			uint64_t here = declared_at(&child);
			n += here < at;
			*found |= here == at;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

/* The number c++filt gives closure sc, "#N": its place, from 1, among the
 * closure types of function fn, as GCC numbers them in the mangled names
 * of their operator(): in source order, whatever their parameters (the
 * DIEs are not in that order: a block's come after its function's own).
 * 0 when its place is not known. */
static unsigned closure_number(Dwarf_Die *fn, Dwarf_Die *sc)
{
	uint64_t at = declared_at(sc);
	bool found = false;
	unsigned before = at ? closures_before(fn, at, &found, 0) : 0;
	return found ? before + 1 : 0;
}

/* Closure sc's number in the nearest function around it, scopes[from..n)
 * (dwarf_getscopes_die's order: innermost first). */
static unsigned lambda_number(Dwarf_Die *sc, Dwarf_Die *scopes, int from, int n)
{
	for (int j = from; j < n; j++)
		if (dwarf_tag(&scopes[j]) == DW_TAG_subprogram)
			return closure_number(&scopes[j], sc);
	return 0;
}

/* Is op, a closure's operator(), const (its __closure a pointer to const,
 * as it is unless the lambda is mutable)? */
static bool const_call(Dwarf_Die *op)
{
	Dwarf_Die child, type;
	Dwarf_Attribute attr;
	if (dwarf_child(op, &child) != 0)
		return false;
	do {
		bool artificial = false;
		if (dwarf_tag(&child) != DW_TAG_formal_parameter ||
		    dwarf_formflag(dwarf_attr_integrate(&child, DW_AT_artificial, &attr), &artificial) != 0 ||
		    !artificial)
			continue;
		if (!dwarf_formref_die(dwarf_attr_integrate(&child, DW_AT_type, &attr), &type))
			return false;
		/* "const <lambda>* const": the pointer's own const first */
		while (dwarf_tag(&type) == DW_TAG_const_type || dwarf_tag(&type) == DW_TAG_volatile_type)
			if (!dwarf_formref_die(dwarf_attr(&type, DW_AT_type, &attr), &type))
				return false;
		return dwarf_tag(&type) == DW_TAG_pointer_type &&
		       dwarf_formref_die(dwarf_attr(&type, DW_AT_type, &attr), &type) &&
		       dwarf_tag(&type) == DW_TAG_const_type;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* die's name qualified by the namespaces, classes and functions around
 * it (a closure is "<lambda(int)>"); false if it has none or it is too
 * deep. */
static bool scoped_name(Dwarf_Die *die, char *out, size_t outsz, int depth)
{
	if (depth > SCOPE_DEPTH)
		return false;
	const char *leaf = dwarf_diename(die);
	char closure[NAME_MAX_LEN];
	Dwarf_Die op;
	int tag = dwarf_tag(die);
	bool is_lambda = !leaf && (tag == DW_TAG_structure_type || tag == DW_TAG_class_type) &&
			 is_closure(die, &op);
	if (!is_lambda && !leaf)
		return false;
	if (tag == DW_TAG_base_type || tag == DW_TAG_unspecified_type) {
		snprintf(out, outsz, "%s", qualname_base_type(leaf));
		return true;
	}

	Dwarf_Die *scopes = NULL;
	int nscopes = dwarf_getscopes_die(die, &scopes);
	if (is_lambda) {
		char params[NAME_MAX_LEN - 32]; /* fits in closure whole, or not at all */
		bool known = param_list(&op, params, sizeof(params), depth);
		unsigned number = nscopes > 0 ? lambda_number(die, scopes, 1, nscopes) : 0;
		char num[16] = "";
		if (number)
			snprintf(num, sizeof(num), "#%u", number);
		snprintf(closure, sizeof(closure), "{lambda%s%s}", known ? params : "", num);
		leaf = closure;
	}
	struct qual_part parts[16];
	char texts[16][NAME_MAX_LEN];
	size_t n = 0;
	bool ok = true;
	/* scopes[0] is die itself, scopes[nscopes - 1] its unit. */
	for (int i = nscopes - 2; ok && i >= 1 && n < 16; i--) {
		Dwarf_Die *sc = &scopes[i];
		switch (dwarf_tag(sc)) {
		case DW_TAG_namespace:
			parts[n++] = (struct qual_part){ QUAL_NAMESPACE, dwarf_diename(sc), NULL, false, 0 };
			break;
		case DW_TAG_structure_type: case DW_TAG_class_type: case DW_TAG_union_type:
		case DW_TAG_enumeration_type:
			if (!dwarf_diename(sc) && (dwarf_tag(sc) == DW_TAG_structure_type ||
						   dwarf_tag(sc) == DW_TAG_class_type) && is_closure(sc, &op)) {
				bool known = param_list(&op, texts[n], sizeof(texts[n]), depth);
				parts[n] = (struct qual_part){ QUAL_LAMBDA, NULL, known ? texts[n] : NULL, false,
							       lambda_number(sc, scopes, i + 1, nscopes) };
			} else {
				parts[n] = (struct qual_part){ QUAL_CLASS, dwarf_diename(sc), NULL, false, 0 };
			}
			n++;
			break;
		case DW_TAG_subprogram:
			ok = function_scope(sc, texts[n], sizeof(texts[n]), depth);
			parts[n] = (struct qual_part){ QUAL_FUNCTION, texts[n], NULL, true, 0 };
			n++;
			break;
		default:
			break; /* lexical blocks */
		}
	}
	free(scopes);
	if (!ok || nscopes < 0)
		return false;
	/* a closure's operator(), as c++filt ends it: "operator()(int) const" */
	char call[NAME_MAX_LEN];
	if (n && parts[n - 1].kind == QUAL_LAMBDA && tag == DW_TAG_subprogram &&
	    strcmp(leaf, "operator()") == 0 && param_list(die, call + 10, sizeof(call) - 16, depth)) {
		memcpy(call, "operator()", 10);
		if (const_call(die))
			strcat(call, " const");
		leaf = call;
	}
	/* A name too long for out is kept cut, as demangle() and frame_text()
	 * cut every name: its first outsz - 1 bytes (a type or a parameter
	 * list that does not fit is left out whole above, never cut, so the
	 * cut is only ever at the end).  The plain DW_AT_name instead would
	 * drop the scopes that tell one operator() from another. */
	(void)qualname_join(parts, n, leaf, out, outsz);
	return true;
}

bool dwarf_scoped_name(Dwarf_Die *die, char *out, size_t outsz)
{
	return scoped_name(die, out, outsz, 0);
}
