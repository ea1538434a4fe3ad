/* extents.c - libdw's symbol for an address, asked once an extent
 * (extents.h). */
#include "name/extents.h"

#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/array.h"

#define SOLE_NONE UINT32_MAX

/* libdw's answer for the extent it was asked about. */
struct answer {
	const char *name; /* NULL: no symbol holds the extent */
	GElf_Sym sym;     /* as libdw filled it */
	uint64_t start;   /* the address the offsets are measured from */
};

/* A symbol libdw may answer with a size: named, defined, no section,
 * file or thread-local one. */
struct sized {
	const char *name;
	GElf_Sym sym;
	uint64_t start, end; /* as libdw resolves it */
};

struct extents {
	Dwfl_Module *mod;
	struct sized *sized;
	size_t n_sized, cap_sized;
	/* Extent k's one sized symbol, sized's index + 1, when it is the
	 * only one that holds it and no sizeless symbol starts where the
	 * extent does; SOLE_NONE when no symbol holds it; else 0 (libdw is
	 * asked). */
	uint32_t *sole;
	uint64_t *sizeless;       /* where each sizeless one libdw may answer with starts */
	size_t n_sizeless;
	uint64_t *cut;        /* ascending, no two alike */
	size_t n_cut;
	/* Extent k, 0 <= k <= n_cut, is [cut[k - 1], cut[k]): extent 0 lies
	 * below every cut, extent n_cut at or above the last one. */
	uint32_t *answer_of;  /* n_cut + 1: 0 not asked yet, else answers' index + 1 */
	struct answer *answers;
	size_t n_answers, cap_answers;
	uint64_t asked;
};

static int ascending(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* A symbol libdw may answer with at all. */
static bool answerable(const char *name, const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);
	return name && name[0] && sym->st_shndx != SHN_UNDEF && type != STT_SECTION &&
	       type != STT_FILE && type != STT_TLS;
}

static bool add_cut(uint64_t **cut, size_t *n, size_t *cap, uint64_t at)
{
	if (!array_reserve((void **)cut, *n + 1, cap, sizeof(**cut)))
		return false;
	(*cut)[(*n)++] = at;
	return true;
}

/* Every symbol's start and end (a sizeless one: start + 1), as the table
 * gives them and as libdw resolves them, and every section's bounds. */
static bool read_cuts(struct extents *e)
{
	size_t cap = 0, cap_starts = 0;
	int nsyms = dwfl_module_getsymtab(e->mod);
	for (int i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(e->mod, i, &sym, &addr, NULL, NULL, NULL);
		if (!name)
			continue;
		uint64_t size = sym.st_size ? sym.st_size : 1;
		if (sym.st_size && answerable(name, &sym) && addr + size > addr) {
			if (!array_reserve((void **)&e->sized, e->n_sized + 1, &e->cap_sized,
					   sizeof(*e->sized)))
				return false;
			e->sized[e->n_sized++] = (struct sized){ name, sym, addr, addr + size };
		} else if (answerable(name, &sym) && !add_cut(&e->sizeless, &e->n_sizeless,
								&cap_starts, addr)) {
			return false;
		}
		if (!add_cut(&e->cut, &e->n_cut, &cap, addr) ||
		    !add_cut(&e->cut, &e->n_cut, &cap, addr + size) ||
		    (sym.st_value != addr &&
		     (!add_cut(&e->cut, &e->n_cut, &cap, sym.st_value) ||
		      !add_cut(&e->cut, &e->n_cut, &cap, sym.st_value + size))))
			return false;
	}
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(e->mod, &bias);
	for (Elf_Scn *scn = elf ? elf_nextscn(elf, NULL) : NULL; scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
		/* libdw counts a section's end as in it: that byte alone */
		uint64_t start = sh ? sh->sh_addr + bias : 0, end = sh ? start + sh->sh_size : 0;
		if (sh && (!add_cut(&e->cut, &e->n_cut, &cap, start) ||
			   !add_cut(&e->cut, &e->n_cut, &cap, end) ||
			   !add_cut(&e->cut, &e->n_cut, &cap, end + 1)))
			return false;
	}
	if (!e->n_cut)
		return true;
	qsort(e->cut, e->n_cut, sizeof(*e->cut), ascending);
	size_t n = 1;
	for (size_t i = 1; i < e->n_cut; i++)
		if (e->cut[i] != e->cut[n - 1])
			e->cut[n++] = e->cut[i];
	e->n_cut = n;
	return true;
}

