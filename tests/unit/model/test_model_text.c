/*
 * Unit tests for the model's words: the number formats (model_text.c) and
 * the compression advice's break-even (compression_advice.c).
 */
#include "testutil.h"

#include "model/compression_advice.h"
#include "model/model_text.h"

#include <math.h>

static void test_formats(void **state)
{
	char t[32];

	(void)state;
	assert_string_equal(model_format_seconds(0.414, t, sizeof(t)), "0.41 s");
	assert_string_equal(model_format_seconds(12.34, t, sizeof(t)), "12.3 s");
	assert_string_equal(model_format_seconds(80, t, sizeof(t)), "1 min 20 s");
	assert_string_equal(model_format_seconds(3 * 3600 + 12 * 60 + 5, t, sizeof(t)), "3 h 12 min");
	assert_string_equal(model_format_seconds(NAN, t, sizeof(t)), "?");
	assert_string_equal(attr_grouped(2345678, t, sizeof(t)), "2,345,678");
	assert_string_equal(attr_grouped(-1234, t, sizeof(t)), "-1,234");
	assert_string_equal(attr_rtt(135e-6, t, sizeof(t)), "135 µs");
}

static void test_compression_advice(void **state)
{
	const double bytes = 2.0 * 1024 * 1024 * 1024;
	char text[256], tiny[12];

	(void)state;
	/* on a 1 Gbit/s link a 3:1 stream at 620 MB/s gets the full ratio */
	compression_advice(bytes, 117e6, NULL, 3.0, 620e6, text, sizeof(text));
	assert_contains(text, "compression pays below 4.96 Gbit/s for this data (ratio 3.00, zstd at 620 MB/s)");
	assert_contains(text, "; on the probed link, 0.94 Gbit/s, the stream would move 3.0x faster (6.1 s instead of 18.4 s)");
	/* which link, when the report speaks of more than one (issue 44: "this 1.29 Gbit/s link" of two runs) */
	compression_advice(bytes, 117e6, "the measured link to testbed, as splice sees it", 3.0, 620e6, text,
			   sizeof(text));
	assert_contains(text, "; on the measured link to testbed, as splice sees it, 0.94 Gbit/s, the stream would move 3.0x faster");
	/* on a 20 Gbit/s link it costs: the compressor is the slow stage */
	compression_advice(bytes, 2.5e9, NULL, 3.0, 620e6, text, sizeof(text));
	assert_contains(text, "4.0x slower");
	/* just either side of the break-even rate (the compressor's throughput) */
	compression_advice(bytes, 619e6, NULL, 1.5, 620e6, text, sizeof(text));
	assert_contains(text, "faster");
	compression_advice(bytes, 621e6, NULL, 1.5, 620e6, text, sizeof(text));
	assert_contains(text, "slower");
	compression_advice(bytes, 621e6, NULL, 1.0, 620e6, text, sizeof(text));
	assert_contains(text, "does not pay for this data at any link rate (ratio 1.00");
	compression_advice(bytes, 621e6, NULL, 2.0, 0, text, sizeof(text));
	assert_contains(text, "not measured");
	/* no link figure: only the break-even */
	compression_advice(bytes, 0, NULL, 2.0, 1.27e9, text, sizeof(text));
	assert_string_equal(text, "compression pays below 10.16 Gbit/s for this data (ratio 2.00, zstd at 1,270 MB/s)");
	compression_advice(bytes, 0, NULL, 2.0, 1.27e9, tiny, sizeof(tiny));
	assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_compression_advice),
	};

	return cmocka_run_group_tests_name("model_text", tests, NULL, NULL);
}
