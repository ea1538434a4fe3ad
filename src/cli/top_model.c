/* top_model.c - --top's counts of functions, states, waits and queries
 * over the last window and since the start (top_model.h). */
#define _GNU_SOURCE
#include "cli/top_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash_index.h"
#include "base/intern.h"
#include "output/frame_role.h"

#define NO_STACK "[no stack]"
#define STATE_SEARCH 5 /* the OS state is at most this deep: thread, query, wait, state */

/* Where counts go: what is shown (the last window, since the start), and
 * what arrives while paused (the latest window, everything meanwhile). */
enum slot { SHOWN_WINDOW, SHOWN_ALL, LATEST, PENDING, SLOTS };

struct top_count {
	uint64_t own[2], total[2]; /* by enum top_frames; tables use total[TOP_USER] */
	double own_s[2], total_s[2];
};

struct entry {
	const char *name;   /* the model's own copy */
	enum top_kind kind;
	uint64_t seen[2];   /* the stack it was last counted in, by enum top_frames */
	struct top_count c[SLOTS];
};

struct top_model {
	struct intern_set *names;
	struct entry *entries;
	size_t n, cap;
	struct hash_index index;
	struct top_figures fig[SLOTS];
	bool paused, arrived_paused;
	uint64_t stack_serial;
	/* the window being counted: its slots and the seconds a sample stands for */
	enum slot into[2];
	double sample_s;
};

struct key {
	const char *name; /* interned */
	enum top_kind kind;
};

static bool entry_is(const void *table, uint32_t id, const void *key)
{
	const struct entry *e = &((const struct entry *)table)[id];
	const struct key *k = key;
	return e->name == k->name && e->kind == k->kind;
}

struct top_model *top_model_new(void)
{
	struct top_model *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->names = intern_new();
	if (!m->names || hash_index_init(&m->index) != 0) {
		intern_free(m->names);
		free(m);
		return NULL;
	}
	return m;
}

void top_model_free(struct top_model *m)
{
	if (!m)
		return;
	hash_index_free(&m->index);
	intern_free(m->names);
	free(m->entries);
	free(m);
}

/* The entry of name as kind, made on first sight; NULL when out of memory. */
static struct entry *entry_of(struct top_model *m, const char *name, enum top_kind kind)
{
	struct key k = { intern(m->names, name), kind };
	if (!k.name)
		return NULL;
	uint64_t hash = hash_word((uint64_t)(uintptr_t)k.name ^ (uint64_t)kind);
	uint32_t id = hash_index_find(&m->index, hash, entry_is, m->entries, &k);
	if (id != HASH_NONE)
		return &m->entries[id];
	if (m->n >= HASH_NONE ||
	    !array_reserve((void **)&m->entries, m->n + 1, &m->cap, sizeof(*m->entries)) ||
	    hash_index_add(&m->index, hash, (uint32_t)m->n) != 0)
		return NULL;
	struct entry *e = &m->entries[m->n++];
	memset(e, 0, sizeof(*e));
	e->name = k.name;
	e->kind = kind;
	return e;
}

/* count samples of the stack being counted in e's total (own: in its own
 * too), once per stack for each way of counting frames. */
static int add(struct top_model *m, const char *name, enum top_kind kind, enum top_frames how,
	       bool own, uint64_t count)
{
	struct entry *e = entry_of(m, name, kind);
	if (!e)
		return -1;
	for (int i = 0; i < 2; i++) {
		struct top_count *c = &e->c[m->into[i]];
		if (own) {
			c->own[how] += count;
			c->own_s[how] += (double)count * m->sample_s;
		}
		if (e->seen[how] != m->stack_serial) {
			c->total[how] += count;
			c->total_s[how] += (double)count * m->sample_s;
		}
	}
	e->seen[how] = m->stack_serial;
	return 0;
}

/* The index of the OS state frame; 0 when there is none. */
static size_t state_index(const char *const *f, size_t n)
{
	for (size_t i = 1; i < n && i < STATE_SEARCH; i++)
		if (frame_is_os_state(f[i])) /* t (stopped by ptrace_profiler) too */
			return i;
	return 0;
}

