/* snapshot.c - copy registers and the live stack of a stopped thread. */
#define _GNU_SOURCE
#include "tracee/snapshot.h"

#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>

/* process_vm_readv does not split an iovec on a fault, so the unbounded
 * case (stack top unknown) is read page by page: it stops at the first
 * unmapped page instead of failing the whole copy. */
#define PAGE 4096

static size_t read_pages(pid_t tid, uint64_t start, uint8_t *buf, size_t len)
{
	struct iovec local[SNAPSHOT_STACK_MAX / PAGE + 1];
	struct iovec remote[SNAPSHOT_STACK_MAX / PAGE + 1];
	size_t n = 0, off = 0;

	while (off < len) {
		/* First chunk ends at a page boundary, the rest are pages. */
		size_t chunk = PAGE - ((start + off) % PAGE);
		if (chunk > len - off)
			chunk = len - off;
		local[n].iov_base = buf + off;
		local[n].iov_len = chunk;
		remote[n].iov_base = (void *)(uintptr_t)(start + off);
		remote[n].iov_len = chunk;
		n++;
		off += chunk;
	}
	ssize_t got = process_vm_readv(tid, local, n, remote, n, 0);
	return got < 0 ? 0 : (size_t)got;
}

/* The extra words, on their own (the thread need not be stopped). */
int snapshot_read_words(pid_t tid, struct snapshot *s)
{
	struct iovec local[SNAPSHOT_WORDS], remote[SNAPSHOT_WORDS];
	for (int i = 0; i < s->n_words; i++) {
		local[i] = (struct iovec){ &s->word[i], 4 };
		remote[i] = (struct iovec){ (void *)(uintptr_t)s->word_addr[i], 4 };
	}
	ssize_t want = 4 * s->n_words;
	s->words_tid = tid;
	s->words_ok = s->n_words > 0 &&
		      process_vm_readv(tid, local, (unsigned long)s->n_words, remote,
				       (unsigned long)s->n_words, 0) == want;
	return s->words_ok ? 0 : -1;
}

bool snapshot_words_through(const struct snapshot *s, pid_t tid)
{
	return !s->words_ok || s->words_tid == tid;
}

int snapshot_regs(pid_t tid, struct snapshot *s)
{
	s->tid = tid;
	s->stack_len = 0;
	s->words_ok = 0;
	s->partial_regs = false;
	s->callee_saved = false;
	return ptrace(PTRACE_GETREGS, tid, NULL, &s->regs) == 0 ? 0 : -1;
}

/* A blocked thread's registers as /proc/.../syscall tells them: sp, pc
 * and the call, nothing else known. */
static void set_peek_regs(const struct blocked_syscall *where, struct snapshot *s)
{
	s->partial_regs = true;
	s->callee_saved = false;
	memset(&s->regs, 0, sizeof(s->regs));
	s->regs.rsp = where->sp;
	s->regs.rip = where->pc;
	s->regs.orig_rax = (uint64_t)where->nr;
}

int snapshot_peek(pid_t tid, const struct blocked_syscall *where, uint64_t stack_top,
		  struct snapshot *s)
{
	s->tid = tid;
	s->stack_len = 0;
	s->words_ok = 0;
	set_peek_regs(where, s);
	return snapshot_stack(tid, stack_top, s);
}

/* len bytes from start into s->stack, and the extra words after them,
 * in one process_vm_readv: its result (bytes read, or -1). */
static ssize_t read_stack_and_words(pid_t tid, uint64_t start, size_t len, struct snapshot *s)
{
	struct iovec local[1 + SNAPSHOT_WORDS] = { { s->stack, len } };
	struct iovec remote[1 + SNAPSHOT_WORDS] = { { (void *)(uintptr_t)start, len } };
	for (int i = 0; i < s->n_words; i++) {
		local[1 + i] = (struct iovec){ &s->word[i], 4 };
		remote[1 + i] = (struct iovec){ (void *)(uintptr_t)s->word_addr[i], 4 };
	}
	unsigned long n = 1 + (unsigned long)s->n_words;
	s->words_tid = tid;
	return process_vm_readv(tid, local, n, remote, n, 0);
}

