/* resume_here.c - resuming a followed thread on its own CPU (resume_here.h). */
#define _GNU_SOURCE
#include "sample/resume_here.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <linux/futex.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The helper's watch over the sampler's wait for a held thread's trap
 * (resume_here_wait_begin). */
enum watch {
	WATCH_OFF,     /* none: the helper sleeps until asked */
	WATCH_ON,      /* until watch_until, the sampler may wait unbounded */
	WATCH_WAITING, /* and it does */
};

/* The helper's visit to a timed round's resume, on its own timer
 * (resume_here_sleep_there): the resume then needs no wake-up from the
 * thread's CPU. */
enum visit {
	VISIT_NONE,   /* none due: a resume wakes the helper (the eventfd) */
	VISIT_DUE,    /* it comes at visit_at and takes a resume armed by then */
	VISIT_PASSED, /* it came: a resume armed later wakes it */
};

enum ask {
	ASK_NONE,   /* nothing asked of the helper */
	ASK_ARMED,  /* asked: the sampler resumes a thread, SCHED_IDLE */
	ASK_ASLEEP, /* asked: the sampler let a thread it preempted run on,
		       asleep on ask until moved */
	ASK_MOVING, /* the helper is moving it */
	ASK_PLACE,  /* asked: put the sleeping sampler on place_cpu */
};

struct resume_here {
	pthread_t thread;
	pid_t sampler;          /* the thread moved */
	int wake;               /* eventfd: the helper's ask (and its end) */
	cpu_set_t allowed;      /* the sampler's CPUs */
	int off_cpu;            /* the CPU the helper is kept off, -1 none yet */
	_Atomic int helper_on;  /* the one CPU the helper is pinned to, -1 none */
	_Atomic bool yielding;  /* the helper waits its turn behind the sampler
				   it moved (helper_main): an ask of ASK_PLACE
				   needs no wake-up then */
	_Atomic int ask;        /* enum ask */
	_Atomic int moved_to;   /* the CPU of the last move */
	_Atomic bool end;
	_Atomic uint64_t moves;
	/* the next tick's timer, and the one after's (set_timers) */
	timer_t timer[2];
	bool has_timer;         /* both made */
	int cur;                /* timer[cur] is the next tick's */
	uint64_t timer_due;     /* timer[cur] armed for, 0: not armed */
	uint64_t then_due;      /* timer[cur ^ 1] armed for, 0: not armed */
	int timer_cpu;          /* both on the CPU the sampler was on then */
	uint64_t armed_ahead;   /* ticks whose timer was armed a round before */
	bool taken;             /* the sampler was taken from it since */
	_Atomic int place_cpu;  /* ASK_PLACE's CPU */
	_Atomic int placed;     /* where the helper put it, -1 not */
	int stat_fd;            /* the sampler's /proc/thread-self/stat, for its state */
	_Atomic int watch;      /* enum watch */
	_Atomic uint64_t watch_until; /* WATCH_ON's end, CLOCK_MONOTONIC */
	uint64_t waits_ended;   /* waits the helper ended (the sampler's count) */
	_Atomic int visit;      /* enum visit */
	_Atomic uint64_t visit_at; /* VISIT_DUE's time, CLOCK_MONOTONIC */
	uint64_t tick_due;      /* the timed tick this round is for, 0 none */
	uint64_t arm_after_ns;  /* a timed round arms this long after its tick,
				   or sooner 9 times in 10 (learnt) */
	uint64_t arm_lag_ns;    /* ... or sooner half the time (learnt) */
	_Atomic uint64_t visited; /* moves made on a visit, no wake-up sent */
	uint64_t idle_ns;       /* a queued thread's resume let it run then */
};

/* A held thread's trap is waited for this long after its tick is due,
 * unbounded (resume_here_wait_begin): as long as capture.c's own bound
 * (STOP_YIELD_NS), and the round's start.  Past it, the helper signals
 * the wait to an end, and again every WATCH_AGAIN_NS while it lasts. */
#define WATCH_BOUND_NS 1500000ULL
#define WATCH_AGAIN_NS 1000000ULL

/* The visit's time after the tick: learnt from the rounds (their 90th
 * percentile, arm_after_ns), within these bounds.  A resume waits for it
 * (rather than wake the helper) when it comes within VISIT_MAX_NS, and
 * this long before the next tick at least: the round ends in between. */
