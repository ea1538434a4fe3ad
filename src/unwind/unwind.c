/* unwind.c - libunwind over a snapshot: remote unwinding of a copy.
 *
 * libunwind's own ptrace accessors (_UPT_*) read the live process and so
 * need it stopped during the whole unwind.  Ours answer from the snapshot
 * (registers, stack) and from the module images (unwind tables, code), so
 * the unwind runs while the target does.
 */
#define _GNU_SOURCE
#include "unwind/unwind.h"
#include "base/hash_index.h"
#include "base/sigprocmask.h"
#include "unwind/eh_frame.h"

#include <errno.h>
#include <libunwind.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Exported by libunwind (its ptrace and coredump accessors use it) but not
 * declared in its public headers: binary search of an .eh_frame_hdr table
 * read through our access_mem. */
extern int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

#define DW_EH_PE_omit 0xff
#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_pcrel 0x10
#define DW_EH_PE_datarel 0x30

/* Whether unwind info covers an address where unwinds end, remembered:
 * stacks end at a few addresses (_start's, clone3's), and the look-up
 * costs as much as the rest of the unwind. */
#define ENDS_CACHED 64

struct unwinder {
	struct modules *modules;
	unw_addr_space_t as;
	unsigned generation; /* module list changes flush libunwind's cache */
	uint64_t read_top;   /* the last unwind: how far up the copy it read */
	bool read_past;      /* and whether it asked for a word past its end */
	struct {
		uint64_t addr; /* 0: none */
		bool has_info;
	} ends[ENDS_CACHED];
};

/* Where libunwind reads a search table we made (eh_frame.h) while it
 * looks an address up in it: a non-canonical address, which no target
 * memory has. */
#define INDEX_WINDOW (1ULL << 63)

struct unwind_ctx {
	struct unwinder *u;
	const struct snapshot *snap;
	const struct eh_frame_entry *index; /* at INDEX_WINDOW during a look-up */
	size_t index_bytes;
};

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val,
		      int write, void *arg)
{
	(void)as;
	struct unwind_ctx *c = arg;
	if (write)
		return -UNW_EREADONLYREG;
	const struct snapshot *s = c->snap;
	if (snapshot_read(s, addr, val, sizeof(*val)) == 0) {
		if (addr + sizeof(*val) > c->u->read_top)
			c->u->read_top = addr + sizeof(*val);
		return 0;
	}

	if (c->index && addr >= INDEX_WINDOW && addr - INDEX_WINDOW <= c->index_bytes - sizeof(*val)) {
		memcpy(val, (const uint8_t *)c->index + (addr - INDEX_WINDOW), sizeof(*val));
		return 0;
	}
	if (modules_read(c->u->modules, addr, val, sizeof(*val)) == 0)
		return 0;
	if (modules_anon_name(c->u->modules, addr)) {
		/* Code in anonymous memory (JIT): not copied, but there.
		 * libunwind 1.6 takes a pc it cannot read for a call through a
		 * bad pointer and then any readable word at sp for the return
		 * address - in JIT code, which pushed the frame pointer, that
		 * is the caller's rbp, often a stack address.  Read as zeros
		 * (no PLT stub, no sigreturn), it follows the frame pointer. */
		*val = 0;
		return 0;
	}
	/* just above the copy: where a stack copied short of its top goes on */
	uint64_t end = s->stack_start + s->stack_len;
	if (s->stack_len && addr + sizeof(*val) > end && addr < end + SNAPSHOT_STACK_MAX)
		c->u->read_past = true;
	return -UNW_EINVAL;
}

