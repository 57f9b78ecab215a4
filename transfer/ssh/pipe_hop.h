#ifndef XFERCMP_PIPE_HOP_H
#define XFERCMP_PIPE_HOP_H

/*
 * A pipe of `tar -cf - | zstd | ssh host tar -xf -`: a byte sink whose bytes
 * cross a pipe to a second thread, the next process of the real pipeline,
 * which hands them to the next sink (the exec channel, or the compressor).
 * Every byte is copied into the kernel and out again and each pipe-full wakes
 * another task, as it does between the real tools.
 *
 * While the hop runs only its thread uses the next sink: the caller writes
 * to the hop alone until it closes it.
 */

#include "err.h"
#include "stream/tar_stream.h"

#include <pthread.h>
#include <stdatomic.h>

struct pipe_hop {
	struct byte_sink *next;
	const char *reader;	/* the process reading the pipe, for messages: "ssh" */
	int wfd;		/* the writer's end; -1 once closed */
	int rfd;		/* the hop thread's end */
	pthread_t thread;
	int running;
	atomic_int abandoned;	/* released unclosed: the hop hands on nothing more */
	int failed;		/* the hop stopped early */
	struct err_saved error;	/* why, for the writer to raise */
};

/*
 * Starts the hop thread in front of next; reader names what it stands for
 * ("ssh", "zstd") in messages. Returns 0 or -1 (error set; nothing left
 * running or open).
 */
int pipe_hop_start(struct pipe_hop *h, struct byte_sink *next, const char *reader);

/*
 * The sink the caller writes into. Its write fails with the next sink's
 * error once that failed; its close waits for the hop to hand everything on
 * and close the next sink, and returns what that returned.
 */
void pipe_hop_sink(struct pipe_hop *h, struct byte_sink *out);

/*
 * Waits for the thread. If the caller did not close the sink (its side
 * failed), the stream is abandoned: what the pipe still holds is dropped and
 * the next sink is not closed, so the far end sees a cut stream, not a
 * shorter complete one. Safe on a zeroed hop (fds -1), and twice.
 */
void pipe_hop_release(struct pipe_hop *h);

#endif
