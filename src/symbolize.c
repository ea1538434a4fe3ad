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
	if (!s->slots || !s->names) {
		symbolizer_free(s);
		return NULL;
	}
	s->generation = modules_generation(m);
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
	for (size_t i = 0; i < n_readers;) /* no one asks it any more */
		if (readers[i].owner == s)
			readers[i] = readers[--n_readers];
		else
			i++;
	if (s->slots)
		forget_addresses(s);
	intern_free(s->names);
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
