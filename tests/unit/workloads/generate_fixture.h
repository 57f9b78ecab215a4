/*
 * What the generate and verify tests share: temp directories the teardown
 * removes when an assertion stops a test early, and a clean verification.
 */
#ifndef XFERCMP_TEST_GENERATE_FIXTURE_H
#define XFERCMP_TEST_GENERATE_FIXTURE_H

#include "testutil.h"

#include "err.h"
#include "fsutil.h"
#include "manifest.h"
#include "verify.h"
#include "workload.h"

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

/*
 * Temp dirs made by the running test; the teardown removes any an early
 * failed assertion left behind.
 */
static char *live_dirs[8] __attribute__((unused));

/* A new directory under test_tmp_base(). */
static inline char *make_tmpdir(void)
{
	char *dir = malloc(PATH_MAX);

	assert_non_null(dir);
	test_mkdtemp(dir, PATH_MAX, "xfercmp-test-gen");
	for (size_t i = 0; i < ARRAY_LEN(live_dirs); i++)
		if (!live_dirs[i]) {
			live_dirs[i] = dir;
			break;
		}
	return dir;
}

static inline void remove_tmpdir(char *dir)
{
	for (size_t i = 0; i < ARRAY_LEN(live_dirs); i++)
		if (live_dirs[i] == dir)
			live_dirs[i] = NULL;
	assert_int_equal(fs_remove_tree(dir), 0);
	assert_int_equal(access(dir, F_OK), -1);
	free(dir);
}

static inline int cleanup(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(live_dirs); i++)
		if (live_dirs[i]) {
			fs_remove_tree(live_dirs[i]);
			free(live_dirs[i]);
			live_dirs[i] = NULL;
		}
	return 0;
}

static inline void join(char *buf, const char *a, const char *b)
{
	assert_int_equal(fs_join(buf, PATH_MAX, a, b), 0);
}

static inline void verify_clean(const char *root, const struct manifest *m)
{
	struct verify_report r;

	err_clear();
	assert_int_equal(verify_tree(root, m, 2, &r), 0);
	if (verify_differences(&r) != 0) {
		print_error("%llu differences, first: %s\n",
			    (unsigned long long)verify_differences(&r),
			    r.nexamples ? r.examples[0] : "(none)");
		fail();
	}
	assert_int_equal(r.nexamples, 0);
	assert_int_equal(r.files_ok, m->count);
	assert_true(r.bytes_ok == m->total_bytes);
}

static inline void write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(fs_write_all(fd, text, strlen(text)), 0);
	assert_int_equal(close(fd), 0);
}

static inline void expect_file_text(const char *path, const char *text)
{
	char buf[256];
	int fd = open(path, O_RDONLY);
	long long n;

	assert_true(fd >= 0);
	n = fs_read_full(fd, buf, sizeof(buf));
	close(fd);
	assert_int_equal(n, strlen(text));
	assert_memory_equal(buf, text, (size_t)n);
}

static const struct workload_spec small_spec __attribute__((unused)) = {
	.kind = WORKLOAD_SMALLFILES, .files = 2500, .seed = 7, .compressibility = 0.5,
};

static inline void assert_manifests_equal(const struct manifest *a, const struct manifest *b, int modes)
{
	assert_int_equal(a->count, b->count);
	assert_true(a->total_bytes == b->total_bytes);
	for (size_t i = 0; i < a->count; i++) {
		if (strcmp(a->entries[i].path, b->entries[i].path) ||
		    a->entries[i].size != b->entries[i].size ||
		    a->entries[i].xxh3 != b->entries[i].xxh3 ||
		    (modes && a->entries[i].mode != b->entries[i].mode)) {
			print_error("entry %zu: %s %llu %016llx %04o vs %s %llu %016llx %04o\n", i,
				    a->entries[i].path, (unsigned long long)a->entries[i].size,
				    (unsigned long long)a->entries[i].xxh3, a->entries[i].mode,
				    b->entries[i].path, (unsigned long long)b->entries[i].size,
				    (unsigned long long)b->entries[i].xxh3, b->entries[i].mode);
			fail();
		}
	}
}

#endif
