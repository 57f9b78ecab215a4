/*
 * Unit tests for the strategy table (table.c) and choosing from it
 * (list.c): the table's names and the model pairs, --strategies parsing
 * (all, real, names, cmd: entries and their refusals) and the exact
 * --list-strategies output that scripts/bench.sh reads. No network.
 */
#include "testutil.h"

#include "err.h"
#include "strategy/list.h"
#include "strategy/strategy.h"

#define MAX 32

static void free_all(const struct strategy **list, int n)
{
	for (int i = 0; i < n; i++)
		strategy_free(list[i]);
}

static void test_table(void **state)
{
	(void)state;
	assert_int_equal(strategy_count, 14);
	for (size_t i = 0; i < strategy_count; i++) {
		const struct strategy *s = strategy_table[i];

		assert_non_null(s->name);
		assert_non_null(s->summary);
		assert_non_null(s->run);
		/* static: nothing to free, and a cmd: strategy alone has a priv */
		assert_null(s->release);
		assert_null(s->priv);
		assert_true(strategy_find(s->name) == s);
		for (size_t k = 0; k < i; k++)
			assert_string_not_equal(strategy_table[k]->name, s->name);
		/* a reference strategy runs a real program, which an interrupt must stop */
		if (s->flags & STRATEGY_REFERENCE)
			assert_non_null(s->stop);
	}
	assert_null(strategy_find("no-such"));
	assert_null(strategy_find("all"));
}

/* Each own strategy that models a reference one names it; the reference strategies model nothing. */
static void test_models(void **state)
{
	static const char *const pairs[][2] = {
		{ "scp", "real-scp" },
		{ "tar-ssh", "real-tar-ssh" },
		{ "zstd-ssh", "real-tar-zstd-ssh" },
	};
	size_t with_models = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(pairs); i++) {
		const struct strategy *s = strategy_find(pairs[i][0]);

		assert_non_null(s);
		assert_non_null(s->models);
		assert_string_equal(s->models, pairs[i][1]);
	}
	for (size_t i = 0; i < strategy_count; i++) {
		const struct strategy *s = strategy_table[i];
		const struct strategy *real;

		if (!s->models)
			continue;
		with_models++;
		assert_false(s->flags & STRATEGY_REFERENCE);
		real = strategy_find(s->models);
		assert_non_null(real);
		assert_true(real->flags & STRATEGY_REFERENCE);
		assert_null(real->models);
	}
	assert_int_equal(with_models, ARRAY_LEN(pairs));
}

static void test_list_print(void **state)
{
	static const char want[] =
		"scp\town\treal-scp\n"
		"tar-ssh\town\treal-tar-ssh\n"
		"zstd-ssh\town\treal-tar-zstd-ssh\n"
		"splice\town\t-\n"
		"zstd\town\t-\n"
		"parallel\town\t-\n"
		"real-scp\treference\t-\n"
		"real-scp-legacy\treference\t-\n"
		"real-rsync\treference\t-\n"
		"real-tar-ssh\treference\t-\n"
		"real-tar-zstd-ssh\treference\t-\n"
		"real-tar-nc\treference\t-\n"
		"real-rclone\treference\t-\n"
		"real-fpsync\treference\t-\n";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(strategy_list_print(f), 0);
	fclose(f);
	assert_string_equal(buf, want);
	free(buf);
}

static void test_parse_all_and_real(void **state)
{
	const struct strategy *list[MAX];
	int n;

	(void)state;
	n = strategy_parse_list("all", list, MAX);
	assert_int_equal(n, 6);
	assert_string_equal(list[0]->name, "scp");
	assert_string_equal(list[5]->name, "parallel");
	for (int i = 0; i < n; i++)
		assert_false(list[i]->flags & STRATEGY_REFERENCE);

	n = strategy_parse_list("real", list, MAX);
	assert_int_equal(n, 8);
	assert_string_equal(list[0]->name, "real-scp");
	/* the parallel tools after the one-stream ones */
	assert_string_equal(list[6]->name, "real-rclone");
	assert_string_equal(list[7]->name, "real-fpsync");
	for (int i = 0; i < n; i++)
		assert_true(list[i]->flags & STRATEGY_REFERENCE);

	/* no duplicates, in the order named */
	n = strategy_parse_list("zstd,all,real,zstd", list, MAX);
	assert_int_equal(n, 14);
	assert_string_equal(list[0]->name, "zstd");
	assert_string_equal(list[1]->name, "scp");

	err_clear();
	assert_int_equal(strategy_parse_list("all", list, 2), -1);
	assert_string_equal(err_msg(), "too many strategies");
}

static void test_parse_errors(void **state)
{
	const struct strategy *list[MAX];

	(void)state;
	err_clear();
	assert_int_equal(strategy_parse_list("scp,bogus", list, MAX), -1);
	assert_string_equal(err_msg(), "unknown strategy 'bogus': choose from all, real, cmd:NAME=COMMAND, "
			    "scp, tar-ssh, zstd-ssh, splice, zstd, parallel, real-scp, real-scp-legacy, "
			    "real-rsync, real-tar-ssh, real-tar-zstd-ssh, real-tar-nc, real-rclone, real-fpsync");
	err_clear();
	assert_int_equal(strategy_parse_list(",", list, MAX), -1);
	assert_contains(err_msg(), "--strategies is empty: choose from all, real, cmd:NAME=COMMAND, scp");
}

