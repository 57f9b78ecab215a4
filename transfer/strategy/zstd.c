/*
 * zstd: a tar stream (libarchive) compressed with multi-threaded libzstd,
 * over one TCP stream to the agent, which decompresses and extracts it
 * (tar_extract.c is the mirror). It carries the whole tree
 * (PRESERVE_ALL): directories, symbolic links, hard links, modes and
 * mtimes are in the stream (tar_stream.h) and the agent restores them all.
 */
#include "client/raw_stream.h"
#include "strategy/strategy.h"
#include "stream/seal_stream.h"
#include "stream/tar_stream.h"
#include "stream/zstd_sink.h"

#include <string.h>

static int zstd_run(struct xfer_run *run)
{
	struct byte_sink fd_sink;
	struct seal_sink sealed;
	struct zstd_sink z;
	unsigned char key[WIRE_KEY_BYTES];
	int fd, rc;

	if (strategy_open_one_stream(run, "tar", &fd, key) < 0)
		return -1;
	byte_sink_fd(&fd_sink, &fd);
	/* tar -> zstd -> authenticated segments (stream/seal_stream.h) -> the socket */
	rc = seal_sink_init(&sealed, &fd_sink, key);
	explicit_bzero(key, sizeof(key));
	if (rc == 0) {
		rc = zstd_sink_init(&z, seal_sink_as_sink(&sealed), run->opts->zstd_level,
				    (int)run->opts->zstd_threads);
		if (rc == 0) {
			/* tar_stream_write closes its sink: that finishes the zstd frame and the stream */
			rc = tar_stream_write(run->src_root, run->manifest, !run->opts->keep_cached,
					      zstd_sink_as_sink(&z), &run->sent);
			run->sent.wire_bytes = sealed.wire;
			zstd_sink_release(&z);
		}
		seal_sink_release(&sealed);
	}
	strategy_one_stream_sent(run, fd);
	return raw_stream_finish(run->target->agent, &fd, 1, rc, &run->received);
}

const struct strategy strategy_zstd = {
	.name = "zstd",
	.summary = "tar stream compressed with multi-threaded zstd, one TCP stream to the agent",
	.flags = STRATEGY_COMPRESSED | STRATEGY_CLEARTEXT,
	.preserves = PRESERVE_ALL,
	.traits = STRATEGY_TRAITS_TAR_TO_AGENT,
	.real_command = "tar -cf - -C DIR . | zstd -T0 | nc -N ADDR PORT, on HOST: nc -l PORT | zstd -d | tar -xf - -C DST",
	.run = zstd_run,
};
