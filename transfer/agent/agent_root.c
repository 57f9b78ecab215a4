/* The agent's scratch root. See agent_root.h. */
#define _GNU_SOURCE
#include "agent/agent_root.h"

#include "agent/agent.h"
#include "stream/agent_startup.h"
#include "err.h"
#include "fs_remove.h"
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One path component of ours: no '/', not "." or "..", not empty. */
static int plain_name(const char *name)
{
	return name[0] && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/* Creates the missing directories of path, outermost first, noting each it made. */
static int make_parents(struct agent_root *r, const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return err_set("scratch parent '%s' is empty or too long", path);
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1;; p++) {
		int last = *p == '\0';

		if (*p != '/' && !last)
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) == 0) {
			if (r->nmade < sizeof(r->made_parents) / sizeof(r->made_parents[0]))
				snprintf(r->made_parents[r->nmade++], sizeof(r->made_parents[0]), "%s", buf);
		} else if (errno != EEXIST) {
			return err_errno("cannot create directory '%s'", buf);
		}
		if (last)
			break;
		*p = '/';
	}
	return 0;
}

static void remove_made_parents(struct agent_root *r)
{
	/* innermost first; one that holds something else stays */
	while (r->nmade)
		rmdir(r->made_parents[--r->nmade]);
}

/*
 * Every directory from / down to the parent (its real path) must be one
 * that only root or the agent's user can change: owned by one of them, and
 * not writable by group or others unless sticky. Otherwise another user
 * could rename a directory on the way and put one of theirs in its place,
 * and every path used under the root by name (the host's own tar and
 * sftp-server for the SSH strategies, the probes, the client's fallback
 * cleanup) would lead into theirs. The agent's own receivers work beneath
 * the root's descriptor whatever happens to the path. OpenSSH's StrictModes
 * walks the same way.
 */
static int check_ancestors(const char *parent)
{
	char *real = realpath(parent, NULL), *p;
	uid_t me = geteuid();
	int rc = 0;

	if (!real)
		return err_errno("cannot use scratch parent '%s'", parent);
	for (p = real;; p++) {
		char keep = *p;
		struct stat st;

		if (keep != '/' && keep != '\0')
			continue;
		*p = '\0';
		if (stat(p == real ? "/" : real, &st) < 0) {
			rc = err_errno("cannot use scratch parent '%s'", parent);
		} else if (st.st_uid != 0 && st.st_uid != me) {
			rc = err_set("scratch parent '%s': '%s' belongs to uid %u, who could move it away and put another directory in its place; choose a parent whose directories belong to root or to you (such as /var/tmp)",
				     parent, p == real ? "/" : real, (unsigned)st.st_uid);
		} else if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
			rc = err_set("scratch parent '%s': '%s' may be written by other users and has no sticky bit, so they could move what is in it away; choose another parent (or chmod +t it)",
				     parent, p == real ? "/" : real);
		}
		*p = keep;
		if (rc < 0 || keep == '\0')
			break;
	}
	free(real);
	return rc;
}

/* Checks the parent: a real directory, not one others may rename things in. */
static int check_parent(const char *parent)
{
	struct stat st;

	if (lstat(parent, &st) < 0)
		return err_errno("cannot use scratch parent '%s'", parent);
	if (S_ISLNK(st.st_mode))
		return err_set("scratch parent '%s' is a symbolic link: name the directory itself", parent);
	if (!S_ISDIR(st.st_mode))
		return err_set("scratch parent '%s' is not a directory", parent);
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
		return err_set("scratch parent '%s' may be written by other users and has no sticky bit: they could move the scratch root away; choose another (or chmod +t it)",
			       parent);
	return check_ancestors(parent);
}

/*
 * Makes PREFIX + 6 random characters in dirfd, mode 0700, a fresh name each
 * try: mkdtemp relative to a descriptor. name (len bytes) gets the name.
 * Returns 0, or -1 with errno (EEXIST when every name tried exists).
 */
