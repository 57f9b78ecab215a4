#define _GNU_SOURCE
#include "tree.h"

#include "cache_behind.h"
#include "content_mac.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

/* nftw has no context argument: the walk in progress, one per thread. */
static _Thread_local struct tree *walk_tree;
static _Thread_local size_t walk_prefix;
static _Thread_local int walk_error;

/* The text of the symbolic link at path, malloc'd; NULL with the error set. */
static char *read_link(const char *path, uint64_t size)
{
	size_t len = size ? (size_t)size + 1 : 256;

	for (;;) {
		char *buf = malloc(len);
		ssize_t n;

		if (!buf) {
			err_set("out of memory reading link '%s'", path);
			return NULL;
		}
		n = readlink(path, buf, len);
		if (n < 0) {
			err_errno("cannot read link '%s'", path);
			free(buf);
			return NULL;
		}
		if ((size_t)n < len) {
			buf[n] = '\0';
			return buf;
		}
		free(buf);	/* it grew since lstat: try again, larger */
		len *= 2;
	}
}

static char special_kind(mode_t mode)
{
	return S_ISCHR(mode) ? 'c' : S_ISBLK(mode) ? 'b' : S_ISFIFO(mode) ? 'p' : 's';
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct tree *t = walk_tree;
	struct tree_file *f;

	(void)ftw;
	if (type == FTW_DNR || type == FTW_NS) {
		walk_error = errno ? errno : EACCES;
		err_errno("cannot read '%s'", path);
		return 1;
	}
	if (path[walk_prefix] == '\0')
		return 0;	/* the root itself */
	if (t->count == t->alloc) {
		size_t n = t->alloc ? t->alloc * 2 : 1024;
		struct tree_file *grown = realloc(t->files, n * sizeof(*grown));

		if (!grown) {
			walk_error = ENOMEM;
			err_set("out of memory listing '%s'", path);
			return 1;
		}
		t->files = grown;
		t->alloc = n;
	}
	f = &t->files[t->count];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path + walk_prefix + 1);
	if (!f->path) {
		walk_error = ENOMEM;
		err_set("out of memory listing '%s'", path);
		return 1;
	}
	t->count++;
	f->size = (uint64_t)st->st_size;
	f->mode = st->st_mode & 07777;
	f->dev = (uint64_t)st->st_dev;
	f->ino = (uint64_t)st->st_ino;
	f->nlink = (uint32_t)st->st_nlink;
	f->mtime = (int64_t)st->st_mtim.tv_sec;
	if (type == FTW_D) {
		f->type = TREE_DIR;
		f->size = 0;
		t->dirs++;
	} else if (S_ISREG(st->st_mode)) {
		f->type = TREE_REGULAR;
		t->regular_bytes += f->size;
	} else if (S_ISLNK(st->st_mode)) {
		f->type = TREE_SYMLINK;
		f->target = read_link(path, f->size);
		if (!f->target) {
			walk_error = errno ? errno : EIO;
			return 1;
		}
	} else {
		f->type = TREE_OTHER;
		f->kind = special_kind(st->st_mode);
	}
	return 0;
}

static int file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct tree_file *)a)->path, ((const struct tree_file *)b)->path);
}

int tree_scan(const char *root, struct tree *t)
{
	struct stat st;
	char *real;
	int rc;

	memset(t, 0, sizeof(*t));
	if (stat(root, &st) < 0)
		return err_errno("cannot read '%s'", root);
	if (!S_ISDIR(st.st_mode))
		return err_set("'%s' is not a directory", root);
	/*
	 * The root may itself be a symbolic link (or end in '/'): walk the
	 * directory it names, while links below it are listed, never followed.
	 */
	real = realpath(root, NULL);
	if (!real)
		return err_errno("cannot read '%s'", root);
	walk_tree = t;
	walk_prefix = strlen(real);
	if (walk_prefix == 1)
		walk_prefix = 0;	/* "/": children are "/x", the prefix to strip is "" */
	walk_error = 0;
	rc = nftw(real, visit, 32, FTW_PHYS);
	free(real);
	if (rc != 0) {
		if (!walk_error)
			err_errno("cannot walk '%s'", root);
		tree_release(t);
		return -1;
	}
	if (t->count > 1)
		qsort(t->files, t->count, sizeof(*t->files), file_cmp);
	return 0;
}

void tree_release(struct tree *t)
{
	for (size_t i = 0; i < t->count; i++) {
		free(t->files[i].path);
		free(t->files[i].target);
	}
	free(t->files);
	memset(t, 0, sizeof(*t));
}

int tree_hash_file(const char *path, void *buf, size_t len, int drop_cache, uint64_t *hash,
		   uint64_t *size)
{
	return tree_hash_file_keyed(path, buf, len, drop_cache, NULL, hash, NULL, size);
}

int tree_hash_file_keyed(const char *path, void *buf, size_t len, int drop_cache,
			 const unsigned char *key, uint64_t *hash, unsigned char *mac,
			 uint64_t *size)
{
	XXH3_state_t state;
	struct read_behind rb;
	struct content_mac cm = { 0 };
	uint64_t total = 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return err_errno("cannot open '%s'", path);
	if (key && content_mac_begin(&cm, key) < 0) {
		close(fd);
		return -1;
	}
	read_behind_init(&rb, fd, 0);
	XXH3_64bits_reset(&state);
	for (;;) {
		ssize_t n = read(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err_errno("cannot read '%s'", path);
			content_mac_release(&cm);
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		XXH3_64bits_update(&state, buf, (size_t)n);
		if (key && content_mac_update(&cm, buf, (size_t)n) < 0) {
			close(fd);
			return -1;
		}
		total += (uint64_t)n;
		if (drop_cache)
			read_behind_done(&rb, total);
	}
	if (drop_cache)
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (key && content_mac_end(&cm, mac) < 0)
		return -1;
	*hash = XXH3_64bits_digest(&state);
	*size = total;
	return 0;
}
