/*
 * Unit tests for transfer/ssh/ssh_conn.c that need no network: splitting a
 * target into user, host and port, and the errors ssh_conn_open gives
 * before it would connect. (Connecting is tested against the testbed in
 * tests/integration/ssh_layer.t.)
 */
#include "testutil.h"

#include "err.h"
#include "ssh/ssh_conn.h"
#include "ssh/ssh_conn_parts.h"

static void expect_target(const char *text, const char *user, const char *host, unsigned port)
{
	struct ssh_conn_target t;

	err_clear();
	if (ssh_conn_parse_target(text, &t) != 0) {
		print_error("ssh_conn_parse_target('%s') failed: %s\n", text, err_msg());
		fail();
	}
	assert_string_equal(t.user, user);
	assert_string_equal(t.host, host);
	assert_int_equal(t.port, port);
}

/* A bad target returns -1 with a message that quotes the target and says why. */
static void expect_bad_target(const char *text, const char *why)
{
	struct ssh_conn_target t;
	char quoted[600];

	err_clear();
	if (ssh_conn_parse_target(text, &t) != -1) {
		print_error("ssh_conn_parse_target('%s') accepted it: user '%s' host '%s' port %u\n",
			    text, t.user, t.host, t.port);
		fail();
	}
	snprintf(quoted, sizeof(quoted), "'%s'", text);
	assert_contains(err_msg(), quoted);
	assert_contains(err_msg(), why);
}

static void test_target_forms(void **state)
{
	(void)state;
	expect_target("testbed", "", "testbed", 0);
	expect_target("root@198.18.0.2", "root", "198.18.0.2", 0);
	expect_target("198.18.0.2:2222", "", "198.18.0.2", 2222);
	expect_target("me@host.example:22", "me", "host.example", 22);
	expect_target("testbed:65535", "", "testbed", 65535);
	expect_target("a@b@host", "a@b", "host", 0);
}

static void test_target_ipv6(void **state)
{
	(void)state;
	expect_target("[::1]:2200", "", "::1", 2200);
	expect_target("u@[fe80::1]", "u", "fe80::1", 0);
	/* unbracketed: all colons belong to the address */
	expect_target("::1", "", "::1", 0);
	expect_target("2001:db8::7", "", "2001:db8::7", 0);
}

static void test_target_errors(void **state)
{
	(void)state;
	expect_bad_target("host:0", "1 to 65535");
	expect_bad_target("host:65536", "1 to 65535");
	expect_bad_target("host:99999999999999999999", "1 to 65535");
	expect_bad_target("host:22x", "not a number");
	expect_bad_target("host:", "empty port");
	expect_bad_target("@host", "empty user");
	expect_bad_target("user@", "empty host");
	expect_bad_target(":22", "empty host");
	expect_bad_target("[::1", "without ']'");
	expect_bad_target("[::1]x", "after ']'");
	expect_bad_target("[]:22", "empty host");
}

static void test_target_too_long(void **state)
{
	char text[400];

	(void)state;
	memset(text, 'h', 300);
	text[300] = '\0';
	expect_bad_target(text, "longer than 255");
}

static void test_target_empty(void **state)
{
	struct ssh_conn_target t;

	(void)state;
	err_clear();
	assert_int_equal(ssh_conn_parse_target("", &t), -1);
	assert_contains(err_msg(), "empty ssh target");
	assert_int_equal(ssh_conn_parse_target(NULL, &t), -1);
}

/* A missing -F file is refused before any connection, as ssh -F does. */
static void test_open_missing_config(void **state)
{
	struct ssh_conn_opts o = { .target = "testbed", .config_file = "/nonexistent/ssh_config" };
	ssh_session s = (ssh_session)&o;

	(void)state;
	err_clear();
	assert_int_equal(ssh_conn_open(&o, &s), -1);
	assert_null(s);
	assert_contains(err_msg(), "cannot read ssh config '/nonexistent/ssh_config'");
}

static void test_open_bad_target(void **state)
{
	struct ssh_conn_opts o = { .target = "host:0" };
	ssh_session s = NULL;

	(void)state;
	err_clear();
	assert_int_equal(ssh_conn_open(&o, &s), -1);
	assert_null(s);
	assert_contains(err_msg(), "'host:0'");
}

static void test_close_null(void **state)
{
	(void)state;
	ssh_conn_close(NULL);
	assert_string_equal(ssh_conn_cipher(NULL), "");
}

/*
 * StrictHostKeyChecking as ssh -G prints it, and --accept-new-hostkey over
 * it whatever it says (as ssh's -o is over the config).
 */
static void test_hostkey_policy(void **state)
{
	(void)state;
	assert_int_equal(ssh_hostkey_policy(0, "accept-new"), SSH_HOSTKEY_ACCEPT_NEW);
	assert_int_equal(ssh_hostkey_policy(0, "true"), SSH_HOSTKEY_YES);
	assert_int_equal(ssh_hostkey_policy(0, "false"), SSH_HOSTKEY_NO);
	assert_int_equal(ssh_hostkey_policy(0, "ask"), SSH_HOSTKEY_ASK);
	/* not known (libssh read the config) or absent: OpenSSH's default */
	assert_int_equal(ssh_hostkey_policy(0, NULL), SSH_HOSTKEY_ASK);
	assert_int_equal(ssh_hostkey_policy(0, ""), SSH_HOSTKEY_ASK);
	assert_int_equal(ssh_hostkey_policy(1, "true"), SSH_HOSTKEY_ACCEPT_NEW);
	assert_int_equal(ssh_hostkey_policy(1, "false"), SSH_HOSTKEY_ACCEPT_NEW);
	assert_int_equal(ssh_hostkey_policy(1, NULL), SSH_HOSTKEY_ACCEPT_NEW);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_forms),
		cmocka_unit_test(test_target_ipv6),
		cmocka_unit_test(test_target_errors),
		cmocka_unit_test(test_target_too_long),
		cmocka_unit_test(test_target_empty),
		cmocka_unit_test(test_open_missing_config),
		cmocka_unit_test(test_open_bad_target),
		cmocka_unit_test(test_close_null),
		cmocka_unit_test(test_hostkey_policy),
	};

	return test_run("ssh_conn", tests, ARRAY_LEN(tests), NULL, 0);
}
