/* Unit tests for workloads/manifest.c: building, text form, parsing, files. */
#include "testutil.h"

#include "err.h"
#include "fsutil.h"
#include "manifest.h"

#include <unistd.h>

struct sample {
	const char *path;
	uint64_t size;
	uint32_t mode;
	uint64_t xxh3;
};

/* Deliberately not in sorted order; includes every escaped character. */
static const struct sample samples[] = {
	{ "d0000/d00/f00000001", 2048, 0644, 0x0123456789abcdefull },
	{ "with\ttab", 0, 0600, 0 },
	{ "with\nnewline/x", 1, 0755, 0xffffffffffffffffull },
	{ "back\\slash\\", 18446744073709551615ull, 07777, 0x8000000000000000ull },
	{ "a", 5, 0, 42 },
	{ "#hash at start", 3, 0644, 7 },
	{ "sp ace/\xc3\xa9t\xc3\xa9", 12, 0444, 99 },
};

static void add_samples(struct manifest *m)
{
	manifest_init(m);
	for (size_t i = 0; i < ARRAY_LEN(samples); i++)
		assert_int_equal(manifest_add(m, samples[i].path, samples[i].size, samples[i].mode,
					      samples[i].xxh3),
				 0);
}

static void assert_manifests_equal(const struct manifest *a, const struct manifest *b)
{
	assert_int_equal(a->count, b->count);
	assert_true(a->total_bytes == b->total_bytes);
	for (size_t i = 0; i < a->count; i++) {
		assert_string_equal(a->entries[i].path, b->entries[i].path);
		assert_true(a->entries[i].size == b->entries[i].size);
		assert_true(a->entries[i].xxh3 == b->entries[i].xxh3);
		assert_int_equal(a->entries[i].mode, b->entries[i].mode);
	}
}

static void assert_sorted(const struct manifest *m)
{
	for (size_t i = 1; i < m->count; i++)
		if (strcmp(m->entries[i - 1].path, m->entries[i].path) >= 0) {
			print_error("'%s' before '%s'\n", m->entries[i - 1].path, m->entries[i].path);
			fail();
		}
}

static void test_add_and_sort(void **state)
{
	struct manifest m;
	uint64_t total = 0;

	(void)state;
	add_samples(&m);
	assert_int_equal(m.count, ARRAY_LEN(samples));
	for (size_t i = 0; i < ARRAY_LEN(samples); i++)
		total += samples[i].size;
	assert_true(m.total_bytes == total);
	/* manifest_add copies the path */
	{
		char tmp[] = "copied";

		assert_int_equal(manifest_add(&m, tmp, 1, 0644, 1), 0);
		tmp[0] = 'X';
		assert_string_equal(m.entries[m.count - 1].path, "copied");
	}
	manifest_sort(&m);
	assert_sorted(&m);
	/* entries keep their own fields through the sort */
	for (size_t i = 0; i < ARRAY_LEN(samples); i++) {
		const struct manifest_entry *e = manifest_find(&m, samples[i].path);

		assert_non_null(e);
		assert_string_equal(e->path, samples[i].path);
		assert_true(e->size == samples[i].size);
		assert_true(e->xxh3 == samples[i].xxh3);
		assert_int_equal(e->mode, samples[i].mode);
	}
	manifest_release(&m);
	assert_int_equal(m.count, 0);
	assert_null(m.entries);
}

static void test_add_many(void **state)
{
	struct manifest m;
	char path[32];

	(void)state;
	manifest_init(&m);
	/* past the first growth (1024) a few times, in reverse order */
	for (int i = 5000; i > 0; i--) {
		snprintf(path, sizeof(path), "f%05d", i);
		assert_int_equal(manifest_add(&m, path, (uint64_t)i, 0644, (uint64_t)i * 3), 0);
	}
	manifest_sort(&m);
	assert_int_equal(m.count, 5000);
	assert_true(m.total_bytes == 5000ull * 5001 / 2);
	assert_sorted(&m);
	for (int i = 1; i <= 5000; i += 37) {
		const struct manifest_entry *e;

		snprintf(path, sizeof(path), "f%05d", i);
		e = manifest_find(&m, path);
		assert_non_null(e);
		assert_int_equal(e->size, i);
		assert_int_equal(e->xxh3, (uint64_t)i * 3);
	}
	manifest_release(&m);
}

