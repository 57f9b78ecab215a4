/*
 * Unit tests for workloads/workload_sample.c and workload_sample_tree.c.
 *
 * The bounds the sample is held to (README, --sample), on trees built in
 * memory where the whole's shape is known:
 *  - size classes: each class's files within 4 of f x the whole's (the
 *    strata are exact to one file; a class spans 4 strata);
 *  - bytes within 0.9-1.1 of f x the whole's;
 *  - directories holding files: at least 0.67 x f x the whole's, at most
 *    1.5 x f x the whole's + 1 (one directory more holds what the strata
 *    still lacked once whole directories were taken);
 *  - on a deep tree with a directory too large to take whole: every class
 *    and the files within 0.9-1.1 of f x the whole's, all directories
 *    (those above the ones holding files too) within 0.67-2 of it;
 *  - symbolic links and hard links per file within 1 percentage point of
 *    the whole's, empty directories f x the whole's, rounded, +-1;
 *  - the same seed the same sample, another seed another;
 *  - a single huge file gives f of its bytes as pieces spread over it.
 * On a file system (a tmpfs when there is one): a dir: tree with links, a sparse file and a large file is
 * materialised as the sample's manifest says (holes kept), the source is
 * not touched, nothing is written outside the scratch directory.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "err.h"
#include "fs_remove.h"
#include "manifest.h"
#include "workload.h"
#include "workload_sample.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_parse(void **state)
{
	struct workload_sample_request r;
	static const char *const bad[] = { "0%", "100%", "150%", "abc", "0", "-5%", "5%%", "%", "", "2X" };

	(void)state;
	assert_int_equal(workload_sample_parse("5%", &r), 0);
	assert_int_equal(r.unit, WORKLOAD_SAMPLE_PERCENT);
	assert_true(r.value == 5.0);
	assert_int_equal(workload_sample_parse("0.5%", &r), 0);
	assert_true(r.value == 0.5);
	assert_int_equal(workload_sample_parse("2G", &r), 0);
	assert_int_equal(r.unit, WORKLOAD_SAMPLE_BYTES);
	assert_true(r.value == 2147483648.0);
	assert_int_equal(workload_sample_parse("512B", &r), 0);
	assert_int_equal(r.unit, WORKLOAD_SAMPLE_BYTES);
	assert_int_equal(workload_sample_parse("10000", &r), 0);
	assert_int_equal(r.unit, WORKLOAD_SAMPLE_FILES);
	assert_true(r.value == 10000.0);
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		if (workload_sample_parse(bad[i], &r) == 0)
			fail_msg("'%s' was taken", bad[i]);
		assert_contains(err_msg(), "--sample");
	}
}

/*
 * A tree like a realistic workload: files with smallfiles' log-normal
 * sizes in `dirs` directories of varied fullness (when varied: 1 to 2x
 * per_dir files, else per_dir each), one in 10 named .gz, one in 100 with
 * a second name, one in 20 a symbolic link beside it, and one empty
 * directory in 50 files.
 */
