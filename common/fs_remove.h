#ifndef XFERCMP_FS_REMOVE_H
#define XFERCMP_FS_REMOVE_H

/*
 * Removing a large tree with many removals in flight (fsutil.h's
 * fs_remove_tree does one at a time).
 *
 * Why: on ext4 without a journal mounted with -o discard (the testbed
 * host's disk, and many VMs'), each unlink that frees data blocks waits in
 * the kernel for a discard of them to complete (ext4_free_blocks ->
 * ext4_issue_discard, synchronous without a journal to batch it): the
 * removal waits on the disk, once a file. Measured here, 20,000 files of
 * 4 KiB in 20 directories: one thread 1,427/s (in inode order 1,180/s: the
 * order is not it), the same files empty 79,341/s (no blocks, no discard);
 * 4 threads 5,215/s, 16 threads 11,924/s, 64 threads 22,238/s. On a file
 * system where an unlink costs CPU only, more threads cost little.
 *
 * What it does is what fs_remove_tree does: never follows a symbolic link,
 * never enters another file system, opens up a 0000/0555 directory for its
 * owner only once something in it was refused, goes on past a failure and
 * reports the first, and walks a directory again when its removal finds it
 * not empty (an entry created meanwhile, or one readdir passed over).
 * One thread (the caller's) walks the tree and hands each entry that is not
 * a directory to `threads` workers; a directory goes once all below it
 * went. At most FS_REMOVE_OPEN_DIRS directories beyond the walk's own path
 * are open at once.
 */

#include <stdatomic.h>
#include <stdint.h>

/* The workers a removal runs by default: past 16 the gain above flattens; they mostly wait. */
#define FS_REMOVE_THREADS 32
#define FS_REMOVE_OPEN_DIRS 256

/*
 * How far a removal got, read by another thread while it runs (the status
 * line): found grows as the walk lists the tree, removed as entries go;
 * walked is set once the walk listed everything (found is then the total).
 */
struct fs_remove_progress {
	_Atomic uint64_t found;
	_Atomic uint64_t removed;
	_Atomic int walked;
};

/*
 * Removes the entry name of the directory dirfd (AT_FDCWD: a path) and
 * everything below it, as fs_remove_tree_at; label names it in messages.
 * progress may be NULL. A missing name is not an error. Returns 0 or -1
 * (error set: "cannot remove 'LABEL' (first at 'PATH')", errno its cause).
 */
int fs_remove_tree_parallel(int dirfd, const char *name, const char *label, unsigned threads,
			    struct fs_remove_progress *progress);

/*
 * Empties the open directory fd but its entry keep (NULL: none), which
 * stays, as does fd itself: the caller removes a marker once the rest went
 * (as fs_empty_marked_dir does). Returns 0 or -1 (error set).
 */
int fs_empty_dir_parallel(int fd, const char *keep, const char *label, unsigned threads,
			  struct fs_remove_progress *progress);

#endif
