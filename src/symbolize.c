/* symbolize.c - addresses to frame names with libdw, cached. */
#define _GNU_SOURCE
#include "symbolize.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "frame.h"
#include "intern.h"
#include "qualname.h"
#include "perfmap.h"

#define NAME_MAX_LEN 1024
#define FRAME_TEXT_MAX (NAME_MAX_LEN + 320) /* name, " (file:line)", "_[i]" */

/* Out-of-line copies of inline functions in one compile unit: the
 * abstract DIE each completes (by its address in the debug data) and its
 * first address, sorted by DIE. */
struct copy { const void *origin; Dwarf_Addr pc; };
struct unit_copies { const void *unit; size_t n; struct copy *c; };

/* A module's public symbols (global or weak binding, default or protected
 * visibility) that have a size, sorted by address. */
struct public_sym { GElf_Addr addr; GElf_Xword size; const char *name; };
struct module_publics { Dwfl_Module *mod; size_t n; struct public_sym *p; };

/* An inlined function's name ("" for none) by its abstract DIE. */
struct origin_slot {
	const void *origin;
	const char *name;
};

/* Cached frames of one address; key 0 = empty slot. */
struct name_slot {
	uint64_t key;
	size_t n;
	const char **names;
};

struct symbolizer {
	struct modules *modules;
	struct symbolize_options o;
	struct name_slot *slots;
	size_t cap, used;          /* cap is a power of two */
	unsigned generation;       /* a changed module list empties the cache */
	struct intern_set *names;  /* they outlive the cache */
	/* Names of inlined functions by abstract DIE, copies per unit: both
	 * point into the modules' debug data, and go when the modules do. */
	struct origin_slot *origins;
	size_t origins_cap, norigins; /* cap is a power of two */
	struct unit_copies *units;
	size_t nunits, units_cap;
	struct module_publics *publics; /* one per module, as asked for */
	size_t npublics, publics_cap;
	struct perfmap_file *jit;  /* the JIT's own map of its code, if any */
};

static const char *const unknown_frame[1] = { "[unknown]" };

/* Names shared by every symbolizer of the run, keyed by the module's
 * build-id and the address's offset in it (address less the load bias):
 * the same file gives the same names in every process that maps it.  A
 * server that forks a process per connection then reads its binary's and
 * glibc's symbols and debug info once, not once per process (about 0.1 s
 * each with glibc's).  Only the thread that names uses it. */
#define SHARED_ID_MAX 64
struct shared_slot {
	uint64_t hash;         /* 0: empty */
	unsigned char id[SHARED_ID_MAX];
	int id_len;
	uint64_t offset;
	unsigned key_bits;     /* frame kind and options */
	size_t n;
	const char **names;    /* in shared.names */
};
static struct {
	struct shared_slot *slots;
	size_t cap, used;
	struct intern_set *names;
	uint64_t hits;
} shared;

/* Per build-id, the symbolizer that reads its symbols and debug info: a
 * process that maps a file another one has read already asks that one,
 * at the same offset, instead of reading it again. */
struct reader {
	unsigned char id[SHARED_ID_MAX];
	int id_len;
	struct symbolizer *owner;
	uint64_t bias;          /* where the file is loaded in owner's process */
};
static struct reader *readers;
static size_t n_readers, cap_readers;

uint64_t symbolize_shared_hits(void)
{
	return shared.hits;
}

static uint64_t hash_u64(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdULL;
	a ^= a >> 33;
	return a;
}

struct symbolizer *symbolizer_new(struct modules *m, const struct symbolize_options *o)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->modules = m;
	s->o = *o;
	s->cap = 1024;
	s->slots = calloc(s->cap, sizeof(*s->slots));
	s->names = intern_new();
	s->origins_cap = 256;
	s->origins = calloc(s->origins_cap, sizeof(*s->origins));
	if (!s->slots || !s->names || !s->origins) {
		symbolizer_free(s);
		return NULL;
	}
	s->generation = modules_generation(m);
	/* Opened now, while the process is there to say where it is. */
	s->jit = perfmap_file_open(modules_task(m));
	return s;
}

static void forget_addresses(struct symbolizer *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->slots[i].names);
	memset(s->slots, 0, s->cap * sizeof(*s->slots));
	s->used = 0;
	if (s->origins)
		memset(s->origins, 0, s->origins_cap * sizeof(*s->origins));
	s->norigins = 0;
	for (size_t i = 0; i < s->nunits; i++)
		free(s->units[i].c);
	s->nunits = 0;
	for (size_t i = 0; i < s->npublics; i++)
		free(s->publics[i].p);
	s->npublics = 0;
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < n_readers;) /* no one asks it any more */
		if (readers[i].owner == s)
			readers[i] = readers[--n_readers];
		else
			i++;
	if (s->slots)
		forget_addresses(s);
	intern_free(s->names);
	free(s->origins);
	free(s->units);
	free(s->publics);
	perfmap_file_close(s->jit);
	free(s->slots);
	free(s);
}

