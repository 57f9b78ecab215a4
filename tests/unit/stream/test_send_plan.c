/*
 * Send plans (stream/send_plan): a manifest as one plan of whole files, or
 * split over streams with large files cut into one range per stream. The
 * manifests here are built in memory: a plan reads no file.
 */
#include "testutil.h"

#include "err.h"
#include "manifest.h"
#include "stream/send_plan.h"

#include <string.h>

#define MiB (1ull << 20)

static void add(struct manifest *m, const char *path, uint64_t size)
{
	assert_int_equal(manifest_add(m, path, size, 0644, 0), 0);
}

/* Bytes of every file, summed over the plans, must be each file's size exactly once. */
static void assert_covers(const struct manifest *m, const struct send_plan *plans, unsigned n)
{
	uint64_t bytes = 0;

	for (size_t i = 0; i < m->count; i++) {
		const struct manifest_entry *e = &m->entries[i];
		uint64_t covered = 0;

		for (unsigned s = 0; s < n; s++)
			for (size_t k = 0; k < plans[s].count; k++) {
				const struct send_item *it = &plans[s].items[k];

				if (it->path != e->path)
					continue;
				assert_int_equal(it->file_size, e->size);
				assert_int_equal(it->mode, e->mode);
				assert_true(it->mtime == e->mtime);
				if (it->kind == SEND_FILE) {
					assert_int_equal(it->offset, 0);
					assert_int_equal(it->length, e->size);
				}
				assert_true(it->offset + it->length <= e->size);
				covered += it->length;
			}
		assert_int_equal(covered, e->size);
	}
	for (unsigned s = 0; s < n; s++) {
		uint64_t sum = 0;

		for (size_t k = 0; k < plans[s].count; k++)
			if (plans[s].items[k].kind == SEND_FILE || plans[s].items[k].kind == SEND_RANGE)
				sum += plans[s].items[k].length;
		assert_int_equal(plans[s].bytes, sum);
		bytes += plans[s].bytes;
	}
	assert_int_equal(bytes, m->total_bytes);
}

static void release_plans(struct send_plan *plans, unsigned n)
{
	for (unsigned s = 0; s < n; s++)
		send_plan_release(&plans[s]);
}

static void test_whole_in_manifest_order(void **state)
{
	struct manifest m;
	struct send_plan plan;

	(void)state;
	manifest_init(&m);
	add(&m, "b/2", 10);
	add(&m, "a/1", 0);
	add(&m, "c", 100 * MiB);
	manifest_sort(&m);
	assert_int_equal(send_plan_whole(&m, &plan), 0);
	assert_int_equal(plan.count, 3);
	for (size_t k = 0; k < plan.count; k++) {
		assert_string_equal(plan.items[k].path, m.entries[k].path);
		assert_int_equal(plan.items[k].kind, SEND_FILE);
	}
	assert_int_equal(plan.bytes, m.total_bytes);
	assert_covers(&m, &plan, 1);
	send_plan_release(&plan);
	assert_null(plan.items);
	assert_int_equal(plan.count, 0);
	manifest_release(&m);
}

/* One large file over two streams: one range each, halves of it (the splice test's largefile). */
static void test_split_large_file(void **state)
{
	struct manifest m;
	struct send_plan plans[2];
	uint64_t size = 64 * MiB + 1234;

	(void)state;
	manifest_init(&m);
	add(&m, "f", size);
	assert_int_equal(send_plan_split(&m, 2, 8 * MiB, plans), 0);
	for (unsigned s = 0; s < 2; s++) {
		assert_int_equal(plans[s].count, 1);
		assert_int_equal(plans[s].items[0].kind, SEND_RANGE);
	}
	assert_int_equal(plans[0].items[0].offset + plans[1].items[0].offset, (size + 1) / 2);
	assert_covers(&m, plans, 2);
	release_plans(plans, 2);
	manifest_release(&m);
}

/*
 * Files above the threshold are cut into one range per stream, smaller ones
 * go whole to the lightest stream: the item count is files + (streams - 1)
 * per large file, and the streams end within one small file of each other.
 */