#define VISIT_FIRST_NS 70000ULL
#define VISIT_MIN_NS 20000ULL
#define VISIT_MAX_NS 250000ULL
#define VISIT_STEP_NS 1000ULL
#define VISIT_BEFORE_TICK_NS 100000ULL

static const struct sched_param FIFO_1 = { .sched_priority = 1 };

/* The sampler needs this long, at least, between asking to be put back
 * and falling asleep before the timer fires. */
#define SLEEP_AHEAD_NS 30000ULL

/* The sampler's state letter, from its stat ('?' unread). */
static char sampler_state(const struct resume_here *h)
{
	char buf[512];
	ssize_t n = h->stat_fd >= 0 ? pread(h->stat_fd, buf, sizeof(buf) - 1, 0) : -1;
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* The sampler asked to be put back on place_cpu once asleep.  This
 * thread shares its CPU and its priority, so it runs only once the
 * sampler has let the CPU go: asleep, or woken meanwhile and waiting for
 * it (then it is left alone: moved, it would preempt the thread there). */
static void place(struct resume_here *h)
{
	int asked = ASK_PLACE;
	if (!atomic_compare_exchange_strong(&h->ask, &asked, ASK_MOVING))
		return; /* called off */
	int cpu = atomic_load(&h->place_cpu);
	int placed = -1;
	if (sampler_state(h) == 'S') {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(h->sampler, sizeof(one), &one) == 0)
			placed = cpu;
	}
	atomic_store(&h->placed, placed);
	atomic_store(&h->ask, ASK_NONE);
}

static uint64_t clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The helper's sleep until asked (false: the eventfd failed).  While it
 * watches, no longer than the watch: then a sampler not waiting lets it
 * go, and one waiting past it is signalled, its wait ended.  While a
 * visit is due, no longer than its time: then a resume armed by then is
 * taken (*visit), and one armed later will wake it. */
static bool helper_sleep(struct resume_here *h, bool *visit)
{
	uint64_t n;
	*visit = false;
	for (;;) {
		uint64_t now = clock_ns();
		if (atomic_load(&h->visit) == VISIT_DUE && now >= atomic_load(&h->visit_at)) {
			atomic_store(&h->visit, VISIT_PASSED);
			int ask = atomic_load(&h->ask);
			if (ask == ASK_ARMED || ask == ASK_ASLEEP) {
				*visit = true;
				return true; /* a resume asked for without a wake-up */
			}
		}
		uint64_t until = atomic_load(&h->visit) == VISIT_DUE ? atomic_load(&h->visit_at) : UINT64_MAX;
		if (atomic_load(&h->watch) != WATCH_OFF) {
			uint64_t w = atomic_load(&h->watch_until);
			if (now >= w) {
				int on = WATCH_ON;
				if (atomic_compare_exchange_strong(&h->watch, &on, WATCH_OFF))
					continue; /* not waiting: the watch is over */
				atomic_store(&h->watch_until, now + WATCH_AGAIN_NS);
				syscall(SYS_tgkill, getpid(), h->sampler, RESUME_HERE_WATCH_SIGNAL);
				continue;
			}
			if (w < until)
				until = w;
		}
		if (until == UINT64_MAX)
			return read(h->wake, &n, sizeof(n)) == sizeof(n) || errno == EINTR;
		struct pollfd wake = { .fd = h->wake, .events = POLLIN };
		struct timespec left = { (time_t)((until - now) / 1000000000ULL),
					 (long)((until - now) % 1000000000ULL) };
		int got = ppoll(&wake, 1, &left, NULL);
		if (got > 0)
			return read(h->wake, &n, sizeof(n)) == sizeof(n) || errno == EINTR;
		if (got < 0 && errno != EINTR)
			return false;
	}
}

/* The sampler's state read this many times at most, until it sleeps
 * (ASK_ASLEEP): it is a system call or two away from it. */
#define ASLEEP_WAIT_TRIES 200

