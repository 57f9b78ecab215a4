#include "stream/pathcheck.h"

#include "err.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int pathcheck_relative(const char *path, size_t len)
{
	size_t start = 0, depth = 0;

	if (len == 0)
		return err_set("empty path");
	if (memchr(path, '\0', len))
		return err_set("path contains a NUL byte");
	if (path[0] == '/')
		return err_set("absolute path '%.*s'", (int)(len > 200 ? 200 : len), path);
	while (start <= len) {
		const char *slash = memchr(path + start, '/', len - start);
		size_t end = slash ? (size_t)(slash - path) : len;
		size_t n = end - start;

		if (n == 0)
			return err_set("empty component in path '%.*s'", (int)(len > 200 ? 200 : len), path);
		if (n > 255)
			return err_set("path component longer than 255 bytes");
		if ((n == 1 && path[start] == '.') || (n == 2 && path[start] == '.' && path[start + 1] == '.'))
			return err_set("path '%.*s' has a '.' or '..' component",
				       (int)(len > 200 ? 200 : len), path);
		if (++depth > PATHCHECK_MAX_DEPTH)
			return err_set("path deeper than %d components", PATHCHECK_MAX_DEPTH);
		start = end + 1;
		if (!slash)
			break;
	}
	return 0;
}

int pathcheck_open_beneath(int dirfd, const char *path, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)flags,
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
	};

	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}