/* The registers a call keeps (System V x86-64), besides rsp. */
static bool is_callee_saved(unw_regnum_t reg)
{
	return reg == UNW_X86_64_RBX || reg == UNW_X86_64_RBP || reg == UNW_X86_64_R12 ||
	       reg == UNW_X86_64_R13 || reg == UNW_X86_64_R14 || reg == UNW_X86_64_R15;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val,
		      int write, void *arg)
{
	(void)as;
	const struct snapshot *snap = ((struct unwind_ctx *)arg)->snap;
	const struct user_regs_struct *r = &snap->regs;
	if (write)
		return -UNW_EREADONLYREG;
	/* A thread looked at without stopping it: a frame that needs any
	 * other register (a frame pointer chain needs rbp) ends the unwind as
	 * failed, and the thread is stopped instead.  Never a made-up value. */
	if (snap->partial_regs && reg != UNW_X86_64_RSP && reg != UNW_X86_64_RIP &&
	    !(snap->callee_saved && is_callee_saved(reg)))
		return -UNW_EBADREG;
	switch (reg) {
	case UNW_X86_64_RAX: *val = r->rax; break;
	case UNW_X86_64_RDX: *val = r->rdx; break;
	case UNW_X86_64_RCX: *val = r->rcx; break;
	case UNW_X86_64_RBX: *val = r->rbx; break;
	case UNW_X86_64_RSI: *val = r->rsi; break;
	case UNW_X86_64_RDI: *val = r->rdi; break;
	case UNW_X86_64_RBP: *val = r->rbp; break;
	case UNW_X86_64_RSP: *val = r->rsp; break;
	case UNW_X86_64_R8: *val = r->r8; break;
	case UNW_X86_64_R9: *val = r->r9; break;
	case UNW_X86_64_R10: *val = r->r10; break;
	case UNW_X86_64_R11: *val = r->r11; break;
	case UNW_X86_64_R12: *val = r->r12; break;
	case UNW_X86_64_R13: *val = r->r13; break;
	case UNW_X86_64_R14: *val = r->r14; break;
	case UNW_X86_64_R15: *val = r->r15; break;
	case UNW_X86_64_RIP: *val = r->rip; break;
	default: return -UNW_EBADREG;
	}
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val,
			int write, void *arg)
{
	(void)as, (void)reg, (void)val, (void)write, (void)arg;
	return -UNW_EBADREG;
}

static int resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as, (void)c, (void)arg;
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf,
			 size_t len, unw_word_t *off, void *arg)
{
	(void)as, (void)addr, (void)buf, (void)len, (void)off, (void)arg;
	return -UNW_ENOINFO; /* names come from libdw (symbolize.c) */
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	(void)as, (void)addr, (void)arg;
	return -UNW_ENOINFO;
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	/* libunwind frees table-format info itself. */
	(void)as, (void)pi, (void)arg;
}

static int read_u32(struct modules *m, uint64_t addr, uint32_t *out)
{
	return modules_read(m, addr, out, sizeof(*out));
}

/* Finds the FDE for ip in a file without .eh_frame_hdr, through the
 * table made of its .eh_frame: libunwind searches it as it would the
 * header's, reading it at INDEX_WINDOW. */
static int find_in_index(unw_addr_space_t as, unw_word_t ip, const struct module_image *img,
			 unw_proc_info_t *pi, int need_unwind_info, struct unwind_ctx *c)
{
	size_t n;
	uint64_t base;
	const struct eh_frame_entry *index = img->file ? file_eh_frame_index(img->file, &n, &base)
						       : NULL;
	if (!index)
		return -UNW_ENOINFO;
	unw_dyn_info_t di;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = img->low;
	di.end_ip = img->high;
	di.u.rti.segbase = base + img->bias;
	di.u.rti.table_data = INDEX_WINDOW;
	di.u.rti.table_len = n * sizeof(*index) / sizeof(unw_word_t);
	c->index = index;
	c->index_bytes = n * sizeof(*index);
	int r = _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, c);
	c->index = NULL;
	return r;
}

