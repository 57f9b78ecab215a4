/*
 * splice: the whole tree as one record stream (frames.h) to the agent, file
 * content moved file→pipe→socket by io_uring splice. The agent's mirror is
 * frames_receiver.c. It carries all of a tree the manifest knows (directories,
 * symbolic links, hard links, modes and mtimes: records of their own, from
 * the manifest), as a migration tool such as tar or rsync -aH does.
 */
#include "client/raw_stream.h"
#include "stream/frames.h"
#include "stream/send_plan.h"
#include "stream/splice_sender.h"
#include "strategy/strategy.h"

#include <string.h>

static int splice_run(struct xfer_run *run)
{
	struct send_plan plan;
	unsigned char key[WIRE_KEY_BYTES];
	int fd, rc;

	if (send_plan_whole(run->manifest, &plan) < 0)
		return -1;
	if (strategy_open_one_stream(run, "frames", &fd, key) < 0) {
		send_plan_release(&plan);
		return -1;
	}
	rc = splice_send(fd, key, run->src_root, plan.items, plan.count, !run->opts->keep_cached,
			 &run->sent);
	explicit_bzero(key, sizeof(key));
	send_plan_release(&plan);
	strategy_one_stream_sent(run, fd);
	return raw_stream_finish(run->target->agent, &fd, 1, rc, &run->received);
}

const struct strategy strategy_splice = {
	.name = "splice",
	.summary = "one TCP stream to the agent, zero-copy splice; the receiver overlaps creates",
	.flags = STRATEGY_CLEARTEXT,
	.preserves = PRESERVE_ALL,
	.traits = STRATEGY_TRAITS_RECORDS,
	.real_command = "tar -cf - -C DIR . | nc -N ADDR PORT, on HOST: nc -l PORT | tar -xf - -C DST",
	.run = splice_run,
};
