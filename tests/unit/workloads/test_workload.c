/* Unit tests for workloads/workload.c: names, defaults, layout, sizes and content. */
#include "testutil.h"

#include "err.h"
#include "workload.h"

#include <zstd.h>

/* ---- names and defaults ---- */

static void test_parse_names(void **state)
{
	struct workload_spec spec;
	const char *name = "dir:/srv/data";

	(void)state;
	memset(&spec, 0, sizeof(spec));
	assert_int_equal(workload_parse_name("largefile", &spec), 0);
	assert_int_equal(spec.kind, WORKLOAD_LARGEFILE);
	assert_int_equal(workload_parse_name("smallfiles", &spec), 0);
	assert_int_equal(spec.kind, WORKLOAD_SMALLFILES);
	assert_int_equal(workload_parse_name("mixed", &spec), 0);
	assert_int_equal(spec.kind, WORKLOAD_MIXED);
	assert_false(spec.features.on);
	/* realistic: smallfiles with the tree features on; the next name turns them off */
	assert_int_equal(workload_parse_name("realistic", &spec), 0);
	assert_int_equal(spec.kind, WORKLOAD_SMALLFILES);
	assert_true(spec.features.on);
	assert_true(spec.features.symlinks > 0 && spec.features.hardlinks > 0);
	assert_int_equal(workload_parse_name(name, &spec), 0);
	assert_false(spec.features.on);
	assert_int_equal(spec.kind, WORKLOAD_DIR);
	assert_string_equal(spec.dir, "/srv/data");
	assert_ptr_equal(spec.dir, name + 4);	/* points into name, as documented */
	assert_int_equal(workload_parse_name("dir:relative/x", &spec), 0);
	assert_string_equal(spec.dir, "relative/x");
}

static void test_parse_name_errors(void **state)
{
	static const char *const bad[] = { "nosuch", "", "large", "largefile2", "dir", "mixed " };
	struct workload_spec spec;

	(void)state;
	memset(&spec, 0, sizeof(spec));
	spec.kind = WORKLOAD_MIXED;

	err_clear();
	assert_int_equal(workload_parse_name("dir:", &spec), -1);
	assert_contains(err_msg(), "dir:");
	assert_contains(err_msg(), "path");
	assert_int_equal(spec.kind, WORKLOAD_MIXED);
	assert_null(spec.dir);

	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		char quoted[64];

		err_clear();
		if (workload_parse_name(bad[i], &spec) != -1) {
			print_error("workload_parse_name('%s') accepted it\n", bad[i]);
			fail();
		}
		snprintf(quoted, sizeof(quoted), "'%s'", bad[i]);
		assert_contains(err_msg(), quoted);
		assert_contains(err_msg(), "largefile");
		assert_contains(err_msg(), "smallfiles");
		assert_contains(err_msg(), "mixed");
		assert_contains(err_msg(), "realistic");
		assert_contains(err_msg(), "dir:PATH");
		assert_int_equal(spec.kind, WORKLOAD_MIXED);
	}
}

static void test_kind_names(void **state)
{
	(void)state;
	assert_string_equal(workload_kind_name(WORKLOAD_LARGEFILE), "largefile");
	assert_string_equal(workload_kind_name(WORKLOAD_SMALLFILES), "smallfiles");
	assert_string_equal(workload_kind_name(WORKLOAD_MIXED), "mixed");
	assert_string_equal(workload_kind_name(WORKLOAD_DIR), "dir");
}

