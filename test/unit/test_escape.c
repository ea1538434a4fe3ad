/* Unit tests: untrusted bytes as XML and JSON text (escape.h). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "output/escape.h"

/* What xml_escape (max_chars) or, with json, json_string writes of s. */
static char *written(const char *s, size_t max_chars, int json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	if (json)
		json_string(f, s);
	else
		xml_escape(f, s, max_chars);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void expect(const char *s, size_t max_chars, int json, const char *want)
{
	char *got = written(s, max_chars, json);
	assert_string_equal(got, want);
	free(got);
}

static void xml_markup_and_bad_bytes(void **state)
{
	(void)state;
	expect("a<b>&\"'", SIZE_MAX, 0, "a&lt;b&gt;&amp;&quot;&#39;");
	expect("]]>", SIZE_MAX, 0, "]]&gt;");
	expect("tab\there", SIZE_MAX, 0, "tab\there");
	/* control characters, DEL, invalid UTF-8, U+FFFE and U+FFFF: '?' */
	expect("a\x01" "b\nc\x7f", SIZE_MAX, 0, "a?b?c?");
	expect("x\xff\xfey", SIZE_MAX, 0, "x??y");
	expect("\xef\xbf\xbe\xef\xbf\xbf", SIZE_MAX, 0, "??");
	expect("h\xc3\xa9llo \xe2\x82\xac", SIZE_MAX, 0, "h\xc3\xa9llo \xe2\x82\xac");
}

static void xml_counts_characters_not_bytes(void **state)
{
	(void)state;
	expect("h\xc3\xa9llo", 2, 0, "h\xc3\xa9");
	expect("a&b", 2, 0, "a&amp;");
	expect("\xff\xff\xff", 2, 0, "??");
	expect("abc", 0, 0, "");
	assert_int_equal(utf8_chars(""), 0);
	assert_int_equal(utf8_chars("h\xc3\xa9llo"), 5);
	assert_int_equal(utf8_chars("\xff\xfe"), 2); /* a bad byte is one character */
	assert_int_equal(utf8_chars("\xe2\x82\xac"), 1);
}

static void json_quotes_escapes_and_bad_bytes(void **state)
{
	(void)state;
	expect("", 0, 1, "\"\"");
	expect("a\"b\\c", 0, 1, "\"a\\\"b\\\\c\"");
	expect("l1\nl2\t\x7f", 0, 1, "\"l1\\u000al2\\u0009\\u007f\"");
	expect("x\xffy", 0, 1, "\"x\\ufffdy\"");
	expect("</script> \xc3\xa9", 0, 1, "\"</script> \xc3\xa9\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(xml_markup_and_bad_bytes),
		cmocka_unit_test(xml_counts_characters_not_bytes),
		cmocka_unit_test(json_quotes_escapes_and_bad_bytes),
	};
	return cmocka_run_group_tests_name("escape", tests, NULL, NULL);
}
