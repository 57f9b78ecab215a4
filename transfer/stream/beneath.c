/* Paths resolved beneath a directory, never through a link (beneath.h). */
#define _GNU_SOURCE
#include "stream/beneath.h"

#include "err.h"
#include "stream/frames.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int beneath_open(int dirfd, const char *path, uint64_t flags, mode_t mode)
{
	struct open_how how = {
		.flags = flags,
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_SAFE_FLAGS,
	};

	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

int beneath_mkdirs(int dirfd, const char *dest, char *dir)
{
	int pfd = dirfd, fd;
	char *comp = dir;

	fd = beneath_open(dirfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd >= 0)
		return fd;
	if (errno != ENOENT)
		return err_errno("cannot open directory '%s/%s'", dest, dir);
	for (;;) {
		char *slash = strchr(comp, '/');

		if (slash)
			*slash = '\0';
		fd = beneath_open(pfd, comp, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
		if (fd < 0 && errno == ENOENT) {
			/* another connection may make it at the same moment: EEXIST is fine */
			if (mkdirat(pfd, comp, 0755) == 0 || errno == EEXIST)
				fd = beneath_open(pfd, comp, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
		}
		if (slash)
			*slash = '/';
		if (fd < 0)
			err_errno("cannot create directory '%s/%s'", dest, dir);
		if (pfd != dirfd)
			close(pfd);
		if (fd < 0)
			return -1;
		pfd = fd;
		if (!slash)
			return pfd;
		comp = slash + 1;
	}
}

int beneath_parent(int dirfd, const char *dest, const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	char dir[FRAME_PATH_MAX + 1];
	size_t len;
	int fd;

	if (!slash) {
		*base = path;
		fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
		return fd >= 0 ? fd : err_errno("cannot duplicate the descriptor of '%s'", dest);
	}
	len = (size_t)(slash - path);
	if (len > FRAME_PATH_MAX)
		return err_set("path of %zu bytes too long", len);
	memcpy(dir, path, len);
	dir[len] = '\0';
	*base = slash + 1;
	return beneath_mkdirs(dirfd, dest, dir);
}

void beneath_proc_name(int fd, char proc[32])
{
	snprintf(proc, 32, "/proc/self/fd/%d", fd);
}
