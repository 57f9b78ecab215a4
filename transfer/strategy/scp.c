/*
 * scp: what OpenSSH 9's `scp -r` does, which speaks SFTP: one file at a
 * time, open, writes (many in flight), set-size, close (scp_sender.c),
 * through the host's own sshd and sftp-server.
 */
#include "ssh/scp_sender.h"
#include "ssh/ssh_target.h"
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
	.available = strategy_needs_ssh,
	.serial = true,
	.setup_round_trips = STRATEGY_SETUP_ROUND_TRIPS,
	.real_command = "scp -r DIR HOST:DST",
	.run = scp_run,
};