static void test_split_mixed(void **state)
{
	struct manifest m;
	struct send_plan plans[3];
	size_t items = 0, ranges = 0;
	char path[32];

	(void)state;
	manifest_init(&m);
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "big%d", i);
		add(&m, path, 10 * MiB + (uint64_t)i);
	}
	for (int i = 0; i < 100; i++) {
		snprintf(path, sizeof(path), "d/small%03d", i);
		add(&m, path, 1000 + (uint64_t)i);
	}
	add(&m, "at-threshold", 8 * MiB);
	manifest_sort(&m);
	assert_int_equal(send_plan_split(&m, 3, 8 * MiB, plans), 0);
	for (unsigned s = 0; s < 3; s++)
		for (size_t k = 0; k < plans[s].count; k++) {
			const struct send_item *it = &plans[s].items[k];

			items++;
			ranges += it->kind != SEND_FILE;
			/* only the files above the threshold are cut */
			assert_int_equal(it->kind != SEND_FILE, it->file_size > 8 * MiB);
		}
	assert_int_equal(ranges, 4 * 3);
	assert_int_equal(items, m.count + 4 * (3 - 1));
	assert_covers(&m, plans, 3);
	for (unsigned s = 1; s < 3; s++) {
		uint64_t a = plans[0].bytes, b = plans[s].bytes;

		assert_true((a > b ? a - b : b - a) <= 8 * MiB);
	}
	release_plans(plans, 3);
	manifest_release(&m);
}

/* One stream, or no threshold: nothing is cut. */
static void test_split_without_ranges(void **state)
{
	struct manifest m;
	struct send_plan one, two[2];

	(void)state;
	manifest_init(&m);
	add(&m, "big", 64 * MiB);
	add(&m, "small", 1);
	manifest_sort(&m);
	assert_int_equal(send_plan_split(&m, 1, 8 * MiB, &one), 0);
	assert_int_equal(one.count, 2);
	assert_true(one.items[0].kind == SEND_FILE && one.items[1].kind == SEND_FILE);
	assert_covers(&m, &one, 1);
	send_plan_release(&one);
	assert_int_equal(send_plan_split(&m, 2, 0, two), 0);
	assert_int_equal(two[0].count + two[1].count, 2);
	assert_covers(&m, two, 2);
	release_plans(two, 2);
	manifest_release(&m);
}

/* A file smaller than the stream count in bytes gets no empty ranges. */
static void test_split_tiny_file_many_streams(void **state)
{
	struct manifest m;
	struct send_plan plans[8];
	size_t items = 0;

	(void)state;
	manifest_init(&m);
	add(&m, "f", 5);
	assert_int_equal(send_plan_split(&m, 8, 2, plans), 0);
	for (unsigned s = 0; s < 8; s++)
		for (size_t k = 0; k < plans[s].count; k++) {
			assert_true(plans[s].items[k].length > 0);
			items++;
		}
	assert_int_equal(items, 5);
	assert_covers(&m, plans, 8);
	release_plans(plans, 8);
	manifest_release(&m);
}

/* A tree: two directories, files with mtimes, a symbolic link and a hard link. */
static void make_tree(struct manifest *m)
{
	manifest_init(m);
	assert_int_equal(manifest_add_file(m, "d/e/f", 5, 0600, 1600000000, 1), 0);
	assert_int_equal(manifest_add_file(m, "big", 64 * MiB, 0444, -5, 2), 0);
	assert_int_equal(manifest_add_dir(m, "d/e", 0555, 1500000000), 0);
	assert_int_equal(manifest_add_dir(m, "d", 0700, 1400000000), 0);
	assert_int_equal(manifest_add_dir(m, "empty", 0755, 1300000000), 0);
	assert_int_equal(manifest_add_symlink(m, "d/up", "../../etc/passwd"), 0);
	assert_int_equal(manifest_add_hardlink(m, "d/e/g", "d/e/f"), 0);
	manifest_sort(m);
	assert_int_equal(manifest_check(m), 0);
}

