/* Unit tests: C++ names from the scopes DWARF puts them in, types as
 * c++filt prints them, and GCC's clone suffixes dropped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "name/qualname.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void scopes_joined(void **state)
{
	(void)state;
	char out[256];
	/* std::invoke<...> as GCC declares it inside namespace std: the
	 * template's DW_AT_name carries its arguments, in GCC's spelling. */
	const struct qual_part in_std[] = { { QUAL_NAMESPACE, "std", NULL, false, 0 } };
	assert_true(qualname_join(in_std, N(in_std), "invoke<main()::<lambda()>&>", out, sizeof(out)));
	assert_string_equal(out, "std::invoke<main()::<lambda()>&>");

	/* A lambda in a function with a mangled name: the function's
	 * demangled name replaces the scopes around it; the closure as
	 * c++filt prints it, with its number. */
	const struct qual_part in_churn[] = {
		{ QUAL_NAMESPACE, "app", NULL, false, 0 },
		{ QUAL_FUNCTION, "app::churn(int)", NULL, true, 0 },
		{ QUAL_LAMBDA, NULL, "(int)", false, 2 },
	};
	assert_true(qualname_join(in_churn, N(in_churn), "operator()(int) const", out, sizeof(out)));
	assert_string_equal(out, "app::churn(int)::{lambda(int)#2}::operator()(int) const");

	/* main's mangled name is "main": no parameters, as c++filt has it. */
	const struct qual_part in_main[] = {
		{ QUAL_FUNCTION, "main", NULL, false, 0 },
		{ QUAL_LAMBDA, NULL, "(long, long)", false, 1 },
	};
	assert_true(qualname_join(in_main, N(in_main), "operator()(long, long) const", out, sizeof(out)));
	assert_string_equal(out, "main::{lambda(long, long)#1}::operator()(long, long) const");

	/* Unknown parameters or number are left out, never made up. */
	const struct qual_part unknown[] = {
		{ QUAL_FUNCTION, "main", NULL, false, 0 },
		{ QUAL_LAMBDA, NULL, NULL, false, 0 },
	};
	assert_true(qualname_join(unknown, N(unknown), "operator()", out, sizeof(out)));
	assert_string_equal(out, "main::{lambda}::operator()");

	/* Anonymous scopes say so, as c++filt and gdb write them. */
	const struct qual_part anon[] = {
		{ QUAL_NAMESPACE, NULL, NULL, false, 0 },
		{ QUAL_CLASS, "Worker<int>", NULL, false, 0 },
		{ QUAL_CLASS, NULL, NULL, false, 0 },
	};
	assert_true(qualname_join(anon, N(anon), "run", out, sizeof(out)));
	assert_string_equal(out, "(anonymous namespace)::Worker<int>::(anonymous class)::run");

	/* No scopes: the leaf alone (C, or a global C++ function). */
	assert_true(qualname_join(NULL, 0, "mix", out, sizeof(out)));
}

static void join_truncates_to_fit(void **state)
{
	(void)state;
	char out[12];
	const struct qual_part ns[] = { { QUAL_NAMESPACE, "application", NULL, false, 0 } };
	assert_false(qualname_join(ns, N(ns), "run", out, sizeof(out)));
	assert_string_equal(out, "application");
	assert_false(qualname_join(ns, N(ns), "run", out, 0));
	char exact[8];
	assert_true(qualname_join(NULL, 0, "1234567", exact, sizeof(exact)));
	assert_false(qualname_join(NULL, 0, "12345678", exact, sizeof(exact)));
	assert_string_equal(exact, "1234567");
}

