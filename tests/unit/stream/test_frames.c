/* The record format of the splice streams (stream/frames): headers encoded and checked. */
#include "testutil.h"

#include "err.h"
#include "stream/frames.h"

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
	h[4] = 9;
	assert_int_equal(frame_decode(h, &g), -1);
	assert_contains(err_msg(), "unknown type");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
