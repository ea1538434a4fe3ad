/* symbolize.c - addresses to frame names with libdw: the run's names per
 * file, by ELF address, and each process's by address. */
#define _GNU_SOURCE
#include "name/symbolize.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "name/demangle.h"
#include "name/extents.h"
#include "unwind/files.h"
#include "base/frame.h"
#include "base/array.h"
#include "base/hash_index.h"
#include "base/intern.h"
#include "name/dwarfname.h"
#include "name/qualname.h"
#include "name/perfmap.h"

#define NAME_MAX_LEN 1024
#define FRAME_TEXT_MAX (NAME_MAX_LEN + 320) /* name, " (file:line)", "_[i]" */

/* Out-of-line copies of inline functions in one compile unit: the
 * abstract DIE each completes (by its address in the debug data) and its
 * first address, sorted by DIE. */
struct copy { const void *origin; Dwarf_Addr pc; };
struct unit_copies { const void *unit; size_t n; struct copy *c; };

/* A file's public symbols (global or weak binding, default or protected
 * visibility) that have a size, sorted by address. */
struct public_sym { GElf_Addr addr; GElf_Xword size; const char *name; };

/* The frames at one ELF address of a file; none where no symbol holds
 * it (the process names it after its module). */
struct vaddr_names {
	uint64_t vaddr;
	size_t n;
	const char **names;
};

/* An inlined function's name ("" for none) by its abstract DIE. */
struct origin_name {
	const void *origin;
	const char *name;
};

/* One file's names and what finding them needs: all of it points into
 * the file's symbols and debug data, which stay as long as the file. */
struct file_names {
	Dwfl_Module *mod;                 /* the file alone, at bias 0; NULL: no names */
	struct extents *extents;          /* libdw asked once an extent; NULL: each time */
	bool extents_tried;               /* extents made, or found impossible */
	struct vaddr_names *at;           /* by vaddr, through at_index */
	size_t n_at, cap_at;
	struct hash_index at_index;
	struct origin_name *origins;      /* by abstract DIE, through origin_index */
	size_t n_origins, cap_origins;
	struct hash_index origin_index;
	struct unit_copies *units;
	size_t nunits, units_cap;
	bool publics_read;
	struct public_sym *publics;
	size_t npublics;
};

struct namer {
	struct symbolize_options o;
	struct intern_set *names;         /* every name of the run */
	struct file_names **files;        /* by file_index, made on first use */
	size_t cap_files;
	uint64_t lookups;
	const volatile sig_atomic_t *hurry; /* namer_hurry's flag, or NULL */
	uint64_t hurried;                 /* addresses it left to their module */
};

/* The frames at one address of a process: the file's (names), or one of
 * the process's own (one: its module's, anonymous code's). */
struct addr_names {
	uint64_t key;                     /* address << 2 | kind */
	size_t n;
	const char *const *names;         /* NULL: &one */
	const char *one;
	bool in_no_module;                /* anonymous code or unknown: named */
	uint64_t as_of;                   /* as of this own_version() */
};

struct symbolizer {
	struct namer *namer;
	struct modules *modules;
	unsigned generation;              /* a changed module list empties the cache */
	struct addr_names *at;            /* through at_index */
	size_t n_at, cap_at;
	struct hash_index at_index;
	struct perfmap_file *jit;         /* the JIT's own map of its code, if any */
};

static const char *const unknown_frame[1] = { "[unknown]" };
static const char *const truncated_frame[1] = { "[truncated]" };

/* --- the run's names ------------------------------------------------------ */

struct namer *namer_new(const struct symbolize_options *o)
{
	struct namer *n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->o = *o;
	if (!(n->names = intern_new())) {
		free(n);
		return NULL;
	}
	return n;
}

static void free_file_names(struct file_names *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n_at; i++)
		free(f->at[i].names);
	free(f->at);
	hash_index_free(&f->at_index);
	free(f->origins);
	hash_index_free(&f->origin_index);
	for (size_t i = 0; i < f->nunits; i++)
		free(f->units[i].c);
	free(f->units);
	free(f->publics);
	extents_free(f->extents);
	free(f);
}