static void test_find(void **state)
{
	struct manifest m;

	(void)state;
	manifest_init(&m);
	assert_null(manifest_find(&m, "a"));
	add_samples(&m);
	manifest_sort(&m);
	assert_non_null(manifest_find(&m, "a"));
	assert_non_null(manifest_find(&m, "with\ttab"));
	assert_non_null(manifest_find(&m, "back\\slash\\"));
	assert_null(manifest_find(&m, "b"));
	assert_null(manifest_find(&m, ""));
	assert_null(manifest_find(&m, "with"));
	assert_null(manifest_find(&m, "with\\ttab"));	/* escaped form is not the path */
	assert_null(manifest_find(&m, "d0000/d00/f0000000"));
	assert_null(manifest_find(&m, "zzz"));
	manifest_release(&m);
}

static void test_text_format(void **state)
{
	struct manifest m;
	char *buf = NULL;
	size_t len = 0;
	static const char want[] = "# xfercmp-manifest 2\n"
				   "# workload smallfiles files=2\n"
				   "f\t00000000000000ab\t5\t0644\t-\ta\\tb\n"
				   "f\tffffffffffffffff\t0\t0600\t-\tc\\nd\\\\e\n";

	(void)state;
	manifest_init(&m);
	assert_int_equal(manifest_add(&m, "c\nd\\e", 0, 0600, UINT64_MAX), 0);
	assert_int_equal(manifest_add(&m, "a\tb", 5, 0644, 0xab), 0);
	manifest_sort(&m);
	m.description = strdup("smallfiles files=2");
	assert_int_equal(manifest_to_buffer(&m, &buf, &len), 0);
	assert_int_equal(len, strlen(want));
	assert_string_equal(buf, want);
	free(buf);

	/* manifest_write gives the same bytes */
	{
		FILE *f = tmpfile();
		char file_buf[256];
		size_t n;

		assert_non_null(f);
		assert_int_equal(manifest_write(&m, f), 0);
		rewind(f);
		n = fread(file_buf, 1, sizeof(file_buf), f);
		assert_int_equal(n, strlen(want));
		assert_memory_equal(file_buf, want, n);
		fclose(f);
	}
	manifest_release(&m);
	assert_null(m.description);
}

static void test_round_trip(void **state)
{
	struct manifest a, b;
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	add_samples(&a);
	manifest_sort(&a);
	a.description = strdup("mixed files=7 bytes=1 seed=3 compressibility=0.5");
	assert_int_equal(manifest_to_buffer(&a, &buf, &len), 0);
	assert_non_null(buf);
	assert_int_equal(strlen(buf), len);
	/* raw tabs and newlines inside paths must not reach the text */
	assert_non_null(strstr(buf, "\twith\\ttab\n"));
	assert_non_null(strstr(buf, "\twith\\nnewline/x\n"));
	assert_non_null(strstr(buf, "\tback\\\\slash\\\\\n"));
	assert_null(strstr(buf, "with\ttab"));

	err_clear();
	assert_int_equal(manifest_parse(&b, buf, len), 0);
	assert_manifests_equal(&a, &b);
	assert_non_null(b.description);
	assert_string_equal(b.description, a.description);

	/* and once more: parse -> write gives the same text */
	{
		char *buf2 = NULL;
		size_t len2 = 0;

		assert_int_equal(manifest_to_buffer(&b, &buf2, &len2), 0);
		assert_int_equal(len2, len);
		assert_memory_equal(buf2, buf, len);
		free(buf2);
	}
	free(buf);
	manifest_release(&a);
	manifest_release(&b);
}

