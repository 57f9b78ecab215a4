/* Directories opened up for the time of a verify. See agent_open_up.h. */
#define _GNU_SOURCE
#include "agent/agent_open_up.h"

#include "err.h"
#include "stream/beneath.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OPEN_UP_DEPTH_MAX 128	/* beyond PATHCHECK_MAX_DEPTH: nothing a stream makes is deeper */

static int note(struct opened_dirs *o, const char *rel, mode_t mode)
{
	if (o->n == o->alloc) {
		size_t n = o->alloc ? 2 * o->alloc : 16;
		struct verify_mode_note *grown = realloc(o->v, n * sizeof(*grown));

		if (!grown)
			return err_set("out of memory noting directory modes");
		o->v = grown;
		o->alloc = n;
	}
	o->v[o->n].path = strdup(rel);
	if (!o->v[o->n].path)
		return err_set("out of memory noting directory modes");
	o->v[o->n++].mode = (uint32_t)(mode & 07777);
	return 0;
}

/* Walks the directory fd (rel: its path below the destination, "" for it). */
static int walk(int fd, const char *rel, unsigned depth, struct opened_dirs *o)
{
	int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0), rc = 0;
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	struct dirent *de;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return err_errno("cannot read directory '%s'", rel[0] ? rel : ".");
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char sub[4096], proc[32];
		struct stat st;
		int pfd, cfd;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "", de->d_name) >= (int)sizeof(sub) ||
		    depth >= OPEN_UP_DEPTH_MAX)
			continue;
		/*
		 * The directory itself, held by a descriptor opened without
		 * following a link: what is checked is what gets its mode, and a
		 * name swapped for a link in between is never followed (fchmodat
		 * by name would follow it).
		 */
		pfd = openat(fd, de->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (pfd < 0)
			continue;	/* not a directory (or gone): the walk of verify says what it finds */
		if (fstat(pfd, &st) < 0) {
			close(pfd);
			continue;
		}
		if (st.st_uid == geteuid() && (st.st_mode & S_IRWXU) != S_IRWXU) {
			beneath_proc_name(pfd, proc);
			if (note(o, sub, st.st_mode) < 0)
				rc = -1;
			else if (chmod(proc, (st.st_mode & 07777) | S_IRWXU) < 0)
				rc = err_errno("cannot open up directory '%s' to verify it", sub);
			if (rc < 0) {
				close(pfd);
				break;
			}
		}
		cfd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(pfd);
		if (cfd < 0)
			continue;	/* the walk of verify says what it cannot read */
		rc = walk(cfd, sub, depth + 1, o);
		close(cfd);
	}
	closedir(d);
	return rc;
}

int agent_open_up(int dirfd, struct opened_dirs *o)
{
	memset(o, 0, sizeof(*o));
	if (geteuid() == 0)
		return 0;
	return walk(dirfd, "", 0, o);
}

int agent_open_up_restore(int dirfd, struct opened_dirs *o)
{
	int rc = 0;

	/* deepest first: a parent made 0000 again would hide its children */
	while (o->n) {
		struct verify_mode_note *v = &o->v[--o->n];
		int fd = beneath_open(dirfd, v->path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
		char proc[32];

		if (fd < 0 && rc == 0)
			rc = err_errno("cannot give directory '%s' its mode back", v->path);
		if (fd >= 0) {
			beneath_proc_name(fd, proc);
			if (chmod(proc, v->mode) < 0 && rc == 0)
				rc = err_errno("cannot give directory '%s' its mode back", v->path);
			close(fd);
		}
		free(v->path);
	}
	free(o->v);
	memset(o, 0, sizeof(*o));
	return rc;
}
