#include "agent/receivers.h"

#include "err.h"
#include "stream/frames_receiver.h"
#include "stream/frames_tree.h"
#include "agent/agent_probes.h"
#include "stream/seal_stream.h"
#include "stream/tar_stream.h"

#include <string.h>

static void *frames_begin(int destfd, const char *dest)
{
	return frames_tree_new_at(destfd, dest);
}

static int frames_part(void *shared, const char *dest, int sock, const struct recv_opts *o,
		       struct recv_stats *st)
{
	return frames_receive_part(shared, dest, sock, o, st);
}

static int frames_end(void *shared, int ok)
{
	return frames_tree_finish(shared, ok);
}

/*
 * frames_receiver.c holds its stream's segment buffer (SEAL_READER_BUF,
 * about 2 MiB) and up to 128 small files' contents (FRAMES_SMALL_MAX each)
 * in flight; tar_extract.c the segment buffer, zstd's window (at most 8 MiB,
 * tar_source.h) and buffers, and libarchive's own (a few MiB);
 * recv_probe.c 256 KiB and 64 KiB. Each figure is that stream's worst case,
 * rounded up. What a frames receive notes for its end is counted apart
 * (recv_bounds_tree_memory).
 */
#define MIB (1u << 20)
static const struct receiver receivers[] = {
	/*
	 * splice and parallel: the record stream of frames.h, one receiver per
	 * connection; hard links, mtimes and directory modes once all ended
	 */
	{ .name = "frames", .receive = frames_receive_at, .begin = frames_begin,
	  .receive_part = frames_part, .end = frames_end, .max_streams = 64,
	  .stream_memory = SEAL_READER_BUF + 128 * (size_t)FRAMES_SMALL_MAX, .carries_tree = 1,
	  .kind = RECV_FRAMES },
	/* zstd: a tar stream, compressed or not; libarchive detects the filter */
	{ .name = "tar", .receive = tar_stream_extract_at, .max_streams = 1, .stream_memory = 16 * MIB,
	  .carries_tree = 1, .kind = RECV_TAR },
	/* the network probe: a sink, and an echo for round trips */
	{ .name = "discard", .receive = recv_discard, .max_streams = 64, .stream_memory = MIB / 4 },
	{ .name = "echo", .receive = recv_echo, .max_streams = 1, .stream_memory = MIB / 16 },
};

const struct receiver *receiver_find(const char *name)
{
	for (size_t i = 0; i < sizeof(receivers) / sizeof(receivers[0]); i++)
		if (!strcmp(receivers[i].name, name))
			return &receivers[i];
	err_set("the agent has no receiver '%s' (is it an older version?)", name);
	return NULL;
}