static void *helper_main(void *arg)
{
	struct resume_here *h = arg;
	for (;;) {
		bool visit;
		if (!helper_sleep(h, &visit))
			break;
		if (atomic_load(&h->end))
			break;
		if (atomic_load(&h->ask) == ASK_PLACE) {
			place(h);
			continue;
		}
		int armed = ASK_ARMED, asleep = ASK_ASLEEP;
		bool sleeper = atomic_compare_exchange_strong(&h->ask, &asleep, ASK_MOVING);
		if (!sleeper && !atomic_compare_exchange_strong(&h->ask, &armed, ASK_MOVING))
			continue; /* called off: the sampler ran on before we came */
		/* one that sleeps: asleep first (it is on its way), so that
		 * the move interrupts nobody on the thread's CPU */
		for (int i = 0; sleeper && i < ASLEEP_WAIT_TRIES && sampler_state(h) != 'S'; i++)
			;
		/* the sampler is queued behind the thread it resumed: here,
		 * then real-time again (in that order: real-time there, it
		 * would preempt the thread) */
		int cpu = sched_getcpu();
		cpu_set_t one;
		CPU_ZERO(&one);
		if (cpu >= 0)
			CPU_SET(cpu, &one);
		bool moved = cpu >= 0 && sched_setaffinity(h->sampler, sizeof(one), &one) == 0;
		/* (a sleeper never left SCHED_FIFO: sleep_until_moved) */
		if (!sleeper)
			sched_setscheduler(h->sampler, SCHED_FIFO | SCHED_RESET_ON_FORK, &FIFO_1);
		/* and here ourselves, where the sampler will ask us to put it
		 * back once it sleeps (place: we must share its CPU); pinned
		 * here already unless resume_here_arm let us go since */
		if (moved && atomic_load(&h->helper_on) != cpu &&
		    pthread_setaffinity_np(pthread_self(), sizeof(one), &one) == 0)
			atomic_store(&h->helper_on, cpu);
		atomic_store(&h->moved_to, moved ? cpu : -1);
		atomic_fetch_add(&h->moves, moved);
		atomic_fetch_add(&h->visited, moved && visit);
		if (moved)
			atomic_store(&h->yielding, true);
		atomic_store(&h->ask, ASK_NONE);
		if (sleeper)
			syscall(SYS_futex, &h->ask, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		if (!moved)
			continue;
		/* The sampler now waits for this CPU, under our priority: we
		 * go behind it, and our turn comes when it sleeps - as a rule
		 * at the round's end, having asked to be put back (ASK_PLACE,
		 * resume_here_sleep_there), which wakes nobody while we
		 * yield.  Each side stores, then loads the other's flag
		 * (sequentially consistent): the sampler sees us yielding
		 * and we see its ask, or it wakes us.  A sampler that blocks
		 * mid-round gives us our turn early: no ask yet, and we sleep
		 * on the eventfd as before. */
		sched_yield();
		atomic_store(&h->yielding, false);
		if (atomic_load(&h->ask) == ASK_PLACE)
			place(h);
	}
	return NULL;
}

static void end_timer(struct resume_here *h)
{
	if (h->has_timer) {
		timer_delete(h->timer[0]);
		timer_delete(h->timer[1]);
	}
	h->has_timer = false;
	if (h->stat_fd >= 0)
		close(h->stat_fd);
	h->stat_fd = -1;
}

/* timer[i] armed for due_ns (0: disarmed); what it is armed for now */
static uint64_t set_one(struct resume_here *h, int i, uint64_t due_ns)
{
	struct itimerspec its = { .it_value = { (time_t)(due_ns / 1000000000ULL),
						(long)(due_ns % 1000000000ULL) } };
	return h->has_timer && timer_settime(h->timer[i], TIMER_ABSTIME, &its, NULL) == 0 ? due_ns : 0;
}

/* The next tick's timer armed for next_ns, and the other for then_ns, the
 * tick after (0: none), both on this CPU.  Arming the timer that will
 * fire first programs the CPU's own timer (a write that leaves the
 * guest on a virtual CPU: 6 us of sysmix's time at the median, at 1 ms);
 * arming one behind another does not, and when the first fires the
 * kernel programs the CPU's timer for the next one as it does anyway.
 * So a tick is armed a round before it where it can be: the round the
 * timer wakes then finds it armed for the tick it wants (capture.c,
 * resume_here_lag_ns), and arms only the one behind it. */
static void set_timers(struct resume_here *h, int cpu, uint64_t next_ns, uint64_t then_ns)
{
	int n = h->cur ^ 1; /* (the one armed ahead, if any) */
	if (!next_ns) {
		if (h->timer_due)
			h->timer_due = set_one(h, h->cur, 0);
		if (h->then_due)
			h->then_due = set_one(h, n, 0);
		return;
	}
	if (h->then_due == next_ns && h->timer_cpu == cpu && !h->timer_due) {
		h->armed_ahead++;
	} else {
		if (h->timer_due) /* (not left to fire: its round is over) */
			set_one(h, h->cur, 0);
		h->then_due = set_one(h, n, next_ns);
	}
	h->cur = n;
	h->timer_due = h->then_due;
	h->then_due = then_ns > next_ns && h->timer_due ? set_one(h, n ^ 1, then_ns) : 0;
	h->timer_cpu = cpu;
}

/* RESUME_HERE_WATCH_SIGNAL's handler: its delivery is the point. */
static void watch_ended(int sig)
{
	(void)sig;
}

struct resume_here *resume_here_new(const cpu_set_t *allowed)
{
	if (CPU_COUNT(allowed) < 2)
		return NULL;
	struct resume_here *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->sampler = (pid_t)syscall(SYS_gettid);
	h->allowed = *allowed;
	h->off_cpu = -1;
	h->arm_after_ns = VISIT_FIRST_NS;
	h->arm_lag_ns = VISIT_FIRST_NS;
	atomic_init(&h->visit, VISIT_NONE);
	atomic_init(&h->ask, ASK_NONE);
	atomic_init(&h->moved_to, -1);
	atomic_init(&h->helper_on, -1);
	atomic_init(&h->yielding, false);
	atomic_init(&h->placed, -1);
	char path[64];
	snprintf(path, sizeof(path), "/proc/thread-self/stat");
	h->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
	atomic_init(&h->watch, WATCH_OFF);
	atomic_init(&h->watch_until, 0);
	/* the watch's signal ends a wait, nothing else (no SA_RESTART) */
	struct sigaction quiet = { .sa_handler = watch_ended };
	sigemptyset(&quiet.sa_mask);
	sigset_t watch;
	sigemptyset(&watch);
	sigaddset(&watch, RESUME_HERE_WATCH_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &watch, NULL);
	sigaction(RESUME_HERE_WATCH_SIGNAL, &quiet, NULL);
	/* the tick's timer signals this thread, which takes it in its wait */
	sigset_t tick;
	sigemptyset(&tick);
	sigaddset(&tick, RESUME_HERE_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &tick, NULL);
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = RESUME_HERE_SIGNAL };
	ev._sigev_un._tid = h->sampler;
	h->has_timer = timer_create(CLOCK_MONOTONIC, &ev, &h->timer[0]) == 0;
	if (h->has_timer && timer_create(CLOCK_MONOTONIC, &ev, &h->timer[1]) != 0) {
		timer_delete(h->timer[0]);
		h->has_timer = false;
	}
	h->wake = eventfd(0, EFD_CLOEXEC);
	pthread_attr_t a;
	bool attr = pthread_attr_init(&a) == 0;
	/* real-time from its first instruction, or not at all: its wake-up
	 * must preempt whoever runs on its CPU, as the sampler's does */
	if (h->wake < 0 || !attr || pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED) != 0 ||
	    pthread_attr_setschedpolicy(&a, SCHED_FIFO) != 0 ||
	    pthread_attr_setschedparam(&a, &FIFO_1) != 0) {
		if (attr)
			pthread_attr_destroy(&a);
		if (h->wake >= 0)
			close(h->wake);
		end_timer(h);
		free(h);
		return NULL;
	}
	/* every signal is the sampler's (SIGCHLD above all): none here */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(&h->thread, &a, helper_main, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	if (rc != 0) {
		close(h->wake);
		end_timer(h);
		free(h);
		return NULL;
	}
	return h;
}