void namer_free(struct namer *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->cap_files; i++)
		free_file_names(n->files[i]);
	free(n->files);
	intern_free(n->names);
	free(n);
}

uint64_t namer_lookups(const struct namer *n)
{
	return n->lookups;
}

/* The names of file, made on first use. */
static struct file_names *names_of(struct namer *n, struct file *file)
{
	size_t i = file_index(file);
	size_t had = n->cap_files;
	if (!array_reserve((void **)&n->files, i + 1, &n->cap_files, sizeof(*n->files)))
		return NULL;
	memset(n->files + had, 0, (n->cap_files - had) * sizeof(*n->files));
	if (n->files[i])
		return n->files[i];
	struct file_names *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	if (hash_index_init(&f->at_index) != 0 || hash_index_init(&f->origin_index) != 0) {
		free_file_names(f);
		return NULL;
	}
	f->mod = file_dwfl_module(file);
	n->files[i] = f;
	return f;
}

/* --- a process's names -------------------------------------------------- */

struct symbolizer *symbolizer_new(struct namer *n, struct modules *m)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->namer = n;
	s->modules = m;
	if (hash_index_init(&s->at_index) != 0) {
		free(s);
		return NULL;
	}
	s->generation = modules_generation(m);
	/* Opened now, while the process is there to say where it is. */
	s->jit = perfmap_file_open(modules_task(m));
	return s;
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	free(s->at);
	hash_index_free(&s->at_index);
	perfmap_file_close(s->jit);
	free(s);
}

