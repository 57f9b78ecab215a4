/*
 * Unit tests for the live view's probe lines (cmd/report/live_probe.c): the
 * line while a probe runs and the line of what each probe measured, at
 * every width from 60 to 200 never wider than the width less one column,
 * the least telling figures dropped first; and the fitting they share with
 * the strategies' line (cmd/report/live_fit.c), which never cuts inside a
 * UTF-8 character.
 */
#include "testutil.h"

#include "report/live.h"
#include "report/live_fit.h"

#include <string.h>

/* What a probe run on a 10 Gbit/s link with a shared disk and ssh measures. */
static struct probe_results measured(void)
{
	struct probe_results r = {
		.net_bps_1 = 2.31e9 / 8, .net_link_bps = 9.40e9 / 8, .net_saturation = 4, .rtt_p50_s = 51e-6,
		.disk_write_bps = 1.234e9, .create_per_s = 3200.4, .ncreate_at = 2,
		.create_at = { { 1, 3200.4 }, { 16, 31347 } },
		.disk_read_bps = 0.51e9, .nread_at = 2, .read_at = { { 1, 0.51e9 }, { 4, 1.9e9 } },
		.src_open_per_s = 8000, .ndisk_at_once = 2,
		.disk_at_once = { { 1, 0.5e9, 0.4e9, 0.4e9 }, { 4, 1.2e9, 0.8e9, 0.75e9 } },
		.zstd_bps = 0.45e9, .zstd_ratio = 2.314, .ssh_bps = 1.2e9 / 8, .sftp_rtt_s = 80e-6,
		.ssh_cipher = "aes128-gcm@openssh.com", .dest_fs = "ext4",
	};

	return r;
}

static const char *const names[PROBE_KINDS] = { "network", "destination", "source", "shared disk", "zstd", "ssh" };

/* The result line of a probe of that kind at width w: never wider than w - 1. */
static void result_at(char *buf, size_t len, enum probe_kind kind, const struct probe_results *r, unsigned w)
{
	const struct probe_step step = { .kind = kind, .name = names[kind], .index = 1, .count = 6, .done = r };

	live_probe_result(buf, len, &step, w);
	if (strlen(buf) > w - 1)
		fail_msg("%zu bytes at width %u: '%s'", strlen(buf), w, buf);
}

static void test_probing_line(void **state)
{
	char buf[256];

	(void)state;
	live_probe_format(buf, sizeof(buf), "network", 1, 6, 1.23, 120);
	assert_string_equal(buf, "probing network (1/6)  1.2 s");
	live_probe_format(buf, sizeof(buf), "shared disk", 4, 6, 75, 60);
	assert_string_equal(buf, "probing shared disk (4/6)  1 min 15 s");
	/* too wide: the elapsed time goes, then the place, then it is cut */
	live_probe_format(buf, sizeof(buf), "shared disk", 4, 6, 75, 30);
	assert_string_equal(buf, "probing shared disk (4/6)");
	live_probe_format(buf, sizeof(buf), "shared disk", 4, 6, 75, 25);
	assert_string_equal(buf, "probing shared disk");
	live_probe_format(buf, sizeof(buf), "shared disk", 4, 6, 75, 10);
	assert_string_equal(buf, "probing s");
	/* no count known: no place */
	live_probe_format(buf, sizeof(buf), "zstd", 0, 0, 0.5, 80);
	assert_string_equal(buf, "probing zstd  0.5 s");
	for (unsigned w = 2; w <= 200; w++) {
		live_probe_format(buf, sizeof(buf), "a-probe-name-of-thirty-two-chars", 10, 10, 3600 * 30, w);
		assert_true(strlen(buf) <= w - 1);
	}
}

/* A result line expected of a kind at a width. */
struct expected {
	enum probe_kind kind;
	unsigned width;
	const char *line;
};

