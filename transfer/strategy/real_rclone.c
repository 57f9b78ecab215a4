/*
 * real-rclone: the system's rclone copy over its own SFTP client, N files
 * at once (-P, its --transfers), into the empty destination. The host's side
 * is its own sftp-server, one per SSH connection rclone opens.
 *
 * rclone reads no ssh config: `ssh -G` resolves HOST (ssh_resolve.h, the
 * reader every ssh connection of ours uses) into its host name, user,
 * port, identity files and known_hosts files, and those become an on-the-fly remote (:sftp: with
 * --sftp-* flags), with --config /dev/null so that no config file is read
 * or written. Its host key is checked against a copy of every known_hosts
 * file ssh would read, made in a private scratch directory and removed
 * after the run: an unknown or changed key fails the run, as ours.
 *
 * What a user migrating a tree would run: rclone copy --transfers N
 * --create-empty-src-dirs. Also --sftp-disable-hashcheck: by default rclone
 * runs `md5sum FILE` on the host over a new SSH session after every upload,
 * which on the testbed took 3 min 11 s for 2,000 small files at 4 transfers;
 * xfercmp verifies every byte itself afterwards, as for every strategy.
 * What it keeps, as verified on the testbed (realistic, 2,000 files, as
 * root): empty directories (--create-empty-src-dirs). Not symbolic links
 * (skipped with a notice; its -l turns them into .rclonelink files, which
 * is no link at the destination), not hard links (separate files), not
 * modes (sftp-server's defaults), not mtimes (files' yes, over SFTP, but
 * rclone 1.60 leaves directories' as their creation made them).
 * --multi-thread-streams is not passed: in 1.60 it splits downloads only,
 * and a 256 MiB upload at -P 8 ran in one SFTP session.
 */
#define _GNU_SOURCE
#include "err.h"
#include "fsutil.h"
#include "strategy/host_programs.h"
#include "strategy/real_parallel.h"
#include "strategy/reference.h"
#include "ssh/ssh_resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *real_rclone_identity(const struct ssh_resolved *r)
{
	for (unsigned i = 0; i < r->nidentity; i++)
		if (access(r->identity[i], R_OK) == 0)
			return r->identity[i];
	return "";
}

void real_rclone_args(struct pipeline_argv *a, const struct ssh_resolved *r, const char *identity,
		      const char *known_hosts, unsigned streams, const char *src, const char *dest)
{
	pipeline_arg(a, "rclone");
	pipeline_arg(a, "copy");
	pipeline_arg(a, "--config");
	pipeline_arg(a, "/dev/null");
	pipeline_arg(a, "-q");
	pipeline_arg(a, "--transfers");
	pipeline_arg(a, "%u", streams);
	pipeline_arg(a, "--create-empty-src-dirs");
	pipeline_arg(a, "--sftp-disable-hashcheck");
	/* rclone 1.60 joins host and port with a ':': an IPv6 address needs its brackets */
	pipeline_arg(a, "--sftp-host");
	pipeline_arg(a, strchr(r->hostname, ':') ? "[%s]" : "%s", r->hostname);
	pipeline_arg(a, "--sftp-port");
	pipeline_arg(a, "%u", r->port);
	pipeline_arg(a, "--sftp-user");
	pipeline_arg(a, "%s", r->user);
	if (identity[0]) {
		pipeline_arg(a, "--sftp-key-file");
		pipeline_arg(a, "%s", identity);
	}
	pipeline_arg(a, "--sftp-known-hosts-file");
	pipeline_arg(a, "%s", known_hosts);
	pipeline_arg(a, "--");
	pipeline_arg(a, "%s", src);
	pipeline_arg(a, ":sftp:%s", dest);
}

