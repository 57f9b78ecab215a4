/* The ssh configuration as OpenSSH reads it: `ssh -G` (ssh_resolve.h). */
#define _GNU_SOURCE
#include "ssh/ssh_resolve.h"

#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ssh -G reads files and runs no network I/O; a Match exec may run a command: bound it. */
#define RESOLVE_TIMEOUT_MS 10000
#define RESOLVE_OUTPUT_MAX (256 * 1024)

/*
 * The options of ssh -G that libssh 0.10 has no way to apply, with what
 * ignoring them changes. An entry with no name joins the warning of the one
 * before it: the three Control* options are one feature.
 */
static const struct unsupported {
	const char *key;	/* as ssh -G prints it */
	const char *name;	/* as a config spells it; NULL: joins the previous */
	const char *effect;
} unsupported[SSH_RESOLVE_NUNSUPPORTED] = {
	/* (the effect short: with the name and a value cut at 16 the line fits 100 columns) */
	{ "controlmaster", "ControlMaster/ControlPath", "libssh shares no connection" },
	{ "controlpath", NULL, NULL },
	{ "controlpersist", NULL, NULL },
	{ "certificatefile", "CertificateFile", "no certificate is offered" },
	{ "pkcs11provider", "PKCS11Provider", "token keys not offered" },
	{ "securitykeyprovider", "SecurityKeyProvider", "no provider in libssh" },
	{ "identityagent", "IdentityAgent", "SSH_AUTH_SOCK's agent used" },
	{ "compression", "Compression", "SSH strategies uncompressed" },
	{ "addressfamily", "AddressFamily", "either family is used" },
	{ "bindaddress", "BindAddress", "the system picks it" },
	{ "bindinterface", "BindInterface", "the system picks it" },
	{ "proxyusefdpass", "ProxyUseFdpass", "libssh cannot pass fds" },
};

/* Copies src into dst (cap bytes) with a leading "~/" made $HOME's; -1 when it does not fit. */
static int copy_path(char *dst, size_t cap, const char *src)
{
	const char *home = getenv("HOME");
	int n;

	if (src[0] == '~' && src[1] == '/' && home)
		n = snprintf(dst, cap, "%s%s", home, src + 1);
	else
		n = snprintf(dst, cap, "%s", src);
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* The first word of a space-separated list, into dst. */
static int first_word(char *dst, size_t cap, const char *list)
{
	char word[1024];
	size_t n = strcspn(list, " ");

	if (n >= sizeof(word))
		return -1;
	memcpy(word, list, n);
	word[n] = '\0';
	return copy_path(dst, cap, word);
}

static int set_text(char *dst, size_t cap, const char *v)
{
	int n = snprintf(dst, cap, "%s", v);

	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/*
 * An algorithm list into dst; one too long for it is left out (libssh keeps
 * its own), never an error: it is no reason to refuse the host.
 */
static void set_list(char *dst, size_t cap, const char *v)
{
	if (set_text(dst, cap, v) < 0)
		dst[0] = '\0';
}

/* The algorithm list field of r that key names; NULL for another key. */
static char *algo_field(struct ssh_resolved_algos *a, const char *key, size_t *cap)
{
	static const char *const keys[] = { "ciphers", "kexalgorithms", "hostkeyalgorithms", "macs",
					    "pubkeyacceptedalgorithms", "pubkeyacceptedkeytypes" };
	char *fields[] = { a->ciphers, a->kex, a->hostkeys, a->macs, a->pubkeys, a->pubkeys };
	size_t caps[] = { sizeof(a->ciphers), sizeof(a->kex), sizeof(a->hostkeys), sizeof(a->macs),
			  sizeof(a->pubkeys), sizeof(a->pubkeys) };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i])) {
			*cap = caps[i];
			return fields[i];
		}
	return NULL;
}

/* Stores value when key is one of the unsupported options (the first of a repeated one). */
static void note_unsupported(struct ssh_resolved *r, const char *key, const char *value)
{
	for (size_t i = 0; i < SSH_RESOLVE_NUNSUPPORTED; i++)
		if (!strcmp(key, unsupported[i].key) && !r->unsupported[i][0])
			snprintf(r->unsupported[i], sizeof(r->unsupported[i]), "%.*s",
				 (int)sizeof(r->unsupported[i]) - 1, value);	/* shown cut anyway */
}

