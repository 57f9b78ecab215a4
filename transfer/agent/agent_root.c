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
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* One path component of ours: no '/', not "." or "..", not empty. */
static int plain_name(const char *name)
{
	return name[0] && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

static void remove_made_parents(struct agent_root *r)
{
	/* innermost first; one that holds something else stays */
	while (r->nmade) {
		struct agent_root_made *m = &r->made[--r->nmade];

		unlinkat(m->dirfd, m->name, AT_REMOVEDIR);
		close(m->dirfd);
	}
}

/*
 * One directory on the way to the parent (its fd, opened without following
 * a link; shown: its path so far, for messages) must be one that only root
 * or the agent's user can change: owned by one of them, and not writable by
 * group or others unless sticky. Otherwise another user could rename a
 * directory on the way and put one of theirs in its place, and every path
 * used under the root by name (the host's own tar and sftp-server for the
 * SSH strategies, the probes, the client's fallback cleanup) would lead into
 * theirs. The agent's own receivers work beneath the root's descriptor
 * whatever happens to the path. OpenSSH's StrictModes walks the same way.
 */
static int check_component(int fd, const char *parent, const char *shown)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return err_errno("cannot use scratch parent '%s'", parent);
	if (st.st_uid != 0 && st.st_uid != geteuid())
		return err_set("scratch parent '%s': '%s' belongs to uid %u, who could move it away and put another directory in its place; choose a parent whose directories belong to root or to you (such as /var/tmp)",
			       parent, shown, (unsigned)st.st_uid);
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
		return err_set(!strcmp(shown, parent) ?
			       "scratch parent '%s' may be written by other users and has no sticky bit: they could move the scratch root away; choose another (or chmod +t it)%.0s" :
			       "scratch parent '%s': '%s' may be written by other users and has no sticky bit, so they could move what is in it away; choose another parent (or chmod +t it)",
			       parent, shown);
	return 0;
}

/*
 * Opens component name of the directory fd without following a link, making
 * it (0755, noted for removal) when missing. Returns the new fd (O_PATH) or
 * -1 (error set: a symbolic link, which whoever owns it may retarget
 * between a check and a use, is refused, naming it).
 */
static int open_component(struct agent_root *r, int fd, const char *name, const char *parent,
			  const char *shown)
{
	const int flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int nfd = openat(fd, name, flags);
	struct stat st;

	if (nfd < 0 && errno == ENOENT) {
		int made = mkdirat(fd, name, 0755) == 0;

		if (!made && errno != EEXIST)
			return err_errno("cannot create directory '%s'", shown);
		if (made && r->nmade < sizeof(r->made) / sizeof(r->made[0])) {
			struct agent_root_made *m = &r->made[r->nmade];

			m->dirfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
			if (m->dirfd >= 0 && snprintf(m->name, sizeof(m->name), "%s", name) < (int)sizeof(m->name))
				r->nmade++;
			else if (m->dirfd >= 0)
				close(m->dirfd);
		}
		nfd = openat(fd, name, flags);
	}
	if (nfd >= 0)
		return nfd;
	if ((errno == ELOOP || errno == ENOTDIR) && fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		return err_set(!strcmp(shown, parent) ?
			       "scratch parent '%s' is a symbolic link: name the directory itself%.0s" :
			       "scratch parent '%s': '%s' is a symbolic link, which its owner may point elsewhere at any time: name the directory it leads to",
			       parent, shown);
	if (errno == ENOTDIR)
		return err_set(!strcmp(shown, parent) ? "scratch parent '%s' is not a directory%.0s" :
			       "scratch parent '%s': '%s' is not a directory", parent, shown);
	return err_errno("cannot use scratch parent '%s'", parent);
}

/*
 * Walks the parent from / one component at a time, each opened beneath the
 * one before with no link followed (O_NOFOLLOW | O_DIRECTORY) and checked
 * with fstat on that very descriptor (check_component), the missing ones
 * made: no name is resolved twice, so nothing can be swapped between a
 * check and the open. Returns the parent's fd (O_PATH) or -1 (error set).
 */
static int walk_parent(struct agent_root *r, const char *parent)
{
	char shown[4096], name[256];
	const char *p = parent;
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	size_t shown_len = 0;

	if (fd < 0)
		return err_errno("cannot open '/'");
	if (check_component(fd, parent, "/") < 0) {
		close(fd);
		return -1;
	}
	for (;;) {
		size_t n;
		int nfd;

		while (*p == '/')
			p++;
		if (!*p)
			return fd;
		n = strcspn(p, "/");
		if (n >= sizeof(name) || shown_len + n + 2 > sizeof(shown)) {
			close(fd);
			return err_set("scratch parent '%s' is too long", parent);
		}
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			close(fd);
			return err_set("scratch parent '%s' has a '..': name the directory plainly", parent);
		}
		shown[shown_len++] = '/';
		memcpy(shown + shown_len, name, n + 1);
		shown_len += n;
		/* the last component named with a trailing '/' is still the parent */
		nfd = open_component(r, fd, name, parent, strspn(p, "/") == strlen(p) ? parent : shown);
		close(fd);
		if (nfd < 0)
			return -1;
		fd = nfd;
		if (check_component(fd, parent, strspn(p, "/") == strlen(p) ? parent : shown) < 0) {
			close(fd);
			return -1;
		}
	}
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
	if (strlen(parent) >= sizeof(r->parent))
		return err_set("scratch parent '%.200s...' is too long", parent);
	if (parent[0] != '/')
		return err_set("scratch parent '%s' is not an absolute path", parent);
	r->parent_fd = walk_parent(r, parent);
	if (r->parent_fd < 0)
		goto fail;
	if (make_fresh(r) < 0)
		goto fail;
	if (snprintf(r->path, sizeof(r->path), "%s%s%s", parent,
		     parent[strlen(parent) - 1] == '/' ? "" : "/", r->name) >= (int)sizeof(r->path)) {
		err_set("scratch parent '%s' is too long", parent);
		goto fail_made;
	}
	if (open_checked(r) < 0 || write_marker(r, id) < 0)
		goto fail_made;
	/*
	 * Held while the agent lives, and by the remover it may hand the root
	 * to (agent_leftover.h): a free lock on a root being removed says its
	 * remover is gone. A directory made a moment ago is no one else's.
	 */
	if (flock(r->fd, LOCK_EX | LOCK_NB) < 0) {
		err_errno("cannot lock scratch root '%s'", r->path);
		goto fail_made;
	}
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
	return agent_root_remove_all_counted(r, NULL);
}

int agent_root_remove_all_counted(struct agent_root *r, struct fs_remove_progress *progress)
{
	struct stat st, lst;

	if (r->fd < 0)
		return 0;
	/* the marker last, once the rest went: a root that could not be emptied keeps it */
	if (fs_empty_dir_parallel(r->fd, AGENT_ROOT_MARKER, r->path, FS_REMOVE_THREADS, progress) < 0)
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

int agent_root_remove_all_retrying(struct agent_root *r)
{
	const struct timespec tick = { 0, AGENT_ROOT_RETRY_TICK_MS * 1000000L };
	int rc;

	for (int waited = 0;; waited += AGENT_ROOT_RETRY_TICK_MS) {
		rc = agent_root_remove_all(r);
		if (rc == 0 || errno != ENOTEMPTY || waited >= AGENT_ROOT_RETRY_MS)
			return rc;
		nanosleep(&tick, NULL);
	}
}

void agent_root_close(struct agent_root *r)
{
	if (r->fd >= 0)
		close(r->fd);
	if (r->parent_fd >= 0)
		close(r->parent_fd);
	r->fd = r->parent_fd = -1;
}
