/*
 * Unit tests for transfer/strategy/scp_cover.c: what real scp is given when
 * some nodes must be left out of it.
 */
#include "testutil.h"

#include "manifest.h"
#include "ssh/scp_sender.h"
#include "strategy/scp_cover.h"

/* Cuts links whose text starts with "D" (to a directory, say), special files, names holding a newline. */
static int cut_marked(void *ctx, const char *path, char kind)
{
	const struct manifest *m = ctx;
	const char *name = strrchr(path, '/');

	name = name ? name + 1 : path;
	if (kind == SCP_NODE_SPECIAL || strchr(name, '\n'))
		return 1;
	if (kind == SCP_NODE_SYMLINK)
		return manifest_find_symlink(m, path)->target[0] == 'D';
	return 0;
}

static int cut_none(void *ctx, const char *path, char kind)
{
	(void)ctx;
	(void)path;
	(void)kind;
	return 0;
}

/* Asked about: every node once, and never one below a cut directory. */
static int asked_below_cut;
static int cut_and_watch(void *ctx, const char *path, char kind)
{
	if (!strncmp(path, "bad\ndir/", 8))
		asked_below_cut++;
	return cut_marked(ctx, path, kind);
}

static void tree(struct manifest *m)
{
	manifest_init(m);
	assert_int_equal(manifest_add_dir(m, "a", 0755, 1), 0);
	assert_int_equal(manifest_add_dir(m, "a/b", 0555, 1), 0);
	assert_int_equal(manifest_add_dir(m, "a/b/c", 0700, 1), 0);
	assert_int_equal(manifest_add_dir(m, "a-z", 0755, 1), 0);
	assert_int_equal(manifest_add_dir(m, "e", 0755, 1), 0);
	assert_int_equal(manifest_add_dir(m, "bad\ndir", 0755, 1), 0);
	assert_int_equal(manifest_add_file(m, "top", 1, 0644, 1, 1), 0);
	assert_int_equal(manifest_add_file(m, "a/f", 1, 0644, 1, 1), 0);
	assert_int_equal(manifest_add_file(m, "a/b/g", 1, 0644, 1, 1), 0);
	assert_int_equal(manifest_add_file(m, "a/b/c/h", 1, 0644, 1, 1), 0);
	assert_int_equal(manifest_add_file(m, "a-z/i", 1, 0644, 1, 1), 0);
	assert_int_equal(manifest_add_file(m, "bad\ndir/j", 1, 0644, 1, 1), 0);
	assert_int_equal(manifest_add_hardlink(m, "a/b/g2", "a/b/g"), 0);
	assert_int_equal(manifest_add_symlink(m, "a/b/to-dir", "Dsomewhere"), 0);
	assert_int_equal(manifest_add_symlink(m, "a/to-file", "f"), 0);
	assert_int_equal(manifest_add_special(m, "a-z/fifo", 'p'), 0);
	manifest_sort(m);
	assert_int_equal(manifest_check(m), 0);
}

/*
 * A manifest of regular files only (every generated workload without tree
 * features): the top-level directories its paths imply are the sources.
 * Before, the root had no listed children and scp -O was given nothing.
 */
static void test_files_only_gives_the_implied_top_level(void **state)
{
	struct manifest m;
	struct scp_cover c;

	(void)state;
	manifest_init(&m);
	assert_int_equal(manifest_add_file(&m, "d0000/d00/f0", 1, 0644, 1, 1), 0);
	assert_int_equal(manifest_add_file(&m, "d0000/d01/f1", 1, 0644, 1, 1), 0);
	assert_int_equal(manifest_add_file(&m, "d0001/d00/f2", 1, 0644, 1, 1), 0);
	assert_int_equal(manifest_add_file(&m, "top", 1, 0644, 1, 1), 0);
	manifest_sort(&m);
	assert_int_equal(scp_cover_plan(&m, cut_none, &m, &c), 0);
	assert_int_equal(c.cut, 0);
	assert_int_equal(c.nmade, 0);
	assert_int_equal(c.nbatches, 1);
	assert_int_equal(c.batches[0].n, 3);
	assert_int_equal(c.nsources, 3);
	assert_string_equal(c.sources[0], "d0000");
	assert_string_equal(c.sources[1], "d0001");
	assert_string_equal(c.sources[2], "top");
	scp_cover_release(&c);
	manifest_release(&m);
}

