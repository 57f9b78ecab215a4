/*
 * Unit tests for workloads/tree_features.c: the option's list, and the
 * choices it makes (without touching the disk): deterministic by seed, the
 * shares on 20,000 files, every kind present, absolute links only to the
 * fixed system files, the plain workload untouched.
 */
#include "testutil.h"

#include "err.h"
#include "tree_features.h"
#include "workload.h"

#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

#define NFILES 20000

static struct workload_spec features_spec(uint64_t files, uint64_t seed)
{
	struct workload_spec s = { .kind = WORKLOAD_SMALLFILES, .files = files, .seed = seed,
				   .compressibility = 0.5 };

	tree_features_default(&s.features);
	return s;
}

/* ---- the list ---- */

static bool same_shares(const struct workload_features *a, const struct workload_features *b)
{
	return a->symlinks == b->symlinks && a->hardlinks == b->hardlinks &&
	       a->emptydirs == b->emptydirs && a->rodirs == b->rodirs && a->modes == b->modes;
}

static void test_parse_defaults_and_list(void **state)
{
	struct workload_features f;
	char text[128];

	(void)state;
	memset(&f, 0x5a, sizeof(f));
	assert_int_equal(tree_features_parse(NULL, &f), 0);
	assert_true(f.on);
	assert_int_equal(f.symlinks, 500);
	assert_int_equal(f.hardlinks, 100);
	assert_int_equal(f.emptydirs, 200);
	assert_int_equal(f.rodirs, 100);
	assert_int_equal(f.modes, 400);
	tree_features_format(&f, text, sizeof(text));
	assert_string_equal(text, "symlinks=5%,hardlinks=1%,emptydirs=2%,rodirs=1%,modes=4%");

	/* a list overrides some shares, the others keep their defaults; links= is symlinks= */
	assert_int_equal(tree_features_parse("links=7%,hardlinks=0.5%,emptydirs=0,modes=12.25", &f), 0);
	assert_int_equal(f.symlinks, 700);
	assert_int_equal(f.hardlinks, 50);
	assert_int_equal(f.emptydirs, 0);
	assert_int_equal(f.rodirs, 100);
	assert_int_equal(f.modes, 1225);
	tree_features_format(&f, text, sizeof(text));
	assert_string_equal(text, "symlinks=7%,hardlinks=0.50%,emptydirs=0%,rodirs=1%,modes=12.25%");
	/* the canonical text reads back to the same shares */
	{
		struct workload_features g;

		assert_int_equal(tree_features_parse(text, &g), 0);
		assert_true(same_shares(&f, &g));
	}
	assert_int_equal(tree_features_parse("", &f), 0);
	assert_int_equal(f.symlinks, 500);
	assert_int_equal(tree_features_parse("symlinks=50%", &f), 0);
	assert_int_equal(f.symlinks, 5000);
}

static void test_parse_errors(void **state)
{
	static const struct {
		const char *list, *needle;
	} bad[] = {
		{ "bogus=1%", "unknown feature 'bogus'" },
		{ "symlinks", "'symlinks': expected NAME=SHARE" },
		{ "symlinks=", "'symlinks=': expected a share" },
		{ "symlinks=abc", "'symlinks=abc': expected a share" },
		{ "symlinks=5%%", "'symlinks=5%%'" },
		{ "symlinks=-1", "'symlinks=-1'" },
		{ "symlinks=1.234%", "'symlinks=1.234%'" },
		{ "symlinks=51%", "at most 50%" },
		{ "hardlinks=1000000", "'hardlinks=1000000'" },
		{ "symlinks=5%,", "does not end in ','" },
		{ "symlinks=5%,,modes=1%", "''" },
		{ ",", "''" },
	};
	struct workload_features f;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		err_clear();
		if (tree_features_parse(bad[i].list, &f) != -1) {
			print_error("tree_features_parse('%s') accepted it\n", bad[i].list);
			fail();
		}
		assert_contains(err_msg(), bad[i].needle);
	}
}