static void test_defaults(void **state)
{
	struct workload_spec s;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.kind = WORKLOAD_LARGEFILE;
	workload_apply_defaults(&s);
	assert_true(s.size == WORKLOAD_DEFAULT_LARGE_SIZE);
	assert_true(s.size == 20ull << 30);
	assert_int_equal(s.files, 0);

	memset(&s, 0, sizeof(s));
	s.kind = WORKLOAD_SMALLFILES;
	workload_apply_defaults(&s);
	assert_int_equal(s.files, 120000);
	assert_int_equal(s.size, 0);

	memset(&s, 0, sizeof(s));
	s.kind = WORKLOAD_MIXED;
	workload_apply_defaults(&s);
	assert_int_equal(s.files, 20000);
	assert_true(s.size == 2ull << 30);

	memset(&s, 0, sizeof(s));
	s.kind = WORKLOAD_DIR;
	workload_apply_defaults(&s);
	assert_int_equal(s.files, 0);
	assert_int_equal(s.size, 0);

	/* values already given are kept */
	memset(&s, 0, sizeof(s));
	s.kind = WORKLOAD_MIXED;
	s.files = 7;
	s.size = 4096;
	workload_apply_defaults(&s);
	assert_int_equal(s.files, 7);
	assert_int_equal(s.size, 4096);

	memset(&s, 0, sizeof(s));
	s.kind = WORKLOAD_LARGEFILE;
	s.size = 5;
	workload_apply_defaults(&s);
	assert_int_equal(s.size, 5);
}

static void test_count(void **state)
{
	struct workload_spec s;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.kind = WORKLOAD_LARGEFILE;
	s.size = 1000;
	assert_int_equal(workload_count(&s), 1);
	s.files = 50;	/* ignored by largefile */
	assert_int_equal(workload_count(&s), 1);

	s.kind = WORKLOAD_SMALLFILES;
	s.files = 2500;
	assert_int_equal(workload_count(&s), 2500);

	s.kind = WORKLOAD_MIXED;
	s.files = 200;
	assert_int_equal(workload_count(&s), 200 + WORKLOAD_MIXED_LARGE_FILES);
	assert_int_equal(WORKLOAD_MIXED_LARGE_FILES, 4);

	memset(&s, 0, sizeof(s));
	s.kind = WORKLOAD_SMALLFILES;
	workload_apply_defaults(&s);
	assert_int_equal(workload_count(&s), 120000);
	s.kind = WORKLOAD_MIXED;
	s.files = 0;
	workload_apply_defaults(&s);
	assert_int_equal(workload_count(&s), 20004);
}

/* ---- small file sizes ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#define NDRAWS 10000

static void test_small_size_distribution(void **state)
{
	uint64_t *v = calloc(NDRAWS, sizeof(*v));
	uint64_t min = UINT64_MAX, max = 0, under_2k = 0;
	double sum = 0, median, mean;

	(void)state;
	assert_non_null(v);
	for (uint64_t i = 0; i < NDRAWS; i++) {
		v[i] = workload_small_size(1, i);
		/*
		 * (uint64_t)exp(mu + sigma*z) truncates, so 0 is possible in
		 * principle (z < -6.48, p ~ 5e-11 per draw); only the cap is
		 * a guarantee.
		 */
		assert_true(v[i] <= WORKLOAD_SMALL_CAP);
		sum += (double)v[i];
		if (v[i] < min)
			min = v[i];
		if (v[i] > max)
			max = v[i];
		if (v[i] < 2048)
			under_2k++;
	}
	qsort(v, NDRAWS, sizeof(*v), cmp_u64);
	median = ((double)v[NDRAWS / 2 - 1] + (double)v[NDRAWS / 2]) / 2;
	mean = sum / NDRAWS;
	if (median < 1800 || median > 2300 || mean < 3500 || mean > 4700) {
		print_error("median %.1f (want 1800..2300), mean %.1f (want 3500..4700)\n", median,
			    mean);
		fail();
	}
	/* a real spread, not a constant */
	assert_true(min < 512);
	assert_true(max > 32768);
	assert_in_range(under_2k, 4500, 5500);
	free(v);
}

static void test_small_size_deterministic(void **state)
{
	unsigned same = 0;

	(void)state;
	for (uint64_t i = 0; i < 1000; i++) {
		assert_int_equal(workload_small_size(1, i), workload_small_size(1, i));
		if (workload_small_size(1, i) == workload_small_size(2, i))
			same++;
	}
	/* another seed is another sequence: a few equal sizes by chance at most */
	assert_true(same < 50);
}

