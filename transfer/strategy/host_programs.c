/* Which programs there are, here and on the SSH host (host_programs.h). */
#include "strategy/host_programs.h"

#include "err.h"
#include "ssh/ssh_exec.h"
#include "client/ssh_target.h"
#include "strategy/pipeline.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define PROBE_TIMEOUT_MS 15000

/*
 * What the host has besides the tar and zstd the SSH target looked for:
 * asked once per SSH target over its libssh session, then cached.
 */
static struct {
	const struct ssh_target *ssh;
	int has_rsync, has_scp;
	int failed;
	struct err_saved error;
} asked;

static int ask_host(const struct ssh_target *ssh)
{
	static const char script[] =
		"command -v rsync >/dev/null 2>&1 && echo rsync || echo no-rsync; "
		"command -v scp >/dev/null 2>&1 && echo scp || echo no-scp";
	char lines[2][64];
	struct ssh_exec x;
	int rc = 0;

	if (asked.ssh == ssh)
		return asked.failed ? err_restore(&asked.error) : 0;
	memset(&asked, 0, sizeof(asked));
	asked.ssh = ssh;
	if (ssh_exec_start(ssh->session, script, &x) < 0)
		rc = -1;
	for (int i = 0; i < 2 && rc == 0; i++)
		if (ssh_exec_read_line(&x, lines[i], sizeof(lines[i]), PROBE_TIMEOUT_MS) < 0)
			rc = -1;
	if (rc == 0 && ssh_exec_finish(&x, NULL) < 0)
		rc = -1;
	if (rc < 0)
		err_save(&asked.error);
	ssh_exec_release(&x);
	if (rc < 0) {
		asked.failed = 1;
		return err_restore(&asked.error);
	}
	asked.has_rsync = !strcmp(lines[0], "rsync");
	asked.has_scp = !strcmp(lines[1], "scp");
	return 0;
}

int host_programs_has(const struct ssh_target *ssh, const char *program)
{
	if (!strcmp(program, "tar"))
		return !!ssh->has_tar;
	if (!strcmp(program, "zstd"))
		return !!ssh->has_zstd;
	if (strcmp(program, "rsync") && strcmp(program, "scp"))
		return err_set("cannot look for '%s' on the host: only tar, zstd, rsync and scp",
			       program);
	if (ask_host(ssh) < 0)
		return -1;
	return !strcmp(program, "rsync") ? asked.has_rsync : asked.has_scp;
}

const char *host_programs_package(const char *program)
{
	static const struct {
		const char *program, *package;
	} packages[] = {
		{ "ssh", "openssh-client" }, { "scp", "openssh-client" },
		{ "fpsync", "fpart" }, { "fpart", "fpart" },
	};

	for (size_t i = 0; i < sizeof(packages) / sizeof(packages[0]); i++)
		if (!strcmp(program, packages[i].program))
			return packages[i].package;
	return program;
}

int host_programs_need(const struct xfer_target *t, const char *program, char *why, size_t len)
{
	int has = host_programs_has(t->ssh, program);

	if (has < 0) {
		snprintf(why, len, "cannot look for %s on host '%s': %s", program, t->label, err_msg());
		return 1;
	}
	if (has)
		return 0;
	snprintf(why, len, "host '%s' has no %s program (install the %s package there)", t->label,
		 program, host_programs_package(program));
	return 1;
}

int host_programs_need_local(const char *const *programs, char *why, size_t len)
{
	char path[PATH_MAX];

	for (; *programs; programs++)
		if (!pipeline_which(*programs, path, sizeof(path))) {
			snprintf(why, len, "'%s' is not installed here (not found in PATH; install the %s package)",
				 *programs, host_programs_package(*programs));
			return 1;
		}
	return 0;
}