static void make_whole(struct manifest *m, size_t dirs, size_t per_dir, bool varied)
{
	char path[128], other[128];
	uint64_t n = 0;

	manifest_init(m);
	for (size_t d = 0; d < dirs; d++) {
		size_t files = varied ? 1 + (d * 7919) % (2 * per_dir) : per_dir;

		snprintf(path, sizeof(path), "p%02zu", d % 8);
		if (d < 8)
			assert_int_equal(manifest_add_dir(m, path, 0755, 1000), 0);
		snprintf(path, sizeof(path), "p%02zu/d%04zu", d % 8, d);
		assert_int_equal(manifest_add_dir(m, path, 0750, 2000 + (int64_t)d), 0);
		for (size_t k = 0; k < files; k++, n++) {
			snprintf(path, sizeof(path), "p%02zu/d%04zu/f%06llu%s", d % 8, d, (unsigned long long)n,
				 n % 10 == 3 ? ".gz" : "");
			assert_int_equal(manifest_add_file(m, path, workload_small_size(7, n), 0644, 3000,
							   n + 1), 0);
			if (n % 100 == 7) {
				snprintf(other, sizeof(other), "p%02zu/d%04zu/h%06llu", d % 8, d, (unsigned long long)n);
				assert_int_equal(manifest_add_hardlink(m, other, path), 0);
			}
			if (n % 20 == 11) {
				snprintf(other, sizeof(other), "p%02zu/d%04zu/l%06llu", d % 8, d, (unsigned long long)n);
				assert_int_equal(manifest_add_symlink(m, other, "../x"), 0);
			}
			if (n % 50 == 13) {
				snprintf(other, sizeof(other), "p%02zu/e%06llu", d % 8, (unsigned long long)n);
				assert_int_equal(manifest_add_dir(m, other, 0700, 4000), 0);
			}
		}
	}
	manifest_sort(m);
	assert_int_equal(manifest_check(m), 0);
}

static size_t empty_dirs(const struct manifest *m)
{
	size_t n = 0;

	for (size_t k = 0; k < m->ndirs; k++)
		n += !manifest_has_below(m, m->dirs[k].path, 1);
	return n;
}

static void draw(const struct manifest *whole, const char *ask, uint64_t seed, struct workload_sample *s)
{
	struct workload_sample_request req;

	assert_int_equal(workload_sample_parse(ask, &req), 0);
	if (workload_sample_draw(whole, &req, seed, s) < 0)
		fail_msg("draw: %s", err_msg());
}

/* The bounds of the file's header comment, for a sample of whole at fraction f. */
static void check_shape(const struct manifest *whole, const struct workload_sample *s)
{
	const struct workload_sample_counts *a = &s->sample, *w = &s->whole;
	double f = s->fraction, want_dirs = f * (double)w->dirs_with_files;
	double want_empty = f * (double)empty_dirs(whole);

	for (unsigned k = 0; k < WORKLOAD_SAMPLE_CLASSES; k++)
		if (fabs((double)a->class_files[k] - f * (double)w->class_files[k]) > 4)
			fail_msg("class %u: %llu files, f x whole = %.1f", k, (unsigned long long)a->class_files[k],
				 f * (double)w->class_files[k]);
	if (fabs((double)a->bytes / (f * (double)w->bytes) - 1) > 0.1)
		fail_msg("bytes %llu, f x whole = %.0f", (unsigned long long)a->bytes, f * (double)w->bytes);
	if ((double)a->dirs_with_files < 0.67 * want_dirs || (double)a->dirs_with_files > 1.5 * want_dirs + 1)
		fail_msg("%llu directories hold the sample's %llu files, f x the whole's %.1f",
			 (unsigned long long)a->dirs_with_files, (unsigned long long)a->files, want_dirs);
	print_message("# f %.4f: files %llu bytes %.3f of f x whole, %llu directories holding files of f x whole %.1f\n",
		      f, (unsigned long long)a->files, (double)a->bytes / (f * (double)w->bytes),
		      (unsigned long long)a->dirs_with_files, want_dirs);
	if (fabs((double)a->symlinks / (double)a->files - (double)w->symlinks / (double)w->files) > 0.01)
		fail_msg("symlinks %llu of %llu files, the whole %llu of %llu", (unsigned long long)a->symlinks,
			 (unsigned long long)a->files, (unsigned long long)w->symlinks, (unsigned long long)w->files);
	if (fabs((double)a->hardlinks / (double)a->files - (double)w->hardlinks / (double)w->files) > 0.01)
		fail_msg("hard links %llu of %llu files, the whole %llu of %llu", (unsigned long long)a->hardlinks,
			 (unsigned long long)a->files, (unsigned long long)w->hardlinks, (unsigned long long)w->files);
	if (fabs((double)empty_dirs(&s->m) - want_empty) > 1.5)
		fail_msg("%zu empty directories, f x whole = %.1f", empty_dirs(&s->m), want_empty);
	if (fabs((double)a->compressed_files - f * (double)w->compressed_files) > 4 * 3)
		fail_msg("%llu compressed names, f x whole = %.1f", (unsigned long long)a->compressed_files,
			 f * (double)w->compressed_files);
	assert_int_equal(manifest_check(&s->m), 0);
}

