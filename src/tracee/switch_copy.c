/* switch_copy.c - a thread's registers and stack, copied by the kernel
 * as it leaves a CPU (switch_copy.h). */
#define _GNU_SOURCE
#include "tracee/switch_copy.h"
#include "tracee/perf_ring.h"

#include <asm/perf_regs.h>
#include <assert.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The registers of a sample, by their bit (the order the kernel writes
 * them): every general one the kernel keeps for a 64-bit thread (not ds,
 * es, fs, gs, which it refuses). */
enum copy_reg {
	R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_SP, R_IP, R_FLAGS, R_CS, R_SS,
	R_R8, R_R9, R_R10, R_R11, R_R12, R_R13, R_R14, R_R15,
	N_COPY_REGS
};
#define BIT(r) (1ULL << PERF_REG_X86_##r)
#define COPY_REG_MASK                                                                              \
	(BIT(AX) | BIT(BX) | BIT(CX) | BIT(DX) | BIT(SI) | BIT(DI) | BIT(BP) | BIT(SP) | BIT(IP) | \
	 BIT(FLAGS) | BIT(CS) | BIT(SS) | BIT(R8) | BIT(R9) | BIT(R10) | BIT(R11) | BIT(R12) |     \
	 BIT(R13) | BIT(R14) | BIT(R15))

/* A sample's fixed head, as PERF_SAMPLE_TID | TIME | CPU | REGS_USER |
 * STACK_USER lays it out: then, with registers, the stack's size, its
 * bytes and the count of them copied. */
struct copy_head {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t abi;                /* PERF_SAMPLE_REGS_ABI_NONE: nothing more (a kernel thread) */
	uint64_t reg[N_COPY_REGS];
	uint64_t stack_size;
};

/* Samples the ring holds at least: a thread that leaves its CPU this
 * often between two takes loses none. */
#define RING_SAMPLES 4

struct switch_copy {
	int fd;
	struct perf_event_mmap_page *meta; /* then the ring */
	size_t map_len;
	size_t sample_max;                 /* a sample's size, at most */
};

/* The ring's pages: a power of two holding RING_SAMPLES samples. */
static size_t ring_pages(size_t sample_max, size_t page)
{
	size_t pages = 1;
	while (pages * page < RING_SAMPLES * sample_max)
		pages *= 2;
	return pages;
}

struct switch_copy *switch_copy_open(pid_t tid, size_t stack_bytes, int *err)
{
	if (stack_bytes > SWITCH_COPY_STACK_MAX)
		stack_bytes = SWITCH_COPY_STACK_MAX;
	stack_bytes = (stack_bytes + 7) & ~(size_t)7;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t sample_max = sizeof(struct copy_head) + stack_bytes + sizeof(uint64_t);
	size_t pages = ring_pages(sample_max, page);
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CONTEXT_SWITCHES,
		.sample_period = 1, /* every switch, while armed */
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			       PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
		.sample_regs_user = COPY_REG_MASK,
		.sample_stack_user = (uint32_t)stack_bytes,
		.disabled = 1,
		.exclude_hv = 1,
		/* (not exclude_kernel: a switch is the kernel's) */
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
		/* nobody polls: the kernel's wake-up of a reader, an
		 * interrupt of its own, once a ring's worth at most */
		.watermark = 1,
		.wakeup_watermark = (uint32_t)(pages * page),
	};
	int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		*err = errno;
		return NULL;
	}
	struct switch_copy *c = calloc(1, sizeof(*c));
	size_t len = (1 + pages) * page;
	void *m = c ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
	if (m == MAP_FAILED) {
		*err = c ? errno : ENOMEM;
		close(fd);
		free(c);
		return NULL;
	}
	*c = (struct switch_copy){ fd, m, len, sample_max };
	return c;
}

void switch_copy_close(struct switch_copy *c)
{
	if (!c)
		return;
	munmap(c->meta, c->map_len);
	close(c->fd);
	free(c);
}

int switch_copy_arm(struct switch_copy *c)
{
	return ioctl(c->fd, PERF_EVENT_IOC_ENABLE, 0);
}

int switch_copy_disarm(struct switch_copy *c)
{
	return ioctl(c->fd, PERF_EVENT_IOC_DISABLE, 0);
}

/* The registers of a sample, where a stop would have them. */
static void regs_of(const uint64_t *r, struct user_regs_struct *out)
{
	*out = (struct user_regs_struct){
		.rax = r[R_AX], .rbx = r[R_BX], .rcx = r[R_CX], .rdx = r[R_DX],
		.rsi = r[R_SI], .rdi = r[R_DI], .rbp = r[R_BP], .rsp = r[R_SP],
		.rip = r[R_IP], .eflags = r[R_FLAGS], .cs = r[R_CS], .ss = r[R_SS],
		.r8 = r[R_R8], .r9 = r[R_R9], .r10 = r[R_R10], .r11 = r[R_R11],
		.r12 = r[R_R12], .r13 = r[R_R13], .r14 = r[R_R14], .r15 = r[R_R15],
		.orig_rax = (unsigned long long)-1,
	};
}

enum switch_take switch_copy_take(struct switch_copy *c, uint64_t from_ns,
				  struct switch_copied *out, void *stack, size_t stack_room)
{
	struct perf_event_mmap_page *meta = c->meta;
	size_t ring = (size_t)meta->data_size;
	uint64_t head = perf_ring_head(meta), tail = meta->data_tail;
	uint64_t newest = UINT64_MAX; /* where the copy's record is */
	struct copy_head best;
	bool lost_after = false;      /* a loss after the newest copy */
	struct copy_head s;
	for (; perf_ring_record(meta, tail, head, &s.h); tail += s.h.size) {
		if (s.h.type == PERF_RECORD_LOST) {
			lost_after = true;
		} else if (s.h.type == PERF_RECORD_SAMPLE && s.h.size >= sizeof(s)) {
			perf_ring_copy(meta, tail, &s, sizeof(s));
			if (s.abi != PERF_SAMPLE_REGS_ABI_NONE && s.time >= from_ns &&
			    s.stack_size + sizeof(s) + sizeof(uint64_t) <= s.h.size) {
				newest = tail;
				best = s;
				lost_after = false;
			}
		}
	}
	/* no room for one more: the newest switch may be the one dropped,
	 * its loss written only once we make room */
	bool full = ring - (head - meta->data_tail) < c->sample_max;
	enum switch_take got = lost_after || full ? TAKE_LOST : newest == UINT64_MAX ? TAKE_NONE : TAKE_COPY;
	if (got == TAKE_COPY) {
		uint64_t copied;
		uint64_t at = newest + sizeof(best);
		perf_ring_copy(meta, at + best.stack_size, &copied, sizeof(copied));
		size_t len = copied < best.stack_size ? (size_t)copied : (size_t)best.stack_size;
		if (len > stack_room)
			len = stack_room;
		perf_ring_copy(meta, at, stack, len);
		out->at_ns = best.time;
		out->cpu = (int)best.cpu;
		regs_of(best.reg, &out->regs);
		out->stack_len = len;
	}
	perf_ring_done(meta, head);
	return got;
}
