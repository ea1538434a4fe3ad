/* Unit tests: the call each resume address makes, as stops teach it
 * (call_sites.h) - unknown until a stop saw it; a call site stays one
 * when found back in user code; two calls at one address never named;
 * an address put out of its slot by another is unknown again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sample/call_sites.h"

static struct call_sites sites;

static int fresh(void **state)
{
	(void)state;
	memset(&sites, 0, sizeof(sites));
	return 0;
}

static void a_stop_teaches_its_address(void **state)
{
	(void)state;
	long nr = 99;
	assert_false(call_sites_known(&sites, 0x401000, &nr));
	call_sites_learn(&sites, 0x401000, 17); /* pread64 */
	assert_true(call_sites_known(&sites, 0x401000, &nr));
	assert_int_equal(nr, 17);
	call_sites_learn(&sites, 0x402000, -1); /* user code */
	assert_true(call_sites_known(&sites, 0x402000, &nr));
	assert_int_equal(nr, CALL_NONE);
	assert_false(call_sites_known(&sites, 0x402001, &nr));
	/* no address: nothing learnt, nothing known */
	call_sites_learn(&sites, 0, 3);
	assert_false(call_sites_known(&sites, 0, &nr));
}

static void a_call_site_stays_one(void **state)
{
	(void)state;
	long nr;
	call_sites_learn(&sites, 0x401000, 17);
	call_sites_learn(&sites, 0x401000, -1); /* interrupted as the call returned */
	assert_true(call_sites_known(&sites, 0x401000, &nr));
	assert_int_equal(nr, 17);
	/* user code first, then a call seen there: a call site */
	call_sites_learn(&sites, 0x403000, -1);
	call_sites_learn(&sites, 0x403000, 0);
	assert_true(call_sites_known(&sites, 0x403000, &nr));
	assert_int_equal(nr, 0);
}

static void two_calls_at_one_address_need_a_stop(void **state)
{
	(void)state;
	long nr;
	call_sites_learn(&sites, 0x404000, 202); /* syscall(2): futex */
	call_sites_learn(&sites, 0x404000, 186); /* and gettid */
	assert_false(call_sites_known(&sites, 0x404000, &nr));
	call_sites_learn(&sites, 0x404000, 202);
	call_sites_learn(&sites, 0x404000, -1);
	assert_false(call_sites_known(&sites, 0x404000, &nr));
}

static void a_newer_address_takes_the_slot(void **state)
{
	(void)state;
	long nr;
	/* more addresses than slots: some share one, the newest kept */
	for (uint64_t ip = 0x10000; ip < 0x10000 + 4 * CALL_SITES; ip++)
		call_sites_learn(&sites, ip, (long)(ip & 7));
	unsigned known = 0;
	for (uint64_t ip = 0x10000; ip < 0x10000 + 4 * CALL_SITES; ip++)
		if (call_sites_known(&sites, ip, &nr)) {
			assert_int_equal(nr, (long)(ip & 7)); /* never another's */
			known++;
		}
	assert_true(known <= CALL_SITES);
	assert_true(known >= CALL_SITES / 2);
	/* the last one learnt is there */
	uint64_t last = 0x10000 + 4 * CALL_SITES - 1;
	assert_true(call_sites_known(&sites, last, &nr));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(a_stop_teaches_its_address, fresh),
		cmocka_unit_test_setup(a_call_site_stays_one, fresh),
		cmocka_unit_test_setup(two_calls_at_one_address_need_a_stop, fresh),
		cmocka_unit_test_setup(a_newer_address_takes_the_slot, fresh),
	};
	return cmocka_run_group_tests_name("call_sites", tests, NULL, NULL);
}
