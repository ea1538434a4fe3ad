/* procfs.c - parsers for /proc/PID/task/TID/{stat,stack} and maps lines.
 * Inputs are bounded by len and need not be NUL-terminated. */
#define _GNU_SOURCE
#include "tracee/procfs.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The last occurrence of c in buf[0..len). */
static const char *last_of(const char *buf, size_t len, char c)
{
	return len ? memrchr(buf, c, len) : NULL;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* A decimal field of at most 9 digits at q, or -1. */
static int small_number(const char *q, const char *end)
{
	int v = 0, digits = 0;
	while (q < end && *q >= '0' && *q <= '9' && digits < 9) {
		v = v * 10 + (*q++ - '0');
		digits++;
	}
	return digits ? v : -1;
}

int parse_task_stat(const char *buf, size_t len, struct task_stat *out)
{
	const char *open = len ? memchr(buf, '(', len) : NULL;
	const char *close = last_of(buf, len, ')');
	if (!open || !close || close < open)
		return -1;
	/* "PID (": the first '(' opens comm, so the pid before it is digits. */
	if (open - buf < 2 || open[-1] != ' ')
		return -1;
	for (const char *d = buf; d < open - 1; d++)
		if (*d < '0' || *d > '9')
			return -1;
	size_t comm_len = (size_t)(close - open - 1);
	if (comm_len >= sizeof(out->comm))
		comm_len = sizeof(out->comm) - 1;
	memcpy(out->comm, open + 1, comm_len);
	out->comm[comm_len] = '\0';

	const char *p = close + 1, *end = buf + len;
	if (end - p < 2 || p[0] != ' ' || p[1] == ' ' || p[1] == '\n' ||
	    (end - p > 2 && p[2] != ' ' && p[2] != '\n'))
		return -1; /* the state is one letter */
	out->state = p[1];
	out->processor = -1;
	out->num_threads = -1;
	out->kernel_thread = false;
	out->stime = -1;
	/* Fields after comm: state is field 3, flags 9, stime 15,
	 * num_threads 20, processor 39. */
	int field = 3;
	for (p += 2; p < end && *p != '\n'; p++) {
		if (*p != ' ')
			continue;
		field++;
		if (field == 9) {
			uint64_t flags = 0;
			for (const char *q = p + 1; q < end && *q >= '0' && *q <= '9' &&
						    flags < UINT64_MAX / 10; q++)
				flags = flags * 10 + (uint64_t)(*q - '0');
			out->kernel_thread = (flags & 0x00200000) != 0; /* PF_KTHREAD */
		}
		if (field == 15) {
			long long v = 0;
			const char *q = p + 1;
			for (; q < end && *q >= '0' && *q <= '9' && v < LLONG_MAX / 10; q++)
				v = v * 10 + (*q - '0');
			out->stime = q > p + 1 ? v : -1;
		}
		if (field == 20)
			out->num_threads = small_number(p + 1, end);
		if (field == 39) {
			out->processor = small_number(p + 1, end);
			break;
		}
	}
	return 0;
}

const char *state_description(char state)
{
	switch (state) {
	case 'R': return "R (running)";
	case 'S': return "S (sleeping)";
	case 'D': return "D (disk sleep)";
	case 'T': return "T (stopped)";
	case 't': return "t (tracing stop)";
	case 'X': return "X (dead)";
	case 'x': return "x (dead)";
	case 'Z': return "Z (zombie)";
	case 'P': return "P (parked)";
	case 'I': return "I (idle)";
	case 'W': return "W (waking)";
	case 'K': return "K (wakekill)";
	default: return "? (unknown)";
	}
}

int parse_kernel_stack(const char *buf, size_t len, struct kernel_stack *out)
{
	const char *p = buf, *end = buf + len;
	out->depth = 0;
	while (p < end && out->depth < KSTACK_MAX) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		/* "[<addr>] symbol+0x1/0x2 [module]" */
		const char *q = p;
		if (q < line_end && *q == '[') {
			const char *rb = memchr(q, ']', (size_t)(line_end - q));
			q = rb ? rb + 1 : line_end;
			while (q < line_end && is_space(*q))
				q++;
			const char *sym = q;
			while (q < line_end && !is_space(*q) && *q != '+' && *q != '\0')
				q++;
			size_t n = (size_t)(q - sym);
			if (n > 0) {
				if (n >= KSYM_MAX)
					n = KSYM_MAX - 1;
				memcpy(out->frame[out->depth], sym, n);
				out->frame[out->depth][n] = '\0';
				out->depth++;
			}
		}
		p = line_end + 1;
	}
	return out->depth;
}

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Frames of a thread that is in, or still leaving, a ptrace or job-control
 * stop: what they show is our sampling, not the target's work. */
