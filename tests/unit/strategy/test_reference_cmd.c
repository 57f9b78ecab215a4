/*
 * Unit tests for transfer/strategy/reference_cmd.c: the cmd:NAME=COMMAND rules
 * (names, placeholders, quotes), the substitution (checked by running the
 * result through /bin/sh, which must give back the exact values), the
 * strategy object, and reference_run_shell's account of how a command
 * ended. The refusal of a built-in strategy's NAME is list.c's, tested in
 * test_strategy.c. No network: the strategies themselves are tested
 * against the testbed in tests/integration/reference.t.
 */
#include "testutil.h"

#include "err.h"
#include "manifest.h"
#include "strategy/list.h"
#include "strategy/pipeline.h"
#include "strategy/reference_cmd.h"

#include <signal.h>

/* Parses spec, which must be refused with an error containing want. */
static void expect_refused(const char *spec, const char *want)
{
	struct reference_cmd c;

	err_clear();
	if (reference_cmd_parse(spec, &c) == 0) {
		print_error("'%s' was accepted, want an error with '%s'\n", spec, want);
		reference_cmd_release(&c);
		fail();
	}
	assert_null(c.command);
	assert_contains(err_msg(), want);
}

static void test_parse_ok(void **state)
{
	struct reference_cmd c;

	(void)state;
	assert_int_equal(reference_cmd_parse("cmd:my-cp2=cp -r {src}/. {dst}", &c), 0);
	assert_string_equal(c.name, "my-cp2");
	assert_string_equal(c.command, "cp -r {src}/. {dst}");
	assert_int_equal(c.uses, REFERENCE_CMD_SRC | REFERENCE_CMD_DST);
	reference_cmd_release(&c);
	assert_null(c.command);
	reference_cmd_release(&c);

	assert_int_equal(reference_cmd_parse("cmd:x=scp -r {src}/. {host}:{dst}", &c), 0);
	assert_int_equal(c.uses, REFERENCE_CMD_SRC | REFERENCE_CMD_HOST | REFERENCE_CMD_DST);
	reference_cmd_release(&c);

	/* COMMAND may hold '=' and ',' */
	assert_int_equal(reference_cmd_parse("cmd:x=rsync -a --chmod=u=rwX,g=rX {src}/ {dst}", &c), 0);
	assert_string_equal(c.command, "rsync -a --chmod=u=rwX,g=rX {src}/ {dst}");
	reference_cmd_release(&c);

	/* 32 characters is the longest name */
	assert_int_equal(reference_cmd_parse("cmd:abcdefghijklmnopqrstuvwxyz-01234=cp {src} {dst}", &c),
			 0);
	assert_int_equal(strlen(c.name), 32);
	reference_cmd_release(&c);
}

static void test_parse_bad_names(void **state)
{
	(void)state;
	expect_refused("cp -r {src}/. {dst}", "expected cmd:NAME=COMMAND");
	expect_refused("cmd:x", "expected cmd:NAME=COMMAND");
	expect_refused("cmd:=cp {src} {dst}", "name ''");
	expect_refused("cmd:Mine=cp {src} {dst}", "name 'Mine': use 1 to 32 of a-z, 0-9 and '-'");
	expect_refused("cmd:my_cp=cp {src} {dst}", "name 'my_cp'");
	expect_refused("cmd:a b=cp {src} {dst}", "name 'a b'");
	expect_refused("cmd:abcdefghijklmnopqrstuvwxyz-012345=cp {src} {dst}", "use 1 to 32");
}

