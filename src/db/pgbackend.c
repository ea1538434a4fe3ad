/* pgbackend.c - a PostgreSQL process's type and status from its memory
 * (pgbackend.h). */
#define _GNU_SOURCE
#include "db/pgbackend.h"

#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "db/pgsym.h"
#include "db/pgtitle.h"
#include "db/title.h"

#define ST_CHANGECOUNT PG_ST_CHANGECOUNT
#define ST_PROCPID PG_ST_PROCPID
#define ST_STATE PG_ST_STATE
#define ST_ACTIVITY_RAW PG_ST_ACTIVITY_RAW
#define ST_QUERY_ID PG_ST_QUERY_ID
#define ST_SIZE PG_ST_SIZE
#define BGW_TYPE PG_BGW_TYPE

int pg_backend_open(pid_t pid, struct modules *m, int major, struct pg_backend *out)
{
	static const char *const names[] = {
		"MyBackendType", "MyBgworkerEntry", "PostmasterPid", "MyBEEntry",
		"pgstat_track_activity_query_size",
	};
	uint64_t addr[5];
	struct pg_binary bin;
	*out = (struct pg_backend){ .pid = pid, .major = major, .type = -1 };
	if (pg_binary_of(pid, m, &bin) != 0 || pg_binary_symbols(&bin, names, 5, addr) == 0)
		return -1;
	out->type_addr = addr[0];
	out->worker_addr = addr[1];
	out->postmaster_pid_addr = addr[2];
	out->beentry_addr = addr[3];
	out->query_size_addr = addr[4];
	return 0;
}

/* A background worker's bgw_type, NUL-terminated and non-empty.  0 or -1. */
static int worker_type(struct pg_backend *b, char *out)
{
	uint64_t entry = 0;
	if (!b->worker_addr || pg_read(b->pid, b->worker_addr, &entry, sizeof(entry)) != 0 || !entry ||
	    pg_read(b->pid, entry + BGW_TYPE, out, PG_BGW_MAXLEN) != 0)
		return -1;
	out[PG_BGW_MAXLEN - 1] = '\0';
	return out[0] ? 0 : -1;
}

/* Is this the postmaster, the process whose PostmasterPid is its own (a
 * pid_t in every version)?  Then its type is final. */
static bool postmaster(struct pg_backend *b)
{
	int32_t pid = 0;
	if (!b->postmaster_pid_addr || pg_read(b->pid, b->postmaster_pid_addr, &pid, sizeof(pid)) != 0 ||
	    pid != b->pid)
		return false;
	strcpy(b->type_words, "postmaster");
	b->type_final = true;
	return true;
}

/* A major whose type numbers we do not have: the postmaster by
 * PostmasterPid, every other process by its title, once it has one. */
static const char *type_from_title(struct pg_backend *b)
{
	if (postmaster(b))
		return b->type_words;
	char title[TITLE_MAX + 1];
	if (process_title_read(b->pid, title, sizeof(title)) &&
	    pg_title_type(title, b->type_words, sizeof(b->type_words))) {
		b->type_final = true;
		return b->type_words;
	}
	/* a child that has not set its title yet, or a process that never
	 * will (update_process_title off): named by its comm after these */
	b->type_final = ++b->title_looks >= PG_TITLE_LOOKS;
	return NULL;
}

const char *pg_backend_type(struct pg_backend *b)
{
	if (b->type_final)
		return b->type_words[0] ? b->type_words : NULL;
	if (!pg_backend_types_known(b->major))
		return type_from_title(b);
	int32_t type;
	if (!b->type_addr || pg_read(b->pid, b->type_addr, &type, sizeof(type)) != 0)
		return NULL;
	b->type = type;
	if (type == 0) /* the postmaster, or a child not yet started: ask again */
		return postmaster(b) ? b->type_words : NULL;
	const char *name = pg_backend_type_name(b->major, type);
	if (pg_backend_type_worker(b->major, type) && worker_type(b, b->type_words) == 0) {
		b->type_final = true;
		return b->type_words;
	}
	if (!name)
		return NULL;
	snprintf(b->type_words, sizeof(b->type_words), "%s", name);
	/* a worker whose registration cannot be read yet is asked again */
	b->type_final = !pg_backend_type_worker(b->major, type);
	return b->type_words;
}

