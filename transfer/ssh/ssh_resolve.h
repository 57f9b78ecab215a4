#ifndef XFERCMP_SSH_RESOLVE_H
#define XFERCMP_SSH_RESOLVE_H

/*
 * The ssh configuration as OpenSSH reads it. libssh 0.10's own parser
 * rejects a whole file over one line it does not know (`Match address`,
 * `localnetwork`, `tagged`, ...) and ignores `HostKeyAlias`,
 * `IdentitiesOnly` and `Match originalhost`, which OpenSSH obeys; so when
 * OpenSSH's ssh is installed, `ssh -G` resolves the host's effective
 * options and libssh is handed only those (ssh_conn.c). Without ssh,
 * libssh's parser is the fallback.
 */

#include <stddef.h>

#define SSH_RESOLVE_MAX_IDENTITIES 16
#define SSH_RESOLVE_MAX_KNOWN_FILES 8
#define SSH_RESOLVE_NUNSUPPORTED 12

struct ssh_resolved {
	char hostname[256];
	unsigned port;
	char user[256];
	/*
	 * As listed, ~ and the tokens %d (home), %u (local user), %r (remote
	 * user), %h (host name) and %% expanded; one with another token is
	 * kept as printed (no such file: passed over)
	 */
	char identity[SSH_RESOLVE_MAX_IDENTITIES][1024];
	unsigned nidentity;
	char known_hosts[1024];		/* the first UserKnownHostsFile, ~ expanded */
	char global_known_hosts[1024];	/* the first GlobalKnownHostsFile */
	/* every file of both lists, ~ expanded, in the order ssh -G prints them */
	char known_files[SSH_RESOLVE_MAX_KNOWN_FILES][1024];
	unsigned nknown_files;
	char host_key_alias[256];	/* "" when none */
	char proxy_jump[512];		/* "" when none */
	char proxy_command[1024];	/* "" when none */
	int identities_only;
	int connect_timeout_s;		/* 0: none set */
	/*
	 * StrictHostKeyChecking as ssh -G prints it: "ask" (OpenSSH's default),
	 * "true" (yes), "false" (no, off) or "accept-new"; "" when absent
	 */
	char strict_host_key_checking[16];
	/*
	 * The algorithm lists as ssh -G prints them (resolved: no +, - or ^),
	 * "" when absent or, after ssh_resolve_drop_defaults, OpenSSH's own
	 * default: libssh is handed only a list a config chose.
	 */
	struct ssh_resolved_algos {
		char ciphers[1024];
		char kex[2048];		/* KexAlgorithms */
		char hostkeys[2048];	/* HostKeyAlgorithms */
		char macs[1024];
		char pubkeys[2048];	/* PubkeyAcceptedAlgorithms */
	} algos;
	/* the value of each option libssh cannot apply (ssh_resolve_ignored), "" when absent */
	char unsupported[SSH_RESOLVE_NUNSUPPORTED][256];
};

/*
 * Parses `ssh -G` output ("key value" lines, keys in lower case) into r.
 * Returns 0, or -1 (error set) when a needed key (hostname, port, user) is
 * missing or a value does not fit.
 */
int ssh_resolve_parse(const char *text, struct ssh_resolved *r);

/*
 * Clears in r what equals OpenSSH's default, d being `ssh -G` with no config
 * at all (-F /dev/null): the algorithm lists and the unsupported options'
 * values. What is left is what a config set. ssh -G prints every option,
 * defaults included, and OpenSSH's defaults change from version to version:
 * hence a second reading rather than a table. The host key algorithms in
 * particular must stay libssh's unless configured: libssh then asks first
 * for the key types known_hosts holds for the host, as ssh does.
 */
void ssh_resolve_drop_defaults(struct ssh_resolved *r, const struct ssh_resolved *d);

/*
 * The warning for the i-th option libssh cannot apply (0 <= i <
 * SSH_RESOLVE_NUNSUPPORTED), into buf without "xfercmp: warning: ", such as
 * "ssh config: Compression yes ignored: SSH strategies uncompressed" (at
 * most 82 characters: a value is cut at 16). Returns 1 when r sets it (after ssh_resolve_drop_defaults:
 * to other than the default), 0 when not (buf ""); options that go together
 * (ControlMaster, ControlPath, ControlPersist) make one warning, at the first.
 */
int ssh_resolve_ignored(const struct ssh_resolved *r, unsigned i, char *buf, size_t len);

/*
 * Runs `ssh -G [-F config_file] [-l user] [-p port] host` (it reads the
 * configuration only: no connection) and parses it. Returns 0; 1 when no
 * ssh program is installed (use libssh's parser); -1 (error set, with
 * ssh's own first line) when ssh refuses the configuration or the host.
 */
int ssh_resolve(const char *config_file, const char *host, const char *user, unsigned port,
		struct ssh_resolved *r);

#endif