static void test_parse_quoted_placeholders(void **state)
{
	(void)state;
	expect_refused("cmd:x=cp -r '{src}'/. {dst}", "placeholder {src} is inside '...' quotes");
	expect_refused("cmd:x=cp -r {src}/. \"{dst}\"", "placeholder {dst} is inside \"...\" quotes");
	expect_refused("cmd:x=cp -r {src}/. \"$HOME/{dst}/\"", "{dst} is inside \"...\" quotes");
	expect_refused("cmd:x=ssh h 'tar -xf - -C {dst}' <{src}", "{dst} is inside '...' quotes");
	/* in single quotes, ${ is not the shell's: {src} there is a quoted placeholder */
	expect_refused("cmd:x=cp -r '${src}' {src} {dst}", "{src} is inside '...' quotes");
	/* an escaped quote inside double quotes does not end them */
	expect_refused("cmd:x=cp {src} \"a\\\"{dst}\"", "{dst} is inside \"...\" quotes");
	/* the message says what to do */
	expect_refused("cmd:x=cp '{src}' {dst}", "write it bare, xfercmp puts the value in single quotes");
}

static void test_parse_unknown_and_structure(void **state)
{
	(void)state;
	expect_refused("cmd:x=cp -r {src}/. {dest}", "unknown placeholder '{dest}': use {src}, {host}, {dst} or {rdst}");
	expect_refused("cmd:x=cp -r {SRC}/. {dst}", "unknown placeholder '{SRC}'");
	expect_refused("cmd:x=awk '{print}' {src} >{dst}/f", "unknown placeholder '{print}'");
	expect_refused("cmd:x=cp -r {src}/. {dst} 'oops", "unterminated ' quote");
	expect_refused("cmd:x=cp -r {src}/. {dst} \"oops", "unterminated \" quote");
	expect_refused("cmd:x=cp -r /etc {dst}", "does not use {src}");
	expect_refused("cmd:x=cp -r {src} /var/tmp", "does not use {dst}");
	expect_refused("cmd:x=", "the command is empty");
	expect_refused("cmd:x= \t ", "the command is empty");
}

/* Things that look like braces but are not placeholders pass through untouched. */
static void test_not_placeholders(void **state)
{
	static const char spec[] =
		"cmd:x=cp -r {src}/. {dst}; echo ${HOME} {a,b} '{ print $1 }' { true; } \\{src} \"${dst}\"";
	struct reference_cmd c;
	char *out;

	(void)state;
	assert_int_equal(reference_cmd_parse(spec, &c), 0);
	assert_int_equal(c.uses, REFERENCE_CMD_SRC | REFERENCE_CMD_DST);
	assert_int_equal(reference_cmd_expand(&c, "/s", NULL, "/d", &out), 0);
	assert_string_equal(out, "cp -r '/s'/. '/d'; echo ${HOME} {a,b} '{ print $1 }' { true; } \\{src} \"${dst}\"");
	free(out);
	reference_cmd_release(&c);
}

/* Runs sh -c cmd and returns what it printed (malloc'ed). */
static char *shell_output(const char *cmd)
{
	char *buf = calloc(1, 4096);
	size_t n;
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	assert_non_null(buf);
	n = fread(buf, 1, 4095, p);
	buf[n] = '\0';
	assert_int_equal(pclose(p), 0);
	return buf;
}

static void test_expand_round_trip(void **state)
{
	static const char *const values[][3] = {
		{ "/var/tmp/src", "testbed", "/var/tmp/xfercmp.ab12/1-mine" },
		{ "/var/tmp/my dir", "user@host:2222", "/d/it's here" },
		{ "/x/$HOME/`id`/$(id)", "h;rm -rf /nonexistent", "/d/\"q\"/\\/*" },
		{ "/tab\there", "-oProxyCommand=x", "/new\nline" },
	};
	struct reference_cmd c;

	(void)state;
	assert_int_equal(reference_cmd_parse("cmd:x=printf '%s|' {src} {host}:{dst}/. {dst}", &c), 0);
	for (size_t i = 0; i < ARRAY_LEN(values); i++) {
		char *out, *got, want[512];

		assert_int_equal(reference_cmd_expand(&c, values[i][0], values[i][1], values[i][2], &out), 0);
		got = shell_output(out);
		snprintf(want, sizeof(want), "%s|%s:%s/.|%s|", values[i][0], values[i][1], values[i][2],
			 values[i][2]);
		if (strcmp(got, want)) {
			print_error("expanded to %s\nthe shell printed '%s'\nwant '%s'\n", out, got, want);
			fail();
		}
		free(got);
		free(out);
	}
	reference_cmd_release(&c);
}

