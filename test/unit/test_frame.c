/* Unit tests: frame text from untrusted names - separators, controls,
 * invalid UTF-8. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/frame.h"
#include "base/utf8.h"

#include "tracee/procfs.h" /* COMM_MAX: a sanitized comm's room */

static bool ends_with_str(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

#define FFFD "\xef\xbf\xbd" /* U+FFFD, the replacement character */

static void keeps_ordinary_names(void **state)
{
	(void)state;
	char out[64];
	assert_int_equal(frame_sanitize("main", out, sizeof(out)), 4);
	assert_string_equal(out, "main");
	frame_sanitize("ns::Foo<int>::bar(int) const", out, sizeof(out));
	assert_string_equal(out, "ns::Foo<int>::bar(int) const");
	frame_sanitize("R (running)", out, sizeof(out));
	assert_string_equal(out, "R (running)");
}

static void neutralizes_separators_and_controls(void **state)
{
	(void)state;
	char out[64];
	frame_sanitize("a;b", out, sizeof(out));
	assert_string_equal(out, "a:b");
	frame_sanitize("evil\nmain;x 99", out, sizeof(out));
	assert_string_equal(out, "evil?main:x 99");
	frame_sanitize("\x1b[31mred\x7f\t", out, sizeof(out));
	assert_string_equal(out, "?[31mred??");
	/* Valid UTF-8 passes as it is. */
	frame_sanitize("caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x90\x98", out, sizeof(out));
	assert_string_equal(out, "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x90\x98");
}

static void empty_and_truncated(void **state)
{
	(void)state;
	char out[8];
	frame_sanitize("", out, sizeof(out));
	assert_string_equal(out, "[unknow"); /* "[unknown]" cut to 7 + NUL */
	frame_sanitize(NULL, out, sizeof(out));
	assert_string_equal(out, "[unknow");
	assert_int_equal(frame_sanitize("abcdefghijkl", out, sizeof(out)), 7);
	assert_string_equal(out, "abcdefg");
	char one[1] = { 'x' };
	assert_int_equal(frame_sanitize("abc", one, 1), 0);
	assert_int_equal(one[0], '\0');
}

static void module_names(void **state)
{
	(void)state;
	char out[64];
	frame_module_name("/usr/lib/x86_64-linux-gnu/libc.so.6", out, sizeof(out));
	assert_string_equal(out, "[libc.so.6]");
	frame_module_name("postgres", out, sizeof(out));
	assert_string_equal(out, "[postgres]");
	frame_module_name("/tmp/we;ird\nname.so", out, sizeof(out));
	assert_string_equal(out, "[we:ird?name.so]");
	frame_module_name("", out, sizeof(out));
	assert_string_equal(out, "[unknown]");
	frame_module_name("/dir/", out, sizeof(out));
	assert_string_equal(out, "[unknown]");
	char small[6];
	frame_module_name("/lib/libverylong.so", small, sizeof(small));
	assert_string_equal(small, "[lib]");
}

static void every_byte(void **state)
{
	(void)state;
	/* Each byte 1..255 alone: controls and DEL to '?', ';' to ':', the
	 * rest of ASCII as it is; a byte from 0x80 on is no character alone:
	 * U+FFFD. */
	for (int c = 1; c < 256; c++) {
		char in[2] = { (char)c, '\0' }, out[4];
		if (c >= 0x80) {
			assert_int_equal(frame_sanitize(in, out, sizeof(out)), 3);
			assert_string_equal(out, FFFD);
			continue;
		}
		assert_int_equal(frame_sanitize(in, out, sizeof(out)), 1);
		char want = c < 0x20 || c == 0x7f ? '?' : c == ';' ? ':' : (char)c;
		if (out[0] != want)
			fail_msg("byte 0x%02x became 0x%02x", c, (unsigned char)out[0]);
	}
	char out[64];
	assert_int_equal(frame_sanitize("a\r\nb\x1b]0;title\x07", out, sizeof(out)), 14);
	assert_string_equal(out, "a??b?]0:title?");
	assert_int_equal(frame_sanitize(";;;", out, sizeof(out)), 3);
	assert_string_equal(out, ":::");
}

static void lengths_returned(void **state)
{
	(void)state;
	char out[64];
	assert_int_equal(frame_sanitize("", out, sizeof(out)), strlen("[unknown]"));
	assert_string_equal(out, "[unknown]");
	assert_int_equal(frame_module_name("/usr/lib/x86_64-linux-gnu/libc.so.6", out, sizeof(out)),
			 strlen("[libc.so.6]"));
	assert_int_equal(frame_module_name(NULL, out, sizeof(out)), strlen("[unknown]"));
	assert_string_equal(out, "[unknown]");
	assert_int_equal(frame_module_name("[vdso]", out, sizeof(out)), 8);
	assert_string_equal(out, "[[vdso]]");
	/* Tiny buffers: always terminated, never overrun. */
	char tiny[3] = { 'x', 'x', 'x' };
	assert_int_equal(frame_module_name("/lib/libc.so", tiny, 1), 0);
	assert_int_equal(tiny[0], '\0');
	assert_int_equal(frame_module_name("/lib/libc.so", tiny, 2), 0);
	assert_int_equal(tiny[0], '\0');
	size_t n = frame_module_name("/lib/libc.so", tiny, 3);
	assert_int_equal(n, strlen(tiny));
	assert_true(n < 3);
	frame_sanitize("abc", tiny, 0); /* nothing written */
}

static void module_name_of_deleted_and_odd_paths(void **state)
{
	(void)state;
	char out[64];
	frame_module_name("/tmp/lib x.so (deleted)", out, sizeof(out));
	assert_string_equal(out, "[lib x.so (deleted)]");
	frame_module_name("/a/b\x1b[2J.so", out, sizeof(out));
	assert_string_equal(out, "[b?[2J.so]");
	frame_module_name("/", out, sizeof(out));
	assert_string_equal(out, "[unknown]");
}

/* Is s valid UTF-8 with no control character (C0, DEL, C1) and no ';'? */
static bool clean_utf8(const char *s)
{
	while (*s) {
		uint32_t cp;
		size_t len = utf8_next(s, &cp);
		if (!len || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) || cp == ';')
			return false;
		s += len;
	}
	return true;
}

