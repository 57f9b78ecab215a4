#ifndef XFERCMP_INODE_REUSE_H
#define XFERCMP_INODE_REUSE_H

/*
 * ext4 without a journal (this VM's disk, some cloud images) will not reuse
 * an inode freed less than 60 s ago (300 s while its inode-table block is
 * dirty) as long as that block is in the buffer cache, and every create
 * scans past such inodes one by one. After one strategy's 120,000 files are
 * removed, the next strategy's creates pay for it: up to six times slower,
 * by an amount that differs from run to run. So after removing a
 * destination on such a file system, the agent writes everything back and
 * drops the clean page cache, where the inode-table blocks live (`echo 1 >
 * /proc/sys/vm/drop_caches`): the next run starts as a user's first run
 * would. Measured here, 30,000 creates right after 30,000 removals: 18.7 s;
 * after sync and that drop: 2.6 s. Other file systems are left alone. Best
 * effort: without root nothing is dropped. Returns 1 if the cache was
 * dropped, 0 otherwise.
 */
int inode_reuse_allow(const char *root);

#endif
