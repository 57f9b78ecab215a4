/*
 * Unit tests for the agent's start-up contract (agent_startup.c): the token
 * read from a file or a stream, and the "listening" line both the launcher
 * and the SSH target parse.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "stream/agent_startup.h"
#include "err.h"
#include "fsutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOKEN "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static char dir[64];

static int dir_setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/var/tmp/xfercmp-startup-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int dir_teardown(void **state)
{
	(void)state;
	return fs_remove_tree(dir);
}

/* Writes content to DIR/name; returns the path (static). */
static const char *token_file(const char *name, const char *content)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
	assert_int_equal(chmod(path, 0600), 0);
	return path;
}

static void test_token_with_and_without_newline(void **state)
{
	const char *contents[] = { TOKEN "\n", TOKEN, TOKEN "\r\n", TOKEN "\nignored second line\n" };
	char token[WIRE_TOKEN_HEX + 1];

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(contents); i++) {
		memset(token, 'x', sizeof(token));
		if (agent_token_load(token_file("t", contents[i]), token) < 0)
			fail_msg("case %zu: %s", i, err_msg());
		assert_string_equal(token, TOKEN);
	}
}

static void test_token_missing_file(void **state)
{
	char token[WIRE_TOKEN_HEX + 1], path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/absent", dir);
	assert_int_equal(agent_token_load(path, token), -1);
	assert_contains(err_msg(), "cannot open token file '");
	assert_contains(err_msg(), "/absent': No such file or directory");
}

static void test_token_empty_file(void **state)
{
	char token[WIRE_TOKEN_HEX + 1];
	const char *path = token_file("empty", "");

	(void)state;
	assert_int_equal(agent_token_load(path, token), -1);
	assert_contains(err_msg(), "is empty");
	assert_contains(err_msg(), path);
}

static void test_token_wrong_length_or_content(void **state)
{
	static const char long_line[] = TOKEN TOKEN TOKEN TOKEN TOKEN "\n";	/* longer than the read buffer */
	const char *bad[] = {
		"\n",
		"0123456789abcdef\n",			/* short */
		TOKEN "0\n",				/* one too many */
		long_line,
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeg\n", /* not hex */
		" " TOKEN "\n",				/* leading blank */
	};
	char token[WIRE_TOKEN_HEX + 1];

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		const char *path = token_file("bad", bad[i]);

		assert_int_equal(agent_token_load(path, token), -1);
		assert_contains(err_msg(), "is not 64 hex characters");
		assert_contains(err_msg(), path);
	}
}

/* "-" on the agent: a stream it does not own, named "-" in messages. */
static void test_token_from_stream(void **state)
{
	char token[WIRE_TOKEN_HEX + 1];
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_true(write(p[1], TOKEN "\nmore input\n", WIRE_TOKEN_HEX + 12) == WIRE_TOKEN_HEX + 12);
	close(p[1]);
	assert_int_equal(agent_token_read_fd(p[0], "-", token), 0);
	assert_string_equal(token, TOKEN);
	/* only the first line was taken, byte by byte: the rest stays for the reader */
	assert_int_equal(agent_token_read_fd(p[0], "-", token), -1);
	assert_string_equal(err_msg(), "token in '-' is not 64 hex characters");
	assert_int_equal(agent_token_read_fd(p[0], "-", token), -1);
	assert_string_equal(err_msg(), "token file '-' is empty");
	close(p[0]);
}

/*
 * The token is the key to the agent: a file others may read (the default
 * 0644 of a file written with umask 022) or change is refused, with the
 * chmod that fixes it; the old code read it. A symbolic link is not followed.
 */
static void test_token_file_others_may_read(void **state)
{
	char token[WIRE_TOKEN_HEX + 1], link[160];
	const char *path = token_file("loose", TOKEN "\n");

	(void)state;
	for (mode_t m = 0640; m; m = m == 0640 ? 0604 : m == 0604 ? 0620 : 0) {
		assert_int_equal(chmod(path, m), 0);
		assert_int_equal(agent_token_load(path, token), -1);
		assert_contains(err_msg(), "may be read or changed by other users");
		assert_contains(err_msg(), "run: chmod 600 '");
	}
	assert_int_equal(chmod(path, 0400), 0);
	assert_int_equal(agent_token_load(path, token), 0);
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(agent_token_load(link, token), -1);
	assert_contains(err_msg(), "cannot open token file");
}