static int is_stop_artifact(const char *f)
{
	static const char *const names[] = {
		"ptrace_stop", "ptrace_do_notify", "ptrace_notify", "ptrace_signal",
		"do_signal_stop", "do_jobctl_trap", "signal_delivered",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(f, names[i]) == 0)
			return 1;
	return 0;
}

/* Interrupt entries: as the outermost frame, the thread was in user mode
 * when the interrupt came (a page fault, asm_exc_page_fault, is different:
 * that is kernel work done for the thread, and stays). */
static int is_interrupt_entry(const char *f)
{
	return starts_with(f, "asm_sysvec_") || starts_with(f, "asm_common_interrupt") ||
	       strcmp(f, "common_interrupt") == 0 || strcmp(f, "ret_from_intr") == 0 ||
	       strcmp(f, "apic_timer_interrupt") == 0 ||
	       strcmp(f, "reschedule_interrupt") == 0;
}

int kernel_stack_filter(struct kernel_stack *ks)
{
	for (int i = 0; i < ks->depth; i++)
		if (is_stop_artifact(ks->frame[i]))
			return ks->depth = 0;
	if (ks->depth > 0 && is_interrupt_entry(ks->frame[ks->depth - 1]))
		ks->depth = 0;
	return ks->depth;
}

bool kernel_stack_on_cpu(const struct kernel_stack *raw)
{
	return raw->depth == 0;
}

/* The line "FIELD:..." of /proc/PID/status: where its value starts (the
 * blanks after the ':' skipped) and where the line ends.  false if there
 * is no such line. */
static bool status_value(const char *buf, size_t len, const char *field, const char **value,
			 const char **line_end)
{
	size_t flen = strlen(field);
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if ((size_t)(le - p) > flen && memcmp(p, field, flen) == 0 && p[flen] == ':') {
			const char *q = p + flen + 1;
			while (q < le && is_space(*q))
				q++;
			*value = q;
			*line_end = le;
			return true;
		}
		p = nl ? nl + 1 : end;
	}
	return false;
}

/* A decimal number of 1 to 15 digits at *p (before end); advances *p. */
static bool decimal(const char **p, const char *end, uint64_t *out)
{
	const char *q = *p;
	uint64_t v = 0;
	int digits = 0;
	for (; q < end && *q >= '0' && *q <= '9'; q++, digits++) {
		if (digits >= 15)
			return false;
		v = v * 10 + (uint64_t)(*q - '0');
	}
	if (!digits)
		return false;
	*out = v;
	*p = q;
	return true;
}

int parse_proc_stat_cpu(const char *buf, size_t len, struct cpu_times *out)
{
	const char *q = buf, *end = buf + len;
	const char *nl = memchr(buf, '\n', len);
	if (nl)
		end = nl;
	if (end - q < 4 || memcmp(q, "cpu ", 4) != 0)
		return -1;
	q += 4;
	uint64_t v[8] = { 0 };
	int n = 0;
	while (n < 8) {
		while (q < end && *q == ' ')
			q++;
		if (q == end)
			break;
		if (!decimal(&q, end, &v[n]) || (q < end && *q != ' '))
			return -1;
		n++;
	}
	if (n < 4)
		return -1;
	out->total = 0;
	for (int i = 0; i < n; i++)
		out->total += v[i];
	out->steal = v[7];
	out->idle = v[3] + v[4];
	return 0;
}

