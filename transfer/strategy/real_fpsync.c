/*
 * real-fpsync: fpsync (Debian's fpart) splits the tree into partitions
 * with fpart as it walks it and runs N rsync workers at once (-P, its -n),
 * each rsync over ssh into the empty destination, reaching the host as
 * reference.h says (our ssh options in $RSYNC_RSH, which every worker's
 * rsync reads). The host's side is one rsync --server per worker.
 *
 * Run as its manual shows: fpsync -n N SRC/ HOST:DEST/, with fpsync's
 * own rsync options (-lptgoD -v --numeric-ids: rsync -a without -r, which
 * fpsync refuses, as it refuses -a). Its queue, partitions and logs go to
 * a private scratch directory (-t; its default is /tmp/fpsync), removed
 * after the run. Hard links are not asked for (-H): rsync can keep only
 * those whose names fall in one partition, and fpart cuts partitions by
 * count and size, not by inode. Verified on the testbed (realistic, 2,000
 * files, and 20,000 at -P 8 in 10 partitions, as root): symbolic links,
 * empty directories, modes and mtimes (directories' too) kept, hard links
 * copied as separate files. Not tried as a user other than root, where a
 * 0555 directory finished by one worker may refuse another's files.
 */
#include "err.h"
#include "fsutil.h"
#include "strategy/host_programs.h"
#include "strategy/real_parallel.h"
#include "strategy/reference.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The characters that would end or open a quote in fpsync's job command lines. */
#define FPSYNC_UNSAFE "'\"$`\\\n"

int real_fpsync_args(struct pipeline_argv *a, const char *rsh, const char *workdir, unsigned streams,
		     const char *src, const char *host, const char *dest)
{
	const char *paths[] = { src, dest, workdir };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		size_t at = strcspn(paths[i], FPSYNC_UNSAFE);

		if (paths[i][at])
			return err_set("fpsync cannot copy with '%s': it pastes paths into shell command lines, and this one holds a %s",
				       paths[i], paths[i][at] == '\n' ? "newline" : (char[]){ '\'', paths[i][at], '\'', '\0' });
	}
	pipeline_arg(a, "env");
	pipeline_arg(a, "RSYNC_RSH=%s", rsh);
	pipeline_arg(a, "fpsync");
	pipeline_arg(a, "-n");
	pipeline_arg(a, "%u", streams);
	pipeline_arg(a, "-t");
	pipeline_arg(a, "%s", workdir);
	pipeline_arg(a, "%s/", src);
	pipeline_arg(a, "%s:%s/", host, dest);
	return 0;
}

/*
 * A worker's rsync that failed leaves its stderr in workdir/log/RUN/N.stderr
 * while fpsync itself only exits 1: the first line of the first such file
 * becomes the error. Returns 1 when it found one.
 */
static int worker_error(const char *workdir)
{
	char path[PATH_MAX * 2 + 300], line[512];
	DIR *logs, *run;
	struct dirent *r, *e;
	int found = 0;

	snprintf(path, sizeof(path), "%s/log", workdir);
	if (!(logs = opendir(path)))
		return 0;
	while (!found && (r = readdir(logs))) {
		if (r->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/log/%s", workdir, r->d_name);
		if (!(run = opendir(path)))
			continue;
		while (!found && (e = readdir(run))) {
			size_t n = strlen(e->d_name);
			FILE *f;

			if (n < 8 || strcmp(e->d_name + n - 7, ".stderr"))
				continue;
			snprintf(path, sizeof(path), "%s/log/%s/%s", workdir, r->d_name, e->d_name);
			if (!(f = fopen(path, "re")))
				continue;
			if (fgets(line, sizeof(line), f)) {
				line[strcspn(line, "\n")] = '\0';
				err_set("fpsync failed: the rsync of partition %.*s: %s", (int)(n - 7), e->d_name, line);
				found = 1;
			}
			fclose(f);
		}
		closedir(run);
	}
	closedir(logs);
	return found;
}

static int fpsync_run(struct xfer_run *run)
{
	struct pipeline_stage st[1] = { 0 };
	struct reference_host h;
	char dir[PATH_MAX], *rsh;
	int rc;

	if (reference_host_parse(run->target, &h) < 0 || !(rsh = reference_rsync_rsh(run->target, &h)))
		return -1;
	snprintf(dir, sizeof(dir), "%s/xfercmp-fpsync.XXXXXX", fs_scratch_base());
	if (!mkdtemp(dir)) {
		free(rsh);
		return err_errno("cannot create a scratch directory under %s", fs_scratch_base());
	}
	rc = real_fpsync_args(&st[0].argv, rsh, dir, run->opts->streams, run->src_root, h.scp_host, run->dest);
	free(rsh);
	if (rc == 0) {
		st[0].label = "fpsync";
		rc = reference_finish(run, st, 1, -1);
		if (rc < 0)
			worker_error(dir);
	}
	if (fs_remove_tree(dir) < 0 && rc == 0)
		rc = -1;
	return rc;
}

static int fpsync_available(const struct xfer_target *t, char *why, size_t len)
{
	static const char *const local[] = { "fpsync", "fpart", "rsync", "ssh", NULL };

	return strategy_needs_ssh(t, why, len) || host_programs_need_local(local, why, len) ||
	       host_programs_need(t, "rsync", why, len);
}

const struct strategy strategy_real_fpsync = {
	.name = "real-fpsync",
	.summary = "fpsync -n N (-P) SRC/ HOST:DEST/: fpart's partitions, N rsync workers over ssh",
	.flags = STRATEGY_REFERENCE | STRATEGY_SSH | STRATEGY_MULTI_STREAM,
	.preserves = PRESERVE_SYMLINKS | PRESERVE_EMPTY_DIRS | PRESERVE_MODES | PRESERVE_MTIMES,
	.available = fpsync_available,
	.traits = STRATEGY_TRAITS_RSYNC,
	.run = fpsync_run,
	.stop = pipeline_stop_running,
};
