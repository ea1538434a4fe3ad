/* push.c - the sender thread (push.h). */
#define _GNU_SOURCE
#include "continuous/push.h"

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/bqueue.h"
#include "base/priority.h"
#include "output/pyroscope.h"
#include "base/clock.h"
#include "continuous/window.h"

#define BACKOFF_FIRST_NS 250000000ULL
#define ATTEMPT_MIN_NS 1000000000ULL
#define ATTEMPT_MAX_NS 30000000000ULL
#define URL_MAX 16384 /* 512 of base, 16 labels of 64 + 128 escaped */

/* A window: one body, or with --group-by type one per type, each pushed
 * with its type as a label. */
struct push_item {
	struct pyroscope_part *parts;
	size_t n_parts;
	bool labelled;      /* each part's root is its GROUP_LABEL */
	uint64_t start_unix_ns, end_unix_ns;
	char stamp[WINDOW_STAMP_LEN + 1];
};

struct pusher {
	const struct options *o;
	char app[PYROSCOPE_NAME_MAX + 1];
	unsigned sample_rate;
	uint64_t attempt_ns, backoff_max_ns;
	struct bqueue *queue;
	pthread_t thread;
	bool started, global;
	CURL *curl;
	struct curl_slist *headers;
	atomic_bool stopping;
	_Atomic uint64_t give_up_at; /* CLOCK_MONOTONIC, once stopping */
	/* counts, read after the thread is joined */
	uint64_t sent, pushes, bytes_sent, retries, given_up, refused, unsent;
	uint64_t push_ns_total, push_ns_max;
	char url[URL_MAX];
};

static bool past_grace(struct pusher *p)
{
	return atomic_load(&p->stopping) && now_ns() >= atomic_load(&p->give_up_at);
}

static void item_free(void *arg)
{
	struct push_item *it = arg;
	if (it) {
		pyroscope_parts_free(it->parts, it->n_parts);
		free(it);
	}
}

static size_t discard(char *ptr, size_t size, size_t n, void *arg)
{
	(void)ptr;
	(void)arg;
	return size * n;
}

/* libcurl's progress hook: a transfer under way when the grace period
 * ends is cut short. */
static int progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)dt, (void)dn, (void)ut, (void)un;
	return past_grace(arg) ? 1 : 0;
}

/* Sleeps ns, or less when the grace period ends. */
static void backoff(struct pusher *p, uint64_t ns)
{
	uint64_t until = now_ns() + ns;
	while (now_ns() < until && !past_grace(p)) {
		struct timespec step = { 0, 10000000L };
		nanosleep(&step, NULL);
	}
}

enum attempt { SENT, RETRY, REFUSED };

/* The window's URL for one part: the user's labels, and its type's. */
static int part_url(struct pusher *p, const struct push_item *it, const struct pyroscope_part *part)
{
	uint64_t from, until;
	pyroscope_window_seconds(it->start_unix_ns, it->end_unix_ns, &from, &until);
	struct pyroscope_label labels[PYROSCOPE_LABELS_MAX + 1];
	size_t n = p->o->n_labels;
	memcpy(labels, p->o->labels, n * sizeof(*labels));
	if (it->labelled) {
		snprintf(labels[n].key, sizeof(labels[n].key), "%s", GROUP_LABEL);
		memcpy(labels[n].value, part->root, sizeof(labels[n].value));
		n++;
	}
	return pyroscope_ingest_url(p->o->push_url, p->app, labels, n, from, until, p->sample_rate,
				    p->url, sizeof(p->url));
}

static enum attempt attempt(struct pusher *p, struct push_item *it,
			    const struct pyroscope_part *part, char *why, size_t whylen)
{
	if (part_url(p, it, part) < 0) {
		snprintf(why, whylen, "URL too long");
		return REFUSED;
	}
	CURL *c = p->curl;
	curl_easy_setopt(c, CURLOPT_URL, p->url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, part->text ? part->text : "");
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)part->len);
	uint64_t t0 = now_ns();
	CURLcode rc = curl_easy_perform(c);
	uint64_t took = now_ns() - t0;
	long status = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (rc != CURLE_OK) {
		snprintf(why, whylen, "%s", rc == CURLE_ABORTED_BY_CALLBACK ? "the run ended" :
					     curl_easy_strerror(rc));
		return RETRY;
	}
	if (status >= 200 && status < 300) {
		p->pushes++;
		p->bytes_sent += part->len;
		p->push_ns_total += took;
		if (took > p->push_ns_max)
			p->push_ns_max = took;
		fprintf(stderr, "ptrace_profiler: window %s%s%s pushed: %" PRIu64 " samples, %zu bytes in %.1f ms (HTTP %ld)\n",
			it->stamp, it->labelled ? ", " GROUP_LABEL "=" : "", it->labelled ? part->root : "",
			part->samples, part->len, (double)took / 1e6, status);
		return SENT;
	}
	snprintf(why, whylen, "HTTP %ld", status);
	return status >= 500 || status == 408 || status == 429 ? RETRY : REFUSED;
}

