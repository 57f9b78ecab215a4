/*
 * The pipes between tar, zstd and ssh (pipe_hop.h). Without them the tar-ssh
 * model ran 0.83-0.91x the time of `tar | ssh` on one 4 GiB file: on two
 * cores the pipe's copies and wake-ups are part of what the real pipeline
 * costs (docs/BENCHMARKS.md).
 */
#define _GNU_SOURCE
#include "ssh/pipe_hop.h"

#include "fsutil.h"
#include "pipeutil.h"
#include "ssh/ssh_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The pipe's size: pipe_hop_buffer (pipe_hop.h). What the hop gathers
 * before one write to the next sink: an SSH channel wants large writes
 * (each ssh_exec_write ends with a blocking flush), so at least
 * HOP_MIN_WRITE unless the stream ends first.
 */
#define HOP_BUF SSH_EXEC_WRITE_MAX
#define HOP_MIN_WRITE (256u << 10)

/* Keeps this thread's message for the writer, who raises it when it joins. */
static void hop_fail(struct pipe_hop *h)
{
	h->failed = 1;
	err_save(&h->error);
}

static void *hop_main(void *arg)
{
	struct pipe_hop *h = arg;
	char *buf = malloc(HOP_BUF);
	size_t fill = 0;

	if (!buf) {
		err_set("out of memory for the pipe to %s", h->reader);
		hop_fail(h);
		goto out;
	}
	for (;;) {
		ssize_t n = read(h->rfd, buf + fill, HOP_BUF - fill);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err_errno("cannot read the pipe to %s", h->reader);
			hop_fail(h);
			break;
		}
		if (n == 0 && atomic_load(&h->abandoned))
			break;
		fill += (size_t)n;
		if ((n == 0 || fill >= HOP_MIN_WRITE) && fill > 0) {
			if (h->next->write(h->next->ctx, buf, fill) < 0) {
				hop_fail(h);
				break;
			}
			fill = 0;
		}
		if (n == 0) {
			if (h->next->close(h->next->ctx) < 0)
				hop_fail(h);
			break;
		}
	}
out:
	free(buf);
	/* a writer still writing gets EPIPE and takes h->error */
	close(h->rfd);
	h->rfd = -1;
	return NULL;
}

int pipe_hop_start(struct pipe_hop *h, struct byte_sink *next, const char *reader,
		   enum pipe_hop_buffer buffer)
{
	int fds[2], e;
	size_t size;

	memset(h, 0, sizeof(*h));
	h->next = next;
	h->reader = reader;
	h->wfd = h->rfd = -1;
	if ((buffer == PIPE_HOP_SSH ? pipe_open_large(fds, &size) : pipe2(fds, O_CLOEXEC)) < 0)
		return err_errno("cannot create the pipe to %s", reader);
	h->rfd = fds[0];
	h->wfd = fds[1];
	e = pthread_create(&h->thread, NULL, hop_main, h);
	if (e != 0) {
		close(fds[0]);
		close(fds[1]);
		h->wfd = h->rfd = -1;
		errno = e;
		return err_errno("cannot start the thread reading the pipe to %s", reader);
	}
	h->running = 1;
	return 0;
}

/* Waits for the thread; its error, if any, becomes this thread's. Returns 0 or -1. */
static int hop_join(struct pipe_hop *h)
{
	if (h->running) {
		pthread_join(h->thread, NULL);
		h->running = 0;
	}
	return h->failed ? err_restore(&h->error) : 0;
}

static int hop_write(void *ctx, const void *buf, size_t len)
{
	struct pipe_hop *h = ctx;

	if (h->wfd < 0)
		return err_set("write after the end of the stream");
	if (fs_write_all(h->wfd, buf, len) == 0)
		return 0;
	if (errno == EPIPE) {
		/* the hop stopped: its reason is the one to give */
		close(h->wfd);
		h->wfd = -1;
		if (hop_join(h) < 0)
			return -1;
		errno = EPIPE;
	}
	return err_errno("cannot write the pipe to %s", h->reader);
}

static int hop_close(void *ctx)
{
	struct pipe_hop *h = ctx;

	if (h->wfd >= 0) {
		close(h->wfd);
		h->wfd = -1;
	}
	return hop_join(h);
}

void pipe_hop_sink(struct pipe_hop *h, struct byte_sink *out)
{
	out->write = hop_write;
	out->close = hop_close;
	out->ctx = h;
}

void pipe_hop_release(struct pipe_hop *h)
{
	if (h->wfd >= 0) {
		atomic_store(&h->abandoned, 1);
		close(h->wfd);
		h->wfd = -1;
	}
	if (h->running) {
		pthread_join(h->thread, NULL);
		h->running = 0;
	}
}