/* Counts one stack (root first) into the slots of the window. */
static int count_stack(struct top_model *m, const char *const *f, size_t n, uint64_t count)
{
	m->stack_serial++;
	size_t state = state_index(f, n);
	int rc = 0;
	for (size_t i = 1; i < state; i++)
		rc |= add(m, f[i], frame_is_app_state(f[i]) ? TOP_WAIT : TOP_QUERY, TOP_USER, false, count);
	if (state)
		rc |= add(m, f[state], TOP_STATE, TOP_USER, false, count);
	size_t user = state + 1, kernel = user;
	while (kernel < n && !ends_with(f[kernel], "_[k]"))
		kernel++;
	for (size_t i = user; i < n; i++) {
		bool innermost = i + 1 == n;
		if (i < kernel) /* a user frame: a function both ways */
			rc |= add(m, f[i], TOP_FUNCTION, TOP_USER, i + 1 == kernel, count);
		rc |= add(m, f[i], TOP_FUNCTION, TOP_KERNEL, innermost, count);
	}
	/* Kernel frames hidden: a stack with none of the user's stands in its
	 * innermost kernel frame. */
	if (kernel == user)
		rc |= add(m, kernel < n ? f[n - 1] : NO_STACK, TOP_FUNCTION, TOP_USER, true, count);
	if (n <= user)
		rc |= add(m, NO_STACK, TOP_FUNCTION, TOP_KERNEL, true, count);
	return rc;
}

int top_root_pid(const char *root)
{
	for (const char *p = strchr(root, '['); p; p = strchr(p + 1, '[')) {
		size_t digits = strspn(p + 1, "0123456789");
		char after = digits && digits < 10 && p[1 + digits] == ']' ? p[2 + digits] : 'x';
		if (after == '/' || after == ' ' || after == '\0')
			return atoi(p + 1);
	}
	return 0;
}

static int by_pid(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* The processes the root frames name (0: they name none). */
static size_t processes(const int *pids, size_t n, int *sorted)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (pids[i])
			sorted[k++] = pids[i];
	qsort(sorted, k, sizeof(*sorted), by_pid);
	size_t distinct = 0;
	for (size_t i = 0; i < k; i++)
		distinct += i == 0 || sorted[i] != sorted[i - 1];
	return distinct;
}

static void clear_slot(struct top_model *m, enum slot s)
{
	for (size_t i = 0; i < m->n; i++)
		memset(&m->entries[i].c[s], 0, sizeof(m->entries[i].c[s]));
	memset(&m->fig[s], 0, sizeof(m->fig[s]));
}

static void add_figures(struct top_figures *to, const struct top_figures *from)
{
	to->windows += from->windows;
	to->duration_ns += from->duration_ns;
	to->ticks += from->ticks;
	to->stopped_ns += from->stopped_ns;
	to->samples += from->samples;
	to->processes = from->processes; /* the last window's */
}

int top_model_add_window(struct top_model *m, const struct stack_table *stacks,
			 const struct top_window_info *info)
{
	if (m->paused && !m->arrived_paused) {
		clear_slot(m, PENDING);
		m->arrived_paused = true;
	}
	m->into[0] = m->paused ? LATEST : SHOWN_WINDOW;
	m->into[1] = m->paused ? PENDING : SHOWN_ALL;
	clear_slot(m, m->into[0]);
	m->sample_s = info->ticks ? (double)info->duration_ns / 1e9 / (double)info->ticks : 0;
	struct top_figures fig = { .windows = 1, .duration_ns = info->duration_ns,
				   .ticks = info->ticks,
				   .stopped_ns = info->stopped_ns };
	size_t depth = stack_table_max_depth(stacks), distinct = stack_table_distinct(stacks);
	const char **frames = malloc(depth * sizeof(*frames));
	int *pids = calloc(2 * distinct + 1, sizeof(*pids));
	int rc = frames && pids ? 0 : -1;
	for (size_t id = 0; id < distinct && rc == 0; id++) {
		uint64_t count = 0;
		size_t n = stack_table_frames(stacks, id, frames, depth, &count);
		if (n == 0 || count == 0)
			continue;
		pids[id] = top_root_pid(frames[0]);
		rc = count_stack(m, frames, n, count);
		fig.samples += count;
	}
	if (rc == 0)
		fig.processes = processes(pids, distinct, pids + distinct);
	free(frames);
	free(pids);
	for (int i = 0; i < 2; i++)
		add_figures(&m->fig[m->into[i]], &fig);
	return rc ? -1 : 0;
}

