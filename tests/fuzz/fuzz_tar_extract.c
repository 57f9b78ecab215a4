/*
 * libFuzzer target: tar_stream_extract (transfer/stream/tar_stream.h) on arbitrary
 * bytes, plain or zstd, as the agent gets them from the network: all at
 * once, then in 2 to 8 pieces, each sent once the one before it is read.
 * The socket reports the end of the stream after the last byte, so the
 * extraction must return. Beyond the sanitizers, a run must leave nothing outside its
 * destination, only directories, regular files and symbolic links inside
 * it (every name of a hard-linked file inside too), no set-id bit, no fd
 * open, and on success must have read the whole input.
 */
#include "harness.h"
#include "stream/tar_stream.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	harness_jail_init("tar");
	return 0;
}

static void extract_once(const uint8_t *data, size_t size, size_t chunk)
{
	struct harness_feed feed;
	struct recv_stats st;
	char dest[HARNESS_DEST_MAX];
	int fds = harness_count_fds(), rc;

	harness_dest_make(dest);
	harness_feed_start(&feed, data, size, chunk);
	rc = tar_stream_extract(feed.rd, dest, &st);
	harness_feed_finish(&feed);
	if (st.wire_bytes > size) {
		fprintf(stderr, "INVARIANT VIOLATED: %zu bytes sent, %llu read\n", size,
			(unsigned long long)st.wire_bytes);
		abort();
	}
	/* after the end marker the stream is read to its end */
	if (rc == 0 && st.wire_bytes != size) {
		fprintf(stderr, "INVARIANT VIOLATED: success after reading %llu of %zu bytes\n",
			(unsigned long long)st.wire_bytes, size);
		abort();
	}
	harness_dest_check_links(dest, fds);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t pieces = 2 + size % 7;

	extract_once(data, size, 0);
	if (size >= 2)
		extract_once(data, size, (size + pieces - 1) / pieces);
	return 0;
}