/* Bytes that are not UTF-8, each its own U+FFFD: stray continuation
 * bytes, bytes no sequence begins with, overlong forms (a '/' in two
 * bytes, NUL in two), surrogates (what CESU-8 and Java write), past
 * U+10FFFF. */
static void invalid_utf8_replaced(void **state)
{
	(void)state;
	char out[128];
	frame_sanitize("a\x80" "b\xbf" "c", out, sizeof(out));
	assert_string_equal(out, "a" FFFD "b" FFFD "c");
	frame_sanitize("\xfe\xff", out, sizeof(out));
	assert_string_equal(out, FFFD FFFD);
	frame_sanitize("x\xc0\xafy", out, sizeof(out)); /* overlong '/' */
	assert_string_equal(out, "x" FFFD FFFD "y");
	frame_sanitize("\xc0\x80", out, sizeof(out)); /* overlong NUL */
	assert_string_equal(out, FFFD FFFD);
	frame_sanitize("\xe0\x80\xaf", out, sizeof(out)); /* overlong in 3 */
	assert_string_equal(out, FFFD FFFD FFFD);
	frame_sanitize("\xf0\x80\x80\xaf", out, sizeof(out)); /* overlong in 4 */
	assert_string_equal(out, FFFD FFFD FFFD FFFD);
	frame_sanitize("\xed\xa0\x80" "z", out, sizeof(out)); /* U+D800 */
	assert_string_equal(out, FFFD FFFD FFFD "z");
	frame_sanitize("\xed\xbf\xbf", out, sizeof(out)); /* U+DFFF */
	assert_string_equal(out, FFFD FFFD FFFD);
	frame_sanitize("\xf4\x90\x80\x80", out, sizeof(out)); /* U+110000 */
	assert_string_equal(out, FFFD FFFD FFFD FFFD);
	/* the edges that are valid stay */
	frame_sanitize("\xc2\xa0|\xed\x9f\xbf|\xee\x80\x80|\xf4\x8f\xbf\xbf", out, sizeof(out));
	assert_string_equal(out, "\xc2\xa0|\xed\x9f\xbf|\xee\x80\x80|\xf4\x8f\xbf\xbf");
	/* U+FFFD itself is valid: our output comes back as it is */
	frame_sanitize(FFFD, out, sizeof(out));
	assert_string_equal(out, FFFD);
}

