/* program.c - a process image's modules, unwinder and symbolizer, and the
 * stacks counted by address until they are named (program.h). */
#include "profile/program.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/frame.h"
#include "base/array.h"
#include "name/outermost.h"
#include "profile/cut.h"

/* Stacks not named yet past this many: name them, so that memory stays
 * bounded whatever the target does. */
#define PENDING_MAX 65536

/* Where a cut stack's unwind stopped: the module of its outermost frame,
 * as a frame names it ("[libc.so.6]", "[anon]", "[unknown]"). */
static void stopped_in(struct program *p, const struct unwound_frame *f, char *out, size_t len,
		       bool *anon)
{
	uint64_t addr = f->kind == FRAME_CALL && f->ip ? f->ip - 1 : f->ip;
	const struct module_image *img = modules_at(p->modules, addr);
	const char *anon_name = img ? NULL : modules_anon_name(p->modules, addr);
	*anon = anon_name != NULL;
	if (img && img->name[0] != '[')
		frame_module_name(img->name, out, len);
	else if (img)
		frame_sanitize(img->name, out, len); /* "[vdso]" */
	else
		frame_sanitize(anon_name ? anon_name : "[unknown]", out, len);
}

/* Names the frames, outermost first.  A cut stack's mark ("[truncated]")
 * goes where the frame after it is known by name to begin a thread (Go's
 * scheduler: outermost.h); else its count samples are counted cut. */
static size_t name_frames(struct program *p, const struct unwound_frame *frames, size_t n_frames,
			  uint64_t count, const char **user, uint64_t *user_ip)
{
	size_t n_user = 0;
	for (size_t i = n_frames; i-- > 0;) {
		const char *const *names;
		size_t n = symbolize(p->symbolizer, frames[i].ip, frames[i].kind, &names);
		for (size_t k = 0; k < n && n_user < PROGRAM_USER_FRAMES_MAX; k++) {
			user[n_user] = names[k];
			user_ip[n_user++] = frames[i].ip;
		}
	}
	if (n_frames < 2 || frames[n_frames - 1].kind != FRAME_TRUNCATED)
		return n_user;
	if (n_user > 1 && outermost_name(user[1])) {
		memmove(user, user + 1, (n_user - 1) * sizeof(*user));
		memmove(user_ip, user_ip + 1, (n_user - 1) * sizeof(*user_ip));
		return n_user - 1;
	}
	char module[CUT_MODULE_NAME_MAX];
	bool anon;
	stopped_in(p, &frames[n_frames - 2], module, sizeof(module), &anon);
	if (p->shared->cuts)
		cut_count(p->shared->cuts, module, anon, count);
	return n_user;
}

size_t program_name_frames(struct program *p, const struct unwound_frame *frames,
			   size_t n_frames, const char **user, uint64_t *user_ip)
{
	return name_frames(p, frames, n_frames, 1, user, user_ip);
}

size_t program_name_samples(struct program *p, const struct unwound_frame *frames,
			    size_t n_frames, uint64_t count, const char **user, uint64_t *user_ip)
{
	return name_frames(p, frames, n_frames, count, user, user_ip);
}

static void name_pending(struct program *p);

/* A stack not named yet, as words:
 *   root, query (0: none), app state (0: none), state, n (user frames),
 *   n frames root first as ip << 2 | kind, then the kernel frames;
 * every string interned in the pending table. */
enum { W_ROOT, W_QUERY, W_APP, W_STATE, W_NFRAMES, W_FRAMES };

