#define _GNU_SOURCE
#include "fsutil.h"

#include "err.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

int fs_mkdir_p(const char *path)
{
	char buf[4096];
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof(buf))
		return err_set("invalid directory path '%s'", path);
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return err_errno("cannot create directory '%s'", buf);
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return err_errno("cannot create directory '%s'", buf);
	return 0;
}

/*
 * One removal walk. It goes on past a failure: what can go, goes (a
 * directory another thread is still filling fails its rmdir, and the walk
 * must not stop there); the first failure is kept for the message.
 */
struct remove_walk {
	dev_t dev;		/* the tree's file system: a mount inside is not entered */
	int first_errno;
	char first_path[4096];	/* where the first failure was, below the root */
	char rel[4096];		/* the path being walked, below the root (messages only) */
};

static void remove_failed(struct remove_walk *w, const char *name, int e)
{
	if (w->first_errno || e == ENOENT)
		return;
	w->first_errno = e;
	/* cut to fit if need be: it is for the message */
	if (snprintf(w->first_path, sizeof(w->first_path), "%s%s%s", w->rel, w->rel[0] ? "/" : "",
		     name) < 0)
		w->first_path[0] = '\0';
}

/*
 * Makes the directory fd writable and searchable for its owner, the least a
 * walk needs to empty it. Called only once something in it was refused, and
 * once per directory (*done): a second refusal is not about the mode.
 */
static int open_up(int fd, int *done)
{
	struct stat st;

	if (*done || fstat(fd, &st) < 0)
		return -1;
	*done = 1;
	if ((st.st_mode & S_IRWXU) == S_IRWXU)
		return -1;
	return fchmod(fd, (st.st_mode & 07777) | S_IRWXU);
}

/* Whether a refusal (errno) inside the directory dirfd may go once it is opened up. */
static int refused_until_opened(int dirfd, int *opened_up)
{
	int e = errno;

	if ((e != EACCES && e != EPERM) || open_up(dirfd, opened_up) < 0) {
		errno = e;
		return 0;
	}
	return 1;
}

int fs_open_dir_at(int dirfd, const char *name, unsigned mode)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	/* a 0000 or 0300 directory: its owner may read it once it says so */
	if (fd < 0 && errno == EACCES &&
	    fchmodat(dirfd, name, (mode & 07777) | S_IRWXU, AT_SYMLINK_NOFOLLOW) == 0)
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

static void empty_dir(struct remove_walk *w, int fd, const char *skip);

/*
 * Removes the entry name of the directory dirfd and everything below it.
 * A symbolic link is unlinked, never followed: the type comes from fstatat
 * with AT_SYMLINK_NOFOLLOW, and a directory is opened with O_NOFOLLOW.
 */
static void remove_entry(struct remove_walk *w, int dirfd, const char *name, int *opened_up)
{
	struct stat st;
	size_t len;
	int fd, rc;

	rc = fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW);
	if (rc < 0 && refused_until_opened(dirfd, opened_up))
		rc = fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW);
	if (rc < 0) {
		remove_failed(w, name, errno);
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		if (st.st_dev != w->dev) {
			remove_failed(w, name, EXDEV);
			return;
		}
		fd = fs_open_dir_at(dirfd, name, st.st_mode);
		if (fd < 0) {
			remove_failed(w, name, errno);
			return;
		}
		len = strlen(w->rel);
		if (len + 1 + strlen(name) < sizeof(w->rel))
			sprintf(w->rel + len, "%s%s", len ? "/" : "", name);
		empty_dir(w, fd, NULL);
		close(fd);
		w->rel[len] = '\0';
	}
	rc = unlinkat(dirfd, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
	/* the directory holding it refused: write permission */
	if (rc < 0 && refused_until_opened(dirfd, opened_up))
		rc = unlinkat(dirfd, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
	if (rc < 0)
		remove_failed(w, name, errno);
}

int fs_dir_names(int dirfd, unsigned max, size_t slot, int (*keep)(const char *name, const void *ctx),
		 const void *ctx, char **names, unsigned *n)
{
	/* a description of its own: a dup would share the caller's offset, and leave it at the end */
	int rfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), e;
	char *list = calloc(max ? max : 1, slot);
	DIR *d = rfd < 0 || !list ? NULL : fdopendir(rfd);
	struct dirent *de;
	size_t len;

	*names = NULL;
	*n = 0;
	if (!d) {
		e = rfd < 0 || list ? errno : ENOMEM;
		if (rfd >= 0)
			close(rfd);
		free(list);
		errno = e;
		return -1;
	}
	while (*n < max && (de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len < slot && keep(de->d_name, ctx))
			memcpy(list + (size_t)(*n)++ * slot, de->d_name, len + 1);
	}
	closedir(d);
	*names = list;
	return 0;
}

