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

#include <stdint.h>
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

/* As fuzz_frames_receiver: sealed in segments of seg bytes, or not (then it must fail). */
static void extract_once(const uint8_t *data, size_t size, size_t chunk, size_t seg, int sealed)
{
	struct harness_feed feed;
	struct recv_stats st;
	char dest[HARNESS_DEST_MAX];
	size_t len = size;
	uint8_t *bytes = sealed ? harness_seal(data, size, seg, &len) : (uint8_t *)(uintptr_t)data;
	int fds = harness_count_fds(), rc;

	harness_dest_make(dest);
	harness_feed_start(&feed, bytes, len, chunk);
	rc = tar_stream_extract(feed.rd, &harness_opts, dest, &st);
	harness_feed_finish(&feed);
	if (st.wire_bytes > len) {
		fprintf(stderr, "INVARIANT VIOLATED: %zu bytes sent, %llu read\n", len,
			(unsigned long long)st.wire_bytes);
		abort();
	}
	/* after the end marker the stream is read to its end */
	if (rc == 0 && st.wire_bytes != len) {
		fprintf(stderr, "INVARIANT VIOLATED: success after reading %llu of %zu bytes\n",
			(unsigned long long)st.wire_bytes, len);
		abort();
	}
	if (!sealed && rc == 0) {
		fprintf(stderr, "INVARIANT VIOLATED: %zu unsealed bytes taken as a stream\n", size);
		abort();
	}
	harness_dest_check_links(dest, fds);
	if (sealed)
		free(bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t pieces = 2 + size % 7, piece = (size + pieces - 1) / pieces;

	extract_once(data, size, 0, 0, 1);
	if (size >= 2)
		extract_once(data, size, piece, piece, 1);
	extract_once(data, size, 0, 0, 0);
	return 0;
}
