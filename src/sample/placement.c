/* placement.c - which CPUs the sampler runs on (placement.h). */
#define _GNU_SOURCE
#include "sample/placement.h"

#include <assert.h>
#include <string.h>

void placement_start(struct placement *pl, bool wanted, bool can_follow)
{
	memset(pl, 0, sizeof(*pl));
	pl->can_follow = can_follow;
	pl->way = PLACE_KEEP_OFF;
	if (!wanted || sched_getaffinity(0, sizeof(pl->allowed), &pl->allowed) != 0)
		return;
	pl->current = pl->allowed;
	pl->on = CPU_COUNT(&pl->allowed) > 1;
}

bool placement_choose(const cpu_set_t *allowed, const cpu_set_t *current, const cpu_set_t *wanted,
		      int my_cpu, cpu_set_t *out)
{
	(void)my_cpu;
	if (CPU_COUNT(wanted) == 0)
		return false; /* nobody wants one now: stay off the last ones wanted */
	cpu_set_t target;
	CPU_ZERO(&target);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, allowed) && !CPU_ISSET(c, wanted))
			CPU_SET(c, &target);
	if (CPU_COUNT(&target) == 0)
		target = *allowed; /* every CPU is wanted: any of them, as we started */
	if (CPU_EQUAL(&target, current))
		return false;
	*out = target;
	return true;
}

bool placement_follow(const cpu_set_t *allowed, const cpu_set_t *current, const cpu_set_t *wanted,
		      cpu_set_t *out)
{
	int first = -1;
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, allowed) && CPU_ISSET(c, wanted))
			first = c;
	if (first < 0)
		return false; /* none wanted (or none we may use): stay */
	if (CPU_COUNT(current) == 1) {
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, current) && CPU_ISSET(c, wanted))
				return false; /* on one of theirs already */
	}
	CPU_ZERO(out);
	CPU_SET(first, out);
	assert(CPU_COUNT(out) == 1 && CPU_ISSET(first, allowed));
	return true;
}

int placement_apply(struct placement *pl, const cpu_set_t *wanted, const cpu_set_t *followed,
		    int my_cpu)
{
	cpu_set_t next;
	if (!pl->on)
		return -1;
	bool follow = pl->can_follow && CPU_COUNT(followed) > 0;
	bool move = follow ? placement_follow(&pl->allowed, &pl->current, followed, &next) :
			     placement_choose(&pl->allowed, &pl->current, wanted, my_cpu, &next);
	if (!move || sched_setaffinity(0, sizeof(next), &next) != 0)
		return -1;
	pl->way = follow ? PLACE_FOLLOW : PLACE_KEEP_OFF;
	pl->current = next;
	pl->moves++;
	pl->follows += follow;
	return sched_getcpu();
}

void placement_moved(struct placement *pl, int cpu)
{
	assert(cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &pl->allowed));
	CPU_ZERO(&pl->current);
	CPU_SET(cpu, &pl->current);
}

void placement_end(struct placement *pl)
{
	if (pl->on && !CPU_EQUAL(&pl->current, &pl->allowed)) {
		sched_setaffinity(0, sizeof(pl->allowed), &pl->allowed);
		pl->current = pl->allowed;
	}
}