/* ---- the plain workload is what it was ---- */

static void test_plain_unchanged(void **state)
{
	struct workload_spec plain = { .kind = WORKLOAD_SMALLFILES, .files = 3000, .seed = 3,
				       .compressibility = 0.5 };
	struct workload_spec with = plain;
	char a[256], b[256];
	struct workload_entry e;

	(void)state;
	workload_describe(&plain, a, sizeof(a));
	assert_string_equal(a, "smallfiles files=3000 size=0 seed=3 compressibility=0.5");
	/* every plain entry: the smallfiles path, 0644, no mtime */
	for (uint64_t i = 0; i < plain.files; i++) {
		char want[64];

		workload_entry(&plain, i, &e);
		snprintf(want, sizeof(want), "d0000/d%02llu/f%08llu", (unsigned long long)(i / 1000),
			 (unsigned long long)i);
		assert_string_equal(e.path, want);
		assert_int_equal(e.mode, 0644);
		assert_true(e.mtime == WORKLOAD_NO_MTIME);
	}
	/* with features: the description says so, and sizes are those of the plain workload */
	tree_features_default(&with.features);
	workload_describe(&with, b, sizeof(b));
	assert_string_equal(b, "smallfiles files=3000 size=0 seed=3 compressibility=0.5 "
			       "tree-features=symlinks=5%,hardlinks=1%,emptydirs=2%,rodirs=1%,modes=4%");
	for (uint64_t i = 0; i < plain.files; i++) {
		struct workload_entry p;

		workload_entry(&plain, i, &p);
		workload_entry(&with, i, &e);
		assert_true(e.size == p.size);
		assert_true(e.mtime != WORKLOAD_NO_MTIME);
	}
	/* realistic is smallfiles with the default features; the last -w decides */
	{
		struct workload_spec s = plain;

		assert_int_equal(workload_parse_name("realistic", &s), 0);
		assert_int_equal(s.kind, WORKLOAD_SMALLFILES);
		assert_true(s.features.on && same_shares(&s.features, &with.features));
		assert_int_equal(workload_parse_name("smallfiles", &s), 0);
		assert_false(s.features.on);
		assert_int_equal(workload_parse_name("realistic", &s), 0);
		assert_int_equal(workload_parse_name("nosuch", &s), -1);
		assert_true(s.features.on);	/* a refused name changes nothing */
	}
}

/* ---- the choices ---- */

/* Everything the features say about file i, as one hash: equal specs must agree on all of it. */
static uint64_t choices_hash(const struct workload_spec *s, uint64_t i)
{
	struct workload_entry e;
	struct feature_link l;
	struct feature_dir dirs[TREE_FEATURES_MAX_DIRS];
	char names[TREE_FEATURES_MAX_HARDLINKS][64];
	XXH3_state_t st;
	unsigned n;

	memset(&e, 0, sizeof(e));
	memset(&l, 0, sizeof(l));
	memset(dirs, 0, sizeof(dirs));
	memset(names, 0, sizeof(names));
	XXH3_64bits_reset(&st);
	workload_entry(s, i, &e);
	XXH3_64bits_update(&st, &e, sizeof(e));
	if (tree_features_symlink(s, i, &l))
		XXH3_64bits_update(&st, &l, sizeof(l));
	n = tree_features_hardlinks(s, i, names);
	XXH3_64bits_update(&st, names, sizeof(names[0]) * n);
	n = tree_features_dirs(s, i, dirs);
	XXH3_64bits_update(&st, dirs, sizeof(dirs[0]) * n);
	return XXH3_64bits_digest(&st);
}