/* A timed round arms at now: the visit's time follows the 90th
 * percentile of those offsets from the tick (a step up when over it, a
 * ninth of one down when under). */
static void learn_arm(struct resume_here *h, uint64_t now)
{
	if (!h->tick_due || now < h->tick_due)
		return;
	uint64_t after = now - h->tick_due, q = h->arm_after_ns, m = h->arm_lag_ns;
	h->tick_due = 0; /* (one arm a tick) */
	q = after > q ? q + VISIT_STEP_NS : q - VISIT_STEP_NS / 9;
	h->arm_after_ns = q < VISIT_MIN_NS ? VISIT_MIN_NS : q > VISIT_MAX_NS ? VISIT_MAX_NS : q;
	/* (and the median, a step either way) */
	m = after > m ? m + VISIT_STEP_NS : m - VISIT_STEP_NS;
	h->arm_lag_ns = m < VISIT_MIN_NS ? VISIT_MIN_NS : m > VISIT_MAX_NS ? VISIT_MAX_NS : m;
}

uint64_t resume_here_idle_at(const struct resume_here *h)
{
	return h->idle_ns;
}

uint64_t resume_here_lag_ns(const struct resume_here *h)
{
	return h->arm_lag_ns;
}

/* A queued thread's resume: the helper asked, and the sampler asleep
 * until it is moved (the thread runs the moment it sleeps).  false, the
 * helper not asked: it could not be woken. */