static void test_results(void **state)
{
	static const struct expected lines[] = {
		{ PROBE_NETWORK, 120, "  probe network: 2.31 Gbit/s one stream, rtt 51 µs, the link 9.40 Gbit/s with 4 streams" },
		{ PROBE_DESTINATION, 120, "  probe destination: write 1.23 GB/s durable (ext4), 3,200 creates/s, 31,347/s with 16" },
		{ PROBE_SOURCE, 120, "  probe source: read 510 MB/s cold, 8,000 opens/s, read 1.90 GB/s with 4" },
		{ PROBE_SHARED_DISK, 120, "  probe shared disk: 400 MB/s each way read and written at once, 750 MB/s with 4" },
		{ PROBE_ZSTD, 120, "  probe zstd: 450 MB/s, ratio 2.31" },
		{ PROBE_SSH, 120, "  probe ssh: 1.20 Gbit/s through sshd, aes128-gcm@openssh.com, SFTP request 80 µs" },
		/* 60 columns: the last figures go first, the head and the first stay */
		{ PROBE_NETWORK, 60, "  probe network: 2.31 Gbit/s one stream, rtt 51 µs" },
		{ PROBE_DESTINATION, 60, "  probe destination: write 1.23 GB/s durable (ext4)" },
		{ PROBE_SSH, 60, "  probe ssh: 1.20 Gbit/s through sshd" },
	};
	const struct probe_results r = measured();
	char buf[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(lines); i++) {
		result_at(buf, sizeof(buf), lines[i].kind, &r, lines[i].width);
		assert_string_equal(buf, lines[i].line);
	}
	/* every kind at every width from 60 to 200: the head and the first figure always there */
	for (unsigned w = 60; w <= 200; w++)
		for (int k = 0; k < PROBE_KINDS; k++) {
			char head[64];

			result_at(buf, sizeof(buf), (enum probe_kind)k, &r, w);
			snprintf(head, sizeof(head), "  probe %s: ", names[k]);
			assert_contains(buf, head);
			assert_true(strlen(buf) > strlen(head));
		}
	/* narrower than the head and its figure: cut, still within the width */
	for (unsigned w = 2; w < 60; w++)
		for (int k = 0; k < PROBE_KINDS; k++)
			result_at(buf, sizeof(buf), (enum probe_kind)k, &r, w);
}

static void test_results_unmeasured(void **state)
{
	const struct probe_results none = { 0 };
	struct probe_results r = measured();
	char buf[256];

	(void)state;
	/* no file large enough to read, none small enough to open: said, not "0 MB/s" */
	result_at(buf, sizeof(buf), PROBE_SOURCE, &none, 120);
	assert_string_equal(buf, "  probe source: nothing to measure");
	result_at(buf, sizeof(buf), PROBE_ZSTD, &none, 120);
	assert_string_equal(buf, "  probe zstd: nothing to compress");
	/* opens only: its figure is the first */
	r.disk_read_bps = 0;
	r.nread_at = 0;
	result_at(buf, sizeof(buf), PROBE_SOURCE, &r, 120);
	assert_string_equal(buf, "  probe source: 8,000 opens/s");
	/* a link that one stream fills, slow; a long round trip */
	r.net_bps_1 = 94e6 / 8;
	r.net_saturation = 1;
	r.rtt_p50_s = 0.0123;
	result_at(buf, sizeof(buf), PROBE_NETWORK, &r, 120);
	assert_string_equal(buf, "  probe network: 94 Mbit/s one stream, rtt 12.3 ms");
	/* a step that ended with no results (none given): its head alone */
	{
		const struct probe_step step = { .kind = PROBE_ZSTD, .name = "zstd", .done = NULL };

		live_probe_result(buf, sizeof(buf), &step, 80);
		assert_string_equal(buf, "  probe zstd:");
	}
}

static void test_fit_keeps_characters_whole(void **state)
{
	struct live_fields f = { 0 };
	char buf[64];
	const unsigned drop[] = { 1 };

	(void)state;
	snprintf(live_fields_add(&f, NULL), LIVE_FIELD_LEN, "ab");
	snprintf(live_fields_add(&f, " "), LIVE_FIELD_LEN, "51 µs");
	/* "ab 51 µs" is 9 bytes: within 9 whole */
	live_fields_fit(buf, sizeof(buf), &f, NULL, 0, 9);
	assert_string_equal(buf, "ab 51 µs");
	/* cut at 7 bytes would split "µ" (2 bytes): cut before it */
	live_fields_fit(buf, sizeof(buf), &f, NULL, 0, 7);
	assert_string_equal(buf, "ab 51 ");
	/* a field dropped before any cut */
	live_fields_fit(buf, sizeof(buf), &f, drop, 1, 7);
	assert_string_equal(buf, "ab");
	/* a buffer shorter than the line: still terminated */
	f.keep[1] = true;
	assert_int_equal(live_fields_join(buf, 5, &f), 4);
	assert_string_equal(buf, "ab 5");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probing_line),
		cmocka_unit_test(test_results),
		cmocka_unit_test(test_results_unmeasured),
		cmocka_unit_test(test_fit_keeps_characters_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