/* Every word of a space-separated list of files appended to r->known_files. */
static int add_known_files(struct ssh_resolved *r, const char *list)
{
	while (*list) {
		char word[1024];
		size_t n = strcspn(list, " ");

		if (n >= sizeof(word))
			return -1;
		if (n && r->nknown_files < SSH_RESOLVE_MAX_KNOWN_FILES) {
			memcpy(word, list, n);
			word[n] = '\0';
			if (copy_path(r->known_files[r->nknown_files], sizeof(r->known_files[0]), word) < 0)
				return -1;
			r->nknown_files++;
		}
		list += n + (list[n] == ' ');
	}
	return 0;
}

/*
 * The IdentityFile tokens ssh -G prints unexpanded (%d home, %u local user,
 * %r remote user, %h host name, %%) expanded in place; 0, or -1 (path left
 * as it was) for another token or a result that does not fit.
 */
static int expand_tokens(char *path, size_t cap, const struct ssh_resolved *r)
{
	const struct passwd *pw = getpwuid(getuid());
	const char *home = getenv("HOME");
	char out[1024];
	size_t n = 0;

	if (!home || !home[0])
		home = pw ? pw->pw_dir : "/";
	for (const char *p = path; *p; p++) {
		const char *with = NULL;
		char one[2] = { *p, '\0' };
		int k;

		if (*p == '%') {
			switch (*++p) {
			case 'd': with = home; break;
			case 'u': with = pw ? pw->pw_name : ""; break;
			case 'r': with = r->user; break;
			case 'h': with = r->hostname; break;
			case '%': with = "%"; break;
			default: return -1;
			}
		}
		k = snprintf(out + n, sizeof(out) - n, "%s", with ? with : one);
		if (k < 0 || (size_t)k >= sizeof(out) - n)
			return -1;
		n += (size_t)k;
	}
	return set_text(path, cap, out);
}

int ssh_resolve_parse(const char *text, struct ssh_resolved *r)
{
	const char *line = text;
	int have_host = 0, have_port = 0, have_user = 0;

	memset(r, 0, sizeof(*r));
	while (line && *line) {
		const char *end = strchr(line, '\n'), *sp;
		char key[64], value[2048];
		size_t klen, vlen = end ? (size_t)(end - line) : strlen(line);
		int bad = 0;

		sp = memchr(line, ' ', vlen);
		if (sp && (klen = (size_t)(sp - line)) < sizeof(key) &&
		    vlen - klen - 1 < sizeof(value)) {
			memcpy(key, line, klen);
			key[klen] = '\0';
			memcpy(value, sp + 1, vlen - klen - 1);
			value[vlen - klen - 1] = '\0';
			if (!strcmp(key, "hostname")) {
				bad = set_text(r->hostname, sizeof(r->hostname), value);
				have_host = 1;
			} else if (!strcmp(key, "port")) {
				r->port = (unsigned)strtoul(value, NULL, 10);
				bad = r->port < 1 || r->port > 65535;
				have_port = 1;
			} else if (!strcmp(key, "user")) {
				bad = set_text(r->user, sizeof(r->user), value);
				have_user = 1;
			} else if (!strcmp(key, "identityfile") && r->nidentity < SSH_RESOLVE_MAX_IDENTITIES) {
				bad = copy_path(r->identity[r->nidentity], sizeof(r->identity[0]), value);
				r->nidentity++;
			} else if (!strcmp(key, "userknownhostsfile")) {
				bad = first_word(r->known_hosts, sizeof(r->known_hosts), value) ||
				      add_known_files(r, value);
			} else if (!strcmp(key, "globalknownhostsfile")) {
				bad = first_word(r->global_known_hosts, sizeof(r->global_known_hosts), value) ||
				      add_known_files(r, value);
			} else if (!strcmp(key, "hostkeyalias")) {
				bad = set_text(r->host_key_alias, sizeof(r->host_key_alias), value);
			} else if (!strcmp(key, "proxyjump") && strcmp(value, "none")) {
				bad = set_text(r->proxy_jump, sizeof(r->proxy_jump), value);
			} else if (!strcmp(key, "proxycommand") && strcmp(value, "none")) {
				bad = set_text(r->proxy_command, sizeof(r->proxy_command), value);
			} else if (!strcmp(key, "identitiesonly")) {
				r->identities_only = !strcmp(value, "yes");
			} else if (!strcmp(key, "stricthostkeychecking")) {
				bad = set_text(r->strict_host_key_checking,
					       sizeof(r->strict_host_key_checking), value);
			} else if (!strcmp(key, "connecttimeout") && strcmp(value, "none")) {
				r->connect_timeout_s = atoi(value);
			} else {
				size_t cap;
				char *list = algo_field(&r->algos, key, &cap);

				if (list)
					set_list(list, cap, value);
				else
					note_unsupported(r, key, value);
			}
			if (bad)
				return err_set("ssh -G: the value of '%s' does not fit: '%.80s'", key, value);
		}
		line = end ? end + 1 : NULL;
	}
	if (!have_host || !have_port || !have_user)
		return err_set("ssh -G printed no %s", !have_host ? "hostname" : !have_port ? "port" : "user");
	/* after the loop: %r and %h may come after the IdentityFile lines */
	for (unsigned i = 0; i < r->nidentity; i++)
		if (strchr(r->identity[i], '%'))
			expand_tokens(r->identity[i], sizeof(r->identity[i]), r);
	return 0;
}