/* A symbol or DWARF name as a reader wants it: "clock_gettime@@GLIBC_2.17"
 * without its version, C++ demangled. */
static void readable_name(const char *raw, char *out, size_t outsz)
{
	char plain[NAME_MAX_LEN];
	snprintf(plain, sizeof(plain), "%.*s", (int)strcspn(raw, "@"), raw);
	if (!demangle(plain, out, outsz))
		snprintf(out, outsz, "%s", plain);
}

/* "name", "name (file.c:42)", then "_[i]" for an inlined one; sanitized,
 * and the suffix kept however long the name. */
static const char *frame_text(struct symbolizer *s, const char *name, const char *file,
			      int line, bool inlined)
{
	char raw[FRAME_TEXT_MAX], clean[FRAME_TEXT_MAX];
	const char *base = file ? strrchr(file, '/') : NULL;
	base = base ? base + 1 : file;
	const char *suffix = inlined ? "_[i]" : "";
	if (s->o.lines && base && base[0] && line > 0)
		snprintf(raw, sizeof(raw), "%.*s (%.255s:%d)%s", NAME_MAX_LEN, name, base, line, suffix);
	else
		snprintf(raw, sizeof(raw), "%.*s%s", NAME_MAX_LEN, name, suffix);
	frame_sanitize(raw, clean, sizeof(clean));
	return intern(s->names, clean);
}

/* A frame with no symbol: "[libfoo.so]", or "libfoo.so+0x1a2b" (the
 * address in the ELF file, as addr2line -e takes it) with --addresses. */
static const char *module_frame(struct symbolizer *s, Dwfl_Module *mod, uint64_t addr)
{
	Dwarf_Addr low = 0, bias;
	const char *path = dwfl_module_info(mod, NULL, &low, NULL, NULL, NULL, NULL, NULL);
	if (!path)
		path = "";
	if (strncmp(path, "[vdso", 5) == 0)
		path = "[vdso]";
	char text[NAME_MAX_LEN + 32], clean[NAME_MAX_LEN + 32];
	if (s->o.addresses) {
		uint64_t offset = dwfl_module_getelf(mod, &bias) ? addr - bias : addr - low;
		const char *base = path[0] == '[' ? NULL : strrchr(path, '/');
		snprintf(text, sizeof(text), "%.*s+0x%" PRIx64, NAME_MAX_LEN,
			 base ? base + 1 : path, offset);
		frame_sanitize(text, clean, sizeof(clean));
	} else if (path[0] == '[') {
		frame_sanitize(path, clean, sizeof(clean));
	} else {
		frame_module_name(path, clean, sizeof(clean));
	}
	return intern(s->names, clean);
}

/* --- the names of inlined functions --------------------------------------
 *
 * An inlined frame is named as its out-of-line copy would be: qualified,
 * demangled as c++filt prints it, by its public name.  The inlined
 * subroutine's DW_AT_abstract_origin is the function's abstract DIE, and
 * from it, in this order:
 *
 * 1. A mangled linkage name (DW_AT_linkage_name, or DW_AT_MIPS_linkage_name,
 *    on the DIE or the declaration it completes), demangled.  The
 *    out-of-line copy's symbol is that same string, so c++filt prints the
 *    same.
 *
 * 2. The out-of-line copy itself: a DW_TAG_subprogram with the same
 *    DW_AT_abstract_origin and code of its own (GCC puts it at the top of
 *    the compile unit or in a namespace).  DWARF says its first address
 *    is this function's code, so a symbol starting exactly there names
 *    this function; symbol_at() picks it as lookup() does for the
 *    out-of-line frame, so the two frames agree.  This is where glibc's
 *    internal names go.  glibc declares its functions with asm labels, so
 *    libc6-dbg describes read() as "__libc_read" with the linkage name
 *    "__GI___libc_read"; the copy (0xf82a0 in Debian 12's libc.so.6) has
 *    the symbols read and __read (global) and __libc_read,
 *    __GI___libc_read, __GI___read, __GI_read (local), aliases of one
 *    definition, all of the same size, and the frame becomes "read",
 *    what callers call.  Nothing is stripped by pattern: a name is only
 *    ever a symbol of this very code.  GCC's clone suffixes are dropped
 *    (the copy may be "f.part.0" or "f(int) [clone .isra.0]"; the inlined
 *    code is f itself), and a copy without one is preferred.  Caveat:
 *    code that identical-code folding (the compiler's or the linker's)
 *    gave to two functions may carry both names, and then the
 *    out-of-line frame has the same ambiguity.
 *
 * 3. A linkage name that is not mangled (a C asm label with no copy in
 *    this unit), as it is.
 *
 * 4. In C++, the name built from the scopes that enclose the declaration
 *    (qualname.h): "app::churn(int)::<lambda(int)>::operator()",
 *    "std::invoke<main(int, char**)::<lambda()>&>", as gdb names such
 *    frames.  This is for what GCC leaves unmangled: a lambda in a function
 *    that is not a template, templates instantiated with one.
 *
 * 5. In C, DW_AT_name.
 *
 * No name at all: the frame is left out (its code is merged into its
 * caller's frame, which is not a wrong name).  Names are cached per
 * abstract DIE, copies per compile unit. */