static void test_parse_sorts_and_tolerates(void **state)
{
	/* unsorted, a comment, blank lines, no final newline */
	static const char text[] = "# xfercmp-manifest 1\n"
				   "0000000000000002\t20\t0644\tz\n"
				   "\n"
				   "# a comment\n"
				   "0000000000000001\t10\t0644\tb/a\n"
				   "0000000000000003\t30\t0644\tb";
	struct manifest m;
	char *exact;

	(void)state;
	assert_int_equal(manifest_parse(&m, text, strlen(text)), 0);
	assert_int_equal(m.count, 3);
	assert_true(m.total_bytes == 60);
	assert_null(m.description);
	assert_string_equal(m.entries[0].path, "b");
	assert_string_equal(m.entries[1].path, "b/a");
	assert_string_equal(m.entries[2].path, "z");
	assert_int_equal(m.entries[2].xxh3, 2);
	manifest_release(&m);

	/* len is honoured: the text need not be NUL-terminated */
	exact = malloc(strlen(text));
	assert_non_null(exact);
	memcpy(exact, text, strlen(text));
	assert_int_equal(manifest_parse(&m, exact, strlen(text)), 0);
	assert_int_equal(m.count, 3);
	assert_non_null(manifest_find(&m, "z"));
	assert_non_null(manifest_find(&m, "b/a"));
	assert_non_null(manifest_find(&m, "b"));
	manifest_release(&m);
	/* cut inside the last line: its path is now empty, which is an error */
	err_clear();
	assert_int_equal(manifest_parse(&m, exact, strlen(text) - 1), -1);
	assert_contains(err_msg(), "line 6");
	free(exact);
}

static void test_parse_empty_manifest(void **state)
{
	static const char text[] = "# xfercmp-manifest 1\n";
	struct manifest m;

	(void)state;
	assert_int_equal(manifest_parse(&m, text, strlen(text)), 0);
	assert_int_equal(m.count, 0);
	assert_int_equal(m.total_bytes, 0);
	assert_null(manifest_find(&m, "x"));
	manifest_release(&m);
}

/* Parsing "# xfercmp-manifest 1\n" + body must fail with all of the needles in the message. */
static void expect_parse_error(const char *body, const char *needle1, const char *needle2)
{
	char text[512];
	struct manifest m;
	int n = snprintf(text, sizeof(text), "# xfercmp-manifest 1\n%s", body);

	assert_true(n > 0 && (size_t)n < sizeof(text));
	err_clear();
	memset(&m, 0x5a, sizeof(m));
	if (manifest_parse(&m, text, (size_t)n) != -1) {
		print_error("manifest_parse accepted:\n%s\n", text);
		fail();
	}
	if (!err_msg()[0]) {
		print_error("no error message for:\n%s\n", text);
		fail();
	}
	if (needle1)
		assert_contains(err_msg(), needle1);
	if (needle2)
		assert_contains(err_msg(), needle2);
	/* nothing is left behind */
	assert_int_equal(m.count, 0);
	assert_null(m.entries);
}

#define OK_LINE "0123456789abcdef\t5\t0644\tgood\n"

