/* Unit tests: frame text from untrusted symbol names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/frame.h"

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
	/* Bytes >= 0x80 (UTF-8) pass: they neither split nor forge lines. */
	frame_sanitize("caf\xc3\xa9", out, sizeof(out));
	assert_string_equal(out, "caf\xc3\xa9");
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
	 * rest as it is. */
	for (int c = 1; c < 256; c++) {
		char in[2] = { (char)c, '\0' }, out[4];
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
		cmocka_unit_test(frames_packed_and_unpacked),
		cmocka_unit_test(packed_lengths),
	};
	return cmocka_run_group_tests_name("frame", tests, NULL, NULL);
}
