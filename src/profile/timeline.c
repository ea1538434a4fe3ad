/* timeline.c - sample records in a temporary file (timeline.h). */
#include "profile/timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/array.h"

struct record {
	uint64_t time_ns, weight_ns;
	uint32_t stack, thread;
};

#define UNNAMED UINT32_MAX

/* The records' stdio buffer: stdio's own (4 KiB, the file's block size)
 * is a write(2) every 170 samples on the sampler's thread; this is one
 * every ~10900. */
#define RECORD_BUFFER (256 * 1024)

struct timeline {
	FILE *file;
	char *buffer;           /* the file's, RECORD_BUFFER bytes */
	uint64_t n_samples;
	uint32_t n_stacks;
	uint32_t *named;        /* timeline stack id -> named id */
	size_t cap_named;
	int error;              /* errno of a failed write */
	struct sample_source source;
};

struct timeline *timeline_new(void)
{
	struct timeline *tl = calloc(1, sizeof(*tl));
	if (!tl) {
		errno = ENOMEM;
		return NULL;
	}
	tl->file = tmpfile(); /* unlinked: gone with us, whatever happens */
	int err = tl->file ? ENOMEM : errno; /* after it, only allocations */
	tl->buffer = malloc(RECORD_BUFFER);
	/* (glibc ignores the size unless it is given the buffer) */
	if (!tl->file || !tl->buffer || setvbuf(tl->file, tl->buffer, _IOFBF, RECORD_BUFFER) != 0) {
		if (tl->file)
			fclose(tl->file);
		free(tl->buffer);
		free(tl);
		errno = err;
		return NULL;
	}
	return tl;
}

void timeline_free(struct timeline *tl)
{
	if (!tl)
		return;
	fclose(tl->file); /* before its buffer goes */
	free(tl->buffer);
	free(tl->named);
	free(tl);
}

uint32_t timeline_new_stack(struct timeline *tl)
{
	return tl->n_stacks++;
}

int timeline_add(struct timeline *tl, uint64_t time_ns, uint64_t weight_ns, uint32_t stack,
		 uint32_t thread)
{
	struct record r = { time_ns, weight_ns, stack, thread };
	errno = 0; /* what a failure reports is its own errno, or EIO */
	if (fwrite(&r, sizeof(r), 1, tl->file) != 1) {
		tl->error = errno ? errno : EIO;
		return tl->error;
	}
	tl->n_samples++;
	return 0;
}

void timeline_renumber(struct timeline *tl, const uint32_t *map, size_t n)
{
	for (size_t i = 0; i < tl->cap_named; i++)
		if (tl->named[i] != UNNAMED && tl->named[i] < n)
			tl->named[i] = map[tl->named[i]];
}

int timeline_name(struct timeline *tl, uint32_t stack, uint32_t named)
{
	size_t had = tl->cap_named;
	if (!array_reserve((void **)&tl->named, (size_t)stack + 1, &tl->cap_named,
			   sizeof(*tl->named)))
		return -1;
	for (size_t i = had; i < tl->cap_named; i++)
		tl->named[i] = UNNAMED;
	tl->named[stack] = named;
	return 0;
}

static int next(void *arg, struct profile_sample *out)
{
	struct timeline *tl = arg;
	struct record r;
	if (fread(&r, sizeof(r), 1, tl->file) != 1)
		return ferror(tl->file) ? -1 : 0;
	if (r.stack >= tl->cap_named || tl->named[r.stack] == UNNAMED) {
		errno = EINVAL;
		return -1;
	}
	*out = (struct profile_sample){ r.time_ns, r.weight_ns, tl->named[r.stack], r.thread };
	return 1;
}

static int rewind_records(void *arg)
{
	struct timeline *tl = arg;
	if (fflush(tl->file) != 0 || fseek(tl->file, 0, SEEK_SET) != 0)
		return -1;
	clearerr(tl->file);
	return 0;
}

const struct sample_source *timeline_source(struct timeline *tl)
{
	if (tl->error) {
		errno = tl->error;
		return NULL;
	}
	tl->source = (struct sample_source){ next, rewind_records, tl };
	return rewind_records(tl) == 0 ? &tl->source : NULL;
}

struct timeline_view {
	int fd;
	uint64_t n_samples, next_sample;
	uint32_t *named;
	size_t n_named;
	struct sample_source source;
};

static int view_next(void *arg, struct profile_sample *out)
{
	struct timeline_view *v = arg;
	struct record r;
	if (v->next_sample >= v->n_samples)
		return 0;
	ssize_t got = pread(v->fd, &r, sizeof(r), (off_t)(v->next_sample * sizeof(r)));
	if (got != (ssize_t)sizeof(r)) {
		if (got >= 0)
			errno = EIO; /* short: a record counted is not in the file */
		return -1;
	}
	if (r.stack >= v->n_named || v->named[r.stack] == UNNAMED) {
		errno = EINVAL;
		return -1;
	}
	v->next_sample++;
	*out = (struct profile_sample){ r.time_ns, r.weight_ns, v->named[r.stack], r.thread };
	return 1;
}

static int view_rewind(void *arg)
{
	((struct timeline_view *)arg)->next_sample = 0;
	return 0;
}

struct timeline_view *timeline_view_new(struct timeline *tl)
{
	if (tl->error || fflush(tl->file) != 0)
		return NULL;
	struct timeline_view *v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->fd = dup(fileno(tl->file));
	v->n_samples = tl->n_samples;
	v->n_named = tl->cap_named;
	v->named = malloc((v->n_named ? v->n_named : 1) * sizeof(*v->named));
	if (v->fd < 0 || !v->named) {
		timeline_view_free(v);
		return NULL;
	}
	if (v->n_named)
		memcpy(v->named, tl->named, v->n_named * sizeof(*v->named));
	v->source = (struct sample_source){ view_next, view_rewind, v };
	return v;
}

const struct sample_source *timeline_view_source(struct timeline_view *v)
{
	v->next_sample = 0;
	return &v->source;
}

void timeline_view_free(struct timeline_view *v)
{
	if (!v)
		return;
	if (v->fd >= 0)
		close(v->fd);
	free(v->named);
	free(v);
}