/* 20,000 files in 20 directories of 1,000, as smallfiles: 5%, 10%, 2G-equivalent and a count. */
static void test_shape_even_tree(void **state)
{
	static const char *const asks[] = { "5%", "10%", "1000", "8M" };
	struct manifest whole;

	(void)state;
	make_whole(&whole, 20, 1000, false);
	for (size_t i = 0; i < ARRAY_LEN(asks); i++) {
		struct workload_sample s;

		draw(&whole, asks[i], 1 + i, &s);
		check_shape(&whole, &s);
		assert_int_equal(s.cut_files, 0);
		workload_sample_release(&s);
	}
	manifest_release(&whole);
}

/* 1,000 directories of 1 to 40 files (a system tree's spread), over several seeds. */
static void test_shape_varied_tree(void **state)
{
	struct manifest whole;

	(void)state;
	make_whole(&whole, 1000, 20, true);
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct workload_sample s;

		draw(&whole, "5%", seed, &s);
		check_shape(&whole, &s);
		workload_sample_release(&s);
	}
	manifest_release(&whole);
}

/*
 * A tree shaped like a system one: 12 packages, each lib/gMM/mK leaves
 * four levels down (960 of them, 4 to 24 files each, every directory
 * above a leaf holding none), and one directory of 2,000 files of a size
 * no other holds: more than twice the share, so never taken whole.
 */
static void make_deep_whole(struct manifest *m)
{
	char path[128];
	uint64_t n = 0;

	manifest_init(m);
	for (unsigned p = 0; p < 12; p++) {
		snprintf(path, sizeof(path), "p%02u", p);
		assert_int_equal(manifest_add_dir(m, path, 0755, 1000), 0);
		snprintf(path, sizeof(path), "p%02u/lib", p);
		assert_int_equal(manifest_add_dir(m, path, 0755, 1000), 0);
		for (unsigned g = 0; g < 8; g++) {
			snprintf(path, sizeof(path), "p%02u/lib/g%02u", p, g);
			assert_int_equal(manifest_add_dir(m, path, 0755, 1000), 0);
			for (unsigned k = 0; k < 10; k++) {
				unsigned leaf = (p * 8 + g) * 10 + k, files = 4 + (leaf * 7919) % 21;

				snprintf(path, sizeof(path), "p%02u/lib/g%02u/m%u", p, g, k);
				assert_int_equal(manifest_add_dir(m, path, 0755, 1000), 0);
				for (unsigned f = 0; f < files; f++, n++) {
					snprintf(path, sizeof(path), "p%02u/lib/g%02u/m%u/f%06llu", p, g, k,
						 (unsigned long long)n);
					assert_int_equal(manifest_add(m, path, 512 + (n * 37) % 3000, 0644, n + 1), 0);
				}
			}
		}
	}
	assert_int_equal(manifest_add_dir(m, "p05/share", 0755, 1000), 0);
	assert_int_equal(manifest_add_dir(m, "p05/share/big", 0755, 1000), 0);
	for (unsigned f = 0; f < 2000; f++, n++) {
		snprintf(path, sizeof(path), "p05/share/big/f%06llu", (unsigned long long)n);
		assert_int_equal(manifest_add(m, path, 5, 0644, n + 1), 0);
	}
	manifest_sort(m);
	assert_int_equal(manifest_check(m), 0);
}

