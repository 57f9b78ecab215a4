/*
 * libFuzzer target: the record stream receiver (transfer/stream/frames_receiver.h)
 * on arbitrary bytes, as the agent gets them from the network, through
 * frames_receive_at (the agent's entry). The input is the whole stream of
 * records, sealed in authenticated segments (seal_stream.h) and received
 * twice: all at once in one segment, then in 2 to 8 segments each sent once
 * the one before it is read (so content also arrives after its header, and
 * across segments); and once unsealed, which must always fail. The socket reports its end after the
 * last byte, so the receiver must return. Beyond the sanitizers, a run must
 * leave nothing outside its destination, only directories, symbolic links
 * and regular files inside it (hard links only among names inside it), no
 * set-id bit, no fd open, and counts that agree with what was sent. The
 * seeds (make_seeds.sh) hold every record type, and streams that try to
 * leave through a link.
 */
#include "stream/frames_receiver.h"
#include "harness.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	harness_jail_init("frames");
	return 0;
}

/*
 * Receives data: sealed in segments of seg bytes (the records parser behind
 * the check), or as it is (sealed 0: the segment reader itself, which must
 * never take unsealed bytes), through frames_receive_at, the entry the
 * agent uses, into a destination opened once.
 */
static void receive_once(const uint8_t *data, size_t size, size_t chunk, size_t seg, int sealed)
{
	struct harness_feed feed;
	struct recv_stats st;
	char dest[HARNESS_DEST_MAX];
	size_t len = size;
	uint8_t *bytes = sealed ? harness_seal(data, size, seg, &len) : (uint8_t *)(uintptr_t)data;
	int fds = harness_count_fds(), rc, dirfd;

	harness_dest_make(dest);
	dirfd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		abort();
	harness_feed_start(&feed, bytes, len, chunk);
	rc = frames_receive_at(feed.rd, &harness_opts, dirfd, dest, &st);
	harness_feed_finish(&feed);
	close(dirfd);
	if (st.wire_bytes > len || st.bytes > size) {
		fprintf(stderr, "INVARIANT VIOLATED: %zu bytes sent, %llu read, %llu written\n", len,
			(unsigned long long)st.wire_bytes, (unsigned long long)st.bytes);
		abort();
	}
	/* bytes after the end record are an error: success means all of it was read */
	if (rc == 0 && st.wire_bytes != len) {
		fprintf(stderr, "INVARIANT VIOLATED: success after reading %llu of %zu bytes "
			"(sent in pieces of %zu)\n", (unsigned long long)st.wire_bytes, len, chunk);
		abort();
	}
	/* bytes without the key's tags never pass */
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

	receive_once(data, size, 0, 0, 1);
	if (size >= 2)
		receive_once(data, size, piece, piece, 1);
	receive_once(data, size, 0, 0, 0);
	return 0;
}