int program_count(struct program *p, const struct sample_view *v,
		  const struct unwound_frame *frames, size_t n_frames, uint64_t count,
		  uint32_t *stack, struct program_stack *handle)
{
	uint64_t words[W_FRAMES + UNWIND_MAX_FRAMES + KSTACK_MAX];
	struct stack_table *pending = p->pending;
	const char *root = stack_table_intern(pending, v->thread);
	const char *state = stack_table_intern(pending, v->state);
	const char *app = v->app_state ? stack_table_intern(pending, v->app_state) : NULL;
	const char *query = v->query ? stack_table_intern(pending, v->query) : NULL;
	if (!root || !state || (v->app_state && !app) || (v->query && !query) ||
	    n_frames > UNWIND_MAX_FRAMES ||
	    v->n_kernel > KSTACK_MAX)
		return -1;
	words[W_ROOT] = (uintptr_t)root;
	words[W_QUERY] = (uintptr_t)query;
	words[W_APP] = (uintptr_t)app;
	words[W_STATE] = (uintptr_t)state;
	words[W_NFRAMES] = n_frames;
	size_t n = W_FRAMES;
	for (size_t i = n_frames; i-- > 0;)
		words[n++] = frames[i].ip << 2 | (uint64_t)frames[i].kind;
	for (size_t i = 0; i < v->n_kernel; i++) {
		const char *k = stack_table_intern(pending, v->kernel[i]);
		if (!k)
			return -1;
		words[n++] = (uintptr_t)k;
	}
	/* Room for a new stack's timeline id before the stack is added: once
	 * it is in the table, naming reads its id. */
	size_t before = stack_table_distinct(pending);
	if (p->timeline && !array_reserve((void **)&p->ids, before + 1, &p->cap_ids, sizeof(*p->ids)))
		return -1;
	long id = stack_table_add_words(pending, words, n, count);
	if (id < 0)
		return -1;
	if (p->timeline) {
		if (stack_table_distinct(pending) > before) /* a new one */
			p->ids[id] = timeline_new_stack(p->timeline);
		*stack = p->ids[id];
	}
	if (handle)
		*handle = (struct program_stack){ p, p->epoch, (uint32_t)id,
						  p->timeline ? p->ids[id] : 0 };
	if (stack_table_distinct(pending) >= PENDING_MAX) {
		name_pending(p);
		return p->error ? -1 : 0;
	}
	return 0;
}

int program_count_again(struct program *p, const struct program_stack *h, uint64_t count,
			uint32_t *stack)
{
	if (h->program != p || h->epoch != p->epoch ||
	    stack_table_add_count(p->pending, h->pending_id, count) != 0)
		return -1;
	*stack = h->timeline_id;
	return 0;
}

/* Where the stacks of one table are named to. */
struct naming {
	struct program *p;
	struct stack_table *named;
	struct timeline *timeline;
	const uint32_t *ids;           /* timeline ids, by pending id */
	size_t index;                  /* the pending id being named */
};

static void name_one(const uint64_t *words, size_t n, uint64_t count, void *arg)
{
	struct naming *ctx = arg;
	struct program *p = ctx->p;
	size_t n_frames = words[W_NFRAMES];
	struct unwound_frame frames[UNWIND_MAX_FRAMES];
	for (size_t i = 0; i < n_frames; i++) /* back to innermost first */
		frames[n_frames - 1 - i] = (struct unwound_frame){
			words[W_FRAMES + i] >> 2, (enum frame_kind)(words[W_FRAMES + i] & 3) };
	const char *user[PROGRAM_USER_FRAMES_MAX], *kernel[KSTACK_MAX];
	uint64_t user_ip[PROGRAM_USER_FRAMES_MAX];
	size_t n_kernel = n - W_FRAMES - n_frames;
	for (size_t i = 0; i < n_kernel; i++)
		kernel[i] = (const char *)(uintptr_t)words[W_FRAMES + n_frames + i];
	struct sample_view v = {
		.thread = (const char *)(uintptr_t)words[W_ROOT],
		.query = (const char *)(uintptr_t)words[W_QUERY],
		.app_state = (const char *)(uintptr_t)words[W_APP],
		.state = (const char *)(uintptr_t)words[W_STATE],
		.user = user,
		.n_user = name_frames(p, frames, n_frames, count, user, user_ip),
		.user_ip = user_ip,
		.kernel = kernel,
		.n_kernel = n_kernel,
	};
	const char *all[4 + PROGRAM_USER_FRAMES_MAX + KSTACK_MAX];
	size_t n_all = sample_frames(&v, all, sizeof(all) / sizeof(all[0]));
	long named = stack_table_add(ctx->named, all, n_all, count);
	if (named < 0 ||
	    (ctx->timeline && timeline_name(ctx->timeline, ctx->ids[ctx->index], (uint32_t)named) != 0))
		p->error = 1;
	ctx->index++; /* stack_table_visit_words goes in id order */
}

static void name_batch_until(struct program *p, uint64_t deadline_ns);

/* Names the pending stacks of p alone. */
static void name_pending(struct program *p)
{
	if (p->naming || !p->pending)
		return;
	/* A batch of an earlier window first: its stacks were counted first,
	 * and may need the same modules. */
	name_batch_until(p, 0);
	p->naming = true;
	struct naming ctx = { p, p->named, p->timeline, p->ids, 0 };
	stack_table_visit_words(p->pending, name_one, &ctx);
	stack_table_clear(p->pending);
	p->epoch++;
	p->naming = false;
}

