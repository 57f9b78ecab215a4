/* Unit tests for transfer/ssh/ssh_resolve.c: reading `ssh -G` output. */
#include "testutil.h"

#include "err.h"
#include "ssh/ssh_resolve.h"

#include <stdlib.h>
#include <string.h>
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
	"stricthostkeychecking accept-new\n"
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
	assert_string_equal(r.strict_host_key_checking, "accept-new");
	/* Ciphers was dropped: libssh's own config parsing is off, so it must come from here */
	assert_string_equal(r.algos.ciphers, "chacha20-poly1305@openssh.com,aes128-ctr");
}

/* What OpenSSH has with no config (a made-up version's defaults), for drop_defaults. */
static const char defaults_text[] =
	"hostname h\nport 22\nuser u\n"
	"ciphers chacha20-poly1305@openssh.com,aes128-ctr,aes256-gcm@openssh.com\n"
	"kexalgorithms curve25519-sha256,ecdh-sha2-nistp256\n"
	"hostkeyalgorithms ssh-ed25519,rsa-sha2-512\n"
	"macs hmac-sha2-256-etm@openssh.com,hmac-sha2-256\n"
	"pubkeyacceptedalgorithms ssh-ed25519,rsa-sha2-512\n"
	"controlmaster false\ncontrolpersist no\ncompression no\naddressfamily any\n"
	"securitykeyprovider internal\nproxyusefdpass no\n";

/* Only the lists a config changed are left to hand libssh: Ciphers, MACs here. */
static void test_algorithms_configured(void **state)
{
	struct ssh_resolved d, r;

	(void)state;
	assert_int_equal(ssh_resolve_parse(defaults_text, &d), 0);
	assert_int_equal(ssh_resolve_parse("hostname h\nport 22\nuser u\n"
					   "ciphers aes256-ctr,aes128-ctr\n"
					   "kexalgorithms curve25519-sha256,ecdh-sha2-nistp256\n"
					   "hostkeyalgorithms ssh-ed25519,rsa-sha2-512\n"
					   "macs hmac-sha2-512\n"
					   /* the name before OpenSSH 8.5 */
					   "pubkeyacceptedkeytypes ssh-ed25519,rsa-sha2-512\n", &r), 0);
	assert_string_equal(r.algos.macs, "hmac-sha2-512");
	assert_string_equal(r.algos.pubkeys, "ssh-ed25519,rsa-sha2-512");
	ssh_resolve_drop_defaults(&r, &d);
	assert_string_equal(r.algos.ciphers, "aes256-ctr,aes128-ctr");
	assert_string_equal(r.algos.macs, "hmac-sha2-512");
	/* as OpenSSH's defaults: left to libssh (its host key order follows known_hosts) */
	assert_string_equal(r.algos.kex, "");
	assert_string_equal(r.algos.hostkeys, "");
	assert_string_equal(r.algos.pubkeys, "");
	/* a list too long for its field is left out, not an error */
	{
		char text[3000];

		snprintf(text, sizeof(text), "hostname h\nport 22\nuser u\nciphers %01200d\n", 1);
		assert_int_equal(ssh_resolve_parse(text, &r), 0);
		assert_string_equal(r.algos.ciphers, "");
	}
}