static void add_count(struct top_count *to, const struct top_count *from)
{
	for (int k = 0; k < 2; k++) {
		to->own[k] += from->own[k];
		to->total[k] += from->total[k];
		to->own_s[k] += from->own_s[k];
		to->total_s[k] += from->total_s[k];
	}
}

void top_model_pause(struct top_model *m, bool paused)
{
	if (!paused && m->paused && m->arrived_paused) {
		for (size_t i = 0; i < m->n; i++) {
			struct entry *e = &m->entries[i];
			e->c[SHOWN_WINDOW] = e->c[LATEST];
			add_count(&e->c[SHOWN_ALL], &e->c[PENDING]);
		}
		m->fig[SHOWN_WINDOW] = m->fig[LATEST];
		add_figures(&m->fig[SHOWN_ALL], &m->fig[PENDING]);
		m->arrived_paused = false;
	}
	m->paused = paused;
}

bool top_model_paused(const struct top_model *m)
{
	return m->paused;
}

const struct top_figures *top_model_figures(const struct top_model *m, enum top_span span)
{
	return &m->fig[span == TOP_WINDOW ? SHOWN_WINDOW : SHOWN_ALL];
}

static int by_own(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;
	if (x->own != y->own)
		return x->own > y->own ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int by_total(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->own != y->own)
		return x->own > y->own ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The entries of kind with a sample in span, sorted, at most max. */
static size_t rows(const struct top_model *m, enum top_kind kind, enum top_span span,
		   enum top_sort sort, enum top_frames how, struct top_row *out, size_t max)
{
	enum slot s = span == TOP_WINDOW ? SHOWN_WINDOW : SHOWN_ALL;
	double samples = (double)m->fig[s].samples;
	struct top_row *all = malloc((m->n ? m->n : 1) * sizeof(*all));
	if (!all)
		return 0;
	size_t n = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct entry *e = &m->entries[i];
		const struct top_count *c = &e->c[s];
		if (e->kind != kind || !c->total[how])
			continue;
		all[n++] = (struct top_row){
			.name = e->name, .own = c->own[how], .total = c->total[how],
			.own_share = samples > 0 ? (double)c->own[how] / samples : 0,
			.total_share = samples > 0 ? (double)c->total[how] / samples : 0,
			.own_s = c->own_s[how], .total_s = c->total_s[how],
		};
	}
	qsort(all, n, sizeof(*all), sort == TOP_BY_OWN ? by_own : by_total);
	if (n > max)
		n = max;
	memcpy(out, all, n * sizeof(*out));
	free(all);
	return n;
}

size_t top_model_functions(const struct top_model *m, enum top_span span, enum top_sort sort,
			   enum top_frames frames, struct top_row *out, size_t max)
{
	return rows(m, TOP_FUNCTION, span, sort, frames, out, max);
}

size_t top_model_table(const struct top_model *m, enum top_kind kind, enum top_span span,
		       struct top_row *out, size_t max)
{
	return rows(m, kind, span, TOP_BY_TOTAL, TOP_USER, out, max);
}

size_t top_model_count(const struct top_model *m, enum top_kind kind, enum top_span span,
		       enum top_frames frames)
{
	enum slot s = span == TOP_WINDOW ? SHOWN_WINDOW : SHOWN_ALL;
	enum top_frames how = kind == TOP_FUNCTION ? frames : TOP_USER;
	size_t n = 0;
	for (size_t i = 0; i < m->n; i++)
		n += m->entries[i].kind == kind && m->entries[i].c[s].total[how];
	return n;
}