static void test_parse_commands(void **state)
{
	const struct strategy *list[MAX];
	int n;

	(void)state;
	/* a cmd: entry runs up to the next ",cmd:": its command may hold commas */
	n = strategy_parse_list("splice,cmd:a=cp {src}/. {dst},x,cmd:b=cp -r {src}/. {dst}", list, MAX);
	assert_int_equal(n, 3);
	assert_string_equal(list[0]->name, "splice");
	assert_string_equal(list[1]->name, "a");
	assert_string_equal(list[1]->summary, "your command: cp {src}/. {dst},x");
	assert_string_equal(list[2]->name, "b");
	assert_non_null(list[1]->release);
	free_all(list, n);

	err_clear();
	assert_int_equal(strategy_parse_list("cmd:a=cp {src} {dst},cmd:a=cp {src} {dst}", list, MAX), -1);
	assert_string_equal(err_msg(), "--strategies: two strategies named 'a'");
	err_clear();
	assert_int_equal(strategy_parse_list("cmd:ok=cp {src} {dst},cmd:x=cp '{src}' {dst}", list, MAX), -1);
	assert_contains(err_msg(), "inside '...' quotes");
}

/* A cmd: entry may not take a built-in strategy's name (moved here from test_reference_cmd.c). */
static void test_parse_builtin_name(void **state)
{
	const struct strategy *list[MAX];

	(void)state;
	err_clear();
	assert_int_equal(strategy_parse_list("cmd:tar-ssh=cp -r {src}/. {dst}", list, MAX), -1);
	assert_contains(err_msg(), "'tar-ssh' is a built-in strategy's");
	assert_string_equal(err_msg(), "cmd strategy name 'tar-ssh' is a built-in strategy's: choose another");
	/* named first among the built-ins too: still the built-in's name, not a duplicate */
	err_clear();
	assert_int_equal(strategy_parse_list("scp,cmd:scp=cp {src} {dst}", list, MAX), -1);
	assert_string_equal(err_msg(), "cmd strategy name 'scp' is a built-in strategy's: choose another");
	err_clear();
	assert_int_equal(strategy_parse_list("cmd:real=cp {src} {dst}", list, MAX), -1);
	assert_string_equal(err_msg(), "cmd strategy name 'real' is reserved: choose another");
}

/* issue 44: parallel's advice read "N streams ... (GNU parallel -j N)" though N was chosen */
static void test_real_command_filled(void **state)
{
	char buf[256];

	(void)state;
	strategy_real_command(strategy_find("parallel"), 2, "testbed", NULL, "/srv/data", buf, sizeof(buf));
	assert_string_equal(buf, "fpsync -n 2 /srv/data/ testbed:DST/");
	/* nothing known: the placeholders stay; words that only contain them are left alone */
	strategy_real_command(strategy_find("parallel"), 0, NULL, NULL, "", buf, sizeof(buf));
	assert_string_equal(buf, "fpsync -n N DIR/ HOST:DST/");
	strategy_real_command(strategy_find("tar-ssh"), 4, "h", NULL, "/d", buf, sizeof(buf));
	assert_string_equal(buf, "tar -cf - -C /d . | ssh h 'tar -xf - -C DST'");
	/* a tree whose name the shell would split or expand is quoted, so the command runs as printed */
	strategy_real_command(strategy_find("tar-ssh"), 1, "h", NULL, "/srv/my data", buf, sizeof(buf));
	assert_string_equal(buf, "tar -cf - -C '/srv/my data' . | ssh h 'tar -xf - -C DST'");
	strategy_real_command(strategy_find("real-scp-legacy"), 1, "h", NULL, "/srv/it's $HOME", buf, sizeof(buf));
	/* each top-level entry, dotfiles too (a shell's * would leave them out) */
	assert_string_equal(buf, "find '/srv/it'\\''s $HOME' -mindepth 1 -maxdepth 1 -exec scp -O -r {} h:DST \\;");
	/* nc reads no ssh config: it connects to the address the agent was reached at (HOST an alias) */
	strategy_real_command(strategy_find("splice"), 1, "testbed", "198.18.0.2", "/d", buf, sizeof(buf));
	assert_string_equal(buf, "tar -cf - -C /d . | nc -N 198.18.0.2 PORT, on testbed: nc -l PORT | tar -xf - -C DST");
	strategy_real_command(strategy_find("real-tar-nc"), 1, "h", NULL, "/d", buf, sizeof(buf));
	assert_string_equal(buf, "tar -cf - -C /d . | nc -N h PORT, on h: nc -l PORT | tar -xf - -C DST");
	strategy_real_command(strategy_find("zstd"), 1, NULL, NULL, "/d", buf, sizeof(buf));
	assert_string_equal(buf, "tar -cf - -C /d . | zstd -T0 | nc -N HOST PORT, on HOST: nc -l PORT | zstd -d | "
				 "tar -xf - -C DST");
	/* every built-in's command, filled, keeps no N to fill */
	for (size_t i = 0; i < strategy_count; i++) {
		const struct strategy *s = strategy_table[i];

		if (!s->real_command)
			continue;
		strategy_real_command(s, 3, "h", "198.18.0.2", "/d", buf, sizeof(buf));
		assert_null(strstr(buf, " N "));
		assert_null(strstr(buf, "-j N"));
		assert_null(strstr(buf, "HOST"));
		assert_null(strstr(buf, "ADDR"));
	}
	/* cut to the buffer, terminated */
	assert_int_equal(strategy_real_command(strategy_find("parallel"), 2, "testbed", NULL, "/srv/data", buf, 8), 7);
	assert_string_equal(buf, "fpsync ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_models),
		cmocka_unit_test(test_list_print),
		cmocka_unit_test(test_parse_all_and_real),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_commands),
		cmocka_unit_test(test_parse_builtin_name),
		cmocka_unit_test(test_real_command_filled),
	};

	return test_run("strategy", tests, ARRAY_LEN(tests), NULL, 0);
}
