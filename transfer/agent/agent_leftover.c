/* The copies removed after the client left, and the leftovers. See agent_leftover.h. */
#define _GNU_SOURCE
#include "agent/agent_leftover.h"

#include "agent/agent_remover_list.h"

#include "stream/agent_startup.h"
#include "err.h"
#include "fsutil.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LEFTOVER_POLL_MS 200
#define LEFTOVER_MAX 64
/* a scratch root's name being removed (agent_leftover_name: the prefix, 6 characters, the suffix) fits */
#define LEFTOVER_NAME_SLOT 64

bool agent_leftover_name(const char *name)
{
	size_t np = strlen(AGENT_ROOT_PREFIX), ns = strlen(AGENT_ROOT_REMOVING);

	if (strncmp(name, AGENT_ROOT_PREFIX, np) || strlen(name) != np + 6 + ns)
		return false;
	for (size_t i = np; i < np + 6; i++)
		if (!isalnum((unsigned char)name[i]))
			return false;
	return !strcmp(name + np + 6, AGENT_ROOT_REMOVING);
}

static int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* Every descriptor from 3 up but those of keep (n of them) closed. */
static void close_all_but(int *keep, unsigned n)
{
	unsigned from = 3;

	qsort(keep, n, sizeof(*keep), cmp_int);
	for (unsigned i = 0; i < n; i++) {
		if (keep[i] < (int)from)
			continue;
		if ((unsigned)keep[i] > from)
			close_range(from, (unsigned)keep[i] - 1, 0);
		from = (unsigned)keep[i] + 1;
	}
	close_range(from, ~0u, 0);
}

/*
 * The remover, in the grandchild: nothing of the session's (its sockets,
 * the SSH channel's pipes) stays open, or the channel would wait for it.
 * SIGTERM ends it (the next run finishes the root); a hangup does not.
 */
_Noreturn static void remove_in_background(struct agent_root *r, int list_fd, int entry_fd, const char *entry)
{
	int keep[4 + sizeof(r->made) / sizeof(r->made[0])], nkeep = 0;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	sigset_t none;

	prctl(PR_SET_NAME, "xfercmp-remove", 0, 0, 0);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	keep[nkeep++] = r->fd;
	keep[nkeep++] = r->parent_fd;
	if (entry_fd >= 0) {
		keep[nkeep++] = list_fd;
		keep[nkeep++] = entry_fd;
	}
	for (unsigned i = 0; i < r->nmade; i++)
		keep[nkeep++] = r->made[i].dirfd;
	close_all_but(keep, (unsigned)nkeep);
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* a root it could not remove keeps its name, marker and entry: the next run, or clean, says why */
	if (agent_root_remove_all_retrying(r) < 0)
		_exit(1);
	if (entry_fd >= 0)
		unlinkat(list_fd, entry, 0);
	_exit(0);
}

int agent_root_remove_detached(struct agent_root *r)
{
	char old_name[sizeof(r->name)], old_path[sizeof(r->path)], entry[40] = "";
	int status, list_fd, entry_fd = -1;
	bool started;
	struct stat st, lst;
	pid_t pid;

	if (r->fd < 0)
		return err_set("no scratch root to remove");
	if (strlen(r->name) + strlen(AGENT_ROOT_REMOVING) >= sizeof(r->name) ||
	    strlen(r->path) + strlen(AGENT_ROOT_REMOVING) >= sizeof(r->path))
		return err_set("scratch root '%s': its name is too long to mark it being removed", r->path);
	/* the name in the parent must still be this directory: never move another */
	if (fstat(r->fd, &st) < 0 || fstatat(r->parent_fd, r->name, &lst, AT_SYMLINK_NOFOLLOW) < 0 ||
	    st.st_ino != lst.st_ino || st.st_dev != lst.st_dev)
		return err_set("scratch root '%s' is no longer where the agent made it", r->path);
	memcpy(old_name, r->name, sizeof(old_name));
	memcpy(old_path, r->path, sizeof(old_path));
	strcat(r->name, AGENT_ROOT_REMOVING);
	strcat(r->path, AGENT_ROOT_REMOVING);
	if (renameat2(r->parent_fd, old_name, r->parent_fd, r->name, RENAME_NOREPLACE) < 0) {
		err_errno("cannot rename scratch root '%s' to be removed in the background", old_path);
		goto restore_names;
	}
	/* listed for a run in another scratch parent; without the list only this parent finds it */
	if ((list_fd = agent_remover_list_open(true)) >= 0 &&
	    (entry_fd = agent_remover_list_add(list_fd, r, entry, sizeof(entry))) < 0)
		err_clear();
	pid = fork();
	if (pid == 0) {
		/* a session of its own, and a parent that exits at once: no one waits for it */
		setsid();
		pid = fork();
		if (pid == 0)
			remove_in_background(r, list_fd, entry_fd, entry);
		_exit(pid < 0 ? 1 : 0);
	}
	started = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	/* the remover holds the entry's lock now (or, when it did not start, no one) */
	if (entry_fd >= 0) {
		if (!started)
			unlinkat(list_fd, entry, 0);
		close(entry_fd);
	}
	if (list_fd >= 0)
		close(list_fd);
	if (started)
		return 0;
	err_set("cannot start a process to remove scratch root '%s'", old_path);
	renameat2(r->parent_fd, r->name, r->parent_fd, old_name, RENAME_NOREPLACE);
restore_names:
	memcpy(r->name, old_name, sizeof(old_name));
	memcpy(r->path, old_path, sizeof(old_path));
	return -1;
}

