/* The processes a strategy runs beside ours, and their CPU: see proc_watch.h. */
#include "sample/proc_watch.h"

#include "err.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The most processes one scan remembers for finding descendants. */
#define SCAN_MAX 8192

bool proc_watch_host_program(const char *comm)
{
	static const char *const names[] = { "sshd", "sftp-server", "tar", "zstd", "rsync" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(comm, names[i]))
			return true;
	return false;
}

void proc_watch_release(struct proc_watch *w)
{
	free(w->buf);
	w->buf = NULL;
	w->cap = 0;
}

/* /proc/PID/<what>'s link text into buf; false when it cannot be read (gone, or not ours to look at). */
static bool proc_link(pid_t pid, const char *what, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, what);
	n = readlink(path, buf, len - 1);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* Is pid in our network namespace? Unknown (another user's process) counts as yes. */
static bool same_netns(const struct proc_watch *w, pid_t pid)
{
	char ns[64];

	return !w->self_ns[0] || !proc_link(pid, "ns/net", ns, sizeof(ns)) || !strcmp(ns, w->self_ns);
}

/*
 * Does pid run our own executable? On the client that is a local agent
 * (xfercmp serve, started from /proc/self/exe): the destination's sampler
 * counts it, so the source's must not.
 */
static bool runs_our_exe(const struct proc_watch *w, pid_t pid)
{
	char exe[PATH_MAX];

	return w->self_exe[0] && proc_link(pid, "exe", exe, sizeof(exe)) && !strcmp(exe, w->self_exe);
}

void proc_watch_init(struct proc_watch *w, enum proc_watch_kind kind)
{
	memset(w, 0, sizeof(*w));
	w->kind = kind;
	w->self = getpid();
	proc_link(w->self, "ns/net", w->self_ns, sizeof(w->self_ns));
	proc_link(w->self, "exe", w->self_exe, sizeof(w->self_exe));
}

static int read_stat(struct proc_watch *w, pid_t pid, struct pid_stat *st)
{
	char path[64];
	int fd, rc;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;	/* gone between readdir and open */
	rc = procstat_pread_all(fd, path, &w->buf, &w->cap) < 0 ? 1 : 0;
	close(fd);
	if (rc == 0 && procstat_parse_pid_stat(w->buf, st) < 0)
		rc = 1;
	return rc;
}

static void track(struct proc_watch *w, pid_t pid, const struct pid_stat *st)
{
	unsigned i;

	for (i = 0; i < w->n; i++)
		if (w->e[i].pid == pid && w->e[i].start_ticks == st->start_ticks)
			break;
	if (i == w->n) {
		if (w->n == PROC_WATCH_MAX)
			return;
		w->n++;
		w->e[i] = (struct proc_watch_entry){ .pid = pid, .start_ticks = st->start_ticks,
						     /* born in the window: all its time is the window's */
						     .first = w->started ? 0 : st->ticks };
	}
	/*
	 * The name it has now. A child's stat read just before its exec, with the
	 * exe check after it, was tracked under its parent's name for good (CI saw
	 * test_proc_watch_descendants find no "sh" though all its CPU was counted).
	 */
	memcpy(w->e[i].comm, st->comm, sizeof(w->e[i].comm));
	w->e[i].last = st->ticks;
	if (st->threads > w->e[i].threads)
		w->e[i].threads = st->threads;
}

struct seen {
	pid_t pid, ppid;
	bool ours;
	struct pid_stat st;
};

int proc_watch_scan(struct proc_watch *w)
{
	struct seen *all;
	struct dirent *d;
	size_t n = 0;
	DIR *dir;

	if (w->kind == PROC_WATCH_NONE)
		return 0;
	dir = opendir("/proc");
	if (!dir)
		return err_errno("cannot list /proc");
	all = malloc(SCAN_MAX * sizeof(*all));
	if (!all) {
		closedir(dir);
		return err_set("out of memory for a /proc scan");
	}
	while ((d = readdir(dir)) && n < SCAN_MAX) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);

		if (*end || pid <= 0 || pid == w->self)
			continue;
		if (read_stat(w, (pid_t)pid, &all[n].st) != 0)
			continue;
		all[n].pid = (pid_t)pid;
		all[n].ppid = (pid_t)all[n].st.ppid;
		all[n].ours = w->kind == PROC_WATCH_HOST_PROGRAMS ?
				      proc_watch_host_program(all[n].st.comm) && same_netns(w, (pid_t)pid) :
				      all[n].ppid == w->self;
		n++;
	}
	closedir(dir);
	/* descendants: a child's child is marked once its parent is; a few passes reach them all */
	for (int pass = 0; w->kind == PROC_WATCH_DESCENDANTS && pass < 8; pass++) {
		bool more = false;

		for (size_t i = 0; i < n; i++) {
			if (all[i].ours)
				continue;
			for (size_t j = 0; j < n; j++)
				if (all[j].ours && all[j].pid == all[i].ppid) {
					all[i].ours = more = true;
					break;
				}
		}
		if (!more)
			break;
	}
	for (size_t i = 0; i < n; i++)
		if (all[i].ours && !(w->kind == PROC_WATCH_DESCENDANTS && runs_our_exe(w, all[i].pid)))
			track(w, all[i].pid, &all[i].st);
	free(all);
	w->started = true;
	return 0;
}

static int by_cpu_desc(const void *a, const void *b)
{
	const struct proc_watch_sum *x = a, *y = b;

	return x->cpu_s < y->cpu_s ? 1 : x->cpu_s > y->cpu_s ? -1 : strcmp(x->name, y->name);
}

unsigned proc_watch_sums(const struct proc_watch *w, struct proc_watch_sum *out, unsigned max,
			 double *total_s)
{
	struct proc_watch_sum names[PROC_WATCH_MAX];
	long hz = sysconf(_SC_CLK_TCK);
	unsigned k = 0;

	*total_s = 0;
	if (hz <= 0)
		hz = 100;
	for (unsigned i = 0; i < w->n; i++) {
		const struct proc_watch_entry *e = &w->e[i];
		double secs = (double)(e->last > e->first ? e->last - e->first : 0) / (double)hz;
		unsigned j;

		for (j = 0; j < k; j++)
			if (!strcmp(names[j].name, e->comm))
				break;
		if (j == k) {
			names[k] = (struct proc_watch_sum){ 0 };
			memcpy(names[k].name, e->comm, sizeof(names[k].name));
			k++;
		}
		names[j].cpu_s += secs;
		names[j].count++;
		if (e->threads > names[j].threads)
			names[j].threads = e->threads;
		*total_s += secs;
	}
	qsort(names, k, sizeof(names[0]), by_cpu_desc);
	if (max == 0)
		return 0;
	if (k > max) {
		for (unsigned j = max; j < k; j++) {
			names[max - 1].cpu_s += names[j].cpu_s;
			names[max - 1].count += names[j].count;
		}
		snprintf(names[max - 1].name, sizeof(names[max - 1].name), "others");
		k = max;
	}
	memcpy(out, names, k * sizeof(*out));
	return k;
}