int parse_status_kb(const char *buf, size_t len, const char *field, uint64_t *kb)
{
	const char *q, *line_end;
	uint64_t v;
	if (!status_value(buf, len, field, &q, &line_end) || !decimal(&q, line_end, &v) ||
	    line_end - q != 3 || memcmp(q, " kB", 3) != 0)
		return -1;
	*kb = v;
	return 0;
}

int parse_status_number(const char *buf, size_t len, const char *field, int which,
			uint64_t *out)
{
	const char *q, *line_end;
	if ((which < 1 && which != -1) || !status_value(buf, len, field, &q, &line_end))
		return -1;
	uint64_t v = 0;
	bool found = false;
	for (int n = 1; q < line_end; n++) {
		uint64_t x;
		if (!decimal(&q, line_end, &x) || (q < line_end && !is_space(*q)))
			return -1;
		if (which == -1 || n == which) {
			v = x;
			found = true;
		}
		while (q < line_end && is_space(*q))
			q++;
	}
	if (!found)
		return -1;
	*out = v;
	return 0;
}

int parse_sched_exec_start(const char *buf, size_t len, uint64_t *ns)
{
	static const char key[] = "se.exec_start";
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		if ((size_t)(line_end - p) > sizeof(key) - 1 && memcmp(p, key, sizeof(key) - 1) == 0 &&
		    (is_space(p[sizeof(key) - 1]) || p[sizeof(key) - 1] == ':')) {
			/* "se.exec_start   :   1646350.704279": ms, 6 decimals */
			const char *q = p + sizeof(key) - 1;
			while (q < line_end && is_space(*q))
				q++;
			if (q >= line_end || *q++ != ':')
				return -1;
			while (q < line_end && is_space(*q))
				q++;
			uint64_t ms = 0, frac = 0;
			int digits = 0, decimals = 0;
			for (; q < line_end && *q >= '0' && *q <= '9'; q++, digits++) {
				if (digits >= 15)
					return -1;
				ms = ms * 10 + (uint64_t)(*q - '0');
			}
			if (!digits || q >= line_end || *q++ != '.')
				return -1;
			for (; q < line_end && *q >= '0' && *q <= '9'; q++, decimals++) {
				if (decimals >= 6)
					return -1;
				frac = frac * 10 + (uint64_t)(*q - '0');
			}
			if (decimals != 6)
				return -1;
			while (q < line_end && is_space(*q))
				q++;
			if (q != line_end)
				return -1;
			*ns = ms * 1000000ULL + frac;
			return 0;
		}
		p = line_end + 1;
	}
	return -1;
}

/* Parses " 0x..." at *p. */
static int hex_prefixed_after_space(const char **p, const char *end, uint64_t *out);

int parse_schedstat(const char *buf, size_t len, struct sched_counts *out)
{
	const char *p = buf, *end = buf + len;
	uint64_t v[3];
	for (int field = 0; field < 3; field++) {
		if (field > 0) {
			if (p >= end || *p != ' ')
				return -1;
			p++;
		}
		int digits = 0;
		for (v[field] = 0; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
			uint64_t d = (uint64_t)(*p - '0');
			if (v[field] > (UINT64_MAX - d) / 10)
				return -1; /* more than a uint64_t holds */
			v[field] = v[field] * 10 + d;
		}
		if (!digits)
			return -1;
	}
	if (p < end && *p != '\n')
		return -1;
	*out = (struct sched_counts){ .run_ns = v[0], .wait_ns = v[1], .runs = v[2] };
	return 0;
}