static void batch_free(struct program_batch *b)
{
	stack_table_free(b->pending);
	free(b->ids);
	*b = (struct program_batch){ 0 };
}

/* Names p's batch, one stack at a time, until the deadline (0: all). */
static void name_batch_until(struct program *p, uint64_t deadline_ns)
{
	struct program_batch *b = &p->batch;
	if (p->naming || !b->pending)
		return;
	p->naming = true;
	struct naming ctx = { p, b->named, b->timeline, b->ids, b->next };
	size_t total = stack_table_distinct(b->pending);
	while (ctx.index < total && !(deadline_ns && now_ns() >= deadline_ns)) {
		size_t n;
		uint64_t count;
		const uint64_t *words = stack_table_words(b->pending, ctx.index, &n, &count);
		name_one(words, n, count, &ctx);
	}
	b->next = ctx.index;
	p->naming = false;
	if (b->next >= total)
		batch_free(b);
}

/* modules.h's hook: a module is about to go, its addresses with it. */
static void name_before_removal(void *arg)
{
	name_pending(arg); /* the batch first, then the pending stacks */
}

struct program *program_open(pid_t pid, const struct program_shared *shared,
			     struct stack_table *named, struct timeline *timeline)
{
	struct program *p = calloc(1, sizeof(*p));
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	p->shared = shared;
	p->named = named;
	p->timeline = timeline;
	p->modules = modules_open(shared->files, pid);
	int err = p->modules ? ENOMEM : errno; /* after it, only allocations */
	p->unwinder = p->modules ? unwinder_new(p->modules) : NULL;
	p->symbolizer = p->modules ? symbolizer_new(shared->namer, p->modules) : NULL;
	p->pending = stack_table_new();
	if (!p->unwinder || !p->symbolizer || !p->pending) {
		program_free(p);
		errno = err;
		return NULL;
	}
	modules_on_removal(p->modules, name_before_removal, p);
	return p;
}

void program_free(struct program *p)
{
	while (p) {
		struct program *older = p->older;
		stack_table_free(p->pending);
		batch_free(&p->batch);
		symbolizer_free(p->symbolizer);
		unwinder_free(p->unwinder);
		modules_close(p->modules);
		free(p->ids);
		free(p);
		p = older;
	}
}

struct program *program_exec(struct program *p, pid_t pid)
{
	struct program *next = program_open(pid, p->shared, p->named, p->timeline);
	if (!next)
		return NULL;
	modules_freeze(p->modules);
	symbolizer_freeze(p->symbolizer); /* /tmp/perf-PID.map is next's now */
	unwinder_free(p->unwinder);
	p->unwinder = NULL;
	next->older = p;
	return next;
}

void program_ended(struct program *p)
{
	unwinder_free(p->unwinder);
	p->unwinder = NULL;
	if (p->modules)
		modules_ended(p->modules);
}

int program_name_all(struct program *p)
{
	int error = 0;
	for (; p; p = p->older) {
		/* The maps now may describe another program, or none: the
		 * stacks are named with the modules they ran in. */
		modules_freeze(p->modules);
		name_pending(p);
		error |= p->error;
	}
	return error ? -1 : 0;
}

int program_name_now(struct program *p)
{
	int error = 0;
	for (; p; p = p->older) {
		name_pending(p);
		error |= p->error;
	}
	return error ? -1 : 0;
}

int program_cut(struct program *p, struct stack_table *named, struct timeline *timeline)
{
	for (; p; p = p->older) {
		name_batch_until(p, 0);
		if (p->error)
			return -1;
		struct stack_table *fresh = stack_table_new();
		if (!fresh)
			return -1;
		p->batch = (struct program_batch){ p->pending, p->ids, p->named, p->timeline, 0 };
		p->pending = fresh;
		p->epoch++;
		p->ids = NULL;
		p->cap_ids = 0;
		p->named = named;
		p->timeline = timeline;
	}
	return 0;
}

int program_name_batch(struct program *p, uint64_t deadline_ns)
{
	for (; p; p = p->older) {
		name_batch_until(p, deadline_ns);
		if (p->error)
			return -1;
		if (p->batch.pending)
			return 0;
	}
	return 1;
}
