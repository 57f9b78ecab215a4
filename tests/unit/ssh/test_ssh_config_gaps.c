/*
 * Unit tests for transfer/ssh/ssh_config_gaps.c: the algorithm lists a config
 * sets are handed to a libssh session (no connection: ssh_options_set alone),
 * a list libssh refuses and an option it cannot apply are a warning each,
 * printed once. stderr is read back from a file.
 */
#include "testutil.h"

#include "ssh/ssh_config_gaps.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char err_path[] = "/tmp/xfercmp-gaps-XXXXXX";
static int saved_stderr = -1;

/* stderr into err_path from now on, emptied */
static void capture(void)
{
	int fd = open(err_path, O_WRONLY | O_TRUNC);

	assert_true(fd >= 0);
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
}

/* What stderr got since capture(), into buf; stderr back as it was. */
static const char *captured(char *buf, size_t len)
{
	FILE *f;
	size_t n;

	fflush(stderr);
	dup2(saved_stderr, 2);
	f = fopen(err_path, "r");
	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_configured_lists(void **state)
{
	struct ssh_resolved r = { 0 };
	ssh_session s = ssh_new();
	char out[2048];

	(void)state;
	assert_non_null(s);
	snprintf(r.algos.ciphers, sizeof(r.algos.ciphers), "aes256-ctr");
	snprintf(r.algos.kex, sizeof(r.algos.kex), "curve25519-sha256");
	/* libssh drops what it does not know (sntrup761...): the list is still taken */
	snprintf(r.algos.hostkeys, sizeof(r.algos.hostkeys), "sntrup761x25519-sha512,ssh-ed25519");
	capture();
	assert_int_equal(ssh_config_gaps_apply(s, &r, 0), 0);
	assert_string_equal(captured(out, sizeof(out)), "");
	ssh_free(s);
}

static void test_refused_and_ignored_once(void **state)
{
	struct ssh_resolved r = { 0 };
	ssh_session s = ssh_new();
	char out[2048];

	(void)state;
	assert_non_null(s);
	/* libssh 0.10 has no UMAC: a MACs list of only those is refused */
	snprintf(r.algos.macs, sizeof(r.algos.macs), "umac-128-etm@openssh.com,umac-64@openssh.com");
	/* the caller's ciphers win: the config's are not even tried */
	snprintf(r.algos.ciphers, sizeof(r.algos.ciphers), "no-such-cipher");
	snprintf(r.unsupported[7], sizeof(r.unsupported[7]), "yes");	/* Compression */
	capture();
	assert_int_equal(ssh_config_gaps_apply(s, &r, 1), 2);
	captured(out, sizeof(out));
	assert_contains(out, "xfercmp: warning: ssh config: MACs umac-128-etm@ope... not used: "
			     "libssh has none\n");
	assert_contains(out, "xfercmp: warning: ssh config: Compression yes ignored: SSH strategies "
			     "uncompressed\n");
	assert_null(strstr(out, "Ciphers"));
	/* the next connection of the run: said already */
	capture();
	assert_int_equal(ssh_config_gaps_apply(s, &r, 1), 0);
	assert_string_equal(captured(out, sizeof(out)), "");
	/* without the caller's list the config's is tried, and refused */
	capture();
	assert_int_equal(ssh_config_gaps_apply(s, &r, 0), 1);
	assert_contains(captured(out, sizeof(out)), "Ciphers no-such-cipher not used");
	ssh_free(s);
}

/* Against OpenSSH's no-config reading, an r of nothing configured keeps nothing. */
static void test_keep_configured(void **state)
{
	struct ssh_resolved r = { 0 };

	(void)state;
	snprintf(r.algos.ciphers, sizeof(r.algos.ciphers), "aes256-ctr");
	snprintf(r.unsupported[7], sizeof(r.unsupported[7]), "yes");
	ssh_config_gaps_keep_configured(&r);
	if (access("/usr/bin/ssh", X_OK) != 0)
		skip();	/* no OpenSSH: all cleared, nothing to tell apart */
	assert_string_equal(r.algos.ciphers, "aes256-ctr");
	assert_string_equal(r.unsupported[7], "yes");
	assert_string_equal(r.algos.kex, "");
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_configured_lists),
		cmocka_unit_test(test_refused_and_ignored_once),
		cmocka_unit_test(test_keep_configured),
	};
	int fd = mkstemp(err_path), rc;

	if (fd < 0 || (saved_stderr = dup(2)) < 0)
		return 1;
	close(fd);
	rc = test_run("ssh_config_gaps", tests, ARRAY_LEN(tests), NULL, 0);
	unlink(err_path);
	return rc;
}
