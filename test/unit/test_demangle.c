/* Unit tests: C++ names come out as c++filt prints them; anything else is
 * left alone. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "name/demangle.h"

static void as_cxxfilt_prints_them(void **state)
{
	(void)state;
	/* Each right-hand side is what c++filt (binutils 2.40) printed. */
	const char *cases[][2] = {
		{ "_ZN3app6WorkerIiE3runEi", "app::Worker<int>::run(int)" },
		{ "_ZZN3app6WorkerIiE3runEiENKUliE_clEi",
		  "app::Worker<int>::run(int)::{lambda(int)#1}::operator()(int) const" },
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
		  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
		{ "_ZNSsC1Ev",
		  "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::basic_string()" },
		{ "_ZThn8_N1C1fEv", "non-virtual thunk to C::f()" },
		{ "_ZN1AD2Ev.cold", "A::~A() [clone .cold]" },
		{ "_ZN1A1fEv.constprop.0.isra.0", "A::f() [clone .constprop.0] [clone .isra.0]" },
		{ "_Z1fv", "f()" },
	};
	char out[256];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!demangle(cases[i][0], out, sizeof(out)))
			fail_msg("%s not demangled (is libstdc++.so.6 installed?)", cases[i][0]);
		assert_string_equal(out, cases[i][1]);
	}
}

static void other_names_left_alone(void **state)
{
	(void)state;
	char out[64] = "untouched";
	/* C names, a bare "f" (a type to the demangler), garbage after _Z. */
	const char *plain[] = { "main", "f", "", "Z1fv", "_Zzzz", "_Z", "__libc_start_main" };
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		assert_int_equal(demangle(plain[i], out, sizeof(out)), 0);
		assert_string_equal(out, "untouched");
	}
	assert_int_equal(demangle(NULL, out, sizeof(out)), 0);
	assert_int_equal(demangle("_Z1fv", out, 0), 0);
}

static void truncated_to_fit(void **state)
{
	(void)state;
	char out[8];
	memset(out, 'x', sizeof(out));
	assert_int_equal(demangle("_ZN3app6WorkerIiE3runEi", out, sizeof(out)), 1);
	assert_string_equal(out, "app::Wo");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(as_cxxfilt_prints_them),
		cmocka_unit_test(other_names_left_alone),
		cmocka_unit_test(truncated_to_fit),
	};
	return cmocka_run_group_tests_name("demangle", tests, NULL, NULL);
}