int parse_proc_syscall(const char *buf, size_t len, struct blocked_syscall *out)
{
	const char *p = buf, *end = buf + len;
	if (end - p >= 3 && memcmp(p, "-1 ", 3) == 0) {
		/* Blocked outside a system call (a page fault): "-1 sp pc". */
		p += 2;
		memset(out, 0, sizeof(*out));
		out->nr = -1;
		if (hex_prefixed_after_space(&p, end, &out->sp) != 0 ||
		    hex_prefixed_after_space(&p, end, &out->pc) != 0)
			return -1;
		return p == end || *p == '\n' ? 0 : -1;
	}
	long nr = 0;
	int digits = 0;
	for (; p < end && *p >= '0' && *p <= '9' && digits < 6; p++, digits++)
		nr = nr * 10 + (*p - '0');
	if (!digits || p >= end || *p != ' ')
		return -1; /* "running": nothing to read */
	out->nr = nr;
	uint64_t *fields[8] = { &out->args[0], &out->args[1], &out->args[2], &out->args[3],
				&out->args[4], &out->args[5], &out->sp, &out->pc };
	for (int i = 0; i < 8; i++)
		if (hex_prefixed_after_space(&p, end, fields[i]) != 0)
			return -1;
	return p == end || *p == '\n' ? 0 : -1;
}

/* Parses a hex number at *p (bounded by end); advances *p. */
static int hex_field(const char **p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0;
	for (; *p < end; (*p)++, digits++) {
		char c = **p;
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			break;
		if (digits >= 16)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return digits ? 0 : -1;
}

static int hex_prefixed_after_space(const char **p, const char *end, uint64_t *out)
{
	if (end - *p < 4 || (*p)[0] != ' ' || (*p)[1] != '0' || (*p)[2] != 'x')
		return -1;
	*p += 3;
	return hex_field(p, end, out);
}

/* At least one blank, then past all of them; -1 if there is none. */
static int need_spaces(const char **p, const char *end)
{
	if (*p >= end || !is_space(**p))
		return -1;
	while (*p < end && is_space(**p))
		(*p)++;
	return 0;
}

/* "r-xp": each letter in its place or '-', then private or shared. */
static int valid_perms(const char *p)
{
	return (p[0] == 'r' || p[0] == '-') && (p[1] == 'w' || p[1] == '-') &&
	       (p[2] == 'x' || p[2] == '-') && (p[3] == 'p' || p[3] == 's');
}

int parse_maps_line(const char *line, size_t len, struct map_entry *out)
{
	const char *p = line, *end = line + len;
	const char *nl = len ? memchr(line, '\n', len) : NULL;
	if (nl)
		end = nl;
	uint64_t major, minor;
	if (hex_field(&p, end, &out->start) || p >= end || *p++ != '-' ||
	    hex_field(&p, end, &out->end) || out->end < out->start)
		return -1;
	if (need_spaces(&p, end) || end - p < 4 || !valid_perms(p))
		return -1;
	memcpy(out->perms, p, 4);
	out->perms[4] = '\0';
	p += 4;
	if (need_spaces(&p, end) || hex_field(&p, end, &out->offset))
		return -1;
	/* dev "fe:01": the file's identity is device and inode */
	if (need_spaces(&p, end) || hex_field(&p, end, &major) || p >= end || *p++ != ':' ||
	    hex_field(&p, end, &minor) || need_spaces(&p, end) || major > UINT32_MAX ||
	    minor > UINT32_MAX)
		return -1;
	out->dev_major = (uint32_t)major;
	out->dev_minor = (uint32_t)minor;
	uint64_t inode = 0;
	int digits = 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
		uint64_t d = (uint64_t)(*p - '0');
		if (inode > (UINT64_MAX - d) / 10)
			return -1;
		inode = inode * 10 + d;
	}
	if (!digits || (p < end && !is_space(*p)))
		return -1;
	out->inode = inode;
	/* The path runs to the end of the line: it may hold spaces, and
	 * " (deleted)" stays part of it. */
	while (p < end && is_space(*p))
		p++;
	out->path = p;
	out->path_len = (size_t)(end - p);
	return 0;
}
