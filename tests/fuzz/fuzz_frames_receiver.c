/*
 * libFuzzer target: the record stream receiver (transfer/stream/frames_receiver.h)
 * on arbitrary bytes, as the agent gets them from the network, through
 * frames_receive_at (the agent's entry). The input is the whole stream of
 * records, sealed in authenticated segments (seal_stream.h) and received
 * three times: all at once in one segment, then in 2 to 8 segments each
 * sent once the one before it is read (so content also arrives after its
 * header, and across segments), then cut as a sender cuts it (a large
 * record's content raw); once unsealed, which must always fail; and its two
 * halves as two streams of one receive, whose end step (frames_tree.h)
 * then applies what both noted. The socket reports its end after the
 * last byte, so the receiver must return. Beyond the sanitizers, a run must
 * leave nothing outside its destination, only directories, symbolic links
 * and regular files inside it (hard links only among names inside it), no
 * set-id bit, no fd open, and counts that agree with what was sent. The
 * seeds (make_seeds.sh) hold every record type, and streams that try to
 * leave through a link.
 */
#include "stream/frames_receiver.h"
#include "stream/frames_tree.h"
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
 * the check), sealed as a sender cuts records (sealed 2: a large record's
 * content raw after its segment, stream/frames.h), or as it is (sealed 0:
 * the segment reader itself, which must never take unsealed bytes), through
 * frames_receive_at, the entry the agent uses, into a destination opened
 * once.
 */
static void receive_once(const uint8_t *data, size_t size, size_t chunk, size_t seg, int sealed)
{
	struct harness_feed feed;
	struct recv_stats st;
	char dest[HARNESS_DEST_MAX];
	size_t len = size;
	uint8_t *bytes = sealed == 2 ? harness_seal_records(data, size, &len) :
			 sealed ? harness_seal(data, size, seg, &len) : (uint8_t *)(uintptr_t)data;
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

/*
 * The multi-stream end step (frames_tree.h): the input's two halves as two
 * streams of one receive into one destination, one after the other, then
 * the end applied (hard links, mtimes, directory modes) when both succeeded.
 */
static void receive_two(const uint8_t *data, size_t size)
{
	struct frames_tree *tree;
	char dest[HARNESS_DEST_MAX];
	int fds = harness_count_fds(), dirfd, ok = 1;
	size_t half = size / 2;

	harness_dest_make(dest);
	dirfd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0 || !(tree = frames_tree_new_at(dirfd, dest)))
		abort();
	for (int i = 0; i < 2; i++) {
		struct harness_feed feed;
		struct recv_stats st;
		size_t len;
		uint8_t *bytes = harness_seal(data + (i ? half : 0), i ? size - half : half, 0, &len);

		harness_feed_start(&feed, bytes, len, 0);
		if (frames_receive_part(tree, dest, feed.rd, &harness_opts, &st) < 0)
			ok = 0;
		harness_feed_finish(&feed);
		free(bytes);
	}
	frames_tree_finish(tree, ok);
	close(dirfd);
	harness_dest_check_links(dest, fds);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t pieces = 2 + size % 7, piece = (size + pieces - 1) / pieces;

	receive_once(data, size, 0, 0, 1);
	if (size >= 2)
		receive_once(data, size, piece, piece, 1);
	receive_once(data, size, 0, 0, 2);
	receive_once(data, size, 0, 0, 0);
	receive_two(data, size);
	return 0;
}