/* Parses line and checks the host and port it gives. */
static void expect_listening(const char *line, const char *host, const char *port)
{
	char got_host[64], got_port[16];

	if (agent_listening_parse(line, got_host, sizeof(got_host), got_port, sizeof(got_port)) < 0)
		fail_msg("'%s': %s", line, err_msg());
	assert_string_equal(got_host, host);
	assert_string_equal(got_port, port);
}

static void test_listening_good(void **state)
{
	char port[16];

	(void)state;
	expect_listening(AGENT_LISTENING_PREFIX "127.0.0.1:5210", "127.0.0.1", "5210");
	expect_listening(AGENT_LISTENING_PREFIX "0.0.0.0:40001", "0.0.0.0", "40001");
	/* the port alone, and what follows its digits (a "\r") ignored */
	assert_int_equal(agent_listening_parse(AGENT_LISTENING_PREFIX "198.18.0.3:1\r", NULL, 0,
					       port, sizeof(port)), 0);
	assert_string_equal(port, "1");
}

/*
 * An agent listening on IPv6 prints its address in brackets (agent.c,
 * netaddr.h); the host comes back without them, ready for getaddrinfo.
 */
static void test_listening_ipv6_in_brackets(void **state)
{
	(void)state;
	expect_listening(AGENT_LISTENING_PREFIX "[::1]:5210", "::1", "5210");
	expect_listening(AGENT_LISTENING_PREFIX "[2001:2::2]:42277", "2001:2::2", "42277");
	expect_listening(AGENT_LISTENING_PREFIX "[fe80::1%xfercmp1]:1", "fe80::1%xfercmp1", "1");
}

/* The line the agent prints (agent.c: the prefix, then ADDR:PORT) is the line the client parses. */
static void test_listening_round_trip(void **state)
{
	char line[128];

	(void)state;
	snprintf(line, sizeof(line), AGENT_LISTENING_PREFIX "%s", "10.1.2.3:65535");
	expect_listening(line, "10.1.2.3", "65535");
}

static void test_listening_garbage(void **state)
{
	const char *said[] = {
		"",
		"xfercmp: cannot listen on 0.0.0.0:5210: the port is in use",
		"xfercmp-agent listening",		/* no address at all */
		"xfercmp-agent listening 127.0.0.1",	/* no colon */
		"XFERCMP-AGENT LISTENING 127.0.0.1:5210",
	};
	const char *no_port[] = {
		"xfercmp-agent listening 127.0.0.1:",
		"xfercmp-agent listening 127.0.0.1:http",
		"xfercmp-agent listening 127.0.0.1:12345678901234567890",	/* longer than port[] */
	};
	char host[64], port[16], tiny[4];

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(said); i++) {
		assert_int_equal(agent_listening_parse(said[i], host, sizeof(host), port, sizeof(port)), -1);
		assert_contains(err_msg(), "it said '");
	}
	for (size_t i = 0; i < ARRAY_LEN(no_port); i++) {
		assert_int_equal(agent_listening_parse(no_port[i], host, sizeof(host), port, sizeof(port)), -1);
		assert_contains(err_msg(), "no port in '");
	}
	/* a host longer than the caller's buffer is refused, not cut */
	assert_int_equal(agent_listening_parse(AGENT_LISTENING_PREFIX "127.0.0.1:5210", tiny,
					       sizeof(tiny), port, sizeof(port)), -1);
	assert_contains(err_msg(), "it said '");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_token_with_and_without_newline, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_token_missing_file, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_token_empty_file, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_token_wrong_length_or_content, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_token_file_others_may_read, dir_setup, dir_teardown),
		cmocka_unit_test(test_token_from_stream),
		cmocka_unit_test(test_listening_good),
		cmocka_unit_test(test_listening_ipv6_in_brackets),
		cmocka_unit_test(test_listening_round_trip),
		cmocka_unit_test(test_listening_garbage),
	};

	return test_run("agent_startup", tests, ARRAY_LEN(tests), NULL, 0);
}