static void test_entry_sizes_follow_small_size(void **state)
{
	struct workload_spec s = { .kind = WORKLOAD_SMALLFILES, .files = 100, .seed = 9 };
	struct workload_entry e;

	(void)state;
	for (uint64_t i = 0; i < 100; i++) {
		workload_entry(&s, i, &e);
		assert_int_equal(e.size, workload_small_size(9, i));
		assert_int_equal(e.mode, 0644);
	}
}

/* ---- content ---- */

static void test_fill_deterministic(void **state)
{
	struct workload_spec s = { .kind = WORKLOAD_SMALLFILES, .files = 10, .seed = 1,
				   .compressibility = 0.5 };
	const size_t len = 256 * 1024;
	unsigned char *a = malloc(len), *b = malloc(len);

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	memset(a, 0xaa, len);
	memset(b, 0x55, len);
	workload_fill(&s, 3, 0, a, len);
	workload_fill(&s, 3, 0, b, len);
	assert_memory_equal(a, b, len);

	/* another offset (block), index or seed gives other bytes */
	workload_fill(&s, 3, WORKLOAD_BLOCK, b, len);
	assert_memory_not_equal(a, b, 4096);
	workload_fill(&s, 4, 0, b, len);
	assert_memory_not_equal(a, b, 4096);
	s.seed = 2;
	workload_fill(&s, 3, 0, b, len);
	assert_memory_not_equal(a, b, 4096);
	/* and no two differ in just a few bytes: count the bytes that differ */
	{
		size_t diff = 0;

		for (size_t i = 0; i < len; i++)
			diff += a[i] != b[i];
		assert_true(diff > len / 4);
	}
	free(a);
	free(b);
}

static void test_fill_split_equals_whole(void **state)
{
	struct workload_spec s = { .kind = WORKLOAD_LARGEFILE, .size = 2u * WORKLOAD_BLOCK, .seed = 5,
				   .compressibility = 0.3 };
	const size_t len = 2u * WORKLOAD_BLOCK;
	unsigned char *whole = malloc(len), *parts = malloc(len);

	(void)state;
	assert_non_null(whole);
	assert_non_null(parts);
	memset(whole, 1, len);
	memset(parts, 2, len);
	workload_fill(&s, 0, 0, whole, len);
	workload_fill(&s, 0, 0, parts, WORKLOAD_BLOCK);
	workload_fill(&s, 0, WORKLOAD_BLOCK, parts + WORKLOAD_BLOCK, WORKLOAD_BLOCK);
	assert_memory_equal(whole, parts, len);

	/* a shorter fill is a prefix of a longer one (short files, partial segments) */
	memset(parts, 3, len);
	workload_fill(&s, 0, 0, parts, 1001);
	assert_memory_equal(whole, parts, 1001);
	assert_int_equal(parts[1001], 3);	/* and writes nothing past len */
	memset(parts, 3, len);
	workload_fill(&s, 0, WORKLOAD_BLOCK, parts, 77);
	assert_memory_equal(whole + WORKLOAD_BLOCK, parts, 77);
	assert_int_equal(parts[77], 3);
	free(whole);
	free(parts);
}

/* zstd level 1 compression ratio of len bytes of file 0. */
static double ratio(double compressibility, size_t len)
{
	struct workload_spec s = { .kind = WORKLOAD_LARGEFILE, .size = len, .seed = 11,
				   .compressibility = compressibility };
	unsigned char *in = malloc(len);
	size_t bound = ZSTD_compressBound(len), n;
	void *out = malloc(bound);
	double r;

	assert_non_null(in);
	assert_non_null(out);
	workload_fill(&s, 0, 0, in, len);
	n = ZSTD_compress(out, bound, in, len, 1);
	assert_false(ZSTD_isError(n));
	r = (double)len / (double)n;
	free(in);
	free(out);
	return r;
}