void symbolizer_freeze(struct symbolizer *s)
{
	perfmap_file_freeze(s->jit);
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
static const char *frame_text(struct namer *n, const char *name, const char *file, int line,
			      bool inlined)
{
	char raw[FRAME_TEXT_MAX], clean[FRAME_SANITIZED_MAX(FRAME_TEXT_MAX)];
	const char *base = file ? strrchr(file, '/') : NULL;
	base = base ? base + 1 : file;
	const char *suffix = inlined ? "_[i]" : "";
	if (n->o.lines && base && base[0] && line > 0)
		snprintf(raw, sizeof(raw), "%.*s (%.255s:%d)%s", NAME_MAX_LEN, name, base, line, suffix);
	else
		snprintf(raw, sizeof(raw), "%.*s%s", NAME_MAX_LEN, name, suffix);
	frame_sanitize(raw, clean, sizeof(clean));
	return intern(n->names, clean);
}

/* A frame with no symbol: "[libfoo.so]", or "libfoo.so+0x1a2b" (the
 * address in the ELF file, as addr2line -e takes it; for a file not read,
 * the offset in it) with --addresses.  The path is this process's: the
 * same file may be "/x" in one and "/x (deleted)" in another. */
static const char *module_frame(struct namer *n, const struct module_image *img, uint64_t addr)
{
	const char *path = img->name;
	char text[NAME_MAX_LEN + 32], clean[FRAME_SANITIZED_MAX(NAME_MAX_LEN + 32)];
	if (n->o.addresses) {
		uint64_t offset = addr - img->bias;
		const char *base = path[0] == '[' ? NULL : strrchr(path, '/');
		snprintf(text, sizeof(text), "%.*s+0x%" PRIx64, NAME_MAX_LEN,
			 base ? base + 1 : path, offset);
		frame_sanitize(text, clean, sizeof(clean));
	} else if (path[0] == '[') {
		frame_sanitize(path, clean, sizeof(clean));
	} else {
		frame_module_name(path, clean, sizeof(clean));
	}
	return intern(n->names, clean);
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
 *    (dwarfname.h), as c++filt would print its mangled name:
 *    "app::churn(int)::{lambda(int)#2}::operator()(int) const" (the
 *    closure's number counted from the closures declared in its
 *    function), and "std::invoke<main()::<lambda()>&>" (a template's
 *    DW_AT_name, its arguments in GCC's spelling).  This is for what GCC
 *    leaves unmangled: a lambda in a function that is not a template,
 *    templates instantiated with one.
 *
 * 5. In C, DW_AT_name.
 *
 * No name at all: the frame is left out (its code is merged into its
 * caller's frame, which is not a wrong name).  Names are cached per
 * abstract DIE, copies per compile unit. */

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
		if (!array_reserve((void **)c, *n + 1, cap, sizeof(**c)))
			return;
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

/* The file's public symbols, read on first use. */
static void read_publics(struct file_names *f)
{
	f->publics_read = true;
	int nsyms = dwfl_module_getsymtab(f->mod);
	size_t cap = 0;
	for (int i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(f->mod, i, &sym, &addr, NULL, NULL, NULL);
		if (!name || !name[0] || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || sym.st_size == 0 || !is_public(&sym))
			continue;
		if (!array_reserve((void **)&f->publics, f->npublics + 1, &cap, sizeof(*f->publics)))
			break;
		f->publics[f->npublics++] = (struct public_sym){ addr, sym.st_size, name };
	}
	if (f->npublics)
		qsort(f->publics, f->npublics, sizeof(*f->publics), by_address);
}

/* The symbol holding vaddr, as dwfl_module_addrinfo finds it (asked once
 * an extent, extents.h), except that
 * a local or hidden one gives way to a public alias: a public symbol with
 * the same start and size, the same code under the name callers use
 * (glibc's __GI___libc_read is read, its hidden-visibility internal
 * name).  libdw already prefers global symbols, but not over hidden ones,
 * and among equals it takes whichever its table order gives. */
static const char *symbol_at(struct file_names *f, uint64_t vaddr, GElf_Off *off, GElf_Sym *sym)
{
	if (!f->extents_tried) {
		f->extents_tried = true;
		f->extents = extents_new(f->mod);
	}
	const char *raw = f->extents ? extents_symbol(f->extents, vaddr, off, sym) :
				       dwfl_module_addrinfo(f->mod, vaddr, off, sym, NULL, NULL, NULL);
	if (!raw || !raw[0] || is_public(sym) || !sym->st_size)
		return raw;
	if (!f->publics_read)
		read_publics(f);
	if (!f->npublics)
		return raw;
	struct public_sym key = { vaddr - *off, 0, NULL };
	struct public_sym *p = bsearch(&key, f->publics, f->npublics, sizeof(*p), by_address);
	if (!p)
		return raw;
	while (p > f->publics && p[-1].addr == key.addr)
		p--;
	for (; p < f->publics + f->npublics && p->addr == key.addr; p++)
		if (p->size == sym->st_size)
			return p->name;
	return raw;
}

/* The copies in unit (indexed on first use), or NULL. */
static struct unit_copies *unit_copies(struct file_names *f, Dwarf_Die *unit)
{
	for (size_t i = 0; i < f->nunits; i++)
		if (f->units[i].unit == unit->addr)
			return &f->units[i];
	if (!array_reserve((void **)&f->units, f->nunits + 1, &f->units_cap, sizeof(*f->units)))
		return NULL;
	struct unit_copies *u = &f->units[f->nunits++];
	size_t cap = 0;
	*u = (struct unit_copies){ unit->addr, 0, NULL };
	collect_copies(unit, &u->c, &u->n, &cap, 0);
	if (u->n)
		qsort(u->c, u->n, sizeof(*u->c), by_origin);
	return u;
}

/* The name of the out-of-line copy of the function whose abstract DIE is
 * origin, found in unit: see 2. above. */
static bool copy_name(struct file_names *f, Dwarf_Addr bias, Dwarf_Die *unit, Dwarf_Die *origin,
		      char *out, size_t outsz)
{
	struct unit_copies *u = unit_copies(f, unit);
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
		const char *raw = symbol_at(f, c->pc + bias, &off, &sym);
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

static bool same_origin(const void *table, uint32_t id, const void *key)
{
	return ((const struct file_names *)table)->origins[id].origin == key;
}

/* The name of the function inlined at inl, as 1. to 5. above say, or NULL
 * when DWARF gives none.  Cached per abstract DIE. */
static const char *inlined_name(struct namer *n, struct file_names *f, Dwarf_Addr bias,
				Dwarf_Die *site_unit, Dwarf_Die *inl)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin, decl, unit;
	if (!dwarf_formref_die(dwarf_attr(inl, DW_AT_abstract_origin, &attr), &origin))
		origin = *inl;
	uint64_t h = hash_word((uint64_t)(uintptr_t)origin.addr);
	uint32_t id = hash_index_find(&f->origin_index, h, same_origin, f, origin.addr);
	if (id != HASH_NONE)
		return f->origins[id].name[0] ? f->origins[id].name : NULL;

	char name[NAME_MAX_LEN];
	const char *l = dwarf_linkage_name(&origin);
	bool named = l && strncmp(l, "_Z", 2) == 0 && demangle(l, name, sizeof(name));
	if (!named && dwarf_diecu(&origin, &unit, NULL, NULL))
		named = copy_name(f, bias, &unit, &origin, name, sizeof(name)) ||
			(site_unit->addr != unit.addr &&
			 copy_name(f, bias, site_unit, &origin, name, sizeof(name)));
	if (!named && l) {
		readable_name(l, name, sizeof(name));
		named = true;
	}
	dwarf_declaring_die(&origin, &decl);
	if (!named && dwarf_is_cxx(&origin))
		named = dwarf_scoped_name(&decl, name, sizeof(name));
	if (!named && dwarf_diename(&decl)) {
		snprintf(name, sizeof(name), "%s", dwarf_diename(&decl));
		named = true;
	}
	const char *kept = named ? intern(n->names, name) : NULL;
	if ((kept || !named) &&
	    array_reserve((void **)&f->origins, f->n_origins + 1, &f->cap_origins, sizeof(*f->origins)) &&
	    hash_index_add(&f->origin_index, h, (uint32_t)f->n_origins) == 0)
		f->origins[f->n_origins++] = (struct origin_name){ origin.addr, kept ? kept : "" };
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

/* A function inlined into itself from its own first line: GCC's artifact
 * (glibc's __libc_send in Debian 12's libc6-dbg holds an inlined
 * __libc_send whose call line is its own declaration's, and the stack
 * read "__send;__send_[i]"), no call in its body, so no frame.  A
 * recursive call that was inlined has its call line in the body, and
 * stays.  outer: the subprogram or inlined call inl lies in. */
static bool inlined_into_itself(Dwarf_Die *outer, Dwarf_Die *inl)
{
	Dwarf_Attribute attr;
	Dwarf_Die mine, theirs;
	if (!dwarf_formref_die(dwarf_attr(inl, DW_AT_abstract_origin, &attr), &mine))
		return false;
	Dwarf_Die *o = dwarf_formref_die(dwarf_attr(outer, DW_AT_abstract_origin, &attr), &theirs) ?
			       &theirs : outer;
	Dwarf_Word call_line;
	int decl_line;
	return o->addr == mine.addr &&
	       dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &attr), &call_line) == 0 &&
	       dwarf_decl_line(&mine, &decl_line) == 0 && call_line == (Dwarf_Word)decl_line;
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

/* The function named outer, then what DWARF says is inlined at vaddr,
 * outermost first.  Each frame's line is where it is at vaddr: the
 * innermost one's from the line table, each other's the call site of the
 * inlined function it contains. */
static size_t with_inlined(struct namer *nm, struct file_names *f, uint64_t vaddr,
			   const char *outer, const char **out)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(f->mod, vaddr, &bias);
	Dwarf_Die function, inl[SYMBOLIZE_MAX_INLINE];
	bool have_function = false;
	int k = 0;
	if (cu) {
		/* libdw's search first (fast, pruned); ours when it finds no
		 * function. */
		Dwarf_Die *scopes = NULL;
		int nscopes = dwarf_getscopes(cu, vaddr - bias, &scopes);
		for (int i = 0; i < nscopes && !have_function; i++)
			if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
				function = scopes[i];
				have_function = true;
			}
		free(scopes);
		if (!have_function)
			have_function = find_function(cu, vaddr - bias, &function, 0);
		if (have_function)
			k = inlined_at(&function, vaddr - bias, inl, 0, 0);
		/* a function inlined into itself is no frame: merged into its
		 * caller, which then shows the line of the code at vaddr */
		int kept = 0;
		for (int j = 0; j < k; j++)
			if (!inlined_into_itself(kept ? &inl[kept - 1] : &function, &inl[j]))
				inl[kept++] = inl[j];
		k = kept;
	}

	const char *file = NULL;
	int line = 0;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	if (nm->o.lines) {
		Dwfl_Line *l = dwfl_module_getsrc(f->mod, vaddr);
		if (l)
			file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
		if (k && dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
			files = NULL;
	}

	size_t n = 0;
	int at_line = line;
	const char *at_file = k ? call_site(&inl[0], files, nfiles, &at_line) : file;
	const char *text = frame_text(nm, outer, at_file, at_line, false);
	if (text)
		out[n++] = text;
	for (int j = 0; nm->o.inline_frames && j < k; j++) {
		const char *name = inlined_name(nm, f, bias, cu, &inl[j]);
		if (!name)
			continue; /* merged into its caller: not a wrong name */
		at_line = line;
		at_file = j + 1 < k ? call_site(&inl[j + 1], files, nfiles, &at_line) : file;
		if ((text = frame_text(nm, name, at_file, at_line, true)))
			out[n++] = text;
	}
	return n;
}

/* The uncached lookup in a file: fills out[], returns the number of
 * frames; 0 if no symbol holds vaddr. */
static size_t file_lookup(struct namer *n, struct file_names *f, uint64_t vaddr, const char **out)
{
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *raw = symbol_at(f, vaddr, &off, &sym);
	/* Never guess: a name is used only if the address lies inside the
	 * symbol's extent.  Size-less symbols (hand-written assembly) only
	 * name their own first instruction. */
	if (!raw || !raw[0] || !(sym.st_size ? off < sym.st_size : off == 0))
		return 0;
	char name[NAME_MAX_LEN];
	readable_name(raw, name, sizeof(name));
	if (n->o.inline_frames || n->o.lines)
		return with_inlined(n, f, vaddr, name, out);
	out[0] = frame_text(n, name, NULL, 0, false);
	return out[0] ? 1 : 0;
}

static bool same_vaddr(const void *table, uint32_t id, const void *key)
{
	return ((const struct file_names *)table)->at[id].vaddr == *(const uint64_t *)key;
}

void namer_hurry(struct namer *n, const volatile sig_atomic_t *flag)
{
	n->hurry = flag;
}

uint64_t namer_hurried(const struct namer *n)
{
	return n->hurried;
}

/* The frames at vaddr in file, whichever process asks: looked up once. */
size_t symbolize_file(struct namer *n, struct file *file, uint64_t vaddr,
		      const char *const **names)
{
	bool in_a_hurry = n->hurry && *n->hurry;
	size_t i = file_index(file);
	struct file_names *f = !in_a_hurry ? names_of(n, file) : i < n->cap_files ? n->files[i] : NULL;
	uint64_t h = hash_word(vaddr);
	uint32_t id = f ? hash_index_find(&f->at_index, h, same_vaddr, f, &vaddr) : HASH_NONE;
	if (id != HASH_NONE) {
		*names = f->at[id].names;
		return f->at[id].n;
	}
	if (!f || in_a_hurry) {
		n->hurried += in_a_hurry; /* named after its module, uncached here */
		return 0;
	}
	n->lookups++;
	const char *found[1 + SYMBOLIZE_MAX_INLINE];
	/* A file changed under us since (files.h) names nothing more: what
	 * it holds now is not what ran. */
	size_t k = f->mod && file_intact(file) ? file_lookup(n, f, vaddr, found) : 0;
	const char **copy = k ? malloc(k * sizeof(*copy)) : NULL;
	if (k && !copy)
		return 0;
	if (k)
		memcpy(copy, found, k * sizeof(*copy));
	if (!array_reserve((void **)&f->at, f->n_at + 1, &f->cap_at, sizeof(*f->at)) ||
	    hash_index_add(&f->at_index, h, (uint32_t)f->n_at) != 0) {
		free(copy);
		return 0;
	}
	f->at[f->n_at++] = (struct vaddr_names){ vaddr, k, copy };
	*names = copy;
	return k;
}

/* What names an address in no module depends on: the anonymous mappings
 * as the maps were last read, and the JIT's map as it is now.  Neither
 * changes the module generation. */
static uint64_t own_version(struct symbolizer *s)
{
	return (uint64_t)modules_refresh_count(s->modules) << 32 |
	       (s->jit ? perfmap_file_changes(s->jit) : 0);
}

/* The uncached lookup in a process: the file's names at the module's
 * vaddr, else one name of the process's own in *one (*in_no_module when
 * no module holds addr).  The number of frames, 0 when out of memory. */
static size_t lookup(struct symbolizer *s, uint64_t addr, enum frame_kind kind,
		     const char *const **names, const char **one, bool *in_no_module)
{
	struct namer *n = s->namer;
	*names = NULL;
	if (kind == FRAME_SIGNAL) {
		/* Where a handler returns to (glibc's __restore_rt, a local
		 * symbol few libcs keep): the boundary a reader looks for. */
		*one = intern(n->names, "[signal]");
		return *one ? 1 : 0;
	}
	/* The modules as last read, never read again here: the unwinder
	 * re-read them for an address in no mapping it knew when the sample
	 * was taken, and a re-read now (a library unloaded, another loaded
	 * where it was) would name what ran then after what is there now.  An
	 * address no module held then is unknown. */
	const struct module_image *img = modules_at(s->modules, addr);
	if (!img) {
		*in_no_module = true;
		const char *anon = modules_anon_name(s->modules, addr);
		/* JIT code the JIT itself named (/tmp/perf-PID.map):
		 * "NAME_[j]", FlameGraph's mark for it. */
		const char *jit = anon && s->jit ? perfmap_file_lookup(s->jit, addr) : NULL;
		char text[NAME_MAX_LEN + 8], clean[FRAME_SANITIZED_MAX(NAME_MAX_LEN + 8)];
		if (jit)
			snprintf(text, sizeof(text), "%.*s_[j]", NAME_MAX_LEN, jit);
		frame_sanitize(jit ? text : anon ? anon : "[unknown]", clean, sizeof(clean));
		*one = intern(n->names, clean);
		return *one ? 1 : 0;
	}
	if (img->file) {
		size_t k = symbolize_file(n, img->file, addr - img->bias, names);
		if (k)
			return k;
	}
	*names = NULL;
	*one = module_frame(n, img, addr);
	return *one ? 1 : 0;
}

static bool same_key(const void *table, uint32_t id, const void *key)
{
	return ((const struct symbolizer *)table)->at[id].key == *(const uint64_t *)key;
}

size_t symbolize(struct symbolizer *s, uint64_t ip, enum frame_kind kind,
		 const char *const **names)
{
	uint64_t addr = kind == FRAME_CALL && ip > 0 ? ip - 1 : ip;
	*names = kind == FRAME_TRUNCATED ? truncated_frame : unknown_frame;
	if (kind == FRAME_TRUNCATED)
		return 1;
	if (addr == 0)
		return 1;
	if (modules_generation(s->modules) != s->generation) {
		/* Modules came or went: addresses may mean something else.
		 * (What a file's vaddrs mean never changes.) */
		s->generation = modules_generation(s->modules);
		s->n_at = 0;
		hash_index_clear(&s->at_index);
	}
	uint64_t key = addr << 2 | (uint64_t)kind, h = hash_word(key);
	uint32_t id = hash_index_find(&s->at_index, h, same_key, s, &key);
	/* A name of the process's own memory holds while what it came from
	 * does: JIT code is named after the JIT's map as it is when naming
	 * (runs again and again with --period and SIGUSR1), not as it was
	 * the first time. */
	if (id == HASH_NONE || (s->at[id].in_no_module && s->at[id].as_of != own_version(s))) {
		const char *const *found;
		const char *one = NULL;
		bool in_no_module = false;
		size_t n = lookup(s, addr, kind, &found, &one, &in_no_module);
		if (!n)
			return 1;
		if (id == HASH_NONE) {
			if (!array_reserve((void **)&s->at, s->n_at + 1, &s->cap_at, sizeof(*s->at)) ||
			    hash_index_add(&s->at_index, h, (uint32_t)s->n_at) != 0)
				return 1;
			id = (uint32_t)s->n_at++;
		}
		s->at[id] = (struct addr_names){ key, n, found, one, in_no_module,
						 in_no_module ? own_version(s) : 0 };
	}
	const struct addr_names *a = &s->at[id];
	*names = a->names ? a->names : &a->one;
	return a->n;
}