/*
 * {rdst} survives a second shell, as through ssh to the host's shell:
 * sh -c 'printf ... '{rdst} hands the inner sh the path quoted once more.
 * {dst} in its place would be split and expanded by the inner shell.
 */
static void test_expand_remote_dst(void **state)
{
	static const char *const dsts[] = {
		"/var/tmp/xfercmp.ab12/1-mine", "/d/it's here", "/x/$HOME/`id`/$(id);rm -rf /nonexistent",
		"/d/\"q\"/\\/*", "/new\nline",
	};
	struct reference_cmd c, plain;

	(void)state;
	assert_int_equal(reference_cmd_parse("cmd:x=sh -c 'printf \"%s|\" '{rdst} {src}", &c), 0);
	assert_int_equal(reference_cmd_parse("cmd:x=sh -c 'printf \"%s|\" '{dst} {src}", &plain), 0);
	for (size_t i = 0; i < ARRAY_LEN(dsts); i++) {
		char *out, *got, want[512];

		assert_int_equal(reference_cmd_expand(&c, "/s", NULL, dsts[i], &out), 0);
		got = shell_output(out);
		snprintf(want, sizeof(want), "%s|", dsts[i]);
		if (strcmp(got, want)) {
			print_error("expanded to %s\nthe shells printed '%s'\nwant '%s'\n", out, got, want);
			fail();
		}
		free(got);
		free(out);
	}
	/* the unsafe way, for contrast: {dst} is split by the second shell */
	{
		char *out, *got;

		assert_int_equal(reference_cmd_expand(&plain, "/s", NULL, "/d/a b", &out), 0);
		got = shell_output(out);
		assert_string_equal(got, "/d/a|b|");
		free(got);
		free(out);
	}
	reference_cmd_release(&c);
	reference_cmd_release(&plain);
}

static void test_expand_needs_host(void **state)
{
	struct reference_cmd c;
	char *out = (char *)"untouched";

	(void)state;
	assert_int_equal(reference_cmd_parse("cmd:x=scp -r {src}/. {host}:{dst}", &c), 0);
	err_clear();
	assert_int_equal(reference_cmd_expand(&c, "/s", NULL, "/d", &out), -1);
	assert_null(out);
	assert_contains(err_msg(), "uses {host}, and there is no SSH host");
	reference_cmd_release(&c);
}

static void test_strategy(void **state)
{
	const struct strategy *s, *builtin = strategy_find("scp");

	(void)state;
	s = reference_cmd_strategy("cmd:mine=cp -r {src}/. {dst}");
	assert_non_null(s);
	assert_string_equal(s->name, "mine");
	assert_int_equal(s->flags, STRATEGY_REFERENCE | STRATEGY_OWN_TRANSPORT);
	assert_null(s->available);
	assert_non_null(s->run);
	assert_contains(s->summary, "cp -r {src}/. {dst}");
	assert_non_null(s->release);
	assert_true(s->stop == pipeline_stop_running);
	assert_null(s->models);
	strategy_free(s);

	s = reference_cmd_strategy("cmd:remote=scp -r {src}/. {host}:{dst}");
	assert_non_null(s);
	assert_int_equal(s->flags, STRATEGY_REFERENCE | STRATEGY_SSH | STRATEGY_OWN_TRANSPORT);
	assert_true(s->available == strategy_needs_ssh);
	strategy_free(s);

	err_clear();
	assert_null(reference_cmd_strategy("cmd:real=cp -r {src}/. {dst}"));
	assert_contains(err_msg(), "'real' is reserved");
	assert_null(reference_cmd_strategy("cmd:x=cp '{src}' {dst}"));
	assert_contains(err_msg(), "inside '...' quotes");

	/* not made at run time: strategy_free leaves it alone */
	assert_non_null(builtin);
	assert_null(builtin->release);
	strategy_free(builtin);
	strategy_free(NULL);
	assert_string_equal(strategy_find("scp")->name, "scp");
}

