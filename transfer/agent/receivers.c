#include "agent/receivers.h"

#include "err.h"
#include "stream/frames_receiver.h"
#include "agent/agent_probes.h"
#include "stream/tar_stream.h"

#include <string.h>

/*
 * frames_receiver.c holds a 1 MiB read buffer and up to 128 small files'
 * contents (FRAMES_SMALL_MAX each) in flight; tar_extract.c a 1 MiB read
 * block and libarchive's own buffers (a few MiB); recv_probe.c 256 KiB and
 * 64 KiB. Each figure is that stream's worst case, rounded up.
 */
#define MIB (1u << 20)
static const struct receiver receivers[] = {
	/* splice and parallel: the record stream of frames.h, one receiver per connection */
	{ .name = "frames", .receive = frames_receive, .max_streams = 64,
	  .stream_memory = MIB + 128 * (size_t)FRAMES_SMALL_MAX },
	/* zstd: a tar stream, compressed or not; libarchive detects the filter */
	{ .name = "tar", .receive = tar_stream_extract, .max_streams = 1, .stream_memory = 16 * MIB },
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