int snapshot_stack(pid_t tid, uint64_t stack_top, struct snapshot *s)
{
	uint64_t sp = s->regs.rsp;
	uint64_t start = sp > SNAPSHOT_RED_ZONE ? sp - SNAPSHOT_RED_ZONE : 0;
	s->stack_start = start;

	if (stack_top > sp && stack_top - start <= SNAPSHOT_STACK_MAX) {
		/* The usual case: one copy of exactly the live part, and the
		 * extra words in the same system call. */
		size_t len = stack_top - start;
		ssize_t got = read_stack_and_words(tid, start, len, s);
		if (got > 0) {
			s->stack_len = (size_t)got < len ? (size_t)got : len;
			s->words_ok = s->n_words > 0 && (size_t)got == len + 4 * (size_t)s->n_words;
			if (s->n_words && !s->words_ok)
				snapshot_read_words(tid, s);
			return 0;
		}
		/* The mapping changed under us: fall back to page-wise. */
	}
	size_t len = stack_top > sp ? SNAPSHOT_STACK_MAX : SNAPSHOT_UNKNOWN_WINDOW;
	if (stack_top > sp && stack_top - start < len)
		len = stack_top - start;
	s->stack_len = read_pages(tid, start, s->stack, len);
	if (s->n_words)
		snapshot_read_words(tid, s);
	if (s->stack_len == 0) {
		errno = EFAULT;
		return -1;
	}
	return 0;
}

int snapshot_copy_ahead(pid_t tid, uint64_t from, uint64_t stack_top, struct snapshot *s)
{
	s->tid = tid;
	s->stack_len = 0;
	s->words_ok = 0;
	if (from >= stack_top || stack_top - from > SNAPSHOT_STACK_MAX)
		return -1;
	size_t len = stack_top - from;
	ssize_t got = read_stack_and_words(tid, from, len, s);
	if (got < (ssize_t)len)
		return -1;
	s->stack_start = from;
	s->stack_len = len;
	s->words_ok = s->n_words > 0 && (size_t)got == len + 4 * (size_t)s->n_words;
	return 0;
}

int snapshot_extend(pid_t tid, uint64_t stack_top, struct snapshot *s)
{
	uint64_t end = s->stack_start + s->stack_len;
	if (!s->stack_len || stack_top <= end || stack_top - s->stack_start > SNAPSHOT_STACK_MAX)
		return -1;
	size_t len = stack_top - end;
	struct iovec local = { s->stack + s->stack_len, len };
	struct iovec remote = { (void *)(uintptr_t)end, len };
	if (process_vm_readv(tid, &local, 1, &remote, 1, 0) != (ssize_t)len)
		return -1;
	s->stack_len += len;
	return 0;
}

int snapshot_peek_ahead(const struct blocked_syscall *where, struct snapshot *s)
{
	uint64_t sp = where->sp;
	uint64_t start = sp > SNAPSHOT_RED_ZONE ? sp - SNAPSHOT_RED_ZONE : 0;
	if (!s->stack_len || start < s->stack_start || start - s->stack_start >= s->stack_len)
		return -1;
	size_t cut = (size_t)(start - s->stack_start);
	memmove(s->stack, s->stack + cut, s->stack_len - cut);
	s->stack_len -= cut;
	s->stack_start = start;
	set_peek_regs(where, s);
	return 0;
}

int snapshot_read(const struct snapshot *s, uint64_t addr, void *out,
		  size_t len)
{
	if (addr < s->stack_start || addr - s->stack_start > s->stack_len ||
	    len > s->stack_len - (addr - s->stack_start))
		return -1;
	memcpy(out, s->stack + (addr - s->stack_start), len);
	return 0;
}

int snapshot_syscall(const struct user_regs_struct *r, struct blocked_syscall *out)
{
	if ((long)r->orig_rax < 0)
		return -1;
	*out = (struct blocked_syscall){
		(long)r->orig_rax, { r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9 },
		r->rsp, r->rip };
	return 0;
}

/* include/linux/errno.h, kernel-internal */
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516

bool snapshot_restarting(const struct user_regs_struct *r)
{
	long rax = (long)r->rax;
	return (long)r->orig_rax >= 0 &&
	       (rax == -ERESTARTSYS || rax == -ERESTARTNOINTR || rax == -ERESTARTNOHAND ||
		rax == -ERESTART_RESTARTBLOCK);
}

bool snapshot_restart_pending(const struct user_regs_struct *r, const struct blocked_syscall *w)
{
	/* The kernel rewinds pc over the 2-byte syscall instruction and
	 * reloads rax with the number, or with restart_syscall's.  Stopped
	 * on its way out of the kernel orig_rax still holds the number; back
	 * in user mode (an interrupt took it just before the instruction) it
	 * is -1.  Arguments and stack pointer are the call's. */
	bool same_frame = r->rdi == w->args[0] && r->rsi == w->args[1] && r->rdx == w->args[2] &&
			  r->r10 == w->args[3] && r->r8 == w->args[4] && r->r9 == w->args[5] &&
			  r->rsp == w->sp;
	bool reloaded = r->rip == w->pc - 2 &&
			((long)r->orig_rax == w->nr || (long)r->orig_rax == -1) &&
			((long)r->rax == w->nr || r->rax == SYS_restart_syscall);
	/* or it got back in, and this stop aborted the same call again */
	bool aborted_again = r->rip == w->pc && (long)r->orig_rax == w->nr && snapshot_restarting(r);
	return same_frame && (reloaded || aborted_again);
}
