/* Unit tests for transfer/ssh/ssh_resolve.c: reading `ssh -G` output. */
#include "testutil.h"

#include "err.h"
#include "ssh/ssh_resolve.h"

#include <stdlib.h>
#include <unistd.h>

static const char sample[] =
	"host alias\n"
	"user bob\n"
	"hostname 2001:2::2\n"
	"port 2222\n"
	"identitiesonly yes\n"
	"identityfile ~/.ssh/id_ed25519\n"
	"identityfile /keys/other\n"
	"globalknownhostsfile /etc/ssh/ssh_known_hosts /etc/ssh/ssh_known_hosts2\n"
	"userknownhostsfile ~/kh /x/kh2\n"
	"hostkeyalias my-alias\n"
	"proxyjump jumper,second\n"
	"proxycommand none\n"
	"connecttimeout 7\n"
	"ciphers chacha20-poly1305@openssh.com,aes128-ctr\n";

static void test_parse(void **state)
{
	struct ssh_resolved r;

	(void)state;
	setenv("HOME", "/home/bob", 1);
	assert_int_equal(ssh_resolve_parse(sample, &r), 0);
	assert_string_equal(r.hostname, "2001:2::2");
	assert_int_equal(r.port, 2222);
	assert_string_equal(r.user, "bob");
	assert_int_equal(r.nidentity, 2);
	assert_string_equal(r.identity[0], "/home/bob/.ssh/id_ed25519");
	assert_string_equal(r.identity[1], "/keys/other");
	/* the first file of each list, ~ expanded */
	assert_string_equal(r.known_hosts, "/home/bob/kh");
	assert_string_equal(r.global_known_hosts, "/etc/ssh/ssh_known_hosts");
	/* and every file of both lists, in ssh -G's order (real-rclone merges them all) */
	assert_int_equal(r.nknown_files, 4);
	assert_string_equal(r.known_files[1], "/etc/ssh/ssh_known_hosts2");
	assert_string_equal(r.known_files[2], "/home/bob/kh");
	assert_string_equal(r.known_files[3], "/x/kh2");
	assert_string_equal(r.host_key_alias, "my-alias");
	assert_string_equal(r.proxy_jump, "jumper,second");
	assert_string_equal(r.proxy_command, "");	/* "none" */
	assert_int_equal(r.identities_only, 1);
	assert_int_equal(r.connect_timeout_s, 7);
}

/* "none" and absent keys leave their fields empty; a missing hostname/port/user is an error. */
static void test_defaults_and_missing(void **state)
{
	struct ssh_resolved r;

	(void)state;
	assert_int_equal(ssh_resolve_parse("hostname h\nport 22\nuser u\nproxyjump none\n"
					   "connecttimeout none\nidentitiesonly no\n", &r), 0);
	assert_string_equal(r.proxy_jump, "");
	assert_int_equal(r.connect_timeout_s, 0);
	assert_int_equal(r.identities_only, 0);
	assert_string_equal(r.host_key_alias, "");
	err_clear();
	assert_int_equal(ssh_resolve_parse("port 22\nuser u\n", &r), -1);
	assert_contains(err_msg(), "hostname");
	assert_int_equal(ssh_resolve_parse("hostname h\nuser u\n", &r), -1);
	assert_contains(err_msg(), "port");
	assert_int_equal(ssh_resolve_parse("hostname h\nport 99999\nuser u\n", &r), -1);
	assert_contains(err_msg(), "port");
}

/* A value longer than its field is refused, never cut. */
static void test_too_long(void **state)
{
	struct ssh_resolved r;
	char text[1400];

	(void)state;
	snprintf(text, sizeof(text), "port 22\nuser u\nhostname %0300d\n", 7);
	assert_int_equal(ssh_resolve_parse(text, &r), -1);
	assert_contains(err_msg(), "hostname");
}

/* ssh itself: a config it refuses is an error with its message (needs OpenSSH's ssh). */
static void test_ssh_refuses(void **state)
{
	struct ssh_resolved r;
	char path[] = "/tmp/xfercmp-resolve-XXXXXX";
	int fd = mkstemp(path);
	int rc;

	(void)state;
	assert_true(fd >= 0);
	assert_true(write(fd, "NoSuchOption yes\n", 17) == 17);
	close(fd);
	rc = ssh_resolve(path, "h", NULL, 0, &r);
	unlink(path);
	if (rc == 1)
		skip();	/* no ssh on this machine: the fallback's case */
	assert_int_equal(rc, -1);
	assert_contains(err_msg(), "refused the configuration");
	assert_int_equal(ssh_resolve("/dev/null", "198.18.0.2", "carol", 2022, &r), 0);
	assert_string_equal(r.hostname, "198.18.0.2");
	assert_string_equal(r.user, "carol");
	assert_int_equal(r.port, 2022);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_defaults_and_missing),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_ssh_refuses),
	};

	return test_run("ssh_resolve", tests, ARRAY_LEN(tests), NULL, 0);
}