/*
 * On the system-like tree, over several seeds: every size class and the
 * files within 0.9-1.1 of f x the whole's (the large directory's class
 * too: drawn one directory at a time, stopping at the first too large,
 * it had none of it, and 0.85 of the files), and all directories, those
 * above the leaves included, within 0.67-2 of f x the whole's (drawn one
 * by one each leaf brought its own three above it: 2.18 here, 2.0-3.9 on
 * this machine's system trees; in clusters 1.61-1.89).
 */
static void test_shape_deep_tree(void **state)
{
	struct manifest whole;

	(void)state;
	make_deep_whole(&whole);
	for (uint64_t seed = 1; seed <= 8; seed++) {
		struct workload_sample s;
		const struct workload_sample_counts *a = &s.sample, *w = &s.whole;
		double f;

		draw(&whole, "5%", seed, &s);
		f = s.fraction;
		assert_int_equal(w->dirs, 12 * (2 + 8 * 11) + 2);
		print_message("# seed %llu: files %.2f, directories %.2f of f x the whole's (%llu, %llu holding files)\n",
			      (unsigned long long)seed, (double)a->files / (f * (double)w->files),
			      (double)a->dirs / (f * (double)w->dirs), (unsigned long long)a->dirs,
			      (unsigned long long)a->dirs_with_files);
		for (unsigned k = 0; k < WORKLOAD_SAMPLE_CLASSES; k++)
			if (w->class_files[k] >= 100 &&
			    fabs((double)a->class_files[k] / (f * (double)w->class_files[k]) - 1) > 0.1)
				fail_msg("seed %llu, class %u: %llu files, f x whole = %.1f", (unsigned long long)seed,
					 k, (unsigned long long)a->class_files[k], f * (double)w->class_files[k]);
		if (fabs((double)a->files / (f * (double)w->files) - 1) > 0.1)
			fail_msg("seed %llu: %llu files, f x whole = %.1f", (unsigned long long)seed,
				 (unsigned long long)a->files, f * (double)w->files);
		if ((double)a->dirs < 0.67 * f * (double)w->dirs || (double)a->dirs > 2 * f * (double)w->dirs)
			fail_msg("seed %llu: %llu directories, f x the whole's %.1f", (unsigned long long)seed,
				 (unsigned long long)a->dirs, f * (double)w->dirs);
		workload_sample_release(&s);
	}
	manifest_release(&whole);
}

static bool same_paths(const struct manifest *a, const struct manifest *b)
{
	if (a->count != b->count || a->nsymlinks != b->nsymlinks || a->ndirs != b->ndirs)
		return false;
	for (size_t i = 0; i < a->count; i++)
		if (strcmp(a->entries[i].path, b->entries[i].path))
			return false;
	return true;
}

static void test_reproducible_by_seed(void **state)
{
	struct manifest whole;
	struct workload_sample a, b, c;

	(void)state;
	make_whole(&whole, 200, 20, true);
	draw(&whole, "10%", 42, &a);
	draw(&whole, "10%", 42, &b);
	draw(&whole, "10%", 43, &c);
	assert_true(same_paths(&a.m, &b.m));
	assert_string_equal(a.method, b.method);
	assert_false(same_paths(&a.m, &c.m));
	workload_sample_release(&a);
	workload_sample_release(&b);
	workload_sample_release(&c);
	manifest_release(&whole);
}