#define SCOPE_DEPTH 6 /* lambdas in lambdas in ...: types and scopes */

/* The DIE that declares a function: DW_AT_abstract_origin and
 * DW_AT_specification followed to the end. */
static void declaring_die(Dwarf_Die *die, Dwarf_Die *out)
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

static const char *linkage_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	return n ? n : dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
}

static bool is_cxx(Dwarf_Die *die)
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

/* A type as GCC prints it ("const app::Acc&"), or false. */
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
		case DW_TAG_base_type: case DW_TAG_unspecified_type: case DW_TAG_typedef:
		case DW_TAG_structure_type: case DW_TAG_class_type: case DW_TAG_union_type:
		case DW_TAG_enumeration_type:
			if (!scoped_name(&t, named, sizeof(named), depth + 1))
				return false;
			steps[n++] = (struct type_step){ TYPE_NAMED, named };
			return qualname_type(steps, n, out, outsz);
		default:
			return false; /* arrays, functions, members: not spelled here */
		}
		if (!has_next) { /* "void*", "const void" */
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
 * name, else its own scoped name and parameters. */
static bool function_scope(Dwarf_Die *fn, char *out, size_t outsz, int depth)
{
	const char *l = linkage_name(fn);
	if (l && demangle(l, out, outsz))
		return true;
	Dwarf_Die decl;
	declaring_die(fn, &decl);
	char params[NAME_MAX_LEN];
	size_t len;
	if (!scoped_name(&decl, out, outsz, depth + 1))
		return false;
	len = strlen(out);
	if (param_list(&decl, params, sizeof(params), depth))
		snprintf(out + len, outsz - len, "%s", params);
	return true;
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
	if (!leaf && (tag == DW_TAG_structure_type || tag == DW_TAG_class_type) && is_closure(die, &op)) {
		char params[NAME_MAX_LEN - 16]; /* fits in closure whole, or not at all */
		bool known = param_list(&op, params, sizeof(params), depth);
		snprintf(closure, sizeof(closure), "<lambda%s>", known ? params : "");
		leaf = closure;
	}
	if (!leaf)
		return false;
	if (tag == DW_TAG_base_type || tag == DW_TAG_unspecified_type) {
		snprintf(out, outsz, "%s", leaf);
		return true;
	}

	Dwarf_Die *scopes = NULL;
	int nscopes = dwarf_getscopes_die(die, &scopes);
	struct qual_part parts[16];
	char texts[16][NAME_MAX_LEN];
	size_t n = 0;
	bool ok = true;
	/* scopes[0] is die itself, scopes[nscopes - 1] its unit. */
	for (int i = nscopes - 2; ok && i >= 1 && n < 16; i--) {
		Dwarf_Die *sc = &scopes[i];
		switch (dwarf_tag(sc)) {
		case DW_TAG_namespace:
			parts[n++] = (struct qual_part){ QUAL_NAMESPACE, dwarf_diename(sc), NULL, false };
			break;
		case DW_TAG_structure_type: case DW_TAG_class_type: case DW_TAG_union_type:
		case DW_TAG_enumeration_type:
			if (!dwarf_diename(sc) && (dwarf_tag(sc) == DW_TAG_structure_type ||
						   dwarf_tag(sc) == DW_TAG_class_type) && is_closure(sc, &op)) {
				bool known = param_list(&op, texts[n], sizeof(texts[n]), depth);
				parts[n] = (struct qual_part){ QUAL_LAMBDA, NULL, known ? texts[n] : NULL, false };
			} else {
				parts[n] = (struct qual_part){ QUAL_CLASS, dwarf_diename(sc), NULL, false };
			}
			n++;
			break;
		case DW_TAG_subprogram:
			ok = function_scope(sc, texts[n], sizeof(texts[n]), depth);
			parts[n] = (struct qual_part){ QUAL_FUNCTION, texts[n], NULL, true };
			n++;
			break;
		default:
			break; /* lexical blocks */
		}
	}
	free(scopes);
	if (!ok || nscopes < 0)
		return false;
	qualname_join(parts, n, leaf, out, outsz);
	return true;
}


static int by_origin(const void *a, const void *b)
{
	const struct copy *x = a, *y = b;
	return x->origin < y->origin ? -1 : x->origin > y->origin;
}

static void collect_copies(Dwarf_Die *scope, struct copy **c, size_t *n, size_t *cap, int depth)
{
	Dwarf_Die child;
	if (depth > 16 || dwarf_child(scope, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_namespace) {
			collect_copies(&child, c, n, cap, depth + 1);
			continue;
		}
		Dwarf_Attribute attr;
		Dwarf_Die origin;
		Dwarf_Addr pc, base, end;
		if (tag != DW_TAG_subprogram ||
		    !dwarf_formref_die(dwarf_attr(&child, DW_AT_abstract_origin, &attr), &origin))
			continue;
		if (dwarf_entrypc(&child, &pc) != 0 && dwarf_ranges(&child, 0, &base, &pc, &end) <= 0)
			continue; /* no code of its own */
		if (*n == *cap) {
			size_t ncap = *cap ? *cap * 2 : 16;
			struct copy *m = realloc(*c, ncap * sizeof(**c));
			if (!m)
				return;
			*c = m;
			*cap = ncap;
		}
		(*c)[(*n)++] = (struct copy){ origin.addr, pc };
	} while (dwarf_siblingof(&child, &child) == 0);
}

static bool is_public(const GElf_Sym *sym)
{
	int bind = GELF_ST_BIND(sym->st_info), vis = GELF_ST_VISIBILITY(sym->st_other);
	return (bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE) &&
	       (vis == STV_DEFAULT || vis == STV_PROTECTED);
}

static int by_address(const void *a, const void *b)
{
	const struct public_sym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static struct module_publics *module_publics(struct symbolizer *s, Dwfl_Module *mod)
{
	for (size_t i = 0; i < s->npublics; i++)
		if (s->publics[i].mod == mod)
			return &s->publics[i];
	if (s->npublics == s->publics_cap) {
		size_t ncap = s->publics_cap ? s->publics_cap * 2 : 8;
		struct module_publics *m = realloc(s->publics, ncap * sizeof(*m));
		if (!m)
			return NULL;
		s->publics = m;
		s->publics_cap = ncap;
	}
	struct module_publics *mp = &s->publics[s->npublics++];
	*mp = (struct module_publics){ mod, 0, NULL };
	int nsyms = dwfl_module_getsymtab(mod);
	size_t cap = 0;
	for (int i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
		if (!name || !name[0] || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || sym.st_size == 0 || !is_public(&sym))
			continue;
		if (mp->n == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			struct public_sym *m = realloc(mp->p, ncap * sizeof(*m));
			if (!m)
				break;
			mp->p = m;
			cap = ncap;
		}
		mp->p[mp->n++] = (struct public_sym){ addr, sym.st_size, name };
	}
	if (mp->n)
		qsort(mp->p, mp->n, sizeof(*mp->p), by_address);
	return mp;
}

/* The symbol holding addr, as dwfl_module_addrinfo finds it, except that
 * a local or hidden one gives way to a public alias: a public symbol with
 * the same start and size, the same code under the name callers use
 * (glibc's __GI___libc_read is read, its hidden-visibility internal
 * name).  libdw already prefers global symbols, but not over hidden ones,
 * and among equals it takes whichever its table order gives. */
static const char *symbol_at(struct symbolizer *s, Dwfl_Module *mod, uint64_t addr,
			     GElf_Off *off, GElf_Sym *sym)
{
	const char *raw = dwfl_module_addrinfo(mod, addr, off, sym, NULL, NULL, NULL);
	if (!raw || !raw[0] || is_public(sym) || !sym->st_size)
		return raw;
	struct module_publics *mp = module_publics(s, mod);
	if (!mp || !mp->n)
		return raw;
	struct public_sym key = { addr - *off, 0, NULL };
	struct public_sym *p = bsearch(&key, mp->p, mp->n, sizeof(*p), by_address);
	if (!p)
		return raw;
	while (p > mp->p && p[-1].addr == key.addr)
		p--;
	for (; p < mp->p + mp->n && p->addr == key.addr; p++)
		if (p->size == sym->st_size)
			return p->name;
	return raw;
}

/* The copies in unit (indexed on first use), or NULL. */
static struct unit_copies *unit_copies(struct symbolizer *s, Dwarf_Die *unit)
{
	for (size_t i = 0; i < s->nunits; i++)
		if (s->units[i].unit == unit->addr)
			return &s->units[i];
	if (s->nunits == s->units_cap) {
		size_t ncap = s->units_cap ? s->units_cap * 2 : 16;
		struct unit_copies *m = realloc(s->units, ncap * sizeof(*m));
		if (!m)
			return NULL;
		s->units = m;
		s->units_cap = ncap;
	}
	struct unit_copies *u = &s->units[s->nunits++];
	size_t cap = 0;
	*u = (struct unit_copies){ unit->addr, 0, NULL };
	collect_copies(unit, &u->c, &u->n, &cap, 0);
	if (u->n)
		qsort(u->c, u->n, sizeof(*u->c), by_origin);
	return u;
}

/* The name of the out-of-line copy of the function whose abstract DIE is
 * origin, found in unit: see 2. above. */
static bool copy_name(struct symbolizer *s, Dwfl_Module *mod, Dwarf_Addr bias, Dwarf_Die *unit,
		      Dwarf_Die *origin, char *out, size_t outsz)
{
	struct unit_copies *u = unit_copies(s, unit);
	if (!u || !u->n)
		return false;
	struct copy key = { origin->addr, 0 };
	struct copy *c = bsearch(&key, u->c, u->n, sizeof(*c), by_origin);
	if (!c)
		return false;
	while (c > u->c && c[-1].origin == origin->addr)
		c--;
	bool found = false;
	for (; c < u->c + u->n && c->origin == origin->addr; c++) {
		GElf_Off off = 0;
		GElf_Sym sym;
		const char *raw = symbol_at(s, mod, c->pc + bias, &off, &sym);
		if (!raw || !raw[0] || off != 0)
			continue; /* no symbol starts at its code */
		char name[NAME_MAX_LEN];
		readable_name(raw, name, sizeof(name));
		size_t len = strlen(name);
		qualname_strip_clone(name);
		if (!name[0])
			continue;
		if (!found || strlen(name) == len) {
			snprintf(out, outsz, "%s", name);
			found = true;
		}
		if (strlen(name) == len)
			break; /* the copy itself, not a clone */
	}
	return found;
}

/* The name of the function inlined at inl, as 1. to 5. above say, or NULL
 * when DWARF gives none.  Cached per abstract DIE. */
static const char *inlined_name(struct symbolizer *s, Dwfl_Module *mod, Dwarf_Addr bias,
				Dwarf_Die *site_unit, Dwarf_Die *inl)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin, decl, unit;
	if (!dwarf_formref_die(dwarf_attr(inl, DW_AT_abstract_origin, &attr), &origin))
		origin = *inl;
	if ((s->norigins + 1) * 4 > s->origins_cap * 3) {
		struct origin_slot *m = calloc(s->origins_cap * 2, sizeof(*m));
		if (m) {
			size_t cap = s->origins_cap * 2;
			for (size_t i = 0; i < s->origins_cap; i++) {
				if (!s->origins[i].origin)
					continue;
				size_t j = hash_u64((uint64_t)(uintptr_t)s->origins[i].origin) & (cap - 1);
				while (m[j].origin)
					j = (j + 1) & (cap - 1);
				m[j] = s->origins[i];
			}
			free(s->origins);
			s->origins = m;
			s->origins_cap = cap;
		}
	}
	struct origin_slot *slot = NULL;
	if (s->origins) {
		size_t i = hash_u64((uint64_t)(uintptr_t)origin.addr) & (s->origins_cap - 1);
		while (s->origins[i].origin && s->origins[i].origin != origin.addr)
			i = (i + 1) & (s->origins_cap - 1);
		slot = &s->origins[i];
		if (slot->origin)
			return slot->name[0] ? slot->name : NULL;
	}

	char name[NAME_MAX_LEN];
	const char *l = linkage_name(&origin);
	bool named = l && strncmp(l, "_Z", 2) == 0 && demangle(l, name, sizeof(name));
	if (!named && dwarf_diecu(&origin, &unit, NULL, NULL))
		named = copy_name(s, mod, bias, &unit, &origin, name, sizeof(name)) ||
			(site_unit->addr != unit.addr &&
			 copy_name(s, mod, bias, site_unit, &origin, name, sizeof(name)));
	if (!named && l) {
		readable_name(l, name, sizeof(name));
		named = true;
	}
	declaring_die(&origin, &decl);
	if (!named && is_cxx(&origin))
		named = scoped_name(&decl, name, sizeof(name), 0);
	if (!named && dwarf_diename(&decl)) {
		snprintf(name, sizeof(name), "%s", dwarf_diename(&decl));
		named = true;
	}
	const char *kept = named ? intern(s->names, name) : NULL;
	if (slot && (s->norigins + 1) * 4 <= s->origins_cap * 3) {
		*slot = (struct origin_slot){ origin.addr, kept ? kept : "" };
		s->norigins++;
	}
	return kept;
}

/* Where an inlined function was called from: file and line, or NULL. */
static const char *call_site(Dwarf_Die *inlined, Dwarf_Files *files, size_t nfiles, int *line)
{
	Dwarf_Attribute attr;
	Dwarf_Word file = 0, l = 0;
	*line = 0;
	if (!files || dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attr), &file) != 0 ||
	    dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attr), &l) != 0 || file >= nfiles)
		return NULL;
	*line = (int)l;
	return dwarf_filesrc(files, file, NULL, NULL);
}