static void test_parse_header_errors(void **state)
{
	struct manifest m;
	static const char *const bad[] = {
		"",
		"0123456789abcdef\t5\t0644\ta\n",
		"# xfercmp-manifes 1\n",
		"#xfercmp-manifest 1\n",
		"xfercmp-manifest 1\n",
		" # xfercmp-manifest 1\n",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		err_clear();
		assert_int_equal(manifest_parse(&m, bad[i], strlen(bad[i])), -1);
		assert_contains(err_msg(), "header");
		assert_int_equal(m.count, 0);
	}
	assert_int_equal(manifest_parse(&m, NULL, 0), -1);

	{
		static const char *const versions[] = {
			"# xfercmp-manifest 3\n" OK_LINE,
			"# xfercmp-manifest 0\n" OK_LINE,
			"# xfercmp-manifest \n" OK_LINE,
			"# xfercmp-manifest x\n" OK_LINE,
		};

		for (size_t i = 0; i < ARRAY_LEN(versions); i++) {
			err_clear();
			assert_int_equal(manifest_parse(&m, versions[i], strlen(versions[i])), -1);
			assert_contains(err_msg(), "version");
			assert_int_equal(m.count, 0);
		}
		err_clear();
		manifest_parse(&m, versions[0], strlen(versions[0]));
		assert_contains(err_msg(), "'3'");
	}
}

static void test_parse_field_errors(void **state)
{
	(void)state;
	/* hash: exactly 16 hex digits */
	expect_parse_error("xyz\t5\t0644\ta\n", "line 2", "bad hash");
	expect_parse_error("0123456789abcde\t5\t0644\ta\n", "line 2", "bad hash");
	expect_parse_error("0123456789abcdef0\t5\t0644\ta\n", "line 2", "bad hash");
	expect_parse_error("0123456789abcdeg\t5\t0644\ta\n", "line 2", "bad hash");
	expect_parse_error("\t5\t0644\ta\n", "line 2", "bad hash");
	/* size */
	expect_parse_error("0123456789abcdef\t12a\t0644\ta\n", "line 2", "bad size");
	expect_parse_error("0123456789abcdef\t-1\t0644\ta\n", "line 2", "bad size");
	expect_parse_error("0123456789abcdef\t\t0644\ta\n", "line 2", "bad size");
	expect_parse_error("0123456789abcdef\t1.5\t0644\ta\n", "line 2", "bad size");
	expect_parse_error("0123456789abcdef\t18446744073709551616\t0644\ta\n", "line 2", "bad size");
	/* mode: octal, at most 07777 */
	expect_parse_error("0123456789abcdef\t5\t0999\ta\n", "line 2", "bad mode");
	expect_parse_error("0123456789abcdef\t5\t10000\ta\n", "line 2", "bad mode");
	expect_parse_error("0123456789abcdef\t5\trw-r--r--\ta\n", "line 2", "bad mode");
	expect_parse_error("0123456789abcdef\t5\t\ta\n", "line 2", "bad mode");
	expect_parse_error("0123456789abcdef\t5\t-1\ta\n", "line 2", "bad mode");
	/* missing fields */
	expect_parse_error("0123456789abcdef\t5\t0644\n", "line 2", "4 tab-separated fields");
	expect_parse_error("0123456789abcdef\t5\n", "line 2", "fields");
	expect_parse_error("0123456789abcdef\n", "line 2", "fields");
	expect_parse_error("just text\n", "line 2", "fields");
	/* path: not empty, escapes valid */
	expect_parse_error("0123456789abcdef\t5\t0644\t\n", "line 2", "bad path");
	expect_parse_error("0123456789abcdef\t5\t0644\ta\\qb\n", "line 2", "bad path");
	expect_parse_error("0123456789abcdef\t5\t0644\ta\\\n", "line 2", "bad path");
	/* the line number counts the header, comments and the description */
	expect_parse_error("# workload x\n" OK_LINE "\n" "0123456789abcdef\t5\t0644\t\n", "line 5",
			   "bad path");
}

static void test_parse_path_escapes_tree(void **state)
{
	static const char *const bad[] = {
		"/etc/passwd", "/", "..", "../x", "a/../../x", "a/..", "a/../b", "x/y/..",
		"\\t/../x",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		char line[128];

		snprintf(line, sizeof(line), OK_LINE "0123456789abcdef\t5\t0644\t%s\n", bad[i]);
		expect_parse_error(line, "line 3", "leaves the tree");
	}
	/* names that merely contain dots are fine */
	{
		static const char text[] = "# xfercmp-manifest 1\n"
					   "0123456789abcdef\t5\t0644\t..a\n"
					   "0123456789abcdef\t5\t0644\ta..\n"
					   "0123456789abcdef\t5\t0644\ta/...\n"
					   "0123456789abcdef\t5\t0644\t.hidden/..x\n";
		struct manifest m;

		assert_int_equal(manifest_parse(&m, text, strlen(text)), 0);
		assert_int_equal(m.count, 4);
		manifest_release(&m);
	}
}

