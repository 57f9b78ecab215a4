/* The removers at work for this user on this host. See agent_remover_list.h. */
#define _GNU_SOURCE
#include "agent/agent_remover_list.h"

#include "err.h"
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define REMOVER_LIST_MAX 64
/* an entry's name: two hexadecimal numbers (a device, an inode) and a dash fit */
#define REMOVER_NAME_SLOT 48

/* Opens (makes, 0700, when make) name in dir_fd: a directory of the user's, never through a link. -1 when not. */
static int open_own_dir(int dir_fd, const char *name, bool make)
{
	struct stat st;
	int fd;

	if (make && mkdirat(dir_fd, name, 0700) < 0 && errno != EEXIST)
		return -1;
	fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_uid != geteuid())) {
		close(fd);
		return -1;
	}
	return fd;
}

int agent_remover_list_open(bool make)
{
	static const char *const below[] = { ".cache", "xfercmp", "removers" };
	const char *home = getenv("HOME");
	int fd, next;

	if (!home || home[0] != '/' || (fd = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(below) / sizeof(below[0]); i++) {
		next = open_own_dir(fd, below[i], make);
		close(fd);
		if ((fd = next) < 0)
			return -1;
	}
	return fd;
}

int agent_remover_list_add(int dir_fd, const struct agent_root *r, char *name, size_t len)
{
	struct stat st;
	size_t n = strlen(r->path);
	int fd;

	if (fstat(r->fd, &st) < 0)
		return err_errno("cannot stat scratch root '%s'", r->path);
	snprintf(name, len, "%llx-%llx", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	fd = openat(dir_fd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return err_errno("cannot list the remover of '%s'", r->path);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0 || write(fd, r->path, n) != (ssize_t)n) {
		err_errno("cannot list the remover of '%s'", r->path);
		unlinkat(dir_fd, name, 0);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The entry name in dir_fd: waits while its remover holds it; when its
 * remover is gone without unlinking it, finishes the root it names and
 * drops it. 0 or -1 (error set).
 */
static int finish_entry(int dir_fd, const char *name, struct agent_leftover_progress *progress)
{
	int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), parent_fd, rc = 0;
	char path[4096], *slash;
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return 0;	/* its remover finished meanwhile */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return 0;	/* not an entry of ours */
	}
	/* written before its remover started: the root the wait's message names */
	n = pread(fd, path, sizeof(path) - 1, 0);
	path[n > 0 ? n : 0] = '\0';
	if (agent_leftover_wait(fd, n > 0 ? path : name, progress) < 0) {
		close(fd);
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		err_errno("cannot stat '%s'", name);
		close(fd);
		return -1;
	}
	close(fd);
	if (st.st_nlink == 0)
		return 0;	/* the remover removed its root and its entry */
	slash = strrchr(path, '/');
	if (n > 0 && path[0] == '/' && slash && agent_leftover_name(slash + 1)) {
		*slash = '\0';
		parent_fd = open(slash == path ? "/" : path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (parent_fd >= 0) {
			rc = agent_leftover_finish_root(parent_fd, path, slash + 1, progress);
			close(parent_fd);
		}
	}
	/* a root that is gone, not ours, or not a remover's: nothing left to wait for */
	if (rc == 0)
		unlinkat(dir_fd, name, 0);
	return rc;
}

/* fs_dir_names' filter: an entry of the list (not "." or ".."; a name is a device and an inode) */
static int list_entry(const char *name, const void *unused)
{
	(void)unused;
	return name[0] != '.';
}

int agent_remover_list_finish(struct agent_leftover_progress *progress)
{
	int dir_fd = agent_remover_list_open(false), rc = 0;
	char *names;
	unsigned n;

	if (dir_fd < 0)
		return 0;
	/* more than REMOVER_LIST_MAX at once: the next run takes the rest */
	if (fs_dir_names(dir_fd, REMOVER_LIST_MAX, REMOVER_NAME_SLOT, list_entry, NULL, &names, &n) < 0) {
		err_errno("cannot list the removers at work");
		close(dir_fd);
		return -1;
	}
	for (unsigned i = 0; i < n && rc == 0; i++)
		rc = finish_entry(dir_fd, names + (size_t)i * REMOVER_NAME_SLOT, progress);
	free(names);
	close(dir_fd);
	return rc;
}
