#ifndef XFERCMP_TREE_H
#define XFERCMP_TREE_H

#include <stddef.h>
#include <stdint.h>

/*
 * A listing of every entry under a root (not the root itself), with paths
 * relative to the root, sorted bytewise. Symbolic links are listed with
 * their text, never followed.
 */

enum tree_type {
	TREE_REGULAR,
	TREE_SYMLINK,
	TREE_DIR,
	TREE_OTHER,	/* device, fifo, socket */
};

struct tree_file {
	char *path;
	char *target;		/* TREE_SYMLINK: the link's text; NULL otherwise */
	uint64_t size;
	uint64_t dev, ino;	/* hard links share both */
	int64_t mtime;		/* seconds */
	uint32_t mode;		/* permission bits, <= 07777 */
	uint32_t nlink;
	enum tree_type type;
	char kind;		/* TREE_OTHER: 'c', 'b', 'p' or 's' */
};

struct tree {
	struct tree_file *files;
	size_t count, alloc;
	uint64_t dirs;
	uint64_t regular_bytes;
};

/* Lists root; returns 0 or -1 (error set). The tree must be released. */
int tree_scan(const char *root, struct tree *t);
void tree_release(struct tree *t);

/*
 * Hashes the regular file at path with xxh3-64 using buf (len bytes) for the
 * reads. Sets *hash and *size. When drop_cache is set, the pages read are
 * dropped from the page cache behind the reader and at the end. Returns 0 or
 * -1 (error set).
 */
int tree_hash_file(const char *path, void *buf, size_t len, int drop_cache, uint64_t *hash,
		   uint64_t *size);

/*
 * The same, and when key is not NULL the content's keyed hash
 * (content_mac.h: CONTENT_KEY_BYTES of key, CONTENT_MAC_BYTES into mac) from
 * the same reads.
 */
int tree_hash_file_keyed(const char *path, void *buf, size_t len, int drop_cache,
			 const unsigned char *key, uint64_t *hash, unsigned char *mac,
			 uint64_t *size);

#endif