static void test_parse_duplicate(void **state)
{
	(void)state;
	expect_parse_error("0123456789abcdef\t5\t0644\tsame\n" OK_LINE
			   "0000000000000000\t6\t0600\tsame\n",
			   "'same'", "twice");
	/* the same path spelled with an escape is the same path */
	expect_parse_error("0123456789abcdef\t5\t0644\ta\\tb\n"
			   "0123456789abcdef\t5\t0644\ta\\tb\n",
			   "twice", NULL);
}

static char *make_tmpdir(void)
{
	char *dir = strdup("/tmp/xfercmp-test-manifest-XXXXXX");

	assert_non_null(dir);
	assert_non_null(mkdtemp(dir));
	return dir;
}

static void test_save_load(void **state)
{
	char *dir = make_tmpdir();
	char file[512];
	struct manifest a, b;

	(void)state;
	snprintf(file, sizeof(file), "%s/x.manifest", dir);
	add_samples(&a);
	manifest_sort(&a);
	a.description = strdup("desc");
	assert_int_equal(manifest_save(&a, file), 0);
	assert_int_equal(manifest_load(&b, file), 0);
	assert_manifests_equal(&a, &b);
	assert_string_equal(b.description, "desc");
	manifest_release(&b);

	/* saving again replaces the file rather than appending */
	assert_int_equal(manifest_save(&a, file), 0);
	assert_int_equal(manifest_load(&b, file), 0);
	assert_int_equal(b.count, a.count);
	manifest_release(&b);

	/* a large manifest, past manifest_load's first 1 MiB buffer */
	{
		struct manifest big, back;
		char path[64];

		manifest_init(&big);
		for (int i = 0; i < 40000; i++) {
			snprintf(path, sizeof(path), "some/longish/directory/name/file%06d", i);
			assert_int_equal(manifest_add(&big, path, (uint64_t)i, 0644, (uint64_t)i << 20), 0);
		}
		manifest_sort(&big);
		assert_int_equal(manifest_save(&big, file), 0);
		assert_int_equal(manifest_load(&back, file), 0);
		assert_manifests_equal(&big, &back);
		manifest_release(&big);
		manifest_release(&back);
	}

	/* load errors name the file; content errors the line too */
	{
		char missing[600];
		FILE *f;

		snprintf(missing, sizeof(missing), "%s/nope.manifest", dir);
		err_clear();
		assert_int_equal(manifest_load(&b, missing), -1);
		assert_contains(err_msg(), missing);
		f = fopen(file, "w");
		assert_non_null(f);
		fputs("# xfercmp-manifest 1\n" OK_LINE "0123456789abcdef\t5\t0644\t../up\n", f);
		fclose(f);
		err_clear();
		assert_int_equal(manifest_load(&b, file), -1);
		assert_contains(err_msg(), file);
		assert_contains(err_msg(), "line 3");
		assert_int_equal(b.count, 0);
	}

	/* save into a directory that does not exist */
	{
		char bad[600];

		snprintf(bad, sizeof(bad), "%s/no/such/dir/m", dir);
		err_clear();
		assert_int_equal(manifest_save(&a, bad), -1);
		assert_contains(err_msg(), bad);
	}
	manifest_release(&a);
	assert_int_equal(fs_remove_tree(dir), 0);
	assert_int_equal(access(dir, F_OK), -1);
	free(dir);
}