static void test_fill_random_when_incompressible(void **state)
{
	struct workload_spec s = { .kind = WORKLOAD_LARGEFILE, .size = 65536, .seed = 3,
				   .compressibility = 0 };
	unsigned char *buf = malloc(65536);
	unsigned counts[256] = { 0 };
	unsigned distinct = 0, maxcount = 0;
	double r;

	(void)state;
	assert_non_null(buf);
	workload_fill(&s, 0, 0, buf, 65536);
	for (size_t i = 0; i < 65536; i++)
		counts[buf[i]]++;
	for (int c = 0; c < 256; c++) {
		distinct += counts[c] > 0;
		if (counts[c] > maxcount)
			maxcount = counts[c];
	}
	assert_int_equal(distinct, 256);
	assert_true(maxcount < 400);	/* expected 256 each, sd 16 */
	free(buf);

	r = ratio(0.0, WORKLOAD_BLOCK);
	if (r > 1.01) {
		print_error("compressibility 0 compressed %.3fx\n", r);
		fail();
	}
}

static void test_fill_compressible(void **state)
{
	double full, half;

	(void)state;
	full = ratio(1.0, WORKLOAD_BLOCK);
	half = ratio(0.5, WORKLOAD_BLOCK);
	if (full < 10.0) {
		print_error("compressibility 1.0 compressed only %.2fx\n", full);
		fail();
	}
	if (half < 1.5 || half > 3.0) {
		print_error("compressibility 0.5 compressed %.2fx, want 1.5..3\n", half);
		fail();
	}
	/* monotonic in between */
	assert_true(ratio(0.25, WORKLOAD_BLOCK) < half);
	assert_true(ratio(0.75, WORKLOAD_BLOCK) > half);
	assert_true(ratio(0.75, WORKLOAD_BLOCK) < full);
}

/* ---- layout ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_entry_layout_mixed(void **state)
{
	const uint64_t nfiles = 3000, size = (10ull << 20) + 3;
	struct workload_spec s = { .kind = WORKLOAD_MIXED, .files = nfiles, .size = size, .seed = 1 };
	uint64_t n = workload_count(&s), large_sum = 0, nlarge = 0;
	struct workload_entry *e;
	char **children;
	size_t nchildren = 0;

	(void)state;
	assert_int_equal(n, nfiles + 4);
	e = calloc(n, sizeof(*e));
	children = calloc(n * 3, sizeof(*children));
	assert_non_null(e);
	assert_non_null(children);
	for (uint64_t i = 0; i < n; i++) {
		workload_entry(&s, i, &e[i]);
		assert_true(e[i].path[0] != '\0');
		assert_true(e[i].path[0] != '/');
		assert_null(strstr(e[i].path, ".."));
		assert_null(strstr(e[i].path, "//"));
		if (i > 0 && strcmp(e[i - 1].path, e[i].path) >= 0) {
			print_error("entry %llu '%s' does not sort after '%s'\n",
				    (unsigned long long)i, e[i].path, e[i - 1].path);
			fail();
		}
		if (i >= nfiles) {
			nlarge++;
			large_sum += e[i].size;
			assert_true(strncmp(e[i].path, "large/", 6) == 0);
		} else {
			assert_int_equal(e[i].size, workload_small_size(1, i));
		}
	}
	assert_int_equal(nlarge, 4);
	assert_true(large_sum == size);
	assert_string_equal(e[0].path, "d0000/d00/f00000000");
	assert_string_equal(e[999].path, "d0000/d00/f00000999");
	assert_string_equal(e[1000].path, "d0000/d01/f00001000");

	/*
	 * No directory holds more than WORKLOAD_FILES_PER_DIR entries: collect
	 * every "dir/child" pair (files and subdirectories), dedupe, and count
	 * per directory.
	 */
	for (uint64_t i = 0; i < n; i++) {
		const char *p = e[i].path;

		for (const char *slash = strchr(p, '/');; slash = strchr(slash + 1, '/')) {
			size_t l = slash ? (size_t)(slash - p) : strlen(p);

			children[nchildren] = strndup(p, l);
			assert_non_null(children[nchildren]);
			nchildren++;
			if (!slash)
				break;
		}
	}
	qsort(children, nchildren, sizeof(*children), cmp_str);
	{
		/* the parent of each distinct entry, sorted, counted in runs */
		char **parents = calloc(nchildren, sizeof(*parents));
		size_t nparents = 0, run = 0;

		assert_non_null(parents);
		for (size_t i = 0; i < nchildren; i++) {
			const char *slash;

			if (i > 0 && !strcmp(children[i], children[i - 1]))
				continue;
			slash = strrchr(children[i], '/');
			parents[nparents] = strndup(children[i], slash ? (size_t)(slash - children[i]) : 0);
			assert_non_null(parents[nparents]);
			nparents++;
		}
		/* 3000 files + 4 large, 3 leaves, 1 parent, "large", root entries */
		assert_int_equal(nparents, 3004 + 3 + 1 + 1);
		qsort(parents, nparents, sizeof(*parents), cmp_str);
		for (size_t i = 0; i < nparents; i++) {
			run = i > 0 && !strcmp(parents[i], parents[i - 1]) ? run + 1 : 1;
			if (run > WORKLOAD_FILES_PER_DIR) {
				print_error("directory '%s' has more than %d entries\n", parents[i],
					    WORKLOAD_FILES_PER_DIR);
				fail();
			}
		}
		for (size_t i = 0; i < nparents; i++)
			free(parents[i]);
		free(parents);
	}
	for (size_t i = 0; i < nchildren; i++)
		free(children[i]);
	free(children);
	free(e);
}

