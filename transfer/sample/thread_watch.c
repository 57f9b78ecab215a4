/* The busiest thread of one process (thread_watch.h). */
#include "sample/thread_watch.h"

#include "err.h"
#include "sample/procstat.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void thread_watch_init(struct thread_watch *w, pid_t pid)
{
	memset(w, 0, sizeof(*w));
	w->pid = pid;
}

void thread_watch_update(struct thread_watch *w, pid_t tid, uint64_t ticks, uint64_t delay_ns)
{
	for (unsigned i = 0; i < w->n; i++)
		if (w->e[i].tid == tid) {
			if (ticks >= w->e[i].last)
				w->e[i].last = ticks;
			if (delay_ns >= w->e[i].delay_last)
				w->e[i].delay_last = delay_ns;
			return;
		}
	if (w->n == THREAD_WATCH_MAX)
		return;
	w->e[w->n++] = (struct thread_watch_entry){ .tid = tid, .first = w->started ? 0 : ticks,
						    .last = ticks,
						    .delay_first = w->started ? 0 : delay_ns,
						    .delay_last = delay_ns };
}

void thread_watch_scanned(struct thread_watch *w)
{
	w->started = true;
}

/* A small /proc file into text (NUL-terminated). Returns its length, or -1. */
static ssize_t read_small(const char *path, char *text, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, text, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	return n;
}

/* What one thread waited on a run queue, ns ("cpu_ns delay_ns slices"); 0 when unknown. */
static uint64_t read_delay(const char *dir, const char *tid)
{
	char path[64], text[128];
	unsigned long long cpu, delay;

	if (snprintf(path, sizeof(path), "%s/%s/schedstat", dir, tid) >= (int)sizeof(path) ||
	    read_small(path, text, sizeof(text)) < 0 || sscanf(text, "%llu %llu", &cpu, &delay) != 2)
		return 0;
	return (uint64_t)delay;
}

/* utime + stime of one thread, or -1 when it is gone. */
static int read_thread(const char *dir, const char *tid, uint64_t *ticks)
{
	char path[64], text[1024];
	struct pid_stat st;

	if (snprintf(path, sizeof(path), "%s/%s/stat", dir, tid) >= (int)sizeof(path) ||
	    read_small(path, text, sizeof(text)) < 0)
		return -1;
	if (procstat_parse_pid_stat(text, &st) < 0)
		return -1;
	*ticks = st.ticks;
	return 0;
}

int thread_watch_scan(struct thread_watch *w)
{
	char dir[32];
	struct dirent *d;
	DIR *tasks;

	if (w->pid > 0)
		snprintf(dir, sizeof(dir), "/proc/%ld/task", (long)w->pid);
	else
		snprintf(dir, sizeof(dir), "/proc/self/task");
	tasks = opendir(dir);
	if (!tasks)
		return err_errno("cannot read '%s'", dir);
	while ((d = readdir(tasks)) != NULL) {
		uint64_t ticks;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		/* a thread that exited between the listing and its stat is no error */
		if (read_thread(dir, d->d_name, &ticks) == 0)
			thread_watch_update(w, (pid_t)atol(d->d_name), ticks, read_delay(dir, d->d_name));
	}
	closedir(tasks);
	thread_watch_scanned(w);
	return 0;
}

void thread_watch_skip(struct thread_watch *w, pid_t tid)
{
	w->skip = tid;
}

uint64_t thread_watch_busiest_ticks(const struct thread_watch *w, uint64_t *delay_ns)
{
	uint64_t best = 0, delay = 0;

	for (unsigned i = 0; i < w->n; i++)
		if (w->e[i].tid != w->skip && w->e[i].last - w->e[i].first > best) {
			best = w->e[i].last - w->e[i].first;
			delay = w->e[i].delay_last - w->e[i].delay_first;
		}
	if (delay_ns)
		*delay_ns = delay;
	return best;
}

uint64_t thread_watch_delay_ns(const struct thread_watch *w)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < w->n; i++)
		if (w->e[i].tid != w->skip)
			sum += w->e[i].delay_last - w->e[i].delay_first;
	return sum;
}