/* DIEs that hold code, or hold DIEs that do. */
static bool may_hold_code(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit: case DW_TAG_partial_unit: case DW_TAG_module:
	case DW_TAG_namespace: case DW_TAG_class_type: case DW_TAG_structure_type:
	case DW_TAG_union_type: case DW_TAG_subprogram: case DW_TAG_lexical_block:
		return true;
	default:
		return false;
	}
}

/* The function whose code holds pc, anywhere below die.  libdw's
 * dwarf_getscopes does not look inside a DIE whose own code misses pc, but
 * a lambda's operator() (any local class's method) is a DIE inside its
 * enclosing function's. */
static bool find_function(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *found, int depth)
{
	Dwarf_Die child;
	if (depth > 64 || dwarf_child(die, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_subprogram && dwarf_haspc(&child, pc) > 0) {
			*found = child;
			return true;
		}
		if (tag == DW_TAG_imported_unit) { /* dwz's shared DIEs */
			Dwarf_Attribute attr;
			Dwarf_Die unit;
			if (dwarf_formref_die(dwarf_attr(&child, DW_AT_import, &attr), &unit) &&
			    find_function(&unit, pc, found, depth + 1))
				return true;
		} else if (may_hold_code(tag) && find_function(&child, pc, found, depth + 1)) {
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* The inlined calls holding pc below scope, outermost first. */
static int inlined_at(Dwarf_Die *scope, Dwarf_Addr pc, Dwarf_Die *out, int n, int depth)
{
	Dwarf_Die child;
	if (depth > 256 || dwarf_child(scope, &child) != 0)
		return n;
	do {
		int tag = dwarf_tag(&child);
		if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
		    dwarf_haspc(&child, pc) > 0) {
			if (tag == DW_TAG_inlined_subroutine && n < SYMBOLIZE_MAX_INLINE)
				out[n++] = child;
			return inlined_at(&child, pc, out, n, depth + 1);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

/* The function named outer, then what DWARF says is inlined at addr,
 * outermost first.  Each frame's line is where it is at addr: the
 * innermost one's from the line table, each other's the call site of the
 * inlined function it contains. */
static size_t with_inlined(struct symbolizer *s, Dwfl_Module *mod, uint64_t addr,
			   const char *outer, const char **out)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
	Dwarf_Die function, inl[SYMBOLIZE_MAX_INLINE];
	bool have_function = false;
	int k = 0;
	if (cu) {
		/* libdw's search first (fast, pruned); ours when it finds no
		 * function. */
		Dwarf_Die *scopes = NULL;
		int nscopes = dwarf_getscopes(cu, addr - bias, &scopes);
		for (int i = 0; i < nscopes && !have_function; i++)
			if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
				function = scopes[i];
				have_function = true;
			}
		free(scopes);
		if (!have_function)
			have_function = find_function(cu, addr - bias, &function, 0);
		if (have_function)
			k = inlined_at(&function, addr - bias, inl, 0, 0);
	}

	const char *file = NULL;
	int line = 0;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	if (s->o.lines) {
		Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
		if (l)
			file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
		if (k && dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
			files = NULL;
	}

	size_t n = 0;
	int at_line = line;
	const char *at_file = k ? call_site(&inl[0], files, nfiles, &at_line) : file;
	const char *text = frame_text(s, outer, at_file, at_line, false);
	if (text)
		out[n++] = text;
	for (int j = 0; s->o.inline_frames && j < k; j++) {
		const char *name = inlined_name(s, mod, bias, cu, &inl[j]);
		if (!name)
			continue; /* merged into its caller: not a wrong name */
		at_line = line;
		at_file = j + 1 < k ? call_site(&inl[j + 1], files, nfiles, &at_line) : file;
		if ((text = frame_text(s, name, at_file, at_line, true)))
			out[n++] = text;
	}
	return n;
}

/* The uncached lookup.  Fills out[], returns the number of frames. */
static size_t lookup(struct symbolizer *s, uint64_t addr, enum frame_kind kind,
		     const char **out)
{
	if (kind == FRAME_SIGNAL) {
		/* Where a handler returns to (glibc's __restore_rt, a local
		 * symbol few libcs keep): the boundary a reader looks for. */
		out[0] = intern(s->names, "[signal]");
		return out[0] ? 1 : 0;
	}
	/* modules_find re-reads the maps (rate limited) for an address in no
	 * mapping we know: a library loaded after we attached. */
	modules_find(s->modules, addr);
	Dwfl_Module *mod = modules_dwfl_module(s->modules, addr);
	if (!mod) {
		const char *anon = modules_anon_name(s->modules, addr);
		/* JIT code the JIT itself named (/tmp/perf-PID.map):
		 * "NAME_[j]", FlameGraph's mark for it. */
		const char *jit = anon && s->jit ? perfmap_file_lookup(s->jit, addr) : NULL;
		if (jit) {
			char text[NAME_MAX_LEN + 8], clean[NAME_MAX_LEN + 8];
			snprintf(text, sizeof(text), "%.*s_[j]", NAME_MAX_LEN, jit);
			frame_sanitize(text, clean, sizeof(clean));
			out[0] = intern(s->names, clean);
			return out[0] ? 1 : 0;
		}
		char clean[NAME_MAX_LEN];
		frame_sanitize(anon ? anon : "[unknown]", clean, sizeof(clean));
		out[0] = intern(s->names, clean);
		return out[0] ? 1 : 0;
	}
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *raw = symbol_at(s, mod, addr, &off, &sym);
	/* Never guess: a name is used only if the address lies inside the
	 * symbol's extent.  Size-less symbols (hand-written assembly) only
	 * name their own first instruction. */
	if (!raw || !raw[0] || !(sym.st_size ? off < sym.st_size : off == 0)) {
		out[0] = module_frame(s, mod, addr);
		return out[0] ? 1 : 0;
	}
	char name[NAME_MAX_LEN];
	readable_name(raw, name, sizeof(name));
	if (s->o.inline_frames || s->o.lines)
		return with_inlined(s, mod, addr, name, out);
	out[0] = frame_text(s, name, NULL, 0, false);
	return out[0] ? 1 : 0;
}

static struct name_slot *slot_for(struct name_slot *slots, size_t cap, uint64_t key)
{
	size_t i = hash_u64(key) & (cap - 1);
	while (slots[i].key && slots[i].key != key)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static void grow(struct symbolizer *s)
{
	size_t cap = s->cap * 2;
	struct name_slot *n = calloc(cap, sizeof(*n));
	if (!n)
		return;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i].key)
			*slot_for(n, cap, s->slots[i].key) = s->slots[i];
	free(s->slots);
	s->slots = n;
	s->cap = cap;
}

/* The shared key of addr: its module's build-id and offset.  false when
 * the module has no build-id (or addr is in none). */
static bool shared_key(struct symbolizer *s, uint64_t addr, enum frame_kind kind,
		       struct shared_slot *key)
{
	if (kind == FRAME_SIGNAL)
		return false;
	modules_find(s->modules, addr); /* re-reads the maps for a late library */
	Dwfl_Module *mod = modules_dwfl_module(s->modules, addr);
	Dwarf_Addr bias = 0;
	if (!mod || !dwfl_module_getelf(mod, &bias))
		return false;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len <= 0 || len > SHARED_ID_MAX)
		return false;
	memcpy(key->id, bits, (size_t)len);
	key->id_len = len;
	key->offset = addr - bias;
	key->key_bits = (unsigned)kind | (unsigned)s->o.inline_frames << 2 |
			(unsigned)s->o.lines << 3 | (unsigned)s->o.addresses << 4;
	uint64_t h = hash_u64(key->offset ^ (uint64_t)key->key_bits << 56);
	for (int i = 0; i < len; i++)
		h = hash_u64(h ^ bits[i]);
	key->hash = h | 1;
	return true;
}

static struct shared_slot *shared_slot(struct shared_slot *slots, size_t cap,
				       const struct shared_slot *key)
{
	size_t i = key->hash & (cap - 1);
	for (; slots[i].hash; i = (i + 1) & (cap - 1))
		if (slots[i].hash == key->hash && slots[i].offset == key->offset &&
		    slots[i].key_bits == key->key_bits && slots[i].id_len == key->id_len &&
		    memcmp(slots[i].id, key->id, (size_t)key->id_len) == 0)
			break;
	return &slots[i];
}

/* Keeps n names under key: the slot, or NULL when out of memory. */
static const struct shared_slot *shared_keep(const struct shared_slot *key,
					     const char *const *names, size_t n)
{
	if (!shared.slots) {
		shared.cap = 256;
		shared.slots = calloc(shared.cap, sizeof(*shared.slots));
		shared.names = intern_new();
		if (!shared.slots || !shared.names) {
			free(shared.slots);
			intern_free(shared.names);
			shared.slots = NULL;
			shared.names = NULL;
			return NULL;
		}
	}
	if ((shared.used + 1) * 4 > shared.cap * 3) {
		size_t cap = shared.cap * 2;
		struct shared_slot *bigger = calloc(cap, sizeof(*bigger));
		if (!bigger)
			return NULL;
		for (size_t i = 0; i < shared.cap; i++)
			if (shared.slots[i].hash)
				*shared_slot(bigger, cap, &shared.slots[i]) = shared.slots[i];
		free(shared.slots);
		shared.slots = bigger;
		shared.cap = cap;
	}
	const char **copy = malloc(n * sizeof(*copy));
	if (!copy)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!(copy[i] = intern(shared.names, names[i]))) {
			free(copy);
			return NULL;
		}
	struct shared_slot *slot = shared_slot(shared.slots, shared.cap, key);
	if (slot->hash) {
		free(copy);
		return slot;
	}
	*slot = *key;
	slot->n = n;
	slot->names = copy;
	shared.used++;
	return slot;
}

static struct reader *reader_of(const struct shared_slot *key)
{
	for (size_t i = 0; i < n_readers; i++)
		if (readers[i].id_len == key->id_len &&
		    memcmp(readers[i].id, key->id, (size_t)key->id_len) == 0)
			return &readers[i];
	return NULL;
}

/* Does owner still have that very file at that bias? */
static bool reader_holds(const struct reader *r, uint64_t addr)
{
	Dwfl_Module *mod = modules_dwfl_module(r->owner->modules, addr);
	Dwarf_Addr bias = 0;
	const unsigned char *bits;
	GElf_Addr vaddr;
	return mod && dwfl_module_getelf(mod, &bias) && bias == r->bias &&
	       dwfl_module_build_id(mod, &bits, &vaddr) == r->id_len &&
	       memcmp(bits, r->id, (size_t)r->id_len) == 0;
}

/* Who reads the file behind key for s, and at which address of theirs. */
static struct symbolizer *reader_for(struct symbolizer *s, const struct shared_slot *key,
				     uint64_t addr, uint64_t *at)
{
	uint64_t bias = addr - key->offset;
	struct reader *r = reader_of(key);
	if (r && r->owner != s && memcmp(&r->owner->o, &s->o, sizeof(s->o)) == 0 &&
	    reader_holds(r, key->offset + r->bias)) {
		*at = key->offset + r->bias;
		return r->owner;
	}
	if (!r && n_readers == cap_readers) {
		size_t cap = cap_readers ? 2 * cap_readers : 32;
		struct reader *bigger = realloc(readers, cap * sizeof(*bigger));
		if (!bigger)
			return s;
		readers = bigger;
		cap_readers = cap;
	}
	if (!r)
		r = &readers[n_readers++];
	*r = (struct reader){ .id_len = key->id_len, .owner = s, .bias = bias };
	memcpy(r->id, key->id, (size_t)key->id_len);
	*at = addr;
	return s;
}

size_t symbolize(struct symbolizer *s, uint64_t ip, enum frame_kind kind,
		 const char *const **names)
{
	uint64_t addr = kind == FRAME_CALL && ip > 0 ? ip - 1 : ip;
	*names = unknown_frame;
	if (addr == 0)
		return 1;
	if (modules_generation(s->modules) != s->generation) {
		/* Modules came or went: addresses may mean something else. */
		s->generation = modules_generation(s->modules);
		forget_addresses(s);
	}
	uint64_t key = addr << 2 | (uint64_t)kind;
	struct name_slot *slot = slot_for(s->slots, s->cap, key);
	if (slot->key) {
		*names = slot->names;
		return slot->n;
	}

	const char *found[1 + SYMBOLIZE_MAX_INLINE];
	size_t n = 0;
	struct shared_slot file_key;
	bool keyed = shared_key(s, addr, kind, &file_key);
	struct shared_slot *known =
		keyed && shared.slots ? shared_slot(shared.slots, shared.cap, &file_key) : NULL;
	if (known && known->hash) {
		n = known->n;
		memcpy(found, known->names, n * sizeof(*found));
		shared.hits++;
	} else {
		uint64_t at = addr;
		struct symbolizer *via = keyed ? reader_for(s, &file_key, addr, &at) : s;
		n = lookup(via, at, kind, found);
		const struct shared_slot *kept = keyed && n ? shared_keep(&file_key, found, n) : NULL;
		if (kept) /* the names then live as long as the shared ones */
			memcpy(found, kept->names, n * sizeof(*found));
		else if (via != s)
			n = lookup(s, addr, kind, found); /* not the other's strings */
	}
	const char **copy = n ? malloc(n * sizeof(*copy)) : NULL;
	if (!copy)
		return 1;
	memcpy(copy, found, n * sizeof(*copy));
	if ((s->used + 1) * 4 > s->cap * 3) {
		grow(s);
		slot = slot_for(s->slots, s->cap, key);
	}
	*slot = (struct name_slot){ key, n, copy };
	s->used++;
	*names = copy;
	return n;
}