void ssh_resolve_drop_defaults(struct ssh_resolved *r, const struct ssh_resolved *d)
{
	struct ssh_resolved_algos *a = &r->algos;
	char *lists[] = { a->ciphers, a->kex, a->hostkeys, a->macs, a->pubkeys };
	const char *defaults[] = { d->algos.ciphers, d->algos.kex, d->algos.hostkeys, d->algos.macs,
				   d->algos.pubkeys };

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (!strcmp(lists[i], defaults[i]))
			lists[i][0] = '\0';
	for (size_t i = 0; i < SSH_RESOLVE_NUNSUPPORTED; i++)
		if (!strcmp(r->unsupported[i], d->unsupported[i]))
			r->unsupported[i][0] = '\0';
}

/* Set to other than what libssh does anyway? "" and IdentityAgent SSH_AUTH_SOCK are not. */
static int set_to_other(const char *key, const char *value)
{
	if (!value[0] || !strcmp(value, "none"))
		return 0;
	return strcmp(key, "identityagent") ||
	       (strcmp(value, "SSH_AUTH_SOCK") && strcmp(value, "$SSH_AUTH_SOCK"));
}

int ssh_resolve_ignored(const struct ssh_resolved *r, unsigned i, char *buf, size_t len)
{
	unsigned last = i;

	buf[0] = '\0';
	if (i >= SSH_RESOLVE_NUNSUPPORTED || !unsupported[i].name)
		return 0;
	while (last + 1 < SSH_RESOLVE_NUNSUPPORTED && !unsupported[last + 1].name)
		last++;
	for (unsigned k = i; k <= last; k++) {
		if (!set_to_other(unsupported[k].key, r->unsupported[k]))
			continue;
		/* one option: its value too (cut: the line must stay one line); a group: the names */
		if (last == i)
			snprintf(buf, len, "ssh config: %s %.16s%s ignored: %s", unsupported[i].name,
				 r->unsupported[i], strlen(r->unsupported[i]) > 16 ? "..." : "",
				 unsupported[i].effect);
		else
			snprintf(buf, len, "ssh config: %s ignored: %s", unsupported[i].name,
				 unsupported[i].effect);
		return 1;
	}
	return 0;
}

/* Is there an ssh program on PATH? */
static int have_ssh(void)
{
	const char *path = getenv("PATH");
	char dir[4096], file[4200];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		if (n && n < sizeof(dir)) {
			memcpy(dir, path, n);
			dir[n] = '\0';
			snprintf(file, sizeof(file), "%s/ssh", dir);
			if (access(file, X_OK) == 0)
				return 1;
		}
		path += n + (path[n] == ':');
	}
	return 0;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

