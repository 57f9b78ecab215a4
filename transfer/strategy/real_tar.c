/*
 * real-tar-ssh, real-tar-zstd-ssh and real-tar-nc: GNU tar's stream
 * through ssh into the host's own tar (with zstd on both sides for the
 * second), or straight into one of the agent's data connections, whose
 * libarchive extraction (tar_extract.c) is then the mirror.
 *
 * What they keep: GNU tar's defaults archive symbolic links as links (their
 * text), every further name of an inode as a hard link to the first,
 * every directory (empty ones too), modes and mtimes (also of
 * directories; a 0555 one is given its mode after its files are in), and
 * fifos. On extraction, mtimes are set by default (-m would not), but
 * modes are exact only as root: as a user GNU tar applies the umask
 * (0664 arrives 0644 under umask 022) unless given -p. The host's side
 * runs `tar -xpf -`, as the usual "tar cf - . | ssh host 'tar xpf -'"
 * of a migration is typed, so modes are kept for root and users alike,
 * and all five kinds are claimed. real-tar-nc claims the same of the
 * agent's extraction.
 */
#include "err.h"
#include "client/raw_stream.h"
#include "strategy/host_programs.h"
#include "strategy/reference.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

static void tar_create(struct pipeline_argv *a, const char *src)
{
	pipeline_arg(a, "tar");
	pipeline_arg(a, "-cf");
	pipeline_arg(a, "-");
	pipeline_arg(a, "-C");
	pipeline_arg(a, "%s", src);
	pipeline_arg(a, ".");
}

/*
 * tar -cf - -C SRC . | [zstd -L -Tn |] ssh HOST '[zstd -d |] tar -xpf - -C DEST'.
 * zstd at --zstd-level and --zstd-threads, as the zstd-ssh model.
 */
static int tar_ssh_pipeline(struct xfer_run *run, int compress)
{
	struct pipeline_stage st[3] = { 0 };
	struct reference_host h;
	char *dest, remote[PATH_MAX * 4 + 64];
	unsigned n = 0;
	int level = run->opts->zstd_level;

	if (reference_host_parse(run->target, &h) < 0 || !(dest = reference_shell_quote(run->dest)))
		return -1;
	snprintf(remote, sizeof(remote), "%star -xpf - -C %s", compress ? "zstd -dc | " : "", dest);
	free(dest);
	tar_create(&st[n++].argv, run->src_root);
	if (compress) {
		struct pipeline_argv *a = &st[n++].argv;

		pipeline_arg(a, "zstd");
		pipeline_arg(a, "-q");
		if (level < 0)
			pipeline_arg(a, "--fast=%d", -level);
		else if (level > 19)
			pipeline_arg(a, "--ultra");
		if (level >= 0)
			pipeline_arg(a, "-%d", level ? level : 3);
		/* the model's 0 workers compresses in the writer's thread: for zstd(1), -T0 is every core */
		if (run->opts->zstd_threads == 0)
			pipeline_arg(a, "--single-thread");
		else
			pipeline_arg(a, "-T%u", run->opts->zstd_threads);
		pipeline_arg(a, "-c");
	}
	reference_ssh_stage(&st[n++].argv, run->target, &h, remote);
	return reference_finish(run, st, n, -1);
}

static int tar_ssh_run(struct xfer_run *run)
{
	return tar_ssh_pipeline(run, 0);
}

static int tar_zstd_ssh_run(struct xfer_run *run)
{
	return tar_ssh_pipeline(run, 1);
}

/* GNU tar's stream straight into one of the agent's data connections. */
static int tar_nc_run(struct xfer_run *run)
{
	struct pipeline_stage st[1] = { 0 };
	int fd, rc;

	tar_create(&st[0].argv, run->src_root);
	if (raw_stream_open(run->target->agent, run->job, "tar", 1, &fd) < 0) {
		pipeline_stages_free(st, 1);
		return -1;
	}
	rc = reference_finish(run, st, 1, fd);
	rc = raw_stream_finish(run->target->agent, &fd, 1, rc, &run->received);
	/* every byte tar wrote went through the one connection the agent counted */
	if (rc == 0)
		run->sent.wire_bytes = run->received.wire_bytes;
	return rc;
}

static int tar_ssh_available(const struct xfer_target *t, char *why, size_t len)
{
	static const char *const local[] = { "tar", "ssh", NULL };

	return strategy_needs_ssh(t, why, len) || host_programs_need_local(local, why, len) ||
	       host_programs_need(t, "tar", why, len);
}

static int tar_zstd_ssh_available(const struct xfer_target *t, char *why, size_t len)
{
	static const char *const local[] = { "zstd", NULL };

	return tar_ssh_available(t, why, len) || host_programs_need_local(local, why, len) ||
	       host_programs_need(t, "zstd", why, len);
}

static int tar_nc_available(const struct xfer_target *t, char *why, size_t len)
{
	static const char *const local[] = { "tar", NULL };

	(void)t;
	return host_programs_need_local(local, why, len);
}

const struct strategy strategy_real_tar_ssh = {
	.name = "real-tar-ssh",
	.summary = "tar -cf - | ssh HOST tar -xpf -: GNU tar and OpenSSH on both sides",
	.flags = STRATEGY_REFERENCE | STRATEGY_SSH,
	.preserves = PRESERVE_ALL,
	.available = tar_ssh_available,
	.traits = STRATEGY_TRAITS_TAR_SSH,
	.real_command = "tar -cf - -C DIR . | ssh HOST 'tar -xf - -C DST'",
	.run = tar_ssh_run,
	.stop = pipeline_stop_running,
};

const struct strategy strategy_real_tar_zstd_ssh = {
	.name = "real-tar-zstd-ssh",
	.summary = "tar -cf - | zstd -T | ssh HOST 'zstd -d | tar -xpf -', at --zstd-level",
	.flags = STRATEGY_REFERENCE | STRATEGY_SSH | STRATEGY_COMPRESSED,
	.preserves = PRESERVE_ALL,
	.available = tar_zstd_ssh_available,
	.traits = STRATEGY_TRAITS_TAR_SSH,
	.real_command = "tar -cf - -C DIR . | zstd -T0 | ssh HOST 'zstd -d | tar -xf - -C DST'",
	.run = tar_zstd_ssh_run,
	.stop = pipeline_stop_running,
};

const struct strategy strategy_real_tar_nc = {
	.name = "real-tar-nc",
	.summary = "GNU tar -cf - into one TCP stream, no ssh (the agent extracts with libarchive)",
	.flags = STRATEGY_REFERENCE | STRATEGY_CLEARTEXT,
	.preserves = PRESERVE_ALL,
	.available = tar_nc_available,
	.traits = STRATEGY_TRAITS_TAR_TO_AGENT,
	.real_command = "tar -cf - -C DIR . | nc HOST PORT, on HOST: nc -l PORT | tar -xf - -C DST",
	.run = tar_nc_run,
	.stop = pipeline_stop_running,
};