const char *pg_backend_type_last(const struct pg_backend *b)
{
	return b->type_words[0] ? b->type_words : NULL;
}

/* MyBEEntry, its statement buffer and that buffer's size, once.  0, or -1
 * when the process has no slot yet. */
static int find_slot(struct pg_backend *b)
{
	uint64_t entry = 0, activity = 0;
	int32_t size = 0, procpid = 0;
	b->syscalls++;
	if (!b->beentry_addr || pg_read(b->pid, b->beentry_addr, &entry, sizeof(entry)) != 0 || !entry)
		return -1;
	b->syscalls += 2;
	if (pg_read(b->pid, entry + ST_ACTIVITY_RAW, &activity, sizeof(activity)) != 0 || !activity ||
	    pg_read(b->pid, entry + ST_PROCPID, &procpid, sizeof(procpid)) != 0 || procpid != b->pid)
		return -1;
	if (b->query_size_addr && pg_read(b->pid, b->query_size_addr, &size, sizeof(size)) == 0)
		b->syscalls++;
	if (size <= 0 || size > PG_ACTIVITY_READ_MAX)
		size = size <= 0 ? 1024 : PG_ACTIVITY_READ_MAX;
	b->beentry = entry;
	b->activity_addr = activity;
	b->activity_size = (size_t)size;
	return 0;
}

struct slot_copy {
	unsigned char slot[ST_SIZE];
	char text[PG_ACTIVITY_READ_MAX];
	int32_t changecount_after;
};

/* One copy of the slot, the statement and the count again: 1 if settled,
 * 0 if the backend was writing, -1 if unreadable. */
static int copy_slot(struct pg_backend *b, struct slot_copy *c)
{
	struct iovec local[3] = {
		{ c->slot, ST_SIZE },
		{ c->text, b->activity_size },
		{ &c->changecount_after, sizeof(c->changecount_after) },
	};
	struct iovec remote[3] = {
		{ (void *)(uintptr_t)b->beentry, ST_SIZE },
		{ (void *)(uintptr_t)b->activity_addr, b->activity_size },
		{ (void *)(uintptr_t)(b->beentry + ST_CHANGECOUNT), sizeof(int32_t) },
	};
	ssize_t want = (ssize_t)(ST_SIZE + b->activity_size + sizeof(int32_t));
	b->syscalls++;
	if (process_vm_readv(b->pid, local, 3, remote, 3, 0) != want)
		return -1;
	int32_t before;
	memcpy(&before, c->slot + ST_CHANGECOUNT, sizeof(before));
	return before == c->changecount_after && (before & 1) == 0;
}

/* The id a shape had in this backend lately (0 if none), and learning one. */
static int64_t recent_id(const struct pg_backend *b, uint64_t hash)
{
	for (unsigned i = 0; i < PG_RECENT_IDS; i++)
		if (b->recent[i].id && b->recent[i].hash == hash)
			return b->recent[i].id;
	return 0;
}

static void remember_id(struct pg_backend *b, uint64_t hash, int64_t id)
{
	if (recent_id(b, hash) == id)
		return;
	for (unsigned i = 0; i < PG_RECENT_IDS; i++)
		if (b->recent[i].hash == hash && b->recent[i].id) {
			b->recent[i].id = id; /* the same text, another id (search_path) */
			return;
		}
	b->recent[b->recent_next].hash = hash;
	b->recent[b->recent_next].id = id;
	b->recent_next = (b->recent_next + 1) % PG_RECENT_IDS;
}

/* The activity of a settled copy.  An idle backend's slot still holds its
 * last statement and that statement's id: learnt too, so that the next
 * run of the same statement has its id while it is still being parsed. */
static void parse_slot(struct pg_backend *b, const struct slot_copy *c, struct pg_activity *a)
{
	int32_t state;
	int64_t id;
	memcpy(&state, c->slot + ST_STATE, sizeof(state));
	memcpy(&id, c->slot + ST_QUERY_ID, sizeof(id));
	*a = (struct pg_activity){ .state = pg_state_of(b->major, state), .query_id = id };
	if (a->state != PG_STATE_ACTIVE && !id)
		return;
	pg_query_normalize(c->text, b->activity_size, a->text, sizeof(a->text), &a->text_hash);
	if (id)
		remember_id(b, a->text_hash, id);
	else
		a->query_id = recent_id(b, a->text_hash);
}

