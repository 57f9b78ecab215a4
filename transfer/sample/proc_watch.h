#ifndef XFERCMP_PROC_WATCH_H
#define XFERCMP_PROC_WATCH_H

/*
 * CPU seconds of the processes a strategy runs, besides our own: on the
 * client our descendants (ssh, tar, zstd of the real-* strategies); on the
 * host the programs the SSH strategies run there (sshd, sftp-server, tar,
 * zstd, rsync) in the agent's network namespace (on the testbed the client
 * and the host share one /proc, and the namespace tells them apart).
 *
 * The sampler scans /proc at the start, at every tick and at the end; a
 * process's seconds are its utime + stime at its last scan minus those at
 * its first (0 for one born in the window). A process that exits loses at
 * most one tick of its time. The sums are by command name.
 */

#include "sample/procstat.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum proc_watch_kind {
	PROC_WATCH_NONE,		/* nothing but our own process */
	PROC_WATCH_DESCENDANTS,		/* the client: our children and theirs */
	PROC_WATCH_HOST_PROGRAMS,	/* the agent: the host's sshd, sftp-server, tar, zstd, rsync */
};

#define PROC_WATCH_MAX 512
/* Names kept apart in a summary; more are summed as "others". */
#define PROC_WATCH_NAMES 8

struct proc_watch_entry {
	pid_t pid;
	uint64_t start_ticks;
	char comm[16];
	uint64_t first, last;	/* utime + stime at the first and last scan */
	unsigned threads;
};

/* Caller-allocated (it is large: the sampler holds a pointer); private to proc_watch.c. */
struct proc_watch {
	enum proc_watch_kind kind;
	pid_t self;
	char self_ns[64];
	char self_exe[4096];	/* our executable: a descendant running it is a local agent, not counted */
	bool started;
	unsigned n;
	struct proc_watch_entry e[PROC_WATCH_MAX];
	char *buf;
	size_t cap;
};

/* One command's CPU over the window. */
struct proc_watch_sum {
	char name[16];
	double cpu_s;
	unsigned threads;	/* the most threads one of its processes had */
	unsigned count;		/* processes */
};

void proc_watch_init(struct proc_watch *w, enum proc_watch_kind kind);

/* Scans /proc once. Returns 0 or -1 (error set: /proc unreadable). */
int proc_watch_scan(struct proc_watch *w);

/*
 * The window's sums by name, the busiest first, at most max (the rest
 * summed into the last as "others"); *total_s all of them. Returns how many.
 */
unsigned proc_watch_sums(const struct proc_watch *w, struct proc_watch_sum *out, unsigned max,
			 double *total_s);

void proc_watch_release(struct proc_watch *w);

/* true when a host-side name is one the host's SSH strategies run. */
bool proc_watch_host_program(const char *comm);

#endif