int ssh_resolve(const char *config_file, const char *host, const char *user, unsigned port,
		struct ssh_resolved *r)
{
	char port_text[16], *out, errline[512] = "";
	char a_ssh[] = "ssh", a_g[] = "-G", a_f[] = "-F", a_l[] = "-l", a_p[] = "-p", a_end[] = "--";
	char cfg[4096], usr[256], hst[256];
	char *argv[12];
	int outp[2], errp[2], status = 0, n = 0;
	size_t len = 0;
	struct timespec t0;
	pid_t pid;

	if (!have_ssh())
		return 1;
	if (set_text(cfg, sizeof(cfg), config_file ? config_file : "") < 0 ||
	    set_text(usr, sizeof(usr), user ? user : "") < 0 || set_text(hst, sizeof(hst), host) < 0)
		return err_set("ssh target or config path too long for ssh -G");
	argv[n++] = a_ssh;
	argv[n++] = a_g;
	if (config_file) {
		argv[n++] = a_f;
		argv[n++] = cfg;
	}
	if (usr[0]) {
		argv[n++] = a_l;
		argv[n++] = usr;
	}
	if (port) {
		snprintf(port_text, sizeof(port_text), "%u", port);
		argv[n++] = a_p;
		argv[n++] = port_text;
	}
	argv[n++] = a_end;
	argv[n++] = hst;
	argv[n] = NULL;
	if (!(out = malloc(RESOLVE_OUTPUT_MAX + 1)))
		return err_set("out of memory for ssh -G's output");
	if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		free(out);
		return err_errno("cannot run ssh -G");
	}
	pid = fork();
	if (pid == 0) {
		sigset_t all;

		/* the caller may block signals for its own watcher: ssh gets the defaults */
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		signal(SIGPIPE, SIG_DFL);
		dup2(outp[1], 1);
		dup2(errp[1], 2);
		close(0);
		open("/dev/null", O_RDONLY);
		execvp("ssh", argv);
		_exit(127);
	}
	close(outp[1]);
	close(errp[1]);
	if (pid < 0) {
		close(outp[0]);
		close(errp[0]);
		free(out);
		return err_errno("cannot run ssh -G");
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* poll skips a negative fd: each pipe is set to -1 once it ends */
	while (outp[0] >= 0 || errp[0] >= 0) {
		struct pollfd p[2] = { { outp[0], POLLIN, 0 }, { errp[0], POLLIN, 0 } };
		long left = RESOLVE_TIMEOUT_MS - ms_since(&t0);

		if (left <= 0 || poll(p, 2, (int)left) <= 0) {
			kill(pid, SIGKILL);
			break;
		}
		if (p[0].revents) {
			ssize_t k = read(outp[0], out + len, RESOLVE_OUTPUT_MAX - len);

			if (k > 0)
				len += (size_t)k;
			if (k <= 0 || len >= RESOLVE_OUTPUT_MAX) {
				close(outp[0]);
				outp[0] = -1;
			}
		}
		if (p[1].revents) {
			size_t el = strlen(errline);
			ssize_t k = el + 1 < sizeof(errline) ?
				    read(errp[0], errline + el, sizeof(errline) - 1 - el) : 0;

			if (k > 0) {
				errline[el + (size_t)k] = '\0';
			} else {
				close(errp[0]);
				errp[0] = -1;
			}
		}
	}
	if (outp[0] >= 0)
		close(outp[0]);
	if (errp[0] >= 0)
		close(errp[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	out[len] = '\0';
	errline[strcspn(errline, "\r\n")] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		free(out);
		return err_set("ssh -G %s refused the configuration%s%s%s: %s", host,
			       config_file ? " '" : "", config_file ? config_file : "",
			       config_file ? "'" : "",
			       errline[0] ? errline : WIFEXITED(status) ? "no message" : "timed out");
	}
	n = ssh_resolve_parse(out, r);
	free(out);
	return n;
}