/* The extent vaddr lies in: the number of cuts at or below it. */
static size_t extent_of(const struct extents *e, uint64_t vaddr)
{
	size_t lo = 0, hi = e->n_cut;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e->cut[mid] <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Each extent's sole sized symbol: counted over the extents by
 * differences, the sum of the indices of those that hold it then names
 * the one when there is one. */
static bool find_soles(struct extents *e)
{
	size_t n = e->n_cut + 2;
	int32_t *count = calloc(n, sizeof(*count));
	uint64_t *sum = calloc(n, sizeof(*sum));
	e->sole = calloc(n, sizeof(*e->sole));
	if (!count || !sum || !e->sole) {
		free(count);
		free(sum);
		return false;
	}
	for (size_t j = 0; j < e->n_sized; j++) {
		size_t from = extent_of(e, e->sized[j].start), to = extent_of(e, e->sized[j].end);
		count[from]++, sum[from] += j;
		count[to]--, sum[to] -= j;
	}
	int32_t c = 0;
	uint64_t s = 0;
	for (size_t k = 0; k <= e->n_cut; k++) {
		c += count[k], s += sum[k];
		if (c == 1 && s < e->n_sized && s < SOLE_NONE - 1)
			e->sole[k] = (uint32_t)s + 1;
		else if (c == 0)
			e->sole[k] = SOLE_NONE;
	}
	/* where a sizeless symbol starts, libdw may prefer it: asked */
	for (size_t i = 0; i < e->n_sizeless; i++)
		e->sole[extent_of(e, e->sizeless[i])] = 0;
	free(count);
	free(sum);
	return true;
}

struct extents *extents_new(Dwfl_Module *mod)
{
	struct extents *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->mod = mod;
	if (!read_cuts(e) || !find_soles(e) ||
	    !(e->answer_of = calloc(e->n_cut + 1, sizeof(*e->answer_of)))) {
		extents_free(e);
		return NULL;
	}
	return e;
}

void extents_free(struct extents *e)
{
	if (!e)
		return;
	free(e->cut);
	free(e->sized);
	free(e->sole);
	free(e->sizeless);
	free(e->answer_of);
	free(e->answers);
	free(e);
}

const char *extents_symbol(struct extents *e, uint64_t vaddr, GElf_Off *off, GElf_Sym *sym)
{
	size_t k = extent_of(e, vaddr);
	uint32_t id = e->answer_of[k];
	if (id) {
		const struct answer *a = &e->answers[id - 1];
		*off = a->name ? vaddr - a->start : 0;
		if (a->name)
			*sym = a->sym;
		return a->name;
	}
	if (e->sole[k] == SOLE_NONE) {
		*off = 0;
		return NULL;
	}
	if (e->sole[k]) {
		/* the one symbol that can be the answer: libdw's (extents.h) */
		const struct sized *one = &e->sized[e->sole[k] - 1];
		*off = vaddr - one->start;
		*sym = one->sym;
		return one->name;
	}
	e->asked++;
	*off = 0;
	const char *name = dwfl_module_addrinfo(e->mod, vaddr, off, sym, NULL, NULL, NULL);
	if (name && !(sym->st_size ? *off < sym->st_size : *off == 0))
		name = NULL; /* a sizeless one below vaddr: it does not hold it */
	if (!name)
		*off = 0;
	/* A sized symbol holds its whole extent (extents.h); one that does
	 * not - which libdw never answers - is kept to this address alone. */
	bool whole = !name || !sym->st_size || k == 0 || k == e->n_cut ||
		     (vaddr - *off <= e->cut[k - 1] && vaddr - *off + sym->st_size >= e->cut[k]);
	if (whole && e->n_answers < UINT32_MAX - 1 &&
	    array_reserve((void **)&e->answers, e->n_answers + 1, &e->cap_answers,
			  sizeof(*e->answers))) {
		e->answers[e->n_answers++] = (struct answer){ name, name ? *sym : (GElf_Sym){ 0 },
							      vaddr - *off };
		e->answer_of[k] = (uint32_t)e->n_answers;
	}
	return name;
}

uint64_t extents_asked(const struct extents *e)
{
	return e->asked;
}

size_t extents_count(const struct extents *e)
{
	return e->n_cut + 1;
}
