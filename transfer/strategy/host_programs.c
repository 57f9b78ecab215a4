/* Which programs there are, here and on the SSH host (host_programs.h). */
#include "strategy/host_programs.h"

#include "err.h"
#include "client/ssh_target.h"
#include "strategy/pipeline.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

int host_programs_has(const struct ssh_target *ssh, const char *program)
{
	if (!strcmp(program, "tar"))
		return !!ssh->has_tar;
	if (!strcmp(program, "zstd"))
		return !!ssh->has_zstd;
	if (!strcmp(program, "rsync"))
		return !!ssh->has_rsync;
	if (!strcmp(program, "scp"))
		return !!ssh->has_scp;
	return err_set("cannot look for '%s' on the host: only tar, zstd, rsync and scp", program);
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