static void test_entry_large_parts(void **state)
{
	struct workload_spec s = { .kind = WORKLOAD_MIXED, .files = 5, .size = 10 };
	struct workload_entry e;
	uint64_t sizes[4];

	(void)state;
	for (int k = 0; k < 4; k++) {
		workload_entry(&s, 5 + (uint64_t)k, &e);
		sizes[k] = e.size;
		assert_int_equal(e.mode, 0644);
	}
	assert_int_equal(sizes[0], 2);
	assert_int_equal(sizes[1], 2);
	assert_int_equal(sizes[2], 2);
	assert_int_equal(sizes[3], 4);
	workload_entry(&s, 5, &e);
	assert_string_equal(e.path, "large/part0.bin");
	workload_entry(&s, 8, &e);
	assert_string_equal(e.path, "large/part3.bin");

	/* largefile: one file, at the root */
	s.kind = WORKLOAD_LARGEFILE;
	s.size = (3ull << 20) + 123;
	workload_entry(&s, 0, &e);
	assert_string_equal(e.path, "large.bin");
	assert_true(e.size == (3ull << 20) + 123);
	assert_int_equal(workload_dir_count(&s), 0);
}

/* Paths stay in index order right up to the largest allowed workload. */
static void test_entry_order_at_scale(void **state)
{
	struct workload_spec s = { .kind = WORKLOAD_MIXED, .files = WORKLOAD_MAX_FILES, .size = 4 };
	static const uint64_t idx[] = { 0, 999, 1000, 31999, 32000, 9999999, 10000000,
					99999998, 99999999 };
	struct workload_entry a, b;

	(void)state;
	for (size_t k = 0; k + 1 < ARRAY_LEN(idx); k++) {
		workload_entry(&s, idx[k], &a);
		workload_entry(&s, idx[k + 1], &b);
		if (strcmp(a.path, b.path) >= 0) {
			print_error("'%s' (%llu) does not sort before '%s' (%llu)\n", a.path,
				    (unsigned long long)idx[k], b.path, (unsigned long long)idx[k + 1]);
			fail();
		}
	}
	workload_entry(&s, WORKLOAD_MAX_FILES - 1, &a);
	workload_entry(&s, WORKLOAD_MAX_FILES, &b);
	assert_true(strcmp(a.path, b.path) < 0);
	assert_string_equal(b.path, "large/part0.bin");
}

