/*
 * Unit tests for the command lines of real-rclone and real-fpsync
 * (real_parallel.h): ssh -G's output parsed into rclone's SFTP settings
 * (identity file tokens, several known_hosts files, a proxy), as
 * ssh_resolve.h reads it, rclone's words, fpsync's words and its refusal of paths that
 * its shell command lines would break on. No network, no programs run.
 */
#include "testutil.h"

#include "err.h"
#include "ssh/ssh_resolve.h"
#include "strategy/real_parallel.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

/* Joins a's words with single spaces into buf. */
static const char *joined(const struct pipeline_argv *a, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < a->n && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "", a->v[i]);
	return buf;
}

static char home[64];

static int home_setup(void **state)
{
	char path[PATH_MAX];
	FILE *f;

	(void)state;
	snprintf(home, sizeof(home), "/tmp/xfercmp-test-rp.XXXXXX");
	if (!mkdtemp(home))
		return -1;
	/* one key named with tokens: k_<remote user>_<host> */
	snprintf(path, sizeof(path), "%s/k_alice_198.18.0.2", home);
	if (!(f = fopen(path, "w")))
		return -1;
	fclose(f);
	return 0;
}

static int home_teardown(void **state)
{
	char path[PATH_MAX];

	(void)state;
	snprintf(path, sizeof(path), "%s/k_alice_198.18.0.2", home);
	unlink(path);
	return rmdir(home);
}

/*
 * What rclone is given of ssh -G's output, as ssh_resolve.h reads it: the
 * first identity file that exists (its tokens expanded), every known_hosts
 * file of both lists.
 */
static void test_resolved_for_rclone(void **state)
{
	char text[2048], want[PATH_MAX];
	struct ssh_resolved r;

	(void)state;
	setenv("HOME", home, 1);
	snprintf(text, sizeof(text),
		 "user alice\nhostname 198.18.0.2\nport 2222\n"
		 "identityfile ~/.ssh/id_missing\n"
		 "identityfile %%d/k_%%r_%%h\n"
		 "identityfile %%d/k_alice_198.18.0.2\n"
		 "globalknownhostsfile /etc/ssh/ssh_known_hosts /etc/ssh/ssh_known_hosts2\n"
		 "userknownhostsfile /home/a/kh /home/a/kh2\n"
		 "proxycommand none\n"
		 "stricthostkeychecking true\n");
	assert_int_equal(ssh_resolve_parse(text, &r), 0);
	/* the first that exists, its tokens expanded (%d, %r, %h) */
	snprintf(want, sizeof(want), "%s/k_alice_198.18.0.2", home);
	assert_string_equal(real_rclone_identity(&r), want);
	assert_int_equal(r.nknown_files, 4);
	assert_string_equal(r.known_files[0], "/etc/ssh/ssh_known_hosts");
	assert_string_equal(r.known_files[1], "/etc/ssh/ssh_known_hosts2");
	assert_string_equal(r.known_files[2], "/home/a/kh");
	assert_string_equal(r.known_files[3], "/home/a/kh2");
	assert_string_equal(r.proxy_command, "");

	/* no identity file that exists (one with a token ssh -G leaves, %C): rclone asks the agent */
	assert_int_equal(ssh_resolve_parse("hostname h\nuser u\nport 22\nidentityfile ~/none\n"
					   "identityfile %d/k_%C\nproxyjump jump.example\n", &r), 0);
	assert_string_equal(real_rclone_identity(&r), "");
	assert_string_equal(r.proxy_jump, "jump.example");
	assert_int_equal(r.nknown_files, 0);
}

static void test_rclone_args(void **state)
{
	struct ssh_resolved r = { .hostname = "198.18.0.2", .user = "root", .port = 22 };
	struct pipeline_argv a = { 0 };
	char buf[2048];

	(void)state;
	real_rclone_args(&a, &r, "/k/id_ed25519", "/var/tmp/x/known_hosts", 8, "/src dir", "/dst/a b");
	assert_false(a.failed);
	assert_string_equal(joined(&a, buf, sizeof(buf)),
			    "rclone copy --config /dev/null -q --transfers 8 --create-empty-src-dirs "
			    "--sftp-disable-hashcheck --sftp-host 198.18.0.2 --sftp-port 22 --sftp-user root "
			    "--sftp-key-file /k/id_ed25519 --sftp-known-hosts-file /var/tmp/x/known_hosts "
			    "-- /src dir :sftp:/dst/a b");
	/* the destination is one word, whatever it holds */
	assert_string_equal(a.v[a.n - 1], ":sftp:/dst/a b");
	pipeline_argv_free(&a);

	/* no identity file: no --sftp-key-file (rclone asks ssh-agent) */
	real_rclone_args(&a, &r, "", "/kh", 1, "/s", "/d");
	assert_null(strstr(joined(&a, buf, sizeof(buf)), "--sftp-key-file"));
	assert_contains(buf, "--transfers 1 ");
	pipeline_argv_free(&a);

	/* an IPv6 host in brackets: rclone joins host and port with ':' (seen over IPv6:
	 * "dial tcp: address 2001:2::2:22: too many colons in address") */
	snprintf(r.hostname, sizeof(r.hostname), "2001:2::2");
	real_rclone_args(&a, &r, "", "/kh", 1, "/s", "/d");
	assert_contains(joined(&a, buf, sizeof(buf)), "--sftp-host [2001:2::2] ");
	pipeline_argv_free(&a);
}

static void test_fpsync_args(void **state)
{
	static const char *const bad[] = { "/d/it's", "/d/\"q\"", "/d/$(touch x)", "/d/`x`", "/d/a\\b",
					   "/d/new\nline" };
	struct pipeline_argv a = { 0 };
	char buf[2048];

	(void)state;
	assert_int_equal(real_fpsync_args(&a, "'ssh' '-o' 'BatchMode=yes'", "/var/tmp/w", 4, "/src dir",
					  "[2001:2::2]", "/dst dir"), 0);
	assert_string_equal(joined(&a, buf, sizeof(buf)),
			    "env RSYNC_RSH='ssh' '-o' 'BatchMode=yes' fpsync -n 4 -t /var/tmp/w "
			    "/src dir/ [2001:2::2]:/dst dir/");
	/* fpsync refuses -a and -r in -o: its own options stand */
	assert_null(strstr(buf, " -o "));
	pipeline_argv_free(&a);

	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		err_clear();
		assert_int_equal(real_fpsync_args(&a, "ssh", "/w", 2, "/s", "h", bad[i]), -1);
		assert_contains(err_msg(), "fpsync cannot copy with");
		assert_int_equal(a.n, 0);
		/* the source and the work directory too */
		assert_int_equal(real_fpsync_args(&a, "ssh", "/w", 2, bad[i], "h", "/d"), -1);
		assert_int_equal(real_fpsync_args(&a, "ssh", bad[i], 2, "/s", "h", "/d"), -1);
		assert_int_equal(a.n, 0);
	}
	err_clear();
	real_fpsync_args(&a, "ssh", "/w", 2, "/s", "h", "/d/new\nline");
	assert_contains(err_msg(), "holds a newline");
	real_fpsync_args(&a, "ssh", "/w", 2, "/s", "h", "/d/$x");
	assert_contains(err_msg(), "holds a '$'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_resolved_for_rclone, home_setup, home_teardown),
		cmocka_unit_test(test_rclone_args),
		cmocka_unit_test(test_fpsync_args),
	};

	return test_run("real_parallel", tests, ARRAY_LEN(tests), NULL, 0);
}
