/*
 * Unit tests for transfer/ssh/ssh_exec.c that need no network: quoting for the
 * remote shell. Each quoted word is fed to the local /bin/sh, which must give
 * back exactly the original bytes. (The exec channel itself is tested
 * against the testbed in tests/integration/ssh_layer.t.)
 */
#include "testutil.h"

#include "err.h"
#include "ssh/ssh_exec.h"

/* Runs: sh -c "printf %s QUOTED" and compares what it prints with in. */
static void expect_round_trip(const char *in)
{
	char quoted[512], cmd[600], got[512];
	size_t n;
	FILE *p;
	int len;

	err_clear();
	len = ssh_shell_quote(in, quoted, sizeof(quoted));
	if (len < 0) {
		print_error("ssh_shell_quote('%s') failed: %s\n", in, err_msg());
		fail();
	}
	assert_int_equal((size_t)len, strlen(quoted));
	assert_true(quoted[0] == '\'' && quoted[len - 1] == '\'');
	snprintf(cmd, sizeof(cmd), "printf %%s %s", quoted);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(got, 1, sizeof(got) - 1, p);
	got[n] = '\0';
	assert_int_equal(pclose(p), 0);
	if (n != strlen(in) || memcmp(got, in, n)) {
		print_error("quoted as %s, the shell gave back '%s', want '%s'\n", quoted, got, in);
		fail();
	}
}

static void test_quote_exact(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(ssh_shell_quote("abc", out, sizeof(out)), 5);
	assert_string_equal(out, "'abc'");
	assert_int_equal(ssh_shell_quote("it's", out, sizeof(out)), 9);
	assert_string_equal(out, "'it'\\''s'");
	assert_int_equal(ssh_shell_quote("", out, sizeof(out)), 2);
	assert_string_equal(out, "''");
}

static void test_quote_round_trip(void **state)
{
	static const char *const words[] = {
		"plain", "two words", "$HOME", "`id`", "$(id)", "a'b", "'", "''", "\\", "\\'",
		"*", "x;rm -rf /nonexistent", "tab\there", "new\nline", "\"dq\"", "-n", "!", "~",
		"/var/tmp/dir with space/f'ile",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(words); i++)
		expect_round_trip(words[i]);
}

/* Exactly fitting output is accepted; one byte less is an error, never a cut word. */
static void test_quote_too_long(void **state)
{
	char out[16];

	(void)state;
	memset(out, 'X', sizeof(out));
	assert_int_equal(ssh_shell_quote("abcdefghijklm", out, 16), 15);
	assert_string_equal(out, "'abcdefghijklm'");
	err_clear();
	assert_int_equal(ssh_shell_quote("abcdefghijklmn", out, 16), -1);
	assert_contains(err_msg(), "'abcdefghijklmn'");
	assert_contains(err_msg(), "longer than 15");
	assert_int_equal(ssh_shell_quote("abcde'", out, 12), 11);
	assert_string_equal(out, "'abcde'\\'''");
	assert_int_equal(ssh_shell_quote("abcdef'", out, 12), -1);
	assert_int_equal(ssh_shell_quote("", out, 2), -1);
}

/* Releasing a zeroed or already released exec is harmless. */
static void test_release_zeroed(void **state)
{
	struct ssh_exec x;

	(void)state;
	memset(&x, 0, sizeof(x));
	ssh_exec_release(&x);
	ssh_exec_release(&x);
	assert_null(x.ch);
	assert_null(x.stderr_buf);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote_exact),
		cmocka_unit_test(test_quote_round_trip),
		cmocka_unit_test(test_quote_too_long),
		cmocka_unit_test(test_release_zeroed),
	};

	return test_run("ssh_exec", tests, ARRAY_LEN(tests), NULL, 0);
}