/* A sequence cut short - by the end of the name (a comm is cut at 15
 * bytes, a query at track_activity_query_size, whatever the character) or
 * by a byte that cannot follow - leaves a U+FFFD a byte. */
static void truncated_sequences(void **state)
{
	(void)state;
	char out[64];
	frame_sanitize("euro\xe2\x82", out, sizeof(out)); /* U+20AC less its last */
	assert_string_equal(out, "euro" FFFD FFFD);
	frame_sanitize("\xf0\x9f\x90", out, sizeof(out));
	assert_string_equal(out, FFFD FFFD FFFD);
	frame_sanitize("\xc3", out, sizeof(out));
	assert_string_equal(out, FFFD);
	frame_sanitize("\xc3" "a", out, sizeof(out)); /* the next byte is not a continuation */
	assert_string_equal(out, FFFD "a");
	frame_sanitize("\xe2\x82;", out, sizeof(out)); /* nor is ';', which stays a ':' */
	assert_string_equal(out, FFFD FFFD ":");
}

/* C1 controls (U+0080-U+009F, two bytes in UTF-8) are controls: a
 * terminal may act on U+009B as on ESC [. */
static void c1_controls(void **state)
{
	(void)state;
	char out[64];
	frame_sanitize("a\xc2\x9b" "31mb\xc2\x85" "c\xc2\x80", out, sizeof(out));
	assert_string_equal(out, "a?31mb?c?");
	frame_sanitize("\xc2\x9f\xc2\xa0", out, sizeof(out)); /* U+009F, U+00A0 */
	assert_string_equal(out, "?\xc2\xa0");
}

/* Cut to fit between whole characters, never inside one: out stays valid
 * however small, and a replacement that does not fit is left out whole. */
static void truncation_keeps_characters_whole(void **state)
{
	(void)state;
	char out[8];
	/* "ab" (2) + "\xc3\xa9" (2) + "\xe6\x97\xa5" (3) = 7 bytes fit in 8 */
	assert_int_equal(frame_sanitize("ab\xc3\xa9\xe6\x97\xa5x", out, sizeof(out)), 7);
	assert_string_equal(out, "ab\xc3\xa9\xe6\x97\xa5");
	assert_int_equal(frame_sanitize("abcde\xc3\xa9", out, 7), 5); /* 5 + 2 would need 8 */
	assert_string_equal(out, "abcde");
	assert_int_equal(frame_sanitize("abcde\xff", out, 8), 5); /* U+FFFD needs 3 */
	assert_string_equal(out, "abcde");
	assert_int_equal(frame_sanitize("abcd\xff", out, 8), 7);
	assert_string_equal(out, "abcd" FFFD);
	assert_int_equal(frame_sanitize("\xf0\x9f\x90\x98", out, 4), 0);
	assert_string_equal(out, "");
	/* the room FRAME_SANITIZED_MAX promises: nothing cut, a suffix kept */
	char in[64], big[FRAME_SANITIZED_MAX(sizeof(in))];
	memset(in, 0xff, sizeof(in) - 5);
	memcpy(in + sizeof(in) - 5, "_[i]", 5);
	assert_int_equal(frame_sanitize(in, big, sizeof(big)), 3 * (sizeof(in) - 5) + 4);
	assert_true(ends_with_str(big, FFFD "_[i]"));
}

/* What each writer relies on, for every short byte string an attacker can
 * choose: valid UTF-8 out, no control character, no ';', never longer
 * than three times the input, and a second pass changes nothing. */
static void every_two_bytes_and_idempotent(void **state)
{
	(void)state;
	for (int a = 1; a < 256; a++)
		for (int b = 0; b < 256; b++) {
			char in[4] = { (char)a, (char)b, (char)0xa9, '\0' };
			char out[16], again[16];
			size_t n = frame_sanitize(in, out, sizeof(out));
			if (!clean_utf8(out) || n > 3 * strlen(in) || n != strlen(out))
				fail_msg("bytes %02x %02x a9: not clean", a, b);
			frame_sanitize(out, again, sizeof(again));
			if (strcmp(out, again) != 0)
				fail_msg("bytes %02x %02x a9: a second pass changed it", a, b);
		}
}

