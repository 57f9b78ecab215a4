/* Letting ext4 without a journal reuse freed inodes at once (see inode_reuse.h). */
#define _GNU_SOURCE
#include "inode_reuse.h"

#include "fsutil.h"
#include "procstat.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* 1 when dev holds an ext4 file system without a journal (its journal_task says "<none>"). */
static int ext4_without_journal(const char *dev)
{
	char path[128], line[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/fs/ext4/%s/journal_task", dev);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	return strncmp(line, "<none>", 6) == 0;
}

int inode_reuse_allow(const char *root)
{
	char fstype[32] = "", dev[64];
	int fd, rc;

	if (fs_type_name(root, fstype, sizeof(fstype)) < 0 || strcmp(fstype, "ext4") != 0 ||
	    procstat_device_for_path(root, dev, sizeof(dev)) != 0 || !ext4_without_journal(dev))
		return 0;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		syncfs(fd);	/* only clean pages can be dropped */
		close(fd);
	}
	/*
	 * The inode-table blocks live in the block device's page cache. Opening
	 * the device for BLKFLSBUF is refused in some sandboxes (this VM), so
	 * drop the clean page cache as a whole: "1" is pages only, no dentries
	 * or inodes.
	 */
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	rc = write(fd, "1\n", 2) == 2;
	close(fd);
	return rc;
}