static void test_deterministic_by_seed(void **state)
{
	struct workload_spec a = features_spec(NFILES, 7), b = features_spec(NFILES, 7);
	struct workload_spec c = features_spec(NFILES, 8);
	uint64_t differ = 0;

	(void)state;
	for (uint64_t i = 0; i < NFILES; i++) {
		uint64_t ha = choices_hash(&a, i);

		assert_true(ha == choices_hash(&b, i));
		differ += ha != choices_hash(&c, i);
	}
	/* another seed: other choices (every file's mtime at least) */
	assert_true(differ > NFILES * 9 / 10);
}

struct counts {
	uint64_t symlinks, kinds[5], hardlink_groups, groups_of[4], hardlinks;
	uint64_t emptydirs, depth[6], rodirs, rodir_files, modes, mode_kinds[3];
};

enum { LINK_LEAF, LINK_SIBLING, LINK_ABSOLUTE, LINK_DANGLING, LINK_DIR };

static int link_kind(const char *target)
{
	size_t len = strlen(target);

	if (target[0] == '/')
		return LINK_ABSOLUTE;
	if (len > 4 && !strcmp(target + len - 4, ".old"))
		return LINK_DANGLING;
	if (strstr(target, "e0") == target || strstr(target, "../e0") == target)
		return LINK_DIR;
	if (!strncmp(target, "../d", 4))
		return LINK_SIBLING;
	return LINK_LEAF;
}

static unsigned depth_of(const char *path)
{
	unsigned d = 1;

	for (; *path; path++)
		d += *path == '/';
	return d;
}

static void count_all(const struct workload_spec *s, struct counts *c)
{
	memset(c, 0, sizeof(*c));
	for (uint64_t i = 0; i < s->files; i++) {
		struct workload_entry e;
		struct feature_link l;
		struct feature_dir dirs[TREE_FEATURES_MAX_DIRS];
		char names[TREE_FEATURES_MAX_HARDLINKS][64], rodir[64];
		unsigned n;

		workload_entry(s, i, &e);
		if (tree_features_symlink(s, i, &l)) {
			c->symlinks++;
			c->kinds[link_kind(l.target)]++;
		}
		n = tree_features_hardlinks(s, i, names);
		if (n) {
			c->hardlink_groups++;
			c->groups_of[n + 1]++;
			c->hardlinks += n;
		}
		n = tree_features_dirs(s, i, dirs);
		for (unsigned k = 0; k < n; k++) {
			if (dirs[k].mode == 0555)
				c->rodirs++;
			/* the last directory a file brings with mode 0755 is its empty one */
			else if (k + 1 == n)
				c->emptydirs++, c->depth[depth_of(dirs[k].path)]++;
		}
		if (tree_features_rodir(s, i, rodir, sizeof(rodir))) {
			c->rodir_files++;
			assert_true(strncmp(e.path, rodir, strlen(rodir)) == 0);
		}
		if (e.mode != 0644) {
			c->modes++;
			c->mode_kinds[e.mode == 0755 ? 0 : e.mode == 0444 ? 1 : 2]++;
			assert_true(e.mode == 0755 || e.mode == 0444 || e.mode == 0600);
		}
	}
}

/* Within 2% of the share: strata make the counts exact but for the last, partial stratum. */
static void assert_share(const char *what, uint64_t count, unsigned share)
{
	uint64_t want = (uint64_t)NFILES * share / 10000;

	if (count * 100 < want * 98 || count * 100 > want * 102) {
		print_error("%s: %llu of %d files, expected about %llu\n", what,
			    (unsigned long long)count, NFILES, (unsigned long long)want);
		fail();
	}
}