/* Thread names as the issue found them: each comes out valid, and the
 * ones that were valid and printable come out as they were. */
static void odd_thread_names(void **state)
{
	(void)state;
	char out[COMM_MAX];
	frame_sanitize(" 12345", out, sizeof(out)); /* the perf-script writer's business */
	assert_string_equal(out, " 12345");
	frame_sanitize("a;b 7", out, sizeof(out));
	assert_string_equal(out, "a:b 7");
	frame_sanitize("esc\x1b[31m\nnl", out, sizeof(out));
	assert_string_equal(out, "esc?[31m?nl");
	/* 15 bytes of 0xff, the longest comm: 45 bytes, room to spare */
	frame_sanitize("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", out,
		       sizeof(out));
	assert_int_equal(strlen(out), 45);
	assert_true(clean_utf8(out));
}

/* Kernel frames wait packed in a fixed buffer between the tick and the
 * count: all of them, or none rather than a stack cut short. */
static void frames_packed_and_unpacked(void **state)
{
	(void)state;
	char buf[64];
	const char *k[] = { "entry_SYSCALL_64_[k]", "do_syscall_64_[k]", "ep_poll_[k]" };
	assert_int_equal(frames_pack(k, 3, buf, sizeof(buf)), 3);
	const char *out[8];
	assert_int_equal(frames_unpack(buf, 3, out, 8), 3);
	assert_string_equal(out[0], "entry_SYSCALL_64_[k]");
	assert_string_equal(out[2], "ep_poll_[k]");
	assert_int_equal(frames_unpack(buf, 3, out, 2), 2); /* bounded by the room */
	/* 21 + 18 + 12 bytes fit in 51, not in 50 */
	assert_int_equal(frames_pack(k, 3, buf, 51), 3);
	assert_int_equal(frames_pack(k, 3, buf, 50), 0);
	assert_int_equal(frames_pack(k, 0, buf, sizeof(buf)), 0);
}

/* What a packed list takes: each frame and its NUL, counted up to the n
 * asked for, so the bytes after them (another tick's leftovers) are not. */
static void packed_lengths(void **state)
{
	(void)state;
	char buf[64];
	memset(buf, 'x', sizeof(buf));
	const char *k[] = { "entry_SYSCALL_64_[k]", "do_syscall_64_[k]", "ep_poll_[k]" };
	assert_int_equal(frames_pack(k, 3, buf, sizeof(buf)), 3);
	assert_int_equal(frames_packed_len(buf, 3), 21 + 18 + 12);
	assert_int_equal(frames_packed_len(buf, 2), 21 + 18);
	assert_int_equal(frames_packed_len(buf, 0), 0);
	assert_int_equal(frames_packed_len(NULL, 0), 0);
	/* empty frames are one byte each */
	const char *empty[] = { "", "", "a" };
	assert_int_equal(frames_pack(empty, 3, buf, sizeof(buf)), 3);
	assert_int_equal(frames_packed_len(buf, 3), 1 + 1 + 2);
	/* exactly the room frames_pack needs: one byte less does not fit */
	char again[64];
	assert_int_equal(frames_pack(k, 3, buf, sizeof(buf)), 3);
	size_t len = frames_packed_len(buf, 3);
	assert_int_equal(frames_pack(k, 3, again, len), 3);
	assert_memory_equal(again, buf, len);
	assert_int_equal(frames_pack(k, 3, again, len - 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keeps_ordinary_names),
		cmocka_unit_test(neutralizes_separators_and_controls),
		cmocka_unit_test(empty_and_truncated),
		cmocka_unit_test(module_names),
		cmocka_unit_test(every_byte),
		cmocka_unit_test(lengths_returned),
		cmocka_unit_test(module_name_of_deleted_and_odd_paths),
		cmocka_unit_test(invalid_utf8_replaced),
		cmocka_unit_test(truncated_sequences),
		cmocka_unit_test(c1_controls),
		cmocka_unit_test(truncation_keeps_characters_whole),
		cmocka_unit_test(every_two_bytes_and_idempotent),
		cmocka_unit_test(odd_thread_names),
		cmocka_unit_test(frames_packed_and_unpacked),
		cmocka_unit_test(packed_lengths),
	};
	return cmocka_run_group_tests_name("frame", tests, NULL, NULL);
}