enum part_outcome { PART_SENT, PART_REFUSED, PART_GIVEN_UP, PART_UNSENT };

/* One part of a window, tried up to PUSH_TRIES times. */
static enum part_outcome send_part(struct pusher *p, struct push_item *it,
				   const struct pyroscope_part *part)
{
	uint64_t wait = BACKOFF_FIRST_NS;
	char why[160] = "", name[WINDOW_STAMP_LEN + PYROSCOPE_VALUE_MAX + 32];
	snprintf(name, sizeof(name), "%s%s%s", it->stamp, it->labelled ? ", " GROUP_LABEL "=" : "",
		 it->labelled ? part->root : "");
	for (int try = 1;; try++) {
		if (past_grace(p)) {
			fprintf(stderr, "ptrace_profiler: window %s not pushed: the run ended\n", name);
			return PART_UNSENT;
		}
		switch (attempt(p, it, part, why, sizeof(why))) {
		case SENT:
			return PART_SENT;
		case REFUSED:
			fprintf(stderr, "ptrace_profiler: window %s: push refused (%s), not tried again\n",
				name, why);
			return PART_REFUSED;
		case RETRY:
			break;
		}
		if (past_grace(p)) {
			fprintf(stderr, "ptrace_profiler: window %s not pushed (%s): the run ended\n",
				name, why);
			return PART_UNSENT;
		}
		if (try == PUSH_TRIES) {
			fprintf(stderr, "ptrace_profiler: window %s: push given up after %d tries (%s)\n",
				name, PUSH_TRIES, why);
			return PART_GIVEN_UP;
		}
		p->retries++;
		fprintf(stderr, "ptrace_profiler: window %s: push failed (%s), try %d of %d in %.2f s\n",
			name, why, try + 1, PUSH_TRIES, (double)wait / 1e9);
		backoff(p, wait);
		wait = wait * 2 < p->backoff_max_ns ? wait * 2 : p->backoff_max_ns;
	}
}

/* A window is sent when every part is; else counted once, by its first
 * failure.  Once the run has ended its other parts are not tried. */
static void send_window(struct pusher *p, struct push_item *it)
{
	enum part_outcome first = PART_SENT;
	for (size_t i = 0; i < it->n_parts; i++) {
		enum part_outcome r = send_part(p, it, &it->parts[i]);
		if (first == PART_SENT)
			first = r;
		if (r == PART_UNSENT)
			break;
	}
	switch (first) {
	case PART_SENT: p->sent++; break;
	case PART_REFUSED: p->refused++; break;
	case PART_GIVEN_UP: p->given_up++; break;
	case PART_UNSENT: p->unsent++; break;
	}
}

static void *sender(void *arg)
{
	struct pusher *p = arg;
	struct push_item *it;
	while ((it = bqueue_pop(p->queue, 0))) {
		send_window(p, it);
		item_free(it);
	}
	return NULL;
}