static void test_default_path(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(manifest_default_path("data", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "data.manifest");
	assert_int_equal(manifest_default_path("/tmp/a/data///", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/tmp/a/data.manifest");
	assert_int_equal(manifest_default_path("a", buf, 11), 0);
	assert_string_equal(buf, "a.manifest");
	err_clear();
	assert_int_equal(manifest_default_path("a", buf, 10), -1);
	assert_contains(err_msg(), "too long");
}

/*
 * The hash, size and mode are digits only: none of the prefixes strtoull and
 * strtoul skip (a sign: "-123456789abcdef" would read as 0xfedcba9876543211;
 * "0x"; leading blanks) is accepted, and the header's version "1x" is not 1.
 */
static void test_parse_rejects_lax_numbers(void **state)
{
	(void)state;
	expect_parse_error("-123456789abcdef\t5\t0644\ta\n", "line 2", "bad hash");
	expect_parse_error("+123456789abcdef\t5\t0644\ta\n", "line 2", "bad hash");
	expect_parse_error("0x23456789abcdef\t5\t0644\ta\n", "line 2", "bad hash");
	expect_parse_error(" 123456789abcdef\t5\t0644\ta\n", "line 2", "bad hash");
	expect_parse_error("0123456789abcdef\t+5\t0644\ta\n", "line 2", "bad size");
	expect_parse_error("0123456789abcdef\t 5\t0644\ta\n", "line 2", "bad size");
	expect_parse_error("0123456789abcdef\t5\t 644\ta\n", "line 2", "bad mode");
	expect_parse_error("0123456789abcdef\t5\t+644\ta\n", "line 2", "bad mode");
	{
		static const char text[] = "# xfercmp-manifest 1x\n" OK_LINE;
		struct manifest m;

		err_clear();
		if (manifest_parse(&m, text, strlen(text)) == 0) {
			manifest_release(&m);
			print_error("header version '1x' accepted\n");
			fail();
		}
	}
}

/* ---- version 2: a tree ---- */

static void add_tree(struct manifest *m)
{
	manifest_init(m);
	assert_int_equal(manifest_add_file(m, "d/a", 5, 0644, 1700000000, 0xab), 0);
	assert_int_equal(manifest_add_file(m, "ro/f\tx", 0, 0444, -5, 0), 0);
	assert_int_equal(manifest_add_dir(m, "ro", 0555, 1700000001), 0);
	assert_int_equal(manifest_add_dir(m, "d", 0755, 1700000002), 0);
	assert_int_equal(manifest_add_dir(m, "empty", 0700, 3), 0);
	assert_int_equal(manifest_add_hardlink(m, "d/b", "d/a"), 0);
	assert_int_equal(manifest_add_symlink(m, "up", "../../etc/pass\twd"), 0);
	assert_int_equal(manifest_add_symlink(m, "d/abs", "/etc"), 0);
	assert_int_equal(manifest_add_special(m, "d/fifo", 'p'), 0);
	manifest_sort(m);
	assert_int_equal(manifest_check(m), 0);
}

static void test_tree_text_and_round_trip(void **state)
{
	struct manifest m, back;
	char *buf = NULL;
	size_t len = 0;
	static const char want[] = "# xfercmp-manifest 2\n"
				   "d\t0755\t1700000002\td\n"
				   "d\t0700\t3\tempty\n"
				   "d\t0555\t1700000001\tro\n"
				   "f\t00000000000000ab\t5\t0644\t1700000000\td/a\n"
				   "f\t0000000000000000\t0\t0444\t-5\tro/f\\tx\n"
				   "h\td/a\td/b\n"
				   "l\t/etc\td/abs\n"
				   "l\t../../etc/pass\\twd\tup\n"
				   "s\tp\td/fifo\n";

	(void)state;
	add_tree(&m);
	assert_int_equal(manifest_to_buffer(&m, &buf, &len), 0);
	assert_string_equal(buf, want);
	assert_int_equal(manifest_parse(&back, buf, len), 0);
	free(buf);
	assert_int_equal(back.version, 2);
	assert_int_equal(back.count, 2);
	assert_int_equal(back.ndirs, 3);
	assert_int_equal(back.nhardlinks, 1);
	assert_int_equal(back.nsymlinks, 2);
	assert_int_equal(back.nspecials, 1);
	assert_true(manifest_nodes(&back) == 8);
	assert_true(back.entries[1].mtime == -5);
	assert_string_equal(manifest_find_symlink(&back, "up")->target, "../../etc/pass\twd");
	assert_string_equal(manifest_find_hardlink(&back, "d/b")->primary, "d/a");
	assert_int_equal(manifest_find_dir(&back, "ro")->mode, 0555);
	assert_true(manifest_find_dir(&back, "empty")->mtime == 3);
	assert_null(manifest_find_dir(&back, "d/a"));
	assert_int_equal(back.specials[0].kind, 'p');
	manifest_release(&back);
	manifest_release(&m);
}

static void test_tree_v1_still_reads(void **state)
{
	struct manifest m;
	static const char v1[] = "# xfercmp-manifest 1\n" OK_LINE;

	(void)state;
	assert_int_equal(manifest_parse(&m, v1, strlen(v1)), 0);
	assert_int_equal(m.version, 1);
	assert_int_equal(m.count, 1);
	assert_true(m.entries[0].mtime == MANIFEST_NO_MTIME);
	assert_int_equal(m.ndirs, 0);
	manifest_release(&m);
}

static void test_tree_parse_errors(void **state)
{
	static const struct {
		const char *text, *error;
	} bad[] = {
		{ "x\t1\ta\n", "unknown kind 'x'" },
		{ "f0123\n", "expected a kind" },
		{ "f\t0123456789abcdef\t5\t0644\ta\n", "expected 5 tab-separated fields" },
		{ "f\t0123456789abcdef\t5\t0644\t+1\ta\n", "bad mtime" },
		{ "f\t0123456789abcdef\t5\t0644\t1x\ta\n", "bad mtime" },
		{ "d\t0755\t1\t../up\n", "leaves the tree" },
		{ "d\t9755\t1\td\n", "bad mode" },
		{ "l\t\ta\n", "bad symbolic link target" },
		{ "l\tt\t/abs\n", "leaves the tree" },
		{ "h\t../x\ta\n", "leaves the tree" },
		{ "h\tnone\ta\n", "hard link 'a' names 'none'" },
		{ "s\tq\ta\n", "bad special file kind" },
		{ "d\t0755\t1\ta\nl\tt\ta\n", "as two kinds" },
		{ "d\t0755\t1\ta\nd\t0755\t1\ta\n", "directory 'a' twice" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		char text[256];
		struct manifest m;

		snprintf(text, sizeof(text), "# xfercmp-manifest 2\n%s", bad[i].text);
		err_clear();
		assert_int_equal(manifest_parse(&m, text, strlen(text)), -1);
		assert_contains(err_msg(), bad[i].error);
		assert_int_equal(m.count + m.ndirs + m.nsymlinks + m.nhardlinks, 0);
	}
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_sort),
		cmocka_unit_test(test_add_many),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_text_format),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_parse_sorts_and_tolerates),
		cmocka_unit_test(test_parse_empty_manifest),
		cmocka_unit_test(test_parse_header_errors),
		cmocka_unit_test(test_parse_field_errors),
		cmocka_unit_test(test_parse_path_escapes_tree),
		cmocka_unit_test(test_parse_duplicate),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_default_path),
		cmocka_unit_test(test_tree_text_and_round_trip),
		cmocka_unit_test(test_tree_v1_still_reads),
		cmocka_unit_test(test_tree_parse_errors),
		cmocka_unit_test(test_parse_rejects_lax_numbers),
	};

	return test_run("manifest", tests, ARRAY_LEN(tests), NULL, 0);
}
