/* symbolize.c - addresses to function names with libdw, cached. */
#define _GNU_SOURCE
#include "symbolize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"

#define NAME_MAX_LEN 512

struct name_slot {
	uint64_t addr; /* lookup address; 0 = empty */
	const char *name;
};

struct symbolizer {
	struct modules *modules;
	struct name_slot *slots;
	size_t cap, used;          /* cap is a power of two */
	unsigned seen_refreshes;   /* a changed module list empties the cache */
	char **strings;            /* every name handed out, freed at the end */
	size_t n_strings, cap_strings;
};

static uint64_t hash_addr(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdULL;
	a ^= a >> 33;
	return a;
}

struct symbolizer *symbolizer_new(struct modules *m)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->modules = m;
	s->cap = 1024;
	s->slots = calloc(s->cap, sizeof(*s->slots));
	if (!s->slots) {
		free(s);
		return NULL;
	}
	s->seen_refreshes = modules_refresh_count(m);
	return s;
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_strings; i++)
		free(s->strings[i]);
	free(s->strings);
	free(s->slots);
	free(s);
}

static const char *keep(struct symbolizer *s, const char *text)
{
	if (s->n_strings == s->cap_strings) {
		size_t cap = s->cap_strings ? s->cap_strings * 2 : 256;
		char **n = realloc(s->strings, cap * sizeof(*n));
		if (!n)
			return NULL;
		s->strings = n;
		s->cap_strings = cap;
	}
	char *copy = strdup(text);
	if (copy)
		s->strings[s->n_strings++] = copy;
	return copy;
}

static struct name_slot *slot_for(struct name_slot *slots, size_t cap, uint64_t addr)
{
	size_t i = hash_addr(addr) & (cap - 1);
	while (slots[i].addr && slots[i].addr != addr)
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
		if (s->slots[i].addr)
			*slot_for(n, cap, s->slots[i].addr) = s->slots[i];
	free(s->slots);
	s->slots = n;
	s->cap = cap;
}

/* The uncached lookup.  Writes a sanitized frame name into out. */
static void lookup(struct symbolizer *s, uint64_t addr, char *out, size_t outsz)
{
	/* modules_find re-reads the maps (rate limited) for an address no
	 * known module holds: a library loaded after we attached. */
	const struct module_image *img = modules_find(s->modules, addr);
	Dwfl_Module *mod = dwfl_addrmodule(modules_dwfl(s->modules), addr);
	if (!mod) {
		frame_sanitize(img ? img->name : "[unknown]", out, outsz);
		return;
	}
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	/* Never guess: a name is used only if the address lies inside the
	 * symbol's extent.  Size-less symbols (hand-written assembly) only
	 * name their own first instruction. */
	if (name && name[0] && (sym.st_size ? off < sym.st_size : off == 0)) {
		/* "clock_gettime@@GLIBC_2.17": the version is not the name. */
		char plain[NAME_MAX_LEN];
		snprintf(plain, sizeof(plain), "%.*s", (int)strcspn(name, "@"), name);
		frame_sanitize(plain, out, outsz);
		return;
	}
	const char *path = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	if (path && strncmp(path, "[vdso", 5) == 0)
		path = "[vdso]";
	if (path && path[0] == '[')
		frame_sanitize(path, out, outsz);
	else
		frame_module_name(path ? path : "", out, outsz);
}

const char *symbolize(struct symbolizer *s, uint64_t ip, bool return_address)
{
	uint64_t addr = return_address && ip > 0 ? ip - 1 : ip;
	if (addr == 0)
		return "[unknown]";
	if (modules_refresh_count(s->modules) != s->seen_refreshes) {
		/* Modules may have moved: addresses may mean something else now. */
		s->seen_refreshes = modules_refresh_count(s->modules);
		memset(s->slots, 0, s->cap * sizeof(*s->slots));
		s->used = 0;
	}
	struct name_slot *slot = slot_for(s->slots, s->cap, addr);
	if (slot->addr)
		return slot->name;

	char buf[NAME_MAX_LEN];
	lookup(s, addr, buf, sizeof(buf));
	const char *name = keep(s, buf);
	if (!name)
		return "[unknown]";
	if ((s->used + 1) * 4 > s->cap * 3) {
		grow(s);
		slot = slot_for(s->slots, s->cap, addr);
	}
	slot->addr = addr;
	slot->name = name;
	s->used++;
	return name;
}
