/*
 * real-scp and real-scp-legacy: the system's scp, over SFTP and over the
 * legacy SCP protocol (scp -O), reaching the host as reference.h says. The
 * host's side is its own sftp-server or scp, run by its sshd.
 */
#include "err.h"
#include "strategy/host_programs.h"
#include "strategy/reference.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* scp -r SRC/. HOST:DEST (SFTP): OpenSSH 9 copies the tree's contents into DEST. */
static int scp_run(struct xfer_run *run)
{
	struct pipeline_stage st[1] = { 0 };
	struct reference_host h;

	if (reference_host_parse(run->target, &h) < 0)
		return -1;
	pipeline_arg(&st[0].argv, "scp");
	pipeline_arg(&st[0].argv, "-r");
	pipeline_arg(&st[0].argv, "-q");
	reference_ssh_options(&st[0].argv, run->target, &h);
	pipeline_arg(&st[0].argv, "--");
	pipeline_arg(&st[0].argv, "%s/.", run->src_root);
	pipeline_arg(&st[0].argv, "%s:%s", h.scp_host, run->dest);
	return reference_finish(run, st, 1, -1);
}

/*
 * scp -O -r SRC/a SRC/b ... HOST:DEST. The legacy sink refuses "." as a
 * name ("unexpected filename: ."), so each top-level entry is named, as a
 * shell glob of SRC would; and it hands the target to the host's shell
 * unquoted, so the target is quoted here (scp itself cannot take a ' in it).
 */
static int scp_legacy_run(struct xfer_run *run)
{
	const struct manifest *m = run->manifest;
	struct pipeline_stage st[1] = { 0 };
	struct reference_host h;
	size_t total = 0, entries = 0;
	long arg_max = sysconf(_SC_ARG_MAX);
	char *dest;

	if (strchr(run->dest, '\''))
		return err_set("scp -O cannot write to '%s': its target goes through the host's shell "
			       "and scp cannot take a quote in it", run->dest);
	if (reference_host_parse(run->target, &h) < 0 || !(dest = reference_shell_quote(run->dest)))
		return -1;
	pipeline_arg(&st[0].argv, "scp");
	pipeline_arg(&st[0].argv, "-O");
	pipeline_arg(&st[0].argv, "-r");
	pipeline_arg(&st[0].argv, "-q");
	reference_ssh_options(&st[0].argv, run->target, &h);
	pipeline_arg(&st[0].argv, "--");
	for (size_t i = 0; i < m->count; i++) {
		const char *p = m->entries[i].path;
		size_t n = strcspn(p, "/");

		/* sorted: a top-level name's entries are together */
		if (i > 0 && !strncmp(m->entries[i - 1].path, p, n) &&
		    (m->entries[i - 1].path[n] == '/' || m->entries[i - 1].path[n] == '\0'))
			continue;
		pipeline_arg(&st[0].argv, "%s/%.*s", run->src_root, (int)n, p);
		total += strlen(run->src_root) + n + 2 + sizeof(char *);
		entries++;
	}
	pipeline_arg(&st[0].argv, "%s:%s", h.scp_host, dest);
	free(dest);
	if (arg_max > 0 && total > (size_t)arg_max / 2) {
		pipeline_stages_free(st, 1);
		return err_set("the source has too many top-level entries (%zu) for one scp command line",
			       entries);
	}
	return reference_finish(run, st, 1, -1);
}

static int scp_available(const struct xfer_target *t, char *why, size_t len)
{
	static const char *const local[] = { "scp", "ssh", NULL };

	return strategy_needs_ssh(t, why, len) || host_programs_need_local(local, why, len);
}

static int scp_legacy_available(const struct xfer_target *t, char *why, size_t len)
{
	return scp_available(t, why, len) || host_programs_need(t, "scp", why, len);
}

const struct strategy strategy_real_scp = {
	.name = "real-scp",
	.summary = "the system's scp -r (SFTP protocol): SRC/. to HOST:DEST",
	.flags = STRATEGY_REFERENCE | STRATEGY_SSH,
	.available = scp_available,
	.serial = true,
	.setup_round_trips = STRATEGY_SETUP_ROUND_TRIPS,
	.real_command = "scp -r DIR/. HOST:DST",
	.run = scp_run,
	.stop = pipeline_stop_running,
};

const struct strategy strategy_real_scp_legacy = {
	.name = "real-scp-legacy",
	.summary = "the system's scp -O -r (legacy SCP protocol), each top-level entry to HOST:DEST",
	.flags = STRATEGY_REFERENCE | STRATEGY_SSH,
	.available = scp_legacy_available,
	.serial = true,
	.setup_round_trips = STRATEGY_SETUP_ROUND_TRIPS,
	.real_command = "scp -O -r DIR/* HOST:DST",
	.run = scp_legacy_run,
	.stop = pipeline_stop_running,
};

