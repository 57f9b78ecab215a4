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
 * How much of the stream the reader takes in before the writer blocks.
 * PIPE_HOP_SHELL: a shell pipe as it comes (64 KiB), for a reader that
 * stops reading while it works on what it read, as zstd does. PIPE_HOP_SSH:
 * as large a pipe as the kernel gives (1 MiB, /proc/sys/fs/pipe-max-size),
 * for ssh, which reads its stdin into the channel while it sends, up to the
 * window the peer opened (2 MiB from OpenSSH's sshd): the hop stops reading
 * while it hands a write to the channel, and behind a 64 KiB pipe our tar
 * waited for each of those hand-offs. 20,000 files through tar-ssh at
 * 1 Gbit/s and 2 ms (2026-12-06): tar waited 0.33 s of its 2.08 s, about
 * 3 ms for each 1 MiB it wrote; behind 1 MiB, 0.03-0.10 s of 1.72-2.01 s.
 */
enum pipe_hop_buffer { PIPE_HOP_SHELL, PIPE_HOP_SSH };

/*
 * Starts the hop thread in front of next; reader names what it stands for
 * ("ssh", "zstd") in messages, buffer how much it takes in ahead. Returns 0
 * or -1 (error set; nothing left running or open).
 */
int pipe_hop_start(struct pipe_hop *h, struct byte_sink *next, const char *reader,
		   enum pipe_hop_buffer buffer);

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