enum pg_read pg_backend_read(struct pg_backend *b, struct pg_activity *out)
{
	static __thread struct slot_copy c; /* 4.5 KB: off the stack */
	b->reads++;
	if (!b->beentry && find_slot(b) != 0)
		return PG_READ_NONE;
	for (int i = 0; i < PG_READ_TRIES; i++) {
		int r = copy_slot(b, &c);
		if (r < 0)
			return PG_READ_FAILED;
		if (r == 0) {
			b->retries++;
			continue;
		}
		int32_t procpid, changecount;
		memcpy(&procpid, c.slot + ST_PROCPID, sizeof(procpid));
		memcpy(&changecount, c.slot + ST_CHANGECOUNT, sizeof(changecount));
		if (procpid != b->pid) {
			/* exiting: the slot is cleared, or already another's */
			b->beentry = 0;
			b->have_activity = false;
			return PG_READ_NONE;
		}
		if (b->have_activity && changecount == b->last_changecount) {
			b->unchanged++;
		} else {
			parse_slot(b, &c, &b->last);
			b->last_changecount = changecount;
			b->have_activity = true;
		}
		*out = b->last;
		return PG_READ_OK;
	}
	b->unsettled++;
	if (b->have_activity)
		*out = b->last;
	return PG_READ_UNSETTLED;
}

bool pg_backend_peek_iov(struct pg_backend *b, struct pg_peek *k, struct iovec *local,
			 struct iovec *remote)
{
	if (!b->beentry && find_slot(b) != 0)
		return false;
	local[0] = (struct iovec){ &k->before, sizeof(k->before) };
	local[1] = (struct iovec){ &k->procpid, sizeof(k->procpid) };
	local[2] = (struct iovec){ &k->state, sizeof(k->state) };
	local[3] = (struct iovec){ &k->id, sizeof(k->id) };
	local[4] = (struct iovec){ &k->after, sizeof(k->after) };
	remote[0] = (struct iovec){ (void *)(uintptr_t)(b->beentry + ST_CHANGECOUNT), sizeof(k->before) };
	remote[1] = (struct iovec){ (void *)(uintptr_t)(b->beentry + ST_PROCPID), sizeof(k->procpid) };
	remote[2] = (struct iovec){ (void *)(uintptr_t)(b->beentry + ST_STATE), sizeof(k->state) };
	remote[3] = (struct iovec){ (void *)(uintptr_t)(b->beentry + ST_QUERY_ID), sizeof(k->id) };
	remote[4] = (struct iovec){ (void *)(uintptr_t)(b->beentry + ST_CHANGECOUNT), sizeof(k->after) };
	return true;
}

enum pg_read pg_backend_peek_done(struct pg_backend *b, const struct pg_peek *k,
				  struct pg_activity *out, int32_t *changecount)
{
	if (k->procpid != b->pid) { /* exiting (pg_backend_read) */
		b->beentry = 0;
		b->have_activity = false;
		return PG_READ_NONE;
	}
	if (k->before != k->after || (k->before & 1))
		return PG_READ_UNSETTLED;
	*out = (struct pg_activity){ .state = pg_state_of(b->major, k->state), .query_id = k->id };
	*changecount = k->before;
	return PG_READ_OK;
}

enum pg_read pg_backend_peek(struct pg_backend *b, struct pg_activity *out, int32_t *changecount)
{
	struct pg_peek k;
	struct iovec local[PG_PEEK_IOVS], remote[PG_PEEK_IOVS];
	if (!pg_backend_peek_iov(b, &k, local, remote))
		return PG_READ_NONE;
	b->syscalls++;
	if (process_vm_readv(b->pid, local, PG_PEEK_IOVS, remote, PG_PEEK_IOVS, 0) != (ssize_t)PG_PEEK_BYTES)
		return PG_READ_FAILED;
	return pg_backend_peek_done(b, &k, out, changecount);
}