/* A run with a two-file manifest and no target: reference_run_shell needs neither agent nor host. */
struct shell_fixture {
	struct manifest m;
	struct xfer_run run;
};

static int shell_setup(void **state)
{
	struct shell_fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	manifest_init(&f->m);
	if (manifest_add(&f->m, "a", 10, 0644, 1) < 0 || manifest_add(&f->m, "d/b", 5, 0644, 2) < 0)
		return -1;
	manifest_sort(&f->m);
	f->run.manifest = &f->m;
	*state = f;
	return 0;
}

static int shell_teardown(void **state)
{
	struct shell_fixture *f = *state;

	manifest_release(&f->m);
	free(f);
	return 0;
}

static void test_run_shell(void **state)
{
	struct shell_fixture *f = *state;

	assert_int_equal(reference_run_shell(&f->run, "mine", "true"), 0);
	assert_int_equal(f->run.sent.files, 2);
	assert_int_equal(f->run.sent.bytes_read, 15);

	memset(&f->run.sent, 0, sizeof(f->run.sent));
	err_clear();
	assert_int_equal(reference_run_shell(&f->run, "mine", "echo; echo '  oops: it broke  ' >&2; "
					     "echo second >&2; exit 3"), -1);
	assert_string_equal(err_msg(), "mine failed (exit 3): oops: it broke");
	assert_int_equal(f->run.sent.files, 0);

	err_clear();
	assert_int_equal(reference_run_shell(&f->run, "mine", "exit 4"), -1);
	assert_string_equal(err_msg(), "mine failed (exit 4) and said nothing on stderr");

	/* more stderr than is kept, and the first line is still the message */
	err_clear();
	assert_int_equal(reference_run_shell(&f->run, "mine", "echo first >&2; yes noise | head -c 200000 >&2; "
					     "exit 1"), -1);
	assert_string_equal(err_msg(), "mine failed (exit 1): first");
}

/*
 * The children start with default signal handling whatever ours is: here
 * SIGTERM is blocked and SIGPIPE ignored, as in xfercmp. `yes` must die of
 * SIGPIPE without a word (an inherited SIG_IGN would make it complain);
 * the command killed by SIGTERM checks how a signal is reported (dash
 * clears its signal mask itself, so that part passes either way).
 */
static void test_run_shell_signals(void **state)
{
	struct shell_fixture *f = *state;
	sigset_t term, old;
	void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	err_clear();
	assert_int_equal(reference_run_shell(&f->run, "mine", "echo dying >&2; kill -TERM $$; sleep 5"), -1);
	assert_string_equal(err_msg(), "mine killed by signal TERM: dying");
	err_clear();
	assert_int_equal(reference_run_shell(&f->run, "mine", "yes | head -c 1 >/dev/null; exit 1"), -1);
	assert_string_equal(err_msg(), "mine failed (exit 1) and said nothing on stderr");
	/* a program that does not exist: the shell says so */
	err_clear();
	assert_int_equal(reference_run_shell(&f->run, "mine", "no-such-program-xfercmp"), -1);
	assert_contains(err_msg(), "mine failed (exit 127): ");
	assert_contains(err_msg(), "no-such-program-xfercmp");
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGPIPE, old_pipe);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_bad_names),
		cmocka_unit_test(test_parse_quoted_placeholders),
		cmocka_unit_test(test_parse_unknown_and_structure),
		cmocka_unit_test(test_not_placeholders),
		cmocka_unit_test(test_expand_round_trip),
		cmocka_unit_test(test_expand_remote_dst),
		cmocka_unit_test(test_expand_needs_host),
		cmocka_unit_test(test_strategy),
		cmocka_unit_test_setup_teardown(test_run_shell, shell_setup, shell_teardown),
		cmocka_unit_test_setup_teardown(test_run_shell_signals, shell_setup, shell_teardown),
	};

	return test_run("reference_cmd", tests, ARRAY_LEN(tests), NULL, 0);
}