/* Whether fd (a directory) is gone from its parent: removed by its remover. */
static bool removed(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_nlink == 0;
}

int agent_leftover_wait(int fd, const char *what, struct agent_leftover_progress *progress)
{
	int waited_ms = 0;

	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		const struct timespec tick = { 0, LEFTOVER_POLL_MS * 1000000L };

		if (errno != EWOULDBLOCK && errno != EINTR)
			return err_errno("cannot lock '%s'", what);
		if (removed(fd))
			break;
		if (waited_ms >= AGENT_LEFTOVER_WAIT_S * 1000) {
			atomic_store(&progress->waiting, 0);
			return err_set("a previous run's copies in '%s' are still being removed after %d min: wait for that to end, or stop the process that holds it and run 'xfercmp clean' for this host",
				       what, AGENT_LEFTOVER_WAIT_S / 60);
		}
		atomic_store(&progress->waiting, 1);
		nanosleep(&tick, NULL);
		waited_ms += LEFTOVER_POLL_MS;
	}
	atomic_store(&progress->waiting, 0);
	return 0;
}

int agent_leftover_finish_root(int parent_fd, const char *parent, const char *name,
			       struct agent_leftover_progress *progress)
{
	int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct agent_root r = { .fd = -1, .parent_fd = -1 };
	struct stat st, mst;

	if (fd < 0)
		return 0;	/* gone meanwhile, or a link: not ours to follow */
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 07777) != 0700 || fstatat(fd, AGENT_ROOT_MARKER, &mst, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(mst.st_mode) || mst.st_uid != geteuid()) {
		close(fd);
		return 0;
	}
	atomic_fetch_add(&progress->roots, 1);
	snprintf(r.path, sizeof(r.path), "%s/%s", parent, name);
	if (agent_leftover_wait(fd, r.path, progress) < 0) {
		close(fd);
		return -1;
	}
	if (removed(fd)) {
		close(fd);
		return 0;
	}
	/* its remover is gone: the rest is removed as the agent removes its own root */
	r.fd = fd;
	r.parent_fd = fcntl(parent_fd, F_DUPFD_CLOEXEC, 0);
	snprintf(r.name, sizeof(r.name), "%s", name);
	if (r.parent_fd < 0) {
		close(fd);
		return err_errno("cannot remove '%s'", r.path);
	}
	if (agent_root_remove_all_counted(&r, &progress->removal) < 0) {
		err_wrap("an earlier run's copies in '%s' could not be removed (remove them with: chmod -R u+rwx '%s' && rm -rf '%s')",
			 r.path, r.path, r.path);
		agent_root_close(&r);
		return -1;
	}
	return 0;
}

/* fs_dir_names' filter: an earlier run's scratch root, not this run's own (ctx) */
static int other_leftover(const char *name, const void *own)
{
	return agent_leftover_name(name) && strcmp(name, own);
}

int agent_leftovers_finish(int parent_fd, const char *parent, const char *own,
			   struct agent_leftover_progress *progress)
{
	char *names;
	unsigned n;
	int rc = 0;

	/* more than LEFTOVER_MAX at once: the next run takes the rest */
	if (fs_dir_names(parent_fd, LEFTOVER_MAX, LEFTOVER_NAME_SLOT, other_leftover, own, &names, &n) < 0)
		return err_errno("cannot list scratch parent '%s'", parent);
	for (unsigned i = 0; i < n && rc == 0; i++)
		rc = agent_leftover_finish_root(parent_fd, parent, names + (size_t)i * LEFTOVER_NAME_SLOT, progress);
	free(names);
	return rc;
}