/*
 * Removes every entry of the directory fd but skip (if any); fd stays open.
 * Entries are removed while the directory is read; a pass that removed
 * something is followed by another, since removing during readdir may let
 * an entry be skipped, and a directory another thread fills gets emptied.
 */
static void empty_dir(struct remove_walk *w, int fd, const char *skip)
{
	int rfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = rfd < 0 ? NULL : fdopendir(rfd);
	struct dirent *de;
	int opened_up = 0, removed;

	if (!d) {
		remove_failed(w, ".", errno);
		if (rfd >= 0)
			close(rfd);
		return;
	}
	do {
		removed = 0;
		errno = 0;
		while ((de = readdir(d)) != NULL) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
			    (skip && !strcmp(de->d_name, skip)))
				continue;
			remove_entry(w, fd, de->d_name, &opened_up);
			removed = 1;
			errno = 0;
		}
		if (errno)
			remove_failed(w, ".", errno);
		rewinddir(d);
	} while (removed && !w->first_errno);
	closedir(d);
}

/*
 * Removes what is below the directory name of dirfd, last_name (if any) last
 * and only if all the rest went, then the directory itself; label names it
 * in messages. Returns 0 or -1 (error set).
 */
static int remove_dir_tree(int dirfd, const char *name, const char *label, const struct stat *st,
			   const char *last_name)
{
	struct remove_walk w = { .dev = st->st_dev };
	int fd = fs_open_dir_at(dirfd, name, st->st_mode), opened_up = 0;

	if (fd < 0)
		return errno == ENOENT ? 0 : err_errno("cannot remove '%s'", label);
	empty_dir(&w, fd, last_name);
	if (last_name && !w.first_errno)
		remove_entry(&w, fd, last_name, &opened_up);
	close(fd);
	if (w.first_errno) {
		errno = w.first_errno;
		return err_errno("cannot remove '%s' (first at '%s')", label, w.first_path);
	}
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return err_errno("cannot remove '%s'", label);
	return 0;
}

static int remove_tree_at(int dirfd, const char *name, const char *label, const char *last_name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : err_errno("cannot remove '%s'", label);
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, name, 0) < 0 && errno != ENOENT ?
		       err_errno("cannot remove '%s'", label) : 0;
	return remove_dir_tree(dirfd, name, label, &st, last_name);
}

int fs_remove_tree(const char *path)
{
	return remove_tree_at(AT_FDCWD, path, path, NULL);
}

int fs_remove_marked_tree(const char *path, const char *marker)
{
	return remove_tree_at(AT_FDCWD, path, path, marker);
}

int fs_remove_tree_at(int dirfd, const char *name, const char *label)
{
	return remove_tree_at(dirfd, name, label, NULL);
}

int fs_empty_marked_dir(int fd, const char *marker, const char *label)
{
	struct stat st;
	struct remove_walk w;
	int opened_up = 0;

	if (fstat(fd, &st) < 0)
		return err_errno("cannot remove '%s'", label);
	memset(&w, 0, sizeof(w));
	w.dev = st.st_dev;
	empty_dir(&w, fd, marker);
	if (!w.first_errno)
		remove_entry(&w, fd, marker, &opened_up);
	if (w.first_errno) {
		errno = w.first_errno;
		return err_errno("cannot remove '%s' (first at '%s')", label, w.first_path);
	}
	return 0;
}

int fs_clear_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];
	int rc = 0;

	if (!d)
		return err_errno("cannot open directory '%s'", dir);
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fs_join(path, sizeof(path), dir, de->d_name) < 0 || fs_remove_tree(path) < 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