static void test_no_cut_gives_the_top_level(void **state)
{
	struct manifest m;
	struct scp_cover c;

	(void)state;
	tree(&m);
	assert_int_equal(scp_cover_plan(&m, cut_none, &m, &c), 0);
	assert_int_equal(c.cut, 0);
	assert_int_equal(c.nmade, 0);
	assert_int_equal(c.nbatches, 1);
	assert_string_equal(c.batches[0].dir, "");
	assert_int_equal(c.batches[0].n, 5);
	/* tree order */
	assert_string_equal(c.sources[0], "a");
	assert_string_equal(c.sources[1], "a-z");
	assert_string_equal(c.sources[2], "bad\ndir");
	assert_string_equal(c.sources[3], "e");
	assert_string_equal(c.sources[4], "top");
	scp_cover_release(&c);
	manifest_release(&m);
}

static void test_cuts_make_the_parents_and_give_the_rest(void **state)
{
	struct manifest m;
	struct scp_cover c;
	const struct scp_batch *b;

	(void)state;
	tree(&m);
	asked_below_cut = 0;
	assert_int_equal(scp_cover_plan(&m, cut_and_watch, &m, &c), 0);
	assert_int_equal(asked_below_cut, 0);
	/* a/b/to-dir, a-z/fifo, bad\ndir (and what is below it is not counted) */
	assert_int_equal(c.cut, 3);
	assert_int_equal(c.cut_symlinks, 1);
	/* made: a, a/b (parents of the link), a-z (of the fifo); with the manifest's modes */
	assert_int_equal(c.nmade, 3);
	assert_string_equal(c.made[0].path, "a");
	assert_string_equal(c.made[1].path, "a/b");
	assert_int_equal(c.made[1].mode, 0555);
	assert_string_equal(c.made[2].path, "a-z");
	assert_int_equal(c.nbatches, 4);
	/* the root: what is neither cut nor made */
	b = &c.batches[0];
	assert_string_equal(b->dir, "");
	assert_int_equal(b->n, 2);
	assert_string_equal(c.sources[b->first], "e");
	assert_string_equal(c.sources[b->first + 1], "top");
	b = &c.batches[1];
	assert_string_equal(b->dir, "a");
	assert_int_equal(b->n, 2);
	assert_string_equal(c.sources[b->first], "a/f");
	assert_string_equal(c.sources[b->first + 1], "a/to-file");	/* a link scp follows: given */
	b = &c.batches[2];
	assert_string_equal(b->dir, "a/b");
	assert_int_equal(b->n, 3);
	assert_string_equal(c.sources[b->first], "a/b/c");	/* whole, with -r */
	assert_string_equal(c.sources[b->first + 1], "a/b/g");
	assert_string_equal(c.sources[b->first + 2], "a/b/g2");
	b = &c.batches[3];
	assert_string_equal(b->dir, "a-z");
	assert_int_equal(b->n, 1);
	assert_string_equal(c.sources[b->first], "a-z/i");
	assert_int_equal(c.nsources, 8);
	scp_cover_release(&c);
	manifest_release(&m);
}

/* A version-1 manifest lists no directories: a parent it implies is made with 0755. */
static void test_parent_not_listed(void **state)
{
	struct manifest m;
	struct scp_cover c;

	(void)state;
	manifest_init(&m);
	assert_int_equal(manifest_add_file(&m, "x/y/ok", 1, 0644, 1, 1), 0);
	assert_int_equal(manifest_add_special(&m, "x/y/sock", 's'), 0);
	manifest_sort(&m);
	assert_int_equal(scp_cover_plan(&m, cut_marked, &m, &c), 0);
	assert_int_equal(c.nmade, 2);
	assert_string_equal(c.made[0].path, "x");
	assert_string_equal(c.made[1].path, "x/y");
	assert_int_equal(c.made[1].mode, 0755);
	assert_int_equal(c.nbatches, 3);
	assert_int_equal(c.batches[0].n, 0);
	assert_int_equal(c.batches[1].n, 0);
	assert_int_equal(c.batches[2].n, 1);
	assert_string_equal(c.sources[c.batches[2].first], "x/y/ok");
	scp_cover_release(&c);
	manifest_release(&m);
}

static void test_tree_order(void **state)
{
	(void)state;
	assert_true(scp_tree_order_cmp("a/b", "a-c") < 0);
	assert_true(scp_tree_order_cmp("a", "a/b") < 0);
	assert_true(scp_tree_order_cmp("a/b", "a") > 0);
	assert_true(scp_tree_order_cmp("a\xe9", "a/z") > 0);
	assert_int_equal(scp_tree_order_cmp("same", "same"), 0);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files_only_gives_the_implied_top_level),
		cmocka_unit_test(test_no_cut_gives_the_top_level),
		cmocka_unit_test(test_cuts_make_the_parents_and_give_the_rest),
		cmocka_unit_test(test_parent_not_listed),
		cmocka_unit_test(test_tree_order),
	};

	return cmocka_run_group_tests_name("scp_cover", tests, NULL, NULL);
}
