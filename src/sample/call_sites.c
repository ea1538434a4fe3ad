/* call_sites.c - the system call each resume address makes, as stops
 * showed it (call_sites.h). */
#include "sample/call_sites.h"

#include <assert.h>

/* Its slot: direct-mapped, a newer address in the place of an older. */
static unsigned slot_of(uint64_t ip)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ULL;
	return (unsigned)(h >> 55) & (CALL_SITES - 1);
}

void call_sites_learn(struct call_sites *cs, uint64_t ip, long nr)
{
	if (!ip)
		return;
	unsigned i = slot_of(ip);
	int32_t seen = nr < 0 ? CALL_NONE : (int32_t)nr;
	if (cs->ip[i] != ip) {
		cs->ip[i] = ip;
		cs->nr[i] = seen;
		return;
	}
	if (cs->nr[i] == CALL_VARIES || seen == CALL_NONE || seen == cs->nr[i])
		return; /* (a call site stays one when found back in user code) */
	cs->nr[i] = cs->nr[i] == CALL_NONE ? seen : CALL_VARIES;
	assert(cs->nr[i] >= 0 || cs->nr[i] == CALL_VARIES);
}

bool call_sites_known(const struct call_sites *cs, uint64_t ip, long *nr)
{
	unsigned i = slot_of(ip);
	if (!ip || cs->ip[i] != ip || cs->nr[i] == CALL_VARIES)
		return false;
	*nr = cs->nr[i];
	return true;
}
