#define _GNU_SOURCE
#include "fsutil.h"

#include "err.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
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

/* nftw takes no context: the first failure of this thread's walk. */
static __thread int remove_errno;

/*
 * Goes on past a failure: what can go, goes (a directory another thread is
 * still filling fails its rmdir, and the walk must not stop there).
 */
static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	int rc = type == FTW_DP ? rmdir(path) : unlink(path);

	(void)st;
	(void)ftw;
	if (rc < 0 && errno != ENOENT && !remove_errno)
		remove_errno = errno;
	return 0;
}

int fs_remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : err_errno("cannot remove '%s'", path);
	if (!S_ISDIR(st.st_mode))
		return unlink(path) < 0 ? err_errno("cannot remove '%s'", path) : 0;
	remove_errno = 0;
	if (nftw(path, remove_one, 64, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0 && !remove_errno)
		remove_errno = errno ? errno : EIO;
	if (remove_errno) {
		errno = remove_errno;
		return err_errno("cannot remove '%s'", path);
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

int fs_type_name(const char *path, char *buf, size_t len)
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
	struct statfs st;

	if (statfs(path, &st) < 0)
		return err_errno("cannot stat file system of '%s'", path);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if ((unsigned long)st.f_type == types[i].magic) {
			snprintf(buf, len, "%s", types[i].name);
			return 0;
		}
	snprintf(buf, len, "0x%lx", (unsigned long)st.f_type);
	return 0;
}

const char *fs_scratch_base(void)
{
	const char *env = getenv("XFERCMP_SCRATCH");

	return env && env[0] == '/' ? env : "/var/tmp";
}
