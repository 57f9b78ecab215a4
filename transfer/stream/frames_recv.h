#ifndef XFERCMP_FRAMES_RECV_H
#define XFERCMP_FRAMES_RECV_H

/*
 * Inside the record receiver (frames_receiver.h), shared by its three files
 * and nothing else: frames_receiver.c reads the records, frames_create.c
 * creates small whole files many at once through io_uring, frames_write.c
 * writes large files and ranges with plain syscalls. Every byte they use
 * comes checked from the stream's seal_reader (seal_stream.h), but the raw
 * content of a record longer than FRAME_RAW_MIN (frames.h), which
 * frames_write.c splices from the socket.
 */

#include "stream/frames.h"
#include "stream/frames_tree.h"
#include "stream/seal_stream.h"

#include <liburing.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <sys/types.h>

#define FRAMES_MODE_NEVER (S_ISUID | S_ISGID)

struct frames_chain;

struct receiver {
	int dirfd;
	const char *dest;
	struct seal_reader in;	/* the stream, checked segment by segment */
	struct io_uring ring;
	int ring_ok;
	unsigned queued;	/* SQEs not yet submitted */
	struct frames_chain *chains, *free_chains;
	unsigned busy;		/* chains in flight */
	int failed;		/* an error is set: later chain failures must not replace it */
	int stranded;		/* the ring failed with chains in flight: leak, never free */
	int pipefd[2];		/* raw content: socket -> pipe -> file; -1 until needed */
	size_t pipe_size;
	mode_t umask;
	char lastdir[FRAME_PATH_MAX + 1];
	size_t lastdir_len;	/* SIZE_MAX: none yet */
	char path[FRAME_PATH_MAX + 1];
	uint64_t records, content;	/* as announced by the headers that arrived */
	uint64_t files_done, bytes_done;
	struct frames_later later;	/* for the end of the receive: links, times, modes */
	char link[FRAME_PATH_MAX + 1];	/* a link record's content */
};

/* Copies the next len content bytes of the stream into p. Returns 0 or -1 (error set). */
int frames_recv_take(struct receiver *r, unsigned char *p, size_t len);

/* frames_create.c: the ring of small-file creates. */
int frames_create_setup(struct receiver *r);
/* Submits what is queued, so the creates run while this thread waits. Returns 0 or -1. */
int frames_create_submit(struct receiver *r);
/* Handles completions that arrived. Returns 0, or -1 when a chain failed (error set). */
int frames_create_reap(struct receiver *r);
/* Reads a small file's content and queues its create. Returns 0 or -1 (error set). */
int frames_create_small(struct receiver *r, const struct frame *f, mode_t mode);
/* Waits for every chain in flight. Returns 0, or -1 when one failed (error set). */
int frames_create_drain(struct receiver *r);
/* Tears the ring down (after a drain) and frees the chains unless stranded. */
void frames_create_release(struct receiver *r);

/* frames_write.c: a large file or a range, by plain syscalls. Returns 0 or -1 (error set). */
int frames_write_sync(struct receiver *r, const struct frame *f, mode_t mode, int chmod_needed);

#endif