struct pusher *push_start(const struct options *o, const char *app, char *err, size_t errlen)
{
	struct pusher *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->o = o;
	snprintf(p->app, sizeof(p->app), "%s", app);
	p->sample_rate = pyroscope_sample_rate(o->interval_ns);
	p->attempt_ns = o->period_ns < ATTEMPT_MIN_NS ? ATTEMPT_MIN_NS :
			o->period_ns > ATTEMPT_MAX_NS ? ATTEMPT_MAX_NS : o->period_ns;
	p->backoff_max_ns = o->period_ns;
	p->queue = bqueue_new(o->push_queue);
	p->global = p->queue && curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
	if (!p->global || !(p->curl = curl_easy_init())) {
		snprintf(err, errlen, "cannot start libcurl for --push");
		push_free(p);
		return NULL;
	}
	/* curl_slist_append returns NULL when out of memory, the list as it
	 * was left to us: without these headers every push would go out as
	 * a form (Content-Type: application/x-www-form-urlencoded). */
	struct curl_slist *first = curl_slist_append(NULL, "Content-Type: text/plain");
	p->headers = first ? curl_slist_append(first, "Expect:") : NULL; /* no 100-continue round trip */
	if (!p->headers) {
		curl_slist_free_all(first);
		snprintf(err, errlen, "cannot set the HTTP headers for --push: out of memory");
		push_free(p);
		return NULL;
	}
	CURL *c = p->curl;
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, p->headers);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "ptrace_profiler/" PROFILER_VERSION);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(p->attempt_ns / 1000000ULL));
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
			 (long)(p->attempt_ns < 5000000000ULL ? p->attempt_ns / 1000000ULL : 5000L));
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, p);
	int rc = priority_start_background(&p->thread, sender, p);
	if (rc != 0) {
		snprintf(err, errlen, "cannot start the sender thread: %s", strerror(rc));
		push_free(p);
		return NULL;
	}
	p->started = true;
	return p;
}

int push_submit(struct pusher *p, char *body, size_t len, uint64_t start_unix_ns,
		uint64_t end_unix_ns, uint64_t samples, const char *stamp)
{
	struct pyroscope_part *parts = NULL;
	size_t n = 0;
	bool labelled = p->o->group_by == GROUP_TYPE;
	if (labelled) {
		int rc = pyroscope_split_roots(body, len, &parts, &n);
		free(body);
		if (rc != 0) {
			errno = ENOMEM;
			return -1;
		}
	} else if ((parts = calloc(1, sizeof(*parts)))) {
		*parts = (struct pyroscope_part){ .text = body, .len = len, .samples = samples };
		n = 1;
	} else {
		free(body);
		errno = ENOMEM;
		return -1;
	}
	struct push_item *it = calloc(1, sizeof(*it));
	if (!it) {
		pyroscope_parts_free(parts, n);
		errno = ENOMEM;
		return -1;
	}
	*it = (struct push_item){ parts, n, labelled, start_unix_ns, end_unix_ns, "" };
	snprintf(it->stamp, sizeof(it->stamp), "%s", stamp);
	struct push_item *old = bqueue_push(p->queue, it);
	if (old) {
		fprintf(stderr, "ptrace_profiler: window %s dropped: the push queue is full (%zu windows)\n",
			old->stamp, p->o->push_queue);
		item_free(old);
	}
	return 0;
}

void push_stop(struct pusher *p)
{
	if (!p || !p->started)
		return;
	atomic_store(&p->give_up_at, now_ns() + PUSH_GRACE_NS);
	atomic_store(&p->stopping, true);
	bqueue_close(p->queue);
	pthread_join(p->thread, NULL);
	p->started = false;
}

void push_summary(FILE *f, const struct pusher *p)
{
	struct bqueue_counts c;
	bqueue_counts(p->queue, &c);
	/* where on a line of its own: a URL is as long as it is */
	fprintf(f, "  pushed to              %s/ingest as %s.wall\n", p->o->push_url, p->app);
	fprintf(f, "  pushed                 %" PRIu64 " of %" PRIu64 " windows, %" PRIu64 " bytes",
		p->sent, c.pushed, p->bytes_sent);
	if (p->o->group_by == GROUP_TYPE)
		fprintf(f, " in %" PRIu64 " pushes, one per " GROUP_LABEL, p->pushes);
	if (p->pushes)
		fprintf(f, ", %.1f ms per push (max %.1f ms)",
			(double)p->push_ns_total / (double)p->pushes / 1e6, (double)p->push_ns_max / 1e6);
	fputc('\n', f);
	fprintf(f, "  push failures          %" PRIu64 " retries, %" PRIu64 " given up after %d tries, %"
		PRIu64 " refused, %" PRIu64 " dropped (queue full), %" PRIu64 " unsent\n", p->retries,
		p->given_up, PUSH_TRIES, p->refused, c.dropped, p->unsent + c.length);
}

void push_free(struct pusher *p)
{
	if (!p)
		return;
	push_stop(p);
	if (p->curl)
		curl_easy_cleanup(p->curl);
	curl_slist_free_all(p->headers);
	if (p->global)
		curl_global_cleanup();
	bqueue_free(p->queue, item_free);
	free(p);
}
