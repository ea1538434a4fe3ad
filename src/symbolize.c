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
#include "perfmap.h"

#define NAME_MAX_LEN 1024
#define FRAME_TEXT_MAX (NAME_MAX_LEN + 320) /* name, " (file:line)", "_[i]" */

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
	struct perfmap_file *jit;  /* the JIT's own map of its code, if any */
};

static const char *const unknown_frame[1] = { "[unknown]" };

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
	if (!s->slots || !s->names) {
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
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	if (s->slots)
		forget_addresses(s);
	intern_free(s->names);
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

/* The name an inlined function's DIE gives: its linkage name (for C++,
 * which demangles to the qualified name), else its plain name. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	return n ? n : dwarf_diename(die);
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
		const char *raw = die_name(&inl[j]);
		if (!raw)
			continue; /* merged into its caller: not a wrong name */
		char name[NAME_MAX_LEN];
		readable_name(raw, name, sizeof(name));
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
	const char *raw = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
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
	size_t n = lookup(s, addr, kind, found);
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