static void assert_link(const struct send_item *it, enum send_kind kind, const char *path,
			const char *link)
{
	assert_int_equal(it->kind, kind);
	assert_string_equal(it->path, path);
	assert_string_equal(it->link, link);
	assert_int_equal(it->length, strlen(link));
	assert_int_equal(it->file_size, 0);
}

/* One plan: directories (parents first) with their modes and mtimes, files, then links. */
static void test_whole_tree(void **state)
{
	struct manifest m;
	struct send_plan plan;

	(void)state;
	make_tree(&m);
	assert_int_equal(send_plan_whole(&m, &plan), 0);
	assert_int_equal(plan.count, 3 + 2 + 2);
	assert_string_equal(plan.items[0].path, "d");
	assert_string_equal(plan.items[1].path, "d/e");
	assert_string_equal(plan.items[2].path, "empty");
	for (int i = 0; i < 3; i++) {
		assert_int_equal(plan.items[i].kind, SEND_DIR);
		assert_int_equal(plan.items[i].length, 0);
		assert_null(plan.items[i].link);
	}
	assert_int_equal(plan.items[1].mode, 0555);
	assert_true(plan.items[1].mtime == 1500000000);
	assert_string_equal(plan.items[3].path, "big");
	assert_true(plan.items[3].mtime == -5);
	assert_int_equal(plan.items[3].mode, 0444);
	assert_string_equal(plan.items[4].path, "d/e/f");
	assert_true(plan.items[4].mtime == 1600000000);
	assert_link(&plan.items[5], SEND_SYMLINK, "d/up", "../../etc/passwd");
	assert_link(&plan.items[6], SEND_HARDLINK, "d/e/g", "d/e/f");
	/* link text is not content to balance or to count as read */
	assert_int_equal(plan.bytes, m.total_bytes);
	assert_covers(&m, &plan, 1);
	send_plan_release(&plan);
	manifest_release(&m);
}

/* Over streams: directories and links all on stream 0 (first and last), files spread, ranges keep the mtime. */
static void test_split_tree(void **state)
{
	struct manifest m;
	struct send_plan plans[3];
	size_t ranges = 0;

	(void)state;
	make_tree(&m);
	assert_int_equal(send_plan_split(&m, 3, 8 * MiB, plans), 0);
	assert_true(plans[0].count >= 3 + 2);
	for (int i = 0; i < 3; i++)
		assert_int_equal(plans[0].items[i].kind, SEND_DIR);
	assert_link(&plans[0].items[plans[0].count - 2], SEND_SYMLINK, "d/up", "../../etc/passwd");
	assert_link(&plans[0].items[plans[0].count - 1], SEND_HARDLINK, "d/e/g", "d/e/f");
	for (unsigned s = 0; s < 3; s++)
		for (size_t k = 0; k < plans[s].count; k++) {
			const struct send_item *it = &plans[s].items[k];

			if (s > 0)
				assert_true(it->kind == SEND_FILE || it->kind == SEND_RANGE);
			if (it->kind == SEND_RANGE) {
				ranges++;
				assert_string_equal(it->path, "big");
				assert_true(it->mtime == -5);
				assert_int_equal(it->mode, 0444);
			}
		}
	assert_int_equal(ranges, 3);
	assert_covers(&m, plans, 3);
	release_plans(plans, 3);
	manifest_release(&m);
}

static void test_split_no_streams(void **state)
{
	struct manifest m;
	struct send_plan plan;

	(void)state;
	manifest_init(&m);
	err_clear();
	assert_int_equal(send_plan_split(&m, 0, 0, &plan), -1);
	assert_contains(err_msg(), "at least one stream");
	manifest_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_in_manifest_order),
		cmocka_unit_test(test_split_large_file),
		cmocka_unit_test(test_split_mixed),
		cmocka_unit_test(test_split_without_ranges),
		cmocka_unit_test(test_split_tiny_file_many_streams),
		cmocka_unit_test(test_split_no_streams),
		cmocka_unit_test(test_whole_tree),
		cmocka_unit_test(test_split_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
