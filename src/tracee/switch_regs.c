/* switch_regs.c - a sleeping thread's registers from its last switch off
 * a CPU (switch_regs.h). */
#define _GNU_SOURCE
#include "tracee/switch_regs.h"
#include "tracee/perf_ring.h"

#include <asm/perf_regs.h>
#include <assert.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The registers of a sample, in the order the kernel writes them (by
 * their bit): the callee-saved ones an unwinder may need, and sp and ip
 * to tell which switch it was. */
enum sample_reg { REG_BX, REG_BP, REG_SP, REG_IP, REG_R12, REG_R13, REG_R14, REG_R15, N_REGS };
#define REG_MASK                                                                     \
	((1ULL << PERF_REG_X86_BX) | (1ULL << PERF_REG_X86_BP) | (1ULL << PERF_REG_X86_SP) | \
	 (1ULL << PERF_REG_X86_IP) | (1ULL << PERF_REG_X86_R12) | (1ULL << PERF_REG_X86_R13) | \
	 (1ULL << PERF_REG_X86_R14) | (1ULL << PERF_REG_X86_R15))

/* A sample as PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER lays it out. */
struct switch_sample {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t abi;          /* PERF_SAMPLE_REGS_ABI_NONE: no user registers (a kernel thread) */
	uint64_t reg[N_REGS];  /* present only when abi is not NONE */
};

struct switch_watch {
	int fd;
	pid_t tid;
	struct perf_event_mmap_page *meta; /* then the ring, SWITCH_DATA_PAGES */
	size_t map_len;
	bool have;                  /* last: the newest switch read, still true */
	uint64_t last[N_REGS];
};

struct switch_regs {
	size_t max_watches;
	struct switch_stats st;
	size_t page;
};

struct switch_regs *switch_regs_new(size_t max_watches)
{
	struct switch_regs *sr = calloc(1, sizeof(*sr));
	if (sr) {
		sr->max_watches = max_watches;
		sr->page = (size_t)sysconf(_SC_PAGESIZE);
	}
	return sr;
}

void switch_regs_free(struct switch_regs *sr)
{
	free(sr); /* the watches are their threads' to end */
}

struct switch_stats switch_regs_stats(const struct switch_regs *sr)
{
	return sr ? sr->st : (struct switch_stats){ 0 };
}

struct switch_watch *switch_regs_watch(struct switch_regs *sr, pid_t tid)
{
	if (!sr || sr->st.refused_errno)
		return NULL;
	if (sr->st.watching >= sr->max_watches) {
		sr->st.no_room++;
		return NULL;
	}
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CONTEXT_SWITCHES,
		.sample_period = 1, /* every switch */
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER,
		.sample_regs_user = REG_MASK,
		.exclude_hv = 1,
		/* not exclude_kernel: a switch is the kernel's, and its
		 * sample would be dropped */
		.context_switch = 1, /* a record at each switch onto a CPU too:
					an unmoved ring proves it has not run */
	};
	int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		/* the thread gone, or no descriptor left: this thread only */
		if (errno != ESRCH && errno != EMFILE && errno != ENFILE && errno != ENOMEM)
			sr->st.refused_errno = errno;
		return NULL;
	}
	struct switch_watch *w = calloc(1, sizeof(*w));
	size_t len = (1 + SWITCH_DATA_PAGES) * sr->page;
	void *m = w ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
	if (m == MAP_FAILED) {
		if (w && errno == EPERM)
			sr->st.refused_errno = errno; /* locked memory: none will map */
		close(fd);
		free(w);
		return NULL;
	}
	*w = (struct switch_watch){ fd, tid, m, len, false, { 0 } };
	if (++sr->st.watching > sr->st.most)
		sr->st.most = sr->st.watching;
	return w;
}

void switch_regs_unwatch(struct switch_regs *sr, struct switch_watch *w)
{
	if (!w)
		return;
	munmap(w->meta, w->map_len);
	close(w->fd);
	free(w);
	assert(sr->st.watching > 0);
	sr->st.watching--;
}

/* Every record since the last read: the newest sample is the one that
 * counts, and a loss (the ring was full) makes the one before untrue. */
void switch_regs_drain(struct switch_regs *sr, struct switch_watch *w)
{
	if (!w)
		return;
	struct perf_event_mmap_page *meta = w->meta;
	size_t ring = (size_t)meta->data_size;
	uint64_t head = perf_ring_head(meta);
	uint64_t tail = meta->data_tail;
	if (tail == head)
		return; /* no switch since */
	struct switch_sample s;
	for (; perf_ring_record(meta, tail, head, &s.h); tail += s.h.size) {
		if (s.h.type == PERF_RECORD_LOST) {
			w->have = false;
			sr->st.lost++;
		} else if (s.h.type == PERF_RECORD_SAMPLE) {
			size_t n = s.h.size < sizeof(s) ? s.h.size : sizeof(s);
			perf_ring_copy(meta, tail, &s, n);
			/* short: no user registers (ABI_NONE) */
			w->have = n == sizeof(s) && s.abi != PERF_SAMPLE_REGS_ABI_NONE;
			memcpy(w->last, s.reg, sizeof(w->last));
		}
	}
	/* A ring with no room for one more sample may have dropped the
	 * newest: its loss is written only once we make room. */
	if (ring - (head - meta->data_tail) < sizeof(struct switch_sample) && w->have) {
		w->have = false;
		sr->st.lost++;
	}
	perf_ring_done(meta, head);
}

uint64_t switch_regs_mark(struct switch_regs *sr, struct switch_watch *w)
{
	switch_regs_drain(sr, w);
	return w ? perf_ring_head(w->meta) : 0;
}

bool switch_regs_unmoved(const struct switch_watch *w, uint64_t mark)
{
	return w && perf_ring_head(w->meta) == mark;
}

bool switch_regs_room(const struct switch_regs *sr, size_t share)
{
	return sr && share && !sr->st.refused_errno && sr->st.watching < sr->max_watches / share;
}

bool switch_regs_last(struct switch_regs *sr, struct switch_watch *w, uint64_t sp, uint64_t ip,
		      struct user_regs_struct *regs)
{
	if (!w)
		return false;
	switch_regs_drain(sr, w);
	if (!w->have || w->last[REG_SP] != sp || w->last[REG_IP] != ip)
		return false; /* not yet asleep since the watch began, or elsewhere */
	regs->rbx = w->last[REG_BX];
	regs->rbp = w->last[REG_BP];
	regs->r12 = w->last[REG_R12];
	regs->r13 = w->last[REG_R13];
	regs->r14 = w->last[REG_R14];
	regs->r15 = w->last[REG_R15];
	sr->st.found++;
	return true;
}
