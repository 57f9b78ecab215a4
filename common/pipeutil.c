#define _GNU_SOURCE
#include "pipeutil.h"

#include "err.h"

#include <fcntl.h>
#include <unistd.h>

int pipe_open_large(int fds[2], size_t *size)
{
	int got;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return err_errno("cannot create a pipe");
	/* an unprivileged process may not exceed /proc/sys/fs/pipe-max-size: settle for less */
	for (unsigned want = PIPE_WANT; want >= PIPE_MIN; want /= 2)
		if (fcntl(fds[1], F_SETPIPE_SZ, want) >= 0)
			break;
	got = fcntl(fds[1], F_GETPIPE_SZ);
	*size = got > 0 ? (size_t)got : PIPE_MIN;
	return 0;
}