static void test_dir_names_cover_parents(void **state)
{
	static const struct workload_spec specs[] = {
		{ .kind = WORKLOAD_MIXED, .files = 3000, .size = 1 << 20 },
		{ .kind = WORKLOAD_SMALLFILES, .files = 2500 },
		{ .kind = WORKLOAD_SMALLFILES, .files = 1000 },
		{ .kind = WORKLOAD_SMALLFILES, .files = 1001 },
		{ .kind = WORKLOAD_SMALLFILES, .files = 40000 },
		{ .kind = WORKLOAD_LARGEFILE, .size = 10 },
	};

	(void)state;
	for (size_t k = 0; k < ARRAY_LEN(specs); k++) {
		const struct workload_spec *s = &specs[k];
		uint64_t ndirs = workload_dir_count(s), n = workload_count(s);
		char (*names)[64] = calloc(ndirs ? ndirs : 1, sizeof(*names));
		char *used = calloc(ndirs ? ndirs : 1, 1);
		uint64_t d = 0;

		assert_non_null(names);
		assert_non_null(used);
		for (uint64_t i = 0; i < ndirs; i++) {
			workload_dir_name(s, i, names[i], sizeof(names[i]));
			assert_true(names[i][0] != '\0');
			if (i > 0)
				assert_true(strcmp(names[i - 1], names[i]) < 0);
		}
		/* files come in path order, so their parents come in dir order */
		for (uint64_t i = 0; i < n; i++) {
			struct workload_entry e;
			const char *slash;
			char parent[64];

			workload_entry(s, i, &e);
			slash = strrchr(e.path, '/');
			if (!slash)
				continue;	/* at the root: needs no directory */
			snprintf(parent, sizeof(parent), "%.*s", (int)(slash - e.path), e.path);
			while (d < ndirs && strcmp(names[d], parent) != 0)
				d++;
			if (d == ndirs) {
				print_error("spec %zu: parent '%s' of '%s' is not among the %llu dirs\n",
					    k, parent, e.path, (unsigned long long)ndirs);
				fail();
			}
			used[d] = 1;
		}
		/* and no directory is listed that no file needs */
		for (uint64_t i = 0; i < ndirs; i++)
			if (!used[i]) {
				print_error("spec %zu: dir '%s' holds no file\n", k, names[i]);
				fail();
			}
		free(names);
		free(used);
	}
}

/*
 * workload.c's promise "no directory holds more than about 1,000 entries"
 * holds for the root too, at WORKLOAD_MAX_FILES: with 32 leaves a parent the
 * root holds ceil(files / 32000) parents, so that limit must stay at or
 * below 32,000,000 (it was 100,000,000: 3125 entries in the root).
 */
static void test_root_entries_at_max_files(void **state)
{
	struct workload_spec s = { .kind = WORKLOAD_SMALLFILES, .files = WORKLOAD_MAX_FILES };
	uint64_t ndirs = workload_dir_count(&s), top = 0;
	char prev[64] = "", name[64];

	(void)state;
	for (uint64_t i = 0; i < ndirs; i++) {
		char *slash;

		workload_dir_name(&s, i, name, sizeof(name));
		slash = strchr(name, '/');
		if (slash)
			*slash = '\0';
		if (strcmp(name, prev) != 0) {
			top++;
			snprintf(prev, sizeof(prev), "%s", name);
		}
	}
	if (top > WORKLOAD_FILES_PER_DIR) {
		print_error("root of a %llu-file workload has %llu entries\n",
			    (unsigned long long)s.files, (unsigned long long)top);
		fail();
	}
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_names),
		cmocka_unit_test(test_parse_name_errors),
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_small_size_distribution),
		cmocka_unit_test(test_small_size_deterministic),
		cmocka_unit_test(test_entry_sizes_follow_small_size),
		cmocka_unit_test(test_fill_deterministic),
		cmocka_unit_test(test_fill_split_equals_whole),
		cmocka_unit_test(test_fill_random_when_incompressible),
		cmocka_unit_test(test_fill_compressible),
		cmocka_unit_test(test_entry_layout_mixed),
		cmocka_unit_test(test_entry_large_parts),
		cmocka_unit_test(test_entry_order_at_scale),
		cmocka_unit_test(test_dir_names_cover_parents),
		cmocka_unit_test(test_root_entries_at_max_files),
	};

	return test_run("workload", tests, ARRAY_LEN(tests), NULL, 0);
}