/* One 4 GiB file: 5% of its bytes in 26 pieces of about 8 MiB, one in each 26th of it. */
static void test_single_huge_file(void **state)
{
	const uint64_t size = 4ull << 30;
	struct manifest whole;
	struct workload_sample s;
	uint64_t stride;

	(void)state;
	manifest_init(&whole);
	assert_int_equal(manifest_add_file(&whole, "large.bin", size, 0644, 5, 0), 0);
	manifest_sort(&whole);
	draw(&whole, "5%", 1, &s);
	assert_int_equal(s.cut_files, 1);
	assert_int_equal(s.pieces, 26);
	assert_int_equal(s.m.count, 26);
	assert_true(fabs((double)s.m.total_bytes / (0.05 * (double)size) - 1) < 0.01);
	stride = size / 26;
	for (size_t i = 0; i < s.m.count; i++) {
		const struct workload_sample_source *src = &s.sources[i];
		unsigned k;

		assert_true(src->piece);
		assert_int_equal(sscanf(s.m.entries[i].path, "large.bin~piece%uof26", &k), 1);
		assert_true(src->offset >= (k - 1) * stride);
		assert_true(src->offset + src->len <= k * stride);
		assert_int_equal(src->offset % 4096, 0);
	}
	assert_contains(s.method, "1 large file give 26 pieces");
	workload_sample_release(&s);
	/* asking for all of it or more: the whole */
	draw(&whole, "5G", 1, &s);
	assert_true(workload_sample_is_whole(&s));
	workload_sample_release(&s);
	manifest_release(&whole);
}

/* --- on disk ------------------------------------------------------------- */

/*
 * The one-file tree of a sample: its smallest file not empty, from the same
 * source, cut to its first page when larger, with the directories above it
 * and nothing else; one file of the whole's as its fraction, the whole
 * itself when the whole is one small file, and a page of the one large
 * file when the whole is that.
 */
static void test_one_file_of_the_sample(void **state)
{
	struct manifest whole, single, large;
	struct workload_sample s, one, s1, one1, sl, onel;
	const struct manifest_entry *e;
	uint64_t least = UINT64_MAX;

	(void)state;
	make_whole(&whole, 100, 20, true);
	draw(&whole, "10%", 3, &s);
	for (size_t i = 0; i < s.m.count; i++)
		if (s.m.entries[i].size > 0 && s.m.entries[i].size < least)
			least = s.m.entries[i].size;
	assert_int_equal(workload_sample_one(&s, &one), 0);
	assert_int_equal(one.m.count, 1);
	e = &one.m.entries[0];
	assert_int_equal(e->size, least < WORKLOAD_SAMPLE_ONE_MAX ? least : WORKLOAD_SAMPLE_ONE_MAX);
	assert_non_null(manifest_find(&s.m, e->path));
	assert_int_equal(one.sources[0].entry, s.sources[manifest_find(&s.m, e->path) - s.m.entries].entry);
	assert_int_equal(one.m.nsymlinks + one.m.nhardlinks, 0);
	/* pNN/dNNNN/f...: its two directories, nothing else */
	assert_int_equal(one.m.ndirs, 2);
	for (size_t k = 0; k < one.m.ndirs; k++)
		assert_true(strncmp(one.m.dirs[k].path, e->path, strlen(one.m.dirs[k].path)) == 0);
	assert_false(workload_sample_is_whole(&one));
	assert_true(fabs(one.fraction - 1.0 / (double)whole.count) < 1e-12);

	manifest_init(&single);
	assert_int_equal(manifest_add_file(&single, "only", 1000, 0644, 3000, 7), 0);
	manifest_sort(&single);
	/* a sample of a one-file whole is the whole; its one file as well */
	s1 = (struct workload_sample){ .fraction = 1 };
	manifest_init(&s1.m);
	workload_sample_count(&single, &s1.whole);
	s1.sources = calloc(1, sizeof(*s1.sources));
	assert_int_equal(manifest_add_file(&s1.m, "only", 1000, 0644, 3000, 7), 0);
	assert_int_equal(workload_sample_one(&s1, &one1), 0);
	assert_true(workload_sample_is_whole(&one1));
	workload_sample_release(&one1);

	/* a one-file whole of 4 GiB: one of its sample's 8 MiB pieces, cut to a page, is no whole */
	manifest_init(&large);
	assert_int_equal(manifest_add_file(&large, "large.bin", 4ull << 30, 0644, 3000, 7), 0);
	manifest_sort(&large);
	draw(&large, "5%", 1, &sl);
	assert_int_equal(workload_sample_one(&sl, &onel), 0);
	assert_int_equal(onel.m.count, 1);
	assert_int_equal(onel.m.entries[0].size, WORKLOAD_SAMPLE_ONE_MAX);
	assert_int_equal(onel.sources[0].len, WORKLOAD_SAMPLE_ONE_MAX);
	assert_true(onel.sources[0].piece);
	assert_int_equal(onel.m.entries[0].xxh3, 0);
	assert_int_equal(strncmp(onel.m.entries[0].path, "large.bin~piece", 15), 0);
	assert_false(workload_sample_is_whole(&onel));
	assert_true(fabs(onel.fraction - (double)WORKLOAD_SAMPLE_ONE_MAX / (double)(4ull << 30)) < 1e-15);
	assert_contains(onel.method, "its first bytes");
	workload_sample_release(&onel);
	workload_sample_release(&sl);
	manifest_release(&large);
	workload_sample_release(&s1);
	manifest_release(&single);
	workload_sample_release(&one);
	workload_sample_release(&s);
	manifest_release(&whole);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* A file of size bytes whose data is 1 MiB every 64 MiB, the rest holes. */
static void write_sparse(const char *path, uint64_t size)
{
	static char mib[1 << 20];
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);

	assert_true(fd >= 0);
	memset(mib, 's', sizeof(mib));
	for (uint64_t off = 0; off < size; off += 64ull << 20)
		assert_int_equal(pwrite(fd, mib, sizeof(mib), (off_t)off), (ssize_t)sizeof(mib));
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	close(fd);
}