static void types_as_cxxfilt_prints_them(void **state)
{
	(void)state;
	char out[64];
	const struct type_step i[] = { { TYPE_NAMED, "int" } };
	assert_true(qualname_type(i, N(i), out, sizeof(out)));
	assert_string_equal(out, "int");
	const struct type_step argv[] = { { TYPE_POINTER, NULL }, { TYPE_POINTER, NULL }, { TYPE_NAMED, "char" } };
	assert_true(qualname_type(argv, N(argv), out, sizeof(out)));
	assert_string_equal(out, "char**");
	const struct type_step cstr[] = { { TYPE_POINTER, NULL }, { TYPE_CONST, NULL }, { TYPE_NAMED, "char" } };
	assert_true(qualname_type(cstr, N(cstr), out, sizeof(out)));
	assert_string_equal(out, "char const*");
	const struct type_step cptr[] = { { TYPE_CONST, NULL }, { TYPE_POINTER, NULL }, { TYPE_NAMED, "char" } };
	assert_true(qualname_type(cptr, N(cptr), out, sizeof(out)));
	assert_string_equal(out, "char* const");
	const struct type_step cref[] = { { TYPE_REFERENCE, NULL }, { TYPE_CONST, NULL }, { TYPE_NAMED, "app::Acc" } };
	assert_true(qualname_type(cref, N(cref), out, sizeof(out)));
	assert_string_equal(out, "app::Acc const&");
	const struct type_step rref[] = { { TYPE_RVALUE_REFERENCE, NULL }, { TYPE_NAMED, "int" } };
	assert_true(qualname_type(rref, N(rref), out, sizeof(out)));
	assert_string_equal(out, "int&&");
	const struct type_step vcv[] = { { TYPE_VOLATILE, NULL }, { TYPE_POINTER, NULL }, { TYPE_CONST, NULL },
					 { TYPE_NAMED, "void" } };
	assert_true(qualname_type(vcv, N(vcv), out, sizeof(out)));
	assert_string_equal(out, "void const* volatile");
	/* GCC's base type names in c++filt's words */
	assert_string_equal(qualname_base_type("long int"), "long");
	assert_string_equal(qualname_base_type("long unsigned int"), "unsigned long");
	assert_string_equal(qualname_base_type("short int"), "short");
	assert_string_equal(qualname_base_type("long long unsigned int"), "unsigned long long");
	assert_string_equal(qualname_base_type("unsigned int"), "unsigned int");
	assert_string_equal(qualname_base_type("char"), "char");
}

static void types_refused(void **state)
{
	(void)state;
	char out[8] = "x";
	/* No named type at the end, two of them, nothing at all. */
	const struct type_step bare[] = { { TYPE_POINTER, NULL } };
	assert_false(qualname_type(bare, N(bare), out, sizeof(out)));
	assert_string_equal(out, "");
	const struct type_step two[] = { { TYPE_NAMED, "int" }, { TYPE_NAMED, "char" } };
	assert_false(qualname_type(two, N(two), out, sizeof(out)));
	assert_false(qualname_type(NULL, 0, out, sizeof(out)));
	const struct type_step unnamed[] = { { TYPE_NAMED, NULL } };
	assert_false(qualname_type(unnamed, N(unnamed), out, sizeof(out)));
	/* Too long for out: refused, not cut. */
	const struct type_step longer[] = { { TYPE_POINTER, NULL }, { TYPE_NAMED, "unsigned long" } };
	assert_false(qualname_type(longer, N(longer), out, sizeof(out)));
	assert_string_equal(out, "");
}

static void clone_suffixes_dropped(void **state)
{
	(void)state;
	const char *cases[][2] = {
		/* demangled, as __cxa_demangle prints a clone */
		{ "app::f(int) [clone .isra.0]", "app::f(int)" },
		{ "A::f() [clone .constprop.0] [clone .isra.0]", "A::f()" },
		{ "A::~A() [clone .cold]", "A::~A()" },
		/* plain C symbols */
		{ "foo.part.0", "foo" },
		{ "foo.cold", "foo" },
		{ "foo.constprop.0.isra.0", "foo" },
		{ "foo.lto_priv.0", "foo" },
		{ "foo.localalias", "foo" },
		/* not a clone: left alone */
		{ "foo", "foo" },
		{ "foo.bar", "foo.bar" },
		{ "foo.partial", "foo.partial" },
		{ ".part.0", ".part.0" },
		{ "operator()", "operator()" },
		{ "", "" },
	};
	for (size_t i = 0; i < N(cases); i++) {
		char name[64];
		strcpy(name, cases[i][0]);
		qualname_strip_clone(name);
		assert_string_equal(name, cases[i][1]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scopes_joined),
		cmocka_unit_test(join_truncates_to_fit),
		cmocka_unit_test(types_as_cxxfilt_prints_them),
		cmocka_unit_test(types_refused),
		cmocka_unit_test(clone_suffixes_dropped),
	};
	return cmocka_run_group_tests_name("qualname", tests, NULL, NULL);
}