/* Finds the FDE for ip through the module's .eh_frame_hdr search table. */
static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	struct unwind_ctx *c = arg;
	struct modules *m = c->u->modules;
	const struct module_image *img = modules_find(m, ip);
	if (!img)
		return -UNW_ENOINFO;
	if (!img->eh_frame_hdr)
		return find_in_index(as, ip, img, pi, need_unwind_info, c);

	/* Header: version, eh_frame_ptr_enc, fde_count_enc, table_enc, then
	 * eh_frame_ptr and fde_count.  Every linker we know of writes the
	 * 4-byte encodings; anything else is not searched. */
	uint8_t hdr[4];
	uint32_t fde_count;
	if (modules_read(m, img->eh_frame_hdr, hdr, sizeof(hdr)) != 0 ||
	    hdr[0] != 1 || hdr[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4) ||
	    (hdr[1] & 0x0f) != DW_EH_PE_sdata4 ||
	    (hdr[2] & 0x0f) != DW_EH_PE_udata4 || (hdr[2] & 0x70) != 0 ||
	    read_u32(m, img->eh_frame_hdr + 8, &fde_count) != 0 || fde_count == 0)
		return -UNW_ENOINFO;

	unw_dyn_info_t di;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = img->low;
	di.end_ip = img->high;
	di.u.rti.segbase = img->eh_frame_hdr;
	di.u.rti.table_data = img->eh_frame_hdr + 12;
	/* Entries are two int32 (initial location, FDE address): count in words. */
	di.u.rti.table_len = fde_count * 8 / sizeof(unw_word_t);
	return _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

struct unwinder *unwinder_new(struct modules *m)
{
	struct unwinder *u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->modules = m;
	u->as = unw_create_addr_space(&accessors, 0);
	if (!u->as) {
		free(u);
		return NULL;
	}
	/* Register-state cache keyed by ip: the steady state re-parses no CFI. */
	unw_set_caching_policy(u->as, UNW_CACHE_GLOBAL);
	u->generation = modules_generation(m);
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	unw_destroy_addr_space(u->as);
	free(u);
}

/* Is ip the start of an rt_sigreturn trampoline, where a signal handler
 * returns to?  Told by its code, as the kernel's sigreturn needs it:
 * "mov $15,%rax; syscall" (glibc's __restore_rt) or "mov $15,%eax;
 * syscall" (musl's).  libunwind's own answer describes the frame its last
 * step left, which differs between its versions. */