static void test_shares_and_kinds_on_20000(void **state)
{
	struct workload_spec s = features_spec(NFILES, 1);
	struct counts c;

	(void)state;
	count_all(&s, &c);
	assert_share("symlinks", c.symlinks, 500);
	assert_share("files with hard links", c.hardlink_groups, 100);
	assert_share("empty directories", c.emptydirs, 200);
	assert_share("files in 0555 directories", c.rodir_files, 100);
	assert_int_equal(c.rodirs * TREE_FEATURES_RODIR_FILES, c.rodir_files);
	assert_share("files not 0644", c.modes, 400);
	/* each kind of link, group, depth and mode is there, in about its part */
	assert_true(c.kinds[LINK_LEAF] > c.symlinks * 35 / 100);
	assert_true(c.kinds[LINK_SIBLING] > c.symlinks * 12 / 100);
	assert_true(c.kinds[LINK_ABSOLUTE] > c.symlinks * 8 / 100);
	assert_true(c.kinds[LINK_DANGLING] > c.symlinks * 5 / 100);
	assert_true(c.kinds[LINK_DIR] > c.symlinks * 5 / 100);
	assert_true(c.groups_of[2] > c.hardlink_groups / 2 && c.groups_of[3] > c.hardlink_groups / 5);
	assert_int_equal(c.hardlinks, c.groups_of[2] + 2 * c.groups_of[3]);
	assert_true(c.depth[2] > 0 && c.depth[3] > 0 && c.depth[5] > 0);
	assert_int_equal(c.depth[2] + c.depth[3] + c.depth[5], c.emptydirs);
	assert_true(c.mode_kinds[0] > 0 && c.mode_kinds[1] > 0 && c.mode_kinds[2] > 0);

	/* a share set to 0 turns its kind off, and a list changes the shares */
	assert_int_equal(tree_features_parse("symlinks=0,hardlinks=3%,emptydirs=0,rodirs=0,modes=0", &s.features), 0);
	count_all(&s, &c);
	assert_int_equal(c.symlinks, 0);
	assert_share("files with hard links at 3%", c.hardlink_groups, 300);
	assert_int_equal(c.emptydirs + c.rodirs + c.rodir_files + c.modes, 0);
}

/*
 * Links never point into anything but the tree (relative, no more ".."
 * than their depth) or the fixed system files; those to directories point
 * at an empty directory of the tree.
 */
static void test_link_targets(void **state)
{
	struct workload_spec s = features_spec(NFILES, 2);

	(void)state;
	for (uint64_t i = 0; i < NFILES; i++) {
		struct feature_link l;
		unsigned ups = 0;

		if (!tree_features_symlink(&s, i, &l))
			continue;
		assert_int_equal(depth_of(l.path), 3);
		if (l.target[0] == '/') {
			assert_true(!strcmp(l.target, "/usr/share/zoneinfo/UTC") ||
				    !strcmp(l.target, "/usr/share/zoneinfo/Etc/UTC") ||
				    !strcmp(l.target, "/usr/share/common-licenses/GPL-3"));
			continue;
		}
		for (const char *p = l.target; !strncmp(p, "../", 3); p += 3)
			ups++;
		assert_true(ups <= 1);
		if (link_kind(l.target) == LINK_DIR) {
			/* the empty directory it names is one the tree has, in the same parent */
			char want[96];
			int found = 0;

			snprintf(want, sizeof(want), "%.*s/%s", ups ? 5 : 9, l.path, l.target + 3 * ups);
			for (uint64_t j = i / 1000 * 1000; j < (i / 1000 + 1) * 1000 && !found; j++) {
				struct feature_dir dirs[TREE_FEATURES_MAX_DIRS];
				unsigned n = tree_features_dirs(&s, j, dirs);

				found = n && dirs[n - 1].mode == 0755 && !strcmp(dirs[n - 1].path, want);
			}
			if (!found) {
				print_error("link %s -> %s: no empty directory %s\n", l.path, l.target, want);
				fail();
			}
		}
	}
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_defaults_and_list),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_plain_unchanged),
		cmocka_unit_test(test_deterministic_by_seed),
		cmocka_unit_test(test_shares_and_kinds_on_20000),
		cmocka_unit_test(test_link_targets),
	};

	return test_run("tree_features", tests, ARRAY_LEN(tests), NULL, 0);
}
