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

struct push_item {
	char *body;
	size_t len;
	uint64_t start_unix_ns, end_unix_ns, samples;
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
	uint64_t sent, bytes_sent, retries, given_up, refused, unsent;
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
		free(it->body);
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

static enum attempt attempt(struct pusher *p, struct push_item *it, char *why, size_t whylen)
{
	uint64_t from, until;
	pyroscope_window_seconds(it->start_unix_ns, it->end_unix_ns, &from, &until);
	if (pyroscope_ingest_url(p->o->push_url, p->app, p->o->labels, p->o->n_labels, from, until,
				 p->sample_rate, p->url, sizeof(p->url)) < 0) {
		snprintf(why, whylen, "URL too long");
		return REFUSED;
	}
	CURL *c = p->curl;
	curl_easy_setopt(c, CURLOPT_URL, p->url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, it->body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)it->len);
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
		p->sent++;
		p->bytes_sent += it->len;
		p->push_ns_total += took;
		if (took > p->push_ns_max)
			p->push_ns_max = took;
		fprintf(stderr, "ptrace_profiler: window %s pushed: %" PRIu64 " samples, %zu bytes in %.1f ms (HTTP %ld)\n",
			it->stamp, it->samples, it->len, (double)took / 1e6, status);
		return SENT;
	}
	snprintf(why, whylen, "HTTP %ld", status);
	return status >= 500 || status == 408 || status == 429 ? RETRY : REFUSED;
}

static void send_window(struct pusher *p, struct push_item *it)
{
	uint64_t wait = BACKOFF_FIRST_NS;
	char why[160] = "";
	for (int try = 1;; try++) {
		if (past_grace(p)) {
			p->unsent++;
			fprintf(stderr, "ptrace_profiler: window %s not pushed: the run ended\n", it->stamp);
			return;
		}
		switch (attempt(p, it, why, sizeof(why))) {
		case SENT:
			return;
		case REFUSED:
			p->refused++;
			fprintf(stderr, "ptrace_profiler: window %s: push refused (%s), not tried again\n",
				it->stamp, why);
			return;
		case RETRY:
			break;
		}
		if (past_grace(p)) {
			p->unsent++;
			fprintf(stderr, "ptrace_profiler: window %s not pushed (%s): the run ended\n",
				it->stamp, why);
			return;
		}
		if (try == PUSH_TRIES) {
			p->given_up++;
			fprintf(stderr, "ptrace_profiler: window %s: push given up after %d tries (%s)\n",
				it->stamp, PUSH_TRIES, why);
			return;
		}
		p->retries++;
		fprintf(stderr, "ptrace_profiler: window %s: push failed (%s), try %d of %d in %.2f s\n",
			it->stamp, why, try + 1, PUSH_TRIES, (double)wait / 1e9);
		backoff(p, wait);
		wait = wait * 2 < p->backoff_max_ns ? wait * 2 : p->backoff_max_ns;
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
	struct push_item *it = calloc(1, sizeof(*it));
	if (!it) {
		free(body);
		errno = ENOMEM;
		return -1;
	}
	*it = (struct push_item){ body, len, start_unix_ns, end_unix_ns, samples, "" };
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
	fprintf(f, "  pushed                 %" PRIu64 " of %" PRIu64 " windows to %s/ingest as %s.wall, %" PRIu64
		" bytes", p->sent, c.pushed, p->o->push_url, p->app, p->bytes_sent);
	if (p->sent)
		fprintf(f, ", %.1f ms per push (max %.1f ms)",
			(double)p->push_ns_total / (double)p->sent / 1e6, (double)p->push_ns_max / 1e6);
	fputc('\n', f);
	fprintf(f, "  push failures          %" PRIu64 " retries, %" PRIu64 " windows given up after %d tries, %"
		PRIu64 " refused, %" PRIu64 " dropped (queue of %zu full), %" PRIu64 " unsent at the end\n",
		p->retries, p->given_up, PUSH_TRIES, p->refused, c.dropped, p->o->push_queue,
		p->unsent + c.length);
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
