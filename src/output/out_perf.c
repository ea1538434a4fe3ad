/* out_perf.c - samples as `perf script` prints them.
 *
 *   db_writer 1234/1235 1764000000.123456: 1 wall:
 *   	0 do_nanosleep ([kernel.kallsyms])
 *   	0 work ([unknown])
 *   	0 main ([unknown])
 *   	0 S [sleeping] ([unknown])
 *   	(blank line)
 *
 * The header is "comm pid/tid time: period event:" (perf_comm: the comm
 * shaped so the importers read it whole), the time in seconds with
 * microseconds, on the wall clock (the run's start plus the sample's
 * time), never earlier than the sample before.  Frames innermost first, as
 * "address name (module)": we keep no addresses, so 0, as perf prints for
 * a frame it cannot place; kernel frames lose their "_[k]" and are in
 * [kernel.kallsyms], which is how stackcollapse-perf.pl (--kernel, --all)
 * and FlameScope tell them and put "_[k]" back; everything else is in
 * [unknown].  The application and OS state come last, as the outermost
 * frames, their annotation in brackets ("R [running]": the collapse cuts
 * a name at its first '('), then the root where it is more than the comm,
 * so that a collapse of this text gives the folded output's stacks
 * (thread, states, code) under the comm.
 */
#include "output/output.h"
#include "output/frame_role.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"

struct perf_pass {
	FILE *f;
	const struct profile *p;
	const char **frames;
	size_t max;
	uint64_t last_us;
};

static void frame_line(FILE *f, const char *name, enum frame_role role)
{
	fputs("\t0 ", f);
	size_t len = strlen(name);
	const char *open = NULL;
	if (role == FRAME_KERNEL) {
		len -= 4; /* without "_[k]" */
	} else if ((role == FRAME_OS_STATE || role == FRAME_APP_STATE) && len > 3 &&
		   name[len - 1] == ')' && strncmp(name, "query=", 6) != 0) {
		/* its last " (": stackcollapse-perf.pl cuts a name at its first
		 * '(' (C++ and Java signatures), so "R (running)" and
		 * "Client:ClientRead (PostgreSQL state)" would read "R " and
		 * "Client:ClientRead ": the annotation goes in brackets */
		for (const char *q = name + len - 2; q > name; q--)
			if (q[0] == '(' && q[-1] == ' ') {
				open = q;
				break;
			}
	}
	if (open) {
		fwrite(name, 1, (size_t)(open - name), f);
		fputc('[', f);
		fwrite(open + 1, 1, len - 2 - (size_t)(open - name), f);
		fputc(']', f);
	} else {
		fwrite(name, 1, len, f);
	}
	fputs(role == FRAME_KERNEL ? " ([kernel.kallsyms])\n" : " ([unknown])\n", f);
}

/* Is cp white space to a reader's \s: JavaScript's (speedscope) takes
 * these beside ASCII's; Perl's (stackcollapse-perf.pl, reading bytes)
 * only ASCII's.  (Controls, U+0085 among them, frame.h made '?'.) */
static bool unicode_space(uint32_t cp)
{
	return cp == ' ' || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) ||
	       cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000 ||
	       cp == 0xfeff;
}

/* The comm as the readers of perf script find it.  stackcollapse-perf.pl
 * and speedscope both take the header as ^(\S.+?)\s+(\d+)/?(\d+)?\s+:
 * the comm starts with a non-space, is two characters at least, and ends
 * at the first white space followed by digits and white space (or '/').
 * So a comm " 12345" starts no header (stackcollapse-perf.pl drops the
 * sample), "pg worker 3" reads as comm "pg worker" of pid 3, and a comm
 * of one character swallows the pid and the time (a root of its own for
 * every sample).  perf itself prints the comm as it is when it prints
 * call chains (padded to 16, leading blanks, only when it does not), and
 * its own text of such threads is read the same way.  Written here with
 * its white space as '_' (which is what stackcollapse-perf.pl makes of a
 * space in its root anyway), and a comm of one character followed by
 * '_', it is read back whole, whatever its bytes: " 12345" as "_12345".
 * (A leading blank would also defeat speedscope's importer.) */
static void perf_comm(FILE *f, const char *comm)
{
	size_t chars = 0;
	while (*comm) {
		uint32_t cp;
		size_t len = utf8_next(comm, &cp);
		if (!len)
			len = 1, cp = 0; /* frame.h made it valid: not seen */
		if (unicode_space(cp))
			fputc('_', f);
		else
			fwrite(comm, 1, len, f);
		comm += len;
		chars++;
	}
	if (chars < 2)
		fputc('_', f);
}

static int perf_one(const struct profile_sample *s, void *arg)
{
	struct perf_pass *pp = arg;
	FILE *f = pp->f;
	const struct profile_thread *t = &pp->p->threads[s->thread];
	size_t n = stack_table_frames(pp->p->stacks, s->stack, pp->frames, pp->max, NULL);
	uint64_t us = (pp->p->start_unix_ns + s->time_ns) / 1000;
	if (us < pp->last_us)
		us = pp->last_us; /* time never goes back */
	pp->last_us = us;
	perf_comm(f, t->name && t->name[0] ? t->name : n ? pp->frames[0] : "?");
	fprintf(f, " %d/%d %" PRIu64 ".%06" PRIu64 ": 1 wall:\n", (int)t->pid, (int)t->tid,
		us / 1000000, us % 1000000);
	size_t code = frame_code_start(pp->frames, n);
	/* the root too, outermost, where it says more than the comm: a
	 * backend's type, a process's pid ("postgres[4242] client backend") */
	const char *comm = t->name && t->name[0] ? t->name : n ? pp->frames[0] : "?";
	size_t last = n && strcmp(pp->frames[0], comm) != 0 ? 0 : 1;
	for (size_t i = n; i-- > last;)
		frame_line(f, pp->frames[i], frame_role_at(pp->frames, code, i));
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}

int output_perf_script(FILE *f, const struct profile *p)
{
	struct perf_pass pp = { .f = f, .p = p, .max = stack_table_max_depth(p->stacks) };
	pp.frames = malloc(pp.max * sizeof(*pp.frames));
	if (!pp.frames) {
		errno = ENOMEM;
		return -1;
	}
	int rc = sample_pass(p, perf_one, &pp);
	free(pp.frames);
	return rc;
}