static bool sleep_until_moved(struct resume_here *h, uint64_t next_due_ns)
{
	atomic_store(&h->ask, ASK_ASLEEP);
	uint64_t now = clock_ns();
	learn_arm(h, now);
	uint64_t visit_at = atomic_load(&h->visit_at);
	uint64_t one = 1;
	if (!(atomic_load(&h->visit) == VISIT_DUE && visit_at <= now + VISIT_MAX_NS &&
	      (!next_due_ns || visit_at + VISIT_BEFORE_TICK_NS <= next_due_ns)) &&
	    write(h->wake, &one, sizeof(one)) != sizeof(one)) {
		int asleep = ASK_ASLEEP;
		if (atomic_compare_exchange_strong(&h->ask, &asleep, ASK_NONE))
			return false;
	}
	h->idle_ns = clock_ns();
	for (;;) {
		int ask = atomic_load(&h->ask);
		if (ask != ASK_ASLEEP && ask != ASK_MOVING)
			return true;
		syscall(SYS_futex, &h->ask, FUTEX_WAIT_PRIVATE, ask, NULL, NULL, 0);
	}
}

bool resume_here_arm(struct resume_here *h, int cpu, uint64_t next_due_ns, uint64_t then_due_ns,
		     bool queued)
{
	assert(atomic_load(&h->ask) == ASK_NONE); /* every arm is done before the next */
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return false;
	if (cpu != h->off_cpu) {
		cpu_set_t others = h->allowed;
		CPU_CLR(cpu, &others);
		if (CPU_COUNT(&others) == 0 ||
		    pthread_setaffinity_np(h->thread, sizeof(others), &others) != 0)
			return false;
		h->off_cpu = cpu;
		atomic_store(&h->helper_on, -1); /* (pinned no more) */
	}
	/* here, on its CPU: the timers' interrupts will be this CPU's */
	set_timers(h, cpu, next_due_ns, then_due_ns);
	h->taken = false;
	if (queued)
		return sleep_until_moved(h, next_due_ns);
	static const struct sched_param zero = { .sched_priority = 0 };
	if (sched_setscheduler(0, SCHED_IDLE | SCHED_RESET_ON_FORK, &zero) != 0)
		return false;
	atomic_store(&h->ask, ASK_ARMED);
	uint64_t now = clock_ns();
	learn_arm(h, now);
	/* the helper comes by itself, soon, and well before the next tick:
	 * no wake-up sent from this CPU (it sets VISIT_PASSED before it
	 * looks at the ask) */
	uint64_t visit_at = atomic_load(&h->visit_at);
	if (atomic_load(&h->visit) == VISIT_DUE && visit_at <= now + VISIT_MAX_NS &&
	    (!next_due_ns || visit_at + VISIT_BEFORE_TICK_NS <= next_due_ns))
		return true;
	uint64_t one = 1;
	if (write(h->wake, &one, sizeof(one)) != sizeof(one)) {
		atomic_store(&h->ask, ASK_NONE);
		sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &FIFO_1);
		return false;
	}
	return true;
}