/* Every entry name in dir, as "a b c", for comparing before and after. */
static void list_names(const char *dir, char *buf, size_t len)
{
	struct dirent **v;
	int n = scandir(dir, &v, NULL, alphasort);
	size_t used = 0;

	assert_true(n >= 0);
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s ", v[i]->d_name);
		free(v[i]);
	}
	free(v);
}

/*
 * src/: 300 small files in 6 directories (with hard links and symbolic
 * links among them), a 256 MiB sparse file and a 40 MiB file. A 10% sample
 * is materialised in scratch/: the tree read back equals the sample's
 * manifest (hashes and all), the sparse pieces keep their holes, the
 * source's manifest and times are as before, scratch/ holds only the
 * sample's directory, which then goes.
 */
static void test_materialise_dir_tree(void **state)
{
	char base[256], src[300], scratch[300], p[400], q[4400];
	char before[512], after[512];
	struct manifest whole, again, back;
	struct workload_sample s;
	struct stat st0, st1;
	blkcnt_t blocks = 0;
	uint64_t big = 40ull << 20;

	(void)state;
	/* the subject is the copy, not the disk: a tmpfs when there is one (testutil.h) */
	test_mkdtemp(base, sizeof(base), "xfercmp-sampletest");
	snprintf(src, sizeof(src), "%s/src", base);
	snprintf(scratch, sizeof(scratch), "%s/scratch", base);
	assert_int_equal(mkdir(src, 0755), 0);
	assert_int_equal(mkdir(scratch, 0700), 0);
	for (int d = 0; d < 6; d++) {
		snprintf(p, sizeof(p), "%s/d%d", src, d);
		assert_int_equal(mkdir(p, 0750), 0);
		for (int f = 0; f < 50; f++) {
			snprintf(p, sizeof(p), "%s/d%d/f%03d", src, d, f);
			write_file(p, f % 2 ? "odd file\n" : "an even file, a little longer\n", 0644);
			if (f % 10 == 1) {
				snprintf(q, sizeof(q), "%s/d%d/h%03d", src, d, f);
				assert_int_equal(link(p, q), 0);
			}
			if (f % 10 == 2) {
				snprintf(q, sizeof(q), "%s/d%d/l%03d", src, d, f);
				assert_int_equal(symlink("../d0/f000", q), 0);
			}
		}
	}
	snprintf(p, sizeof(p), "%s/sparse.img", src);
	write_sparse(p, 256ull << 20);
	snprintf(p, sizeof(p), "%s/big.bin", src);
	{
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		char *buf = malloc(big);

		assert_true(fd >= 0 && buf);
		for (uint64_t i = 0; i < big; i++)
			buf[i] = (char)(i * 131 >> 7);
		assert_int_equal(write(fd, buf, big), (ssize_t)big);
		close(fd);
		free(buf);
	}
	assert_int_equal(manifest_from_tree(&whole, src, 2), 0);
	assert_int_equal(lstat(p, &st0), 0);
	list_names(src, before, sizeof(before));
	draw(&whole, "10%", 3, &s);
	assert_int_equal(s.cut_files, 2);
	if (workload_sample_materialise(&s, &whole, src, scratch, 4) < 0)
		fail_msg("materialise: %s", err_msg());
	/* the tree is what the sample's manifest says, hashes and all */
	assert_int_equal(manifest_from_tree(&back, s.dir, 2), 0);
	assert_int_equal(back.count, s.m.count);
	assert_int_equal(back.nhardlinks, s.m.nhardlinks);
	assert_int_equal(back.nsymlinks, s.m.nsymlinks);
	assert_int_equal(back.ndirs, s.m.ndirs);
	for (size_t i = 0; i < back.count; i++) {
		assert_string_equal(back.entries[i].path, s.m.entries[i].path);
		assert_true(back.entries[i].size == s.m.entries[i].size);
		assert_true(back.entries[i].xxh3 == s.m.entries[i].xxh3);
		assert_int_equal(back.entries[i].mode, s.m.entries[i].mode);
		assert_true(back.entries[i].mtime == s.m.entries[i].mtime);
		if (strstr(back.entries[i].path, "sparse.img~")) {
			snprintf(q, sizeof(q), "%s/%s", s.dir, back.entries[i].path);
			assert_int_equal(lstat(q, &st1), 0);
			blocks += st1.st_blocks;
		}
	}
	/* 10% of 256 MiB in pieces, 1/64 of it data: holes kept, not written (at most 3 MiB of data) */
	assert_true(blocks * 512 <= (4 << 20));
	for (size_t h = 0; h < back.nhardlinks; h++)
		assert_string_equal(back.hardlinks[h].path, s.m.hardlinks[h].path);
	/* the source as it was, the scratch holding the sample alone */
	assert_int_equal(manifest_from_tree(&again, src, 2), 0);
	assert_int_equal(again.count, whole.count);
	for (size_t i = 0; i < again.count; i++)
		assert_true(again.entries[i].xxh3 == whole.entries[i].xxh3);
	assert_int_equal(lstat(p, &st1), 0);
	assert_true(st1.st_ctim.tv_sec == st0.st_ctim.tv_sec && st1.st_ctim.tv_nsec == st0.st_ctim.tv_nsec);
	assert_true(st1.st_nlink == st0.st_nlink);
	list_names(src, after, sizeof(after));
	assert_string_equal(before, after);
	list_names(scratch, after, sizeof(after));
	snprintf(before, sizeof(before), ". .. %s ", strrchr(s.dir, '/') + 1);
	assert_string_equal(after, before);
	assert_int_equal(fs_remove_tree_parallel(AT_FDCWD, s.dir, s.dir, 4, NULL), 0);
	workload_sample_release(&s);
	manifest_release(&back);
	manifest_release(&again);
	manifest_release(&whole);
	assert_int_equal(fs_remove_tree_parallel(AT_FDCWD, base, base, 4, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_shape_even_tree),
		cmocka_unit_test(test_shape_varied_tree),
		cmocka_unit_test(test_shape_deep_tree),
		cmocka_unit_test(test_reproducible_by_seed),
		cmocka_unit_test(test_single_huge_file),
		cmocka_unit_test(test_one_file_of_the_sample),
		cmocka_unit_test(test_materialise_dir_tree),
	};

	return test_run("workload_sample", tests, ARRAY_LEN(tests), NULL, 0);
}
