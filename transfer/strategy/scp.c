/*
 * scp: what OpenSSH 9's `scp -r` does, which speaks SFTP: one file at a
 * time, open, writes (many in flight), set-size, close (scp_sender.c),
 * through the host's own sshd and sftp-server.
 *
 * With each kind of node it does what scp -r does (read in OpenSSH 9.2's
 * sftp-client.c and seen on the testbed; the table is in real_scp.c): a
 * symbolic link is followed, so one to a regular file arrives as a copy of
 * that file and one to a directory or to nothing is refused and not sent
 * (the real scp says so and exits 1 after copying the rest; the model does
 * not fail the run: verification reports the links as not kept); each name
 * of a hard link arrives as its own file; every directory is made, empty
 * and read-only ones included, and given its mode; files get their mode
 * through the host's umask; no mtimes (no -p); special files are skipped.
 * Claims: empty directories. Modes are reported, not claimed (the umask).
 */
#include "ssh/scp_sender.h"
#include "client/ssh_target.h"
#include "strategy/strategy.h"

static int scp_run(struct xfer_run *run)
{
	return scp_send(run->target->ssh->session, run->src_root, run->manifest, run->dest,
			!run->opts->keep_cached, &run->sent);
}

const struct strategy strategy_scp = {
	.name = "scp",
	.summary = "like OpenSSH scp -r (SFTP): one file at a time, each waiting on its replies",
	.flags = STRATEGY_SSH,
	.models = "real-scp",
	.preserves = PRESERVE_EMPTY_DIRS,
	.available = strategy_needs_ssh,
	.traits = STRATEGY_TRAITS_SCP,
	/* DIR/.: the content into DST, an existing directory as for every other command (DIR alone lands in DST/NAME) */
	.real_command = "scp -r DIR/. HOST:DST",
	.run = scp_run,
};