int fs_dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int empty = 1;

	if (!d)
		return err_errno("cannot open directory '%s'", dir);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = 0;
			break;
		}
	}
	closedir(d);
	return empty;
}

int fs_join(char *buf, size_t len, const char *a, const char *b)
{
	size_t la = strlen(a);
	int n;

	while (la > 1 && a[la - 1] == '/')
		la--;
	n = snprintf(buf, len, "%.*s/%s", (int)la, a, b);
	if (n < 0 || (size_t)n >= len)
		return err_set("path too long: '%s/%s'", a, b);
	return 0;
}

int fs_check_writable(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (!strcmp(path, "-"))
		return 0;
	if (!*path)
		return err_set("an empty file name: give the file to write");
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return err_set("%s is a directory: give a file name in it", path);
		if (access(path, W_OK) < 0)
			return err_errno("cannot write %s", path);
		return 0;
	}
	if (errno != ENOENT && errno != ENOTDIR)
		return err_errno("cannot write %s", path);
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) >= sizeof(dir))
		return err_set("path too long: '%s'", path);
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (stat(dir, &st) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return err_set("cannot write %s: the directory %s does not exist (create it first)", path,
				       dir);
		return err_errno("cannot write %s: %s", path, dir);
	}
	if (!S_ISDIR(st.st_mode))
		return err_set("cannot write %s: %s is not a directory", path, dir);
	if (access(dir, W_OK | X_OK) < 0)
		return err_errno("cannot write %s: cannot create files in %s", path, dir);
	return 0;
}

int fs_check_readable_dir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0) {
		if (errno == ENOENT)
			return err_set("%s: no such directory", dir);
		return err_errno("%s", dir);
	}
	if (!S_ISDIR(st.st_mode))
		return err_set("%s: not a directory (give the directory whose tree to copy)", dir);
	if (access(dir, R_OK | X_OK) < 0)
		return err_errno("%s: cannot read the directory", dir);
	return 0;
}

static int write_all_by(int fd, const void *buf, size_t len, int as_send)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = as_send ? send(fd, p, len, MSG_NOSIGNAL) : write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int fs_write_all(int fd, const void *buf, size_t len)
{
	return write_all_by(fd, buf, len, 0);
}

int fs_send_all(int fd, const void *buf, size_t len)
{
	return write_all_by(fd, buf, len, 1);
}

long long fs_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (long long)got;
}

/* The name of the file system type f_type into buf. */
static void type_name(unsigned long f_type, char *buf, size_t len)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} types[] = {
		{ 0xEF53, "ext4" }, { 0x01021994, "tmpfs" }, { 0x58465342, "xfs" },
		{ 0x9123683E, "btrfs" }, { 0x794c7630, "overlay" }, { 0x6969, "nfs" },
		{ 0x2FC12FC1, "zfs" }, { 0x65735546, "fuse" }, { 0x858458f6, "ramfs" },
		{ 0x4d44, "vfat" }, { 0xF2F52010, "f2fs" },
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (f_type == types[i].magic) {
			snprintf(buf, len, "%s", types[i].name);
			return;
		}
	snprintf(buf, len, "0x%lx", f_type);
}

int fs_sync_dir_fs(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return err_errno("cannot open '%s'", dir);
	if (syncfs(fd) < 0)
		rc = err_errno("cannot write back the file system of '%s'", dir);
	close(fd);
	return rc;
}

int fs_type_name(const char *path, char *buf, size_t len)
{
	struct statfs st;

	if (statfs(path, &st) < 0)
		return err_errno("cannot stat file system of '%s'", path);
	type_name((unsigned long)st.f_type, buf, len);
	return 0;
}

int fs_type_name_fd(int fd, const char *label, char *buf, size_t len)
{
	struct statfs st;

	if (fstatfs(fd, &st) < 0)
		return err_errno("cannot stat file system of '%s'", label);
	type_name((unsigned long)st.f_type, buf, len);
	return 0;
}

const char *fs_scratch_base(void)
{
	const char *env = getenv("XFERCMP_SCRATCH");

	return env && env[0] == '/' ? env : "/var/tmp";
}
