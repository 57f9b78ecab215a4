#include "agent/receivers.h"

#include "err.h"
#include "stream/frames_receiver.h"
#include "agent/agent_probes.h"
#include "stream/tar_stream.h"

#include <string.h>

static const struct receiver receivers[] = {
	/* splice and parallel: the record stream of frames.h, one receiver per connection */
	{ .name = "frames", .receive = frames_receive, .max_streams = 64 },
	/* zstd: a tar stream, compressed or not; libarchive detects the filter */
	{ .name = "tar", .receive = tar_stream_extract, .max_streams = 1 },
	/* the network probe: a sink, and an echo for round trips */
	{ .name = "discard", .receive = recv_discard, .max_streams = 64 },
	{ .name = "echo", .receive = recv_echo, .max_streams = 1 },
};

const struct receiver *receiver_find(const char *name)
{
	for (size_t i = 0; i < sizeof(receivers) / sizeof(receivers[0]); i++)
		if (!strcmp(receivers[i].name, name))
			return &receivers[i];
	err_set("the agent has no receiver '%s' (is it an older version?)", name);
	return NULL;
}
