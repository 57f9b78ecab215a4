#ifndef XFERCMP_PIPEUTIL_H
#define XFERCMP_PIPEUTIL_H

#include <stddef.h>

/* The pipe size splice asks for, and the least it settles for. */
#define PIPE_WANT (1u << 20)
#define PIPE_MIN (64u << 10)

/*
 * Creates a close-on-exec pipe for splicing through, as large as it may be
 * up to PIPE_WANT: an unprivileged process may not exceed
 * /proc/sys/fs/pipe-max-size, so it halves down to PIPE_MIN before keeping
 * the default. *size is the pipe's size (PIPE_MIN if the kernel will not
 * say). Returns 0, or -1 (error set; fds untouched).
 */
int pipe_open_large(int fds[2], size_t *size);

#endif