/* The options libssh cannot apply: a warning each, groups as one, defaults none. */
static void test_ignored(void **state)
{
	struct ssh_resolved d, r;
	char w[512];
	int n = 0;

	(void)state;
	assert_int_equal(ssh_resolve_parse(defaults_text, &d), 0);
	assert_int_equal(ssh_resolve_parse("hostname h\nport 22\nuser u\n"
					   "controlmaster auto\ncontrolpath /tmp/cm-%C\n"
					   "controlpersist 600\ncompression yes\naddressfamily any\n"
					   "certificatefile /keys/cert.pub\ncertificatefile /k2\n"
					   "identityagent SSH_AUTH_SOCK\n"
					   "pkcs11provider /usr/lib/x86_64-linux-gnu/opensc-pkcs11-with-a-long-name.so\n",
					   &r), 0);
	ssh_resolve_drop_defaults(&r, &d);
	for (unsigned i = 0; i < SSH_RESOLVE_NUNSUPPORTED; i++)
		n += ssh_resolve_ignored(&r, i, w, sizeof(w));
	/* Control*, CertificateFile, PKCS11Provider, Compression; not AddressFamily any (the
	 * default) nor IdentityAgent SSH_AUTH_SOCK (what libssh does anyway) */
	assert_int_equal(n, 4);
	assert_int_equal(ssh_resolve_ignored(&r, 0, w, sizeof(w)), 1);
	assert_string_equal(w, "ssh config: ControlMaster/ControlPath ignored: libssh shares no "
			       "connection");
	assert_int_equal(ssh_resolve_ignored(&r, 1, w, sizeof(w)), 0);	/* part of the first */
	assert_string_equal(w, "");
	assert_int_equal(ssh_resolve_ignored(&r, 3, w, sizeof(w)), 1);
	assert_string_equal(w, "ssh config: CertificateFile /keys/cert.pub ignored: no "
			       "certificate is offered");
	assert_int_equal(ssh_resolve_ignored(&r, 4, w, sizeof(w)), 1);
	assert_string_equal(w, "ssh config: PKCS11Provider /usr/lib/x86_64-... ignored: token keys "
			       "not offered");
	assert_int_equal(ssh_resolve_ignored(&r, 7, w, sizeof(w)), 1);
	assert_string_equal(w, "ssh config: Compression yes ignored: SSH strategies uncompressed");
	assert_int_equal(ssh_resolve_ignored(&r, SSH_RESOLVE_NUNSUPPORTED, w, sizeof(w)), 0);
	/* every one, with a long value, fits 100 columns after "xfercmp: warning: " */
	for (unsigned i = 0; i < SSH_RESOLVE_NUNSUPPORTED; i++)
		snprintf(r.unsupported[i], sizeof(r.unsupported[i]), "%0200d", 7);
	for (unsigned i = 0; i < SSH_RESOLVE_NUNSUPPORTED; i++)
		if (ssh_resolve_ignored(&r, i, w, sizeof(w)))
			assert_in_range(strlen("xfercmp: warning: ") + strlen(w), 40, 100);
	/* ControlPath alone (an existing master's socket would be used by ssh) warns too */
	assert_int_equal(ssh_resolve_parse("hostname h\nport 22\nuser u\ncontrolmaster false\n"
					   "controlpath /tmp/cm\n", &r), 0);
	ssh_resolve_drop_defaults(&r, &d);
	assert_int_equal(ssh_resolve_ignored(&r, 0, w, sizeof(w)), 1);
	/* no config: nothing */
	r = d;
	ssh_resolve_drop_defaults(&r, &d);
	for (unsigned i = 0; i < SSH_RESOLVE_NUNSUPPORTED; i++)
		assert_int_equal(ssh_resolve_ignored(&r, i, w, sizeof(w)), 0);
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
	assert_string_equal(r.strict_host_key_checking, "");
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

/* ssh itself: a config's Ciphers is what is left against no config (needs OpenSSH's ssh). */
static void test_ssh_ciphers(void **state)
{
	static const char config[] = "Host c\n    Ciphers aes256-ctr\n    ControlMaster auto\n";
	struct ssh_resolved d, r;
	char path[] = "/tmp/xfercmp-resolve-XXXXXX", w[512];
	int fd = mkstemp(path);
	int rc;

	(void)state;
	assert_true(fd >= 0);
	assert_true(write(fd, config, sizeof(config) - 1) == (ssize_t)sizeof(config) - 1);
	close(fd);
	rc = ssh_resolve(path, "c", NULL, 0, &r);
	if (rc == 1) {
		unlink(path);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_int_equal(ssh_resolve("/dev/null", "c", NULL, 0, &d), 0);
	ssh_resolve_drop_defaults(&r, &d);
	assert_string_equal(r.algos.ciphers, "aes256-ctr");
	assert_string_equal(r.algos.kex, "");
	assert_int_equal(ssh_resolve_ignored(&r, 0, w, sizeof(w)), 1);
	/* another host of the same file: nothing configured */
	assert_int_equal(ssh_resolve(path, "other", NULL, 0, &r), 0);
	unlink(path);
	ssh_resolve_drop_defaults(&r, &d);
	assert_string_equal(r.algos.ciphers, "");
	assert_int_equal(ssh_resolve_ignored(&r, 0, w, sizeof(w)), 0);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_defaults_and_missing),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_ssh_refuses),
		cmocka_unit_test(test_algorithms_configured),
		cmocka_unit_test(test_ignored),
		cmocka_unit_test(test_ssh_ciphers),
	};

	return test_run("ssh_resolve", tests, ARRAY_LEN(tests), NULL, 0);
}