int resume_here_done(struct resume_here *h)
{
	int armed = ASK_ARMED;
	if (atomic_compare_exchange_strong(&h->ask, &armed, ASK_NONE)) {
		/* called off: we run, so nobody moves us now */
		sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &FIFO_1);
		return -1;
	}
	while (atomic_load(&h->ask) == ASK_MOVING)
		; /* its two calls, on another CPU */
	int to = atomic_load(&h->moved_to);
	h->taken = to >= 0;
	return to;
}

bool resume_here_sleep_there(struct resume_here *h, uint64_t due_ns, int thread_cpu, uint64_t *timer_ns)
{
	/* (and time left to fall asleep before it fires) */
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	h->tick_due = 0; /* (a timed round that armed no resume) */
	bool there = h->timer_due && h->timer_due >= due_ns && h->taken && thread_cpu == h->timer_cpu &&
		     h->stat_fd >= 0 && h->timer_due > now + SLEEP_AHEAD_NS;
	h->taken = false;
	if (!there) {
		set_timers(h, thread_cpu, 0, 0);
		return false;
	}
	assert(atomic_load(&h->ask) == ASK_NONE);
	*timer_ns = h->timer_due;
	/* watched from now: the helper's sleeps are then bounded */
	atomic_store(&h->watch_until, h->timer_due + WATCH_BOUND_NS);
	atomic_store(&h->watch, WATCH_ON);
	/* and visited once the round should have armed its resume */
	atomic_store(&h->visit_at, h->timer_due + h->arm_after_ns);
	atomic_store(&h->visit, VISIT_DUE);
	atomic_store(&h->placed, -1);
	atomic_store(&h->place_cpu, thread_cpu);
	atomic_store(&h->ask, ASK_PLACE);
	/* (the helper yielding behind us takes the ask when we sleep) */
	if (atomic_load(&h->yielding))
		return true;
	uint64_t one = 1;
	if (write(h->wake, &one, sizeof(one)) != sizeof(one)) {
		atomic_store(&h->ask, ASK_NONE);
		set_timers(h, thread_cpu, 0, 0);
		return false;
	}
	return true;
}

int resume_here_woke(struct resume_here *h)
{
	/* (the helper ran before our wait ended: it shares our CPU and
	 * priority; should it not have, it is called off) */
	int place = ASK_PLACE;
	atomic_compare_exchange_strong(&h->ask, &place, ASK_NONE);
	while (atomic_load(&h->ask) == ASK_MOVING)
		; /* its call, to its end */
	h->tick_due = h->timer_due;
	h->timer_due = 0; /* fired */
	return atomic_load(&h->placed);
}

bool resume_here_wait_begin(struct resume_here *h, sigset_t *during)
{
	int on = WATCH_ON;
	if (!h || clock_ns() >= atomic_load(&h->watch_until) ||
	    !atomic_compare_exchange_strong(&h->watch, &on, WATCH_WAITING))
		return false;
	pthread_sigmask(SIG_SETMASK, NULL, during);
	sigdelset(during, RESUME_HERE_WATCH_SIGNAL);
	return true;
}

void resume_here_wait_end(struct resume_here *h, bool ended)
{
	h->waits_ended += ended;
	/* one wait a round: the watch ends with it (a signal sent after
	 * this stays pending, and ends the next wait at once) */
	atomic_store(&h->watch, WATCH_OFF);
}

uint64_t resume_here_waits_ended(const struct resume_here *h)
{
	return h ? h->waits_ended : 0;
}

uint64_t resume_here_armed_ahead(const struct resume_here *h)
{
	return h ? h->armed_ahead : 0;
}

uint64_t resume_here_visited(const struct resume_here *h)
{
	return h ? atomic_load(&((struct resume_here *)h)->visited) : 0;
}

uint64_t resume_here_count(const struct resume_here *h)
{
	return h ? atomic_load(&((struct resume_here *)h)->moves) : 0;
}

void resume_here_free(struct resume_here *h)
{
	if (!h)
		return;
	atomic_store(&h->end, true);
	uint64_t one = 1;
	if (write(h->wake, &one, sizeof(one)) == sizeof(one))
		pthread_join(h->thread, NULL);
	else
		pthread_cancel(h->thread), pthread_join(h->thread, NULL);
	close(h->wake);
	end_timer(h);
	free(h);
}