static bool is_sigreturn(struct modules *m, uint64_t ip)
{
	static const uint8_t glibc[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	static const uint8_t musl[] = { 0xb8, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	uint8_t code[sizeof(glibc)];
	if (modules_read(m, ip, code, sizeof(code)) != 0)
		return false;
	return memcmp(code, glibc, sizeof(glibc)) == 0 || memcmp(code, musl, sizeof(musl)) == 0;
}

/* Is addr in code of the process: a module's, or anonymous memory's (JIT)?
 * An address in no mapping re-reads the maps first (rate limited). */
static bool known_code(struct modules *m, uint64_t addr)
{
	return modules_at(m, addr) || modules_anon_name(m, addr) || modules_find(m, addr);
}

/* Does the stack begin at f, as its code says?  Code of a mapped file
 * (unwind.h) whose unwind info ended the chain - libunwind stops there
 * only because that info says there is no caller - or, without unwind
 * info, with rbp 0: libunwind's frame-pointer guess stops at a zero rbp,
 * and also, as if at an end, where rbp does not look like a frame pointer
 * (JIT code using it for data), which is no end at all. */
static bool begins_thread(struct unwind_ctx *c, const struct unwound_frame *f, bool rbp_zero)
{
	uint64_t addr = f->kind == FRAME_CALL ? f->ip - 1 : f->ip;
	if (!modules_find(c->u->modules, addr))
		return false;
	struct unwinder *u = c->u;
	size_t slot = (size_t)(hash_word(addr) % ENDS_CACHED);
	if (u->ends[slot].addr != addr) {
		unw_proc_info_t pi;
		u->ends[slot].addr = addr;
		u->ends[slot].has_info = find_proc_info(u->as, addr, &pi, 0, c) == 0;
	}
	return u->ends[slot].has_info || rbp_zero;
}

/* The frames after the first, by libunwind, into frames[1..max - 1).
 * Returns their number in all; *ended says whether libunwind found no
 * caller (rather than failing), *rbp_zero whether rbp was 0 in the last
 * frame. */
static int step_all(struct unwind_ctx *ctx, unw_cursor_t *cursor, struct unwound_frame *frames,
		    int max, bool *ended, bool *rbp_zero)
{
	struct unwinder *u = ctx->u;
	const struct snapshot *s = ctx->snap;
	int n = 1;
	uint64_t prev_sp = s->regs.rsp;
	/* A register libunwind cannot give (sp and pc only) is not 0. */
	*rbp_zero = (!s->partial_regs || s->callee_saved) && s->regs.rbp == 0;
	*ended = false;
	for (;;) {
		/* Leaving a signal frame may move to another stack (sigaltstack),
		 * and the frame it leads to was interrupted, not calling. */
		bool from_signal = frames[n - 1].kind == FRAME_SIGNAL;
		int r = unw_step(cursor);
		if (r == 0) {
			*ended = true;
			break;
		}
		unw_word_t ip, sp, rbp;
		if (r < 0 || unw_get_reg(cursor, UNW_REG_IP, &ip) != 0 ||
		    unw_get_reg(cursor, UNW_REG_SP, &sp) != 0)
			break;
		if (ip == 0) {
			*ended = true; /* the outermost frame's return address */
			break;
		}
		/* Stacks grow down: a frame that does not move up is garbage
		 * (or a loop) and would never end.  The last slot is the
		 * mark of a cut stack's. */
		if ((sp < prev_sp && !from_signal) || n >= max - 1)
			break;
		prev_sp = sp;
		enum frame_kind kind = from_signal ? FRAME_EXACT : FRAME_CALL;
		/* A return address in no mapping is none: what libunwind
		 * would make of it (no unwind info there) is a guess. */
		if (!known_code(u->modules, kind == FRAME_CALL ? ip - 1 : ip))
			break;
		if (is_sigreturn(u->modules, ip))
			kind = FRAME_SIGNAL;
		frames[n++] = (struct unwound_frame){ ip, kind };
		*rbp_zero = unw_get_reg(cursor, UNW_X86_64_RBP, &rbp) == 0 && rbp == 0;
	}
	return n;
}

int unwind_snapshot(struct unwinder *u, const struct snapshot *s,
		    struct unwound_frame *frames, int max, int *complete)
{
	struct unwind_ctx ctx = { u, s, NULL, 0 };
	unw_cursor_t cursor;
	int n = 0;

	*complete = 0;
	if (!u)
		return 0; /* its process ended (program_ended): nothing to unwind with */
	u->read_top = 0;
	u->read_past = false;
	/* Looked up first: an unknown address re-reads the module list
	 * before libunwind caches anything about it. */
	bool leaf_known = modules_find(u->modules, s->regs.rip) != NULL;
	if (modules_generation(u->modules) != u->generation) {
		u->generation = modules_generation(u->modules);
		unw_flush_cache(u->as, 0, 0);
		memset(u->ends, 0, sizeof(u->ends));
	}
	if (max <= 0)
		return 0;
	frames[n++] = (struct unwound_frame){
		s->regs.rip, is_sigreturn(u->modules, s->regs.rip) ? FRAME_SIGNAL : FRAME_EXACT };
	bool ended = false, rbp_zero = false;
	sigprocmask_elide(true); /* base/sigprocmask.h */
	if (unw_init_remote(&cursor, u->as, &ctx) == 0)
		n = step_all(&ctx, &cursor, frames, max, &ended, &rbp_zero);
	bool whole = ended && begins_thread(&ctx, &frames[n - 1], rbp_zero);
	sigprocmask_elide(false);
	/* Code in no mapping we know (a library not seen yet) has no unwind
	 * info: whatever libunwind made of it is not a full stack.  Code in
	 * anonymous memory (JIT) is known to have none: if its frame pointer
	 * led to the outermost frame, the stack is whole. */
	*complete = ended && (leaf_known || modules_anon_name(u->modules, s->regs.rip));
	if (!whole && n < max)
		frames[n++] = (struct unwound_frame){ 0, FRAME_TRUNCATED };
	return n;
}

uint64_t unwind_read_top(const struct unwinder *u)
{
	return u ? u->read_top : 0;
}

bool unwind_read_past_copy(const struct unwinder *u)
{
	return u && u->read_past;
}