/* Appends every known_hosts file that exists to path. Returns 0 or -1 (error set). */
static int merge_known_hosts(const struct ssh_resolved *r, const char *path)
{
	int out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600), rc = 0;
	char buf[65536];

	if (out < 0)
		return err_errno("cannot create '%s'", path);
	for (unsigned i = 0; i < r->nknown_files && rc == 0; i++) {
		int in = open(r->known_files[i], O_RDONLY | O_CLOEXEC);
		ssize_t n;

		if (in < 0)
			continue;	/* ssh passes over a file that is not there */
		while ((n = read(in, buf, sizeof(buf))) > 0 && rc == 0)
			if (fs_write_all(out, buf, (size_t)n) < 0 || fs_write_all(out, "\n", 1) < 0)
				rc = err_errno("cannot write '%s'", path);
		if (n < 0)
			rc = err_errno("cannot read '%s'", r->known_files[i]);
		close(in);
	}
	if (close(out) < 0 && rc == 0)
		rc = err_errno("cannot write '%s'", path);
	return rc;
}

static int rclone_run(struct xfer_run *run)
{
	struct pipeline_stage st[1] = { 0 };
	struct reference_host h;
	struct ssh_resolved r;
	char dir[PATH_MAX], known[PATH_MAX + 16];
	int rc;

	if (reference_host_parse(run->target, &h) < 0)
		return -1;
	rc = ssh_resolve(run->target->ssh_config, h.parts.host, h.parts.user, h.parts.port, &r);
	if (rc > 0)
		return err_set("rclone needs OpenSSH's ssh to read the ssh config as ssh would (install openssh-client)");
	if (rc < 0)
		return -1;
	if (r.proxy_jump[0] || r.proxy_command[0])
		return err_set("rclone's SFTP cannot go through the %s that the ssh config sets for '%s'",
			       r.proxy_jump[0] ? "proxyjump" : "proxycommand", run->target->label);
	snprintf(dir, sizeof(dir), "%s/xfercmp-rclone.XXXXXX", fs_scratch_base());
	if (!mkdtemp(dir))
		return err_errno("cannot create a scratch directory under %s", fs_scratch_base());
	snprintf(known, sizeof(known), "%s/known_hosts", dir);
	rc = merge_known_hosts(&r, known);
	if (rc == 0) {
		real_rclone_args(&st[0].argv, &r, real_rclone_identity(&r), known, run->opts->streams,
				 run->src_root, run->dest);
		rc = reference_finish(run, st, 1, -1);
	}
	if (fs_remove_tree(dir) < 0 && rc == 0)
		rc = -1;
	return rc;
}

/*
 * rclone 1.60 lands a name holding a newline under another name (seen in
 * trees.t: "1 missing: odd dir/new\nline, 1 extra"): such a tree is one it
 * cannot carry, skipped with the name rather than failed.
 */
static int rclone_available(const struct xfer_target *t, char *why, size_t len)
{
	static const char *const local[] = { "rclone", "ssh", NULL };
	char shown[256];

	if (strategy_needs_ssh(t, why, len) || host_programs_need_local(local, why, len))
		return 1;
	if (reference_newline_name(t->manifest, shown, sizeof(shown))) {
		snprintf(why, len, "rclone copies a name holding a newline under another name ('%s'); "
			 "skipped on this tree", shown);
		return 1;
	}
	return 0;
}

const struct strategy strategy_real_rclone = {
	.name = "real-rclone",
	.summary = "the system's rclone copy --transfers N (-P) over its SFTP client to HOST:DEST",
	.flags = STRATEGY_REFERENCE | STRATEGY_SSH | STRATEGY_MULTI_STREAM,
	.preserves = PRESERVE_EMPTY_DIRS,
	.available = rclone_available,
	/* --transfers N files at once, each over SFTP in turn: stat, open, writes, close, the mtime */
	.traits = {
		.path = PATH_SFTP,
		.serial = true,
		.requests_per_file = 5,
		.requests_per_dir = 2,
		.creator = CREATOR_SFTP_SERVER,
		.header_bytes = SFTP_REQUEST_BYTES,
		.setup_round_trips = STRATEGY_SETUP_ROUND_TRIPS,
	},
	.run = rclone_run,
	.stop = pipeline_stop_running,
};
