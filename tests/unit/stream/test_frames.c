/* The record format of the splice streams (stream/frames): headers encoded and checked. */
#include "testutil.h"

#include "err.h"
#include "stream/frames.h"

#include <string.h>

static void test_frames(void **state)
{
	struct frame f = { .type = FRAME_RANGE, .path_len = 300, .mode = 0640, .offset = 1ull << 33,
			   .length = 123456789 }, g;
	unsigned char h[FRAME_HEADER];

	(void)state;
	frame_encode(&f, h);
	assert_int_equal(frame_decode(h, &g), 0);
	assert_int_equal(g.type, FRAME_RANGE);
	assert_int_equal(g.path_len, 300);
	assert_int_equal(g.mode, 0640);
	assert_true(g.offset == 1ull << 33);
	assert_int_equal(g.length, 123456789);
	h[0] ^= 1;
	assert_int_equal(frame_decode(h, &g), -1);
	assert_contains(err_msg(), "magic");
	f.type = FRAME_FILE;
	frame_encode(&f, h);
	assert_int_equal(frame_decode(h, &g), -1);	/* FILE with an offset */
	f.offset = 0;
	f.path_len = 0;
	frame_encode(&f, h);
	assert_int_equal(frame_decode(h, &g), -1);
	assert_contains(err_msg(), "path length");
	f.path_len = 10;
	f.mode = 0100644;
	frame_encode(&f, h);
	assert_int_equal(frame_decode(h, &g), -1);
	assert_contains(err_msg(), "mode");
	f.mode = 0644;
	f.length = FRAME_MAX_LENGTH + 1;
	frame_encode(&f, h);
	assert_int_equal(frame_decode(h, &g), -1);
	f = (struct frame){ .type = FRAME_END, .offset = 5, .length = 99 };
	frame_encode(&f, h);
	assert_int_equal(frame_decode(h, &g), 0);
	f.flags = FRAME_F_MTIME;
	frame_encode(&f, h);
	assert_int_equal(frame_decode(h, &g), -1);
	assert_contains(err_msg(), "end record with");
	h[4] = 9;
	assert_int_equal(frame_decode(h, &g), -1);
	assert_contains(err_msg(), "unknown type");
}

static int decodes(const struct frame *f)
{
	unsigned char h[FRAME_HEADER];
	struct frame g;

	frame_encode(f, h);
	err_clear();
	return frame_decode(h, &g);
}

/* Version 2's mtime: carried only with its flag, negative values too. */
static void test_mtime(void **state)
{
	struct frame f = { .type = FRAME_FILE, .flags = FRAME_F_MTIME, .path_len = 3, .mode = 0644,
			   .length = 5, .mtime = -86400 * 365 }, g;
	unsigned char h[FRAME_HEADER];

	(void)state;
	frame_encode(&f, h);
	assert_int_equal(frame_decode(h, &g), 0);
	assert_int_equal(g.flags, FRAME_F_MTIME);
	assert_true(g.mtime == -86400 * 365);
	f.mtime = INT64_MAX;
	frame_encode(&f, h);
	assert_int_equal(frame_decode(h, &g), 0);
	assert_true(g.mtime == INT64_MAX);
	/* no flag: the field is zero on the wire, whatever the struct held */
	f.flags = 0;
	frame_encode(&f, h);
	assert_int_equal(frame_decode(h, &g), 0);
	assert_int_equal(g.flags, 0);
	assert_int_equal(g.mtime, 0);
	h[39] = 1;
	assert_int_equal(frame_decode(h, &g), -1);
	assert_contains(err_msg(), "mtime without its flag");
	/* an unknown flag */
	f.flags = 2;
	frame_encode(&f, h);
	assert_int_equal(frame_decode(h, &g), -1);
	assert_contains(err_msg(), "reserved");
	/* a version-1 stream is told apart by its magic */
	f.flags = 0;
	frame_encode(&f, h);
	memcpy(h, "XFR1", 4);
	assert_int_equal(frame_decode(h, &g), -1);
	assert_contains(err_msg(), "magic");
}

/* Directories: permission bits and an mtime, no content, no offset. */
static void test_dir_record(void **state)
{
	struct frame f = { .type = FRAME_DIR, .flags = FRAME_F_MTIME, .path_len = 4, .mode = 01777,
			   .mtime = 1700000000 };

	(void)state;
	assert_int_equal(decodes(&f), 0);
	f.length = 1;
	assert_int_equal(decodes(&f), -1);
	assert_contains(err_msg(), "directory record with 1 bytes");
	f.length = 0;
	f.offset = 8;
	assert_int_equal(decodes(&f), -1);
	assert_contains(err_msg(), "directory record with offset");
	f.offset = 0;
	f.mode = 040755;
	assert_int_equal(decodes(&f), -1);
	assert_contains(err_msg(), "mode");
	f.mode = 0;
	f.path_len = 0;
	assert_int_equal(decodes(&f), -1);
	assert_contains(err_msg(), "path length");
}

/* Links: 1..FRAME_PATH_MAX bytes of content, and nothing else. */
static void test_link_records(void **state)
{
	static const enum frame_type types[] = { FRAME_SYMLINK, FRAME_HARDLINK };

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(types); i++) {
		struct frame f = { .type = types[i], .path_len = 1, .length = 16 };

		assert_int_equal(decodes(&f), 0);
		f.length = FRAME_PATH_MAX;
		assert_int_equal(decodes(&f), 0);
		f.length = FRAME_PATH_MAX + 1;
		assert_int_equal(decodes(&f), -1);
		assert_contains(err_msg(), "link of 4096 bytes");
		f.length = 0;
		assert_int_equal(decodes(&f), -1);
		assert_contains(err_msg(), "link of 0 bytes");
		f.length = 3;
		f.mode = 0777;
		assert_int_equal(decodes(&f), -1);
		assert_contains(err_msg(), "link record with a mode");
		f.mode = 0;
		f.flags = FRAME_F_MTIME;
		assert_int_equal(decodes(&f), -1);
		f.flags = 0;
		f.offset = 1;
		assert_int_equal(decodes(&f), -1);
		f.offset = 0;
		f.path_len = 0;
		assert_int_equal(decodes(&f), -1);
		assert_contains(err_msg(), "path length");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_mtime),
		cmocka_unit_test(test_dir_record),
		cmocka_unit_test(test_link_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