static int mkdir_fresh(int dirfd, const char *prefix, char *name, size_t len)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

	for (int tries = 0; tries < 100; tries++) {
		unsigned char rnd[6];

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return -1;
		if (snprintf(name, len, "%s%c%c%c%c%c%c", prefix, set[rnd[0] % 62], set[rnd[1] % 62],
			     set[rnd[2] % 62], set[rnd[3] % 62], set[rnd[4] % 62],
			     set[rnd[5] % 62]) >= (int)len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (mkdirat(dirfd, name, 0700) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

/* Makes xfercmp.XXXXXX in the parent, mode 0700. */
static int make_fresh(struct agent_root *r)
{
	if (mkdir_fresh(r->parent_fd, AGENT_ROOT_PREFIX, r->name, sizeof(r->name)) < 0)
		return err_errno("cannot create a scratch root in '%s'", r->parent);
	return 0;
}

/* Opens the root just made and checks it is what mkdirat made: ours, 0700, a directory. */
static int open_checked(struct agent_root *r)
{
	struct stat st, lst;

	r->fd = openat(r->parent_fd, r->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (r->fd < 0)
		return err_errno("cannot open scratch root '%s'", r->path);
	/* the umask may have taken bits; no one else gets any */
	if (fchmod(r->fd, 0700) < 0 || fstat(r->fd, &st) < 0 ||
	    fstatat(r->parent_fd, r->name, &lst, AT_SYMLINK_NOFOLLOW) < 0)
		return err_errno("cannot check scratch root '%s'", r->path);
	if (!S_ISDIR(lst.st_mode) || lst.st_ino != st.st_ino || lst.st_dev != st.st_dev ||
	    st.st_uid != geteuid() || (st.st_mode & 07777) != 0700)
		return err_set("scratch root '%s' is not the directory the agent just made", r->path);
	return 0;
}

static int write_marker(struct agent_root *r, const char *id)
{
	int fd = openat(r->fd, AGENT_ROOT_MARKER, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0600);
	int rc;

	if (fd < 0)
		return err_errno("cannot write the marker in scratch root '%s'", r->path);
	rc = fs_write_all(fd, id, strlen(id)) < 0 || fs_write_all(fd, "\n", 1) < 0 ? -1 : 0;
	if (close(fd) < 0 || rc < 0)
		return err_errno("cannot write the marker in scratch root '%s'", r->path);
	return 0;
}

int agent_root_make(struct agent_root *r, const char *parent, const char *id)
{
	memset(r, 0, sizeof(*r));
	r->fd = r->parent_fd = -1;
	snprintf(r->parent, sizeof(r->parent), "%s", parent);
	if (parent[0] != '/')
		return err_set("scratch parent '%s' is not an absolute path", parent);
	if (make_parents(r, parent) < 0 || check_parent(parent) < 0)
		goto fail;
	r->parent_fd = open(parent, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (r->parent_fd < 0) {
		err_errno("cannot open scratch parent '%s'", parent);
		goto fail;
	}
	if (make_fresh(r) < 0)
		goto fail;
	if (snprintf(r->path, sizeof(r->path), "%s%s%s", parent,
		     parent[strlen(parent) - 1] == '/' ? "" : "/", r->name) >= (int)sizeof(r->path)) {
		err_set("scratch parent '%s' is too long", parent);
		goto fail_made;
	}
	if (open_checked(r) < 0 || write_marker(r, id) < 0)
		goto fail_made;
	return 0;
fail_made: {
	struct err_saved saved;

	err_save(&saved);
	if (r->fd >= 0)
		fs_empty_marked_dir(r->fd, AGENT_ROOT_MARKER, r->path);
	unlinkat(r->parent_fd, r->name, AT_REMOVEDIR);
	err_restore(&saved);
}
fail:
	agent_root_close(r);
	remove_made_parents(r);
	return -1;
}

int agent_root_mkdir(struct agent_root *r, const char *name)
{
	if (!plain_name(name))
		return err_set("'%s' is not a name for a destination", name);
	if (mkdirat(r->fd, name, 0700) < 0)
		return err_errno("cannot create destination '%s/%s'", r->path, name);
	return 0;
}

int agent_root_open_dir(const struct agent_root *r, const char *name)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
	};
	int fd = (int)syscall(SYS_openat2, r->fd, name, &how, sizeof(how));

	/* kernels before 5.6: one component, not followed, is as strict */
	if (fd < 0 && errno == ENOSYS) {
		if (!plain_name(name)) {
			errno = EXDEV;
			return err_errno("cannot open '%s' beneath '%s'", name, r->path);
		}
		fd = openat(r->fd, name, (int)how.flags);
	}
	if (fd < 0 && (errno == ENOTDIR || errno == ELOOP)) {
		struct stat st;

		if (fstatat(r->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			return err_set("'%s' in '%s' is a symbolic link now, not the directory the agent made: refused (something else with this user's rights changed the scratch root)",
				       name, r->path);
	}
	if (fd < 0)
		return err_errno("cannot open '%s' beneath '%s'", name, r->path);
	return fd;
}

int agent_root_make_temp(const struct agent_root *r, const char *prefix, char *name, size_t len)
{
	char pre[64];
	int fd;

	if (snprintf(pre, sizeof(pre), "%s.", prefix) >= (int)sizeof(pre) || !plain_name(prefix))
		return err_set("'%s' is not a prefix for a directory in the scratch root", prefix);
	if (mkdir_fresh(r->fd, pre, name, len) < 0)
		return err_errno("cannot create '%sXXXXXX' in scratch root '%s'", pre, r->path);
	fd = agent_root_open_dir(r, name);
	if (fd < 0) {
		struct err_saved saved;

		err_save(&saved);
		agent_root_remove(r, name);
		return err_restore(&saved);
	}
	return fd;
}

int agent_root_remove(const struct agent_root *r, const char *name)
{
	char label[4200];

	if (!plain_name(name))
		return err_set("'%s' is not a name for a destination", name);
	snprintf(label, sizeof(label), "%s/%s", r->path, name);
	return fs_remove_tree_parallel(r->fd, name, label, FS_REMOVE_THREADS, NULL);
}

int agent_root_remove_all(struct agent_root *r)
{
	struct stat st, lst;

	if (r->fd < 0)
		return 0;
	/* the marker last, once the rest went: a root that could not be emptied keeps it */
	if (fs_empty_dir_parallel(r->fd, AGENT_ROOT_MARKER, r->path, FS_REMOVE_THREADS, NULL) < 0)
		return -1;
	if (unlinkat(r->fd, AGENT_ROOT_MARKER, 0) < 0 && errno != ENOENT)
		return err_errno("cannot remove '%s/%s'", r->path, AGENT_ROOT_MARKER);
	/* the name in the parent must still be this directory: never remove another */
	if (fstat(r->fd, &st) == 0 && fstatat(r->parent_fd, r->name, &lst, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_ino == lst.st_ino && st.st_dev == lst.st_dev &&
	    unlinkat(r->parent_fd, r->name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return err_errno("cannot remove '%s'", r->path);
	agent_root_close(r);
	remove_made_parents(r);
	return 0;
}

void agent_root_close(struct agent_root *r)
{
	if (r->fd >= 0)
		close(r->fd);
	if (r->parent_fd >= 0)
		close(r->parent_fd);
	r->fd = r->parent_fd = -1;
}
