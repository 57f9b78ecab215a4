/*
 * libFuzzer target: the record stream receiver (transfer/stream/frames_receiver.h)
 * on arbitrary bytes, as the agent gets them from the network. The input is
 * the whole stream, received twice: all at once, then in 2 to 8 pieces, each
 * sent once the one before it is read (so content also arrives after its
 * header and goes the splice way). The socket reports its end after the
 * last byte, so the receiver must return. Beyond the sanitizers, a run must
 * leave nothing outside its destination, only directories, symbolic links
 * and regular files inside it (hard links only among names inside it), no
 * set-id bit, no fd open, and counts that agree with what was sent. The
 * seeds (make_seeds.sh) hold every record type, and streams that try to
 * leave through a link.
 */
#include "stream/frames_receiver.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	harness_jail_init("frames");
	return 0;
}

static void receive_once(const uint8_t *data, size_t size, size_t chunk)
{
	struct harness_feed feed;
	struct recv_stats st;
	char dest[HARNESS_DEST_MAX];
	int fds = harness_count_fds(), rc;

	harness_dest_make(dest);
	harness_feed_start(&feed, data, size, chunk);
	rc = frames_receive(feed.rd, dest, &st);
	harness_feed_finish(&feed);
	if (st.wire_bytes > size || st.bytes > size) {
		fprintf(stderr, "INVARIANT VIOLATED: %zu bytes sent, %llu read, %llu written\n", size,
			(unsigned long long)st.wire_bytes, (unsigned long long)st.bytes);
		abort();
	}
	/* bytes after the end record are an error: success means all of it was read */
	if (rc == 0 && st.wire_bytes != size) {
		fprintf(stderr, "INVARIANT VIOLATED: success after reading %llu of %zu bytes "
			"(sent in pieces of %zu)\n", (unsigned long long)st.wire_bytes, size, chunk);
		abort();
	}
	harness_dest_check_links(dest, fds);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t pieces = 2 + size % 7;

	receive_once(data, size, 0);
	if (size >= 2)
		receive_once(data, size, (size + pieces - 1) / pieces);
	return 0;
}
