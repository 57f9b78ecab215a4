/*
 * The sampling thread and the window summary. The thread sleeps on a
 * condition variable against an absolute monotonic deadline, so ticks do not
 * drift and sampler_stop() wakes it at once instead of waiting out a tick.
 */
#define _GNU_SOURCE
#include "sample/sampler.h"

#include "clock.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- readings ---- */

static int open_proc(const char *path, int *fd)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return err_errno("cannot open '%s'", path);
	return 0;
}

static void close_files(struct sampler *s)
{
	int *fds[] = { &s->fd_stat, &s->fd_pid, &s->fd_disk, &s->fd_net };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	free(s->buf);
	s->buf = NULL;
	s->cap = 0;
	if (s->watch) {
		proc_watch_release(s->watch);
		free(s->watch);
		s->watch = NULL;
	}
	free(s->threads);
	s->threads = NULL;
}

/* Reads every open file once into r. Returns 0 or -1 (error set). */
static int take_reading(struct sampler *s, struct sampler_reading *r)
{
	int rc;

	r->t_ns = clock_now();
	if (procstat_pread_all(s->fd_stat, "/proc/stat", &s->buf, &s->cap) < 0 ||
	    procstat_parse_cpu(s->buf, &r->cpu) < 0)
		return -1;
	if (procstat_pread_all(s->fd_pid, s->pid_path, &s->buf, &s->cap) < 0 ||
	    procstat_parse_pid_cpu(s->buf, &r->proc_ticks) < 0)
		return -1;
	if (s->fd_disk >= 0) {
		if (procstat_pread_all(s->fd_disk, "/proc/diskstats", &s->buf, &s->cap) < 0)
			return -1;
		rc = procstat_parse_disk(s->buf, s->disk_dev, &r->disk);
		if (rc != 0)
			return rc < 0 ? -1 : err_set("disk '%s' is not in /proc/diskstats",
						     s->disk_dev);
	}
	if (s->fd_net >= 0) {
		if (procstat_pread_all(s->fd_net, "/proc/net/dev", &s->buf, &s->cap) < 0)
			return -1;
		rc = procstat_parse_net(s->buf, s->iface, &r->net);
		if (rc != 0)
			return rc < 0 ? -1 : err_set("interface '%s' is not in /proc/net/dev",
						     s->iface);
	}
	return 0;
}

/* b - a for a cumulative counter; 0 if it went backwards (device reset). */
static uint64_t delta(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;
}

static void bucket_add(struct sampler_bucket *b, const struct sampler_bucket *x)
{
	b->ns += x->ns;
	b->cpu_total += x->cpu_total;
	b->cpu_idle += x->cpu_idle;
	b->io_ticks_ms += x->io_ticks_ms;
	b->rx_bytes += x->rx_bytes;
	b->tx_bytes += x->tx_bytes;
}

/*
 * Adds the span prev..cur to the series. Buckets hold ticks_per_bucket ticks
 * each; when all SAMPLER_SERIES_MAX are full, neighbours merge pairwise and
 * the width doubles, so memory stays fixed and the points stay evenly spaced
 * whatever the window's length.
 */
static void series_add(struct sampler *s, const struct sampler_reading *prev,
		       const struct sampler_reading *cur)
{
	struct sampler_bucket x = {
		.ns = delta(prev->t_ns, cur->t_ns),
		.cpu_total = delta(cpu_times_total(&prev->cpu), cpu_times_total(&cur->cpu)),
		.cpu_idle = delta(prev->cpu.idle + prev->cpu.iowait, cur->cpu.idle + cur->cpu.iowait),
		.io_ticks_ms = delta(prev->disk.io_ticks_ms, cur->disk.io_ticks_ms),
		.rx_bytes = delta(prev->net.rx_bytes, cur->net.rx_bytes),
		.tx_bytes = delta(prev->net.tx_bytes, cur->net.tx_bytes),
	};

	if (s->ticks_in_bucket == s->ticks_per_bucket) {
		if (s->nbuckets == SAMPLER_SERIES_MAX) {
			for (unsigned i = 0; i < SAMPLER_SERIES_MAX / 2; i++) {
				s->buckets[i] = s->buckets[2 * i];
				bucket_add(&s->buckets[i], &s->buckets[2 * i + 1]);
			}
			s->nbuckets = SAMPLER_SERIES_MAX / 2;
			s->ticks_per_bucket *= 2;
		}
		memset(&s->buckets[s->nbuckets], 0, sizeof(s->buckets[0]));
		s->nbuckets++;
		s->ticks_in_bucket = 0;
	}
	bucket_add(&s->buckets[s->nbuckets - 1], &x);
	s->ticks_in_bucket++;
}

/* Takes a reading and adds it to the window. Returns 0 or -1 (error set). */
static int tick(struct sampler *s)
{
	struct sampler_reading cur;

	if (take_reading(s, &cur) < 0 || (s->watch && proc_watch_scan(s->watch) < 0))
		return -1;
	/* a thread list that cannot be read costs the busiest thread's figure, not the run */
	if (s->threads && thread_watch_scan(s->threads) < 0) {
		free(s->threads);
		s->threads = NULL;
	}
	series_add(s, &s->last, &cur);
	s->last = cur;
	s->samples++;
	return 0;
}

/* ---- the thread ---- */

static void timespec_add_ms(struct timespec *ts, unsigned ms)
{
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static int timespec_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void *sampler_main(void *arg)
{
	struct sampler *s = arg;
	struct timespec deadline, now;

	/* our own watching is not a stage of the run (sampler_cpu_s reports it) */
	if (s->threads)
		thread_watch_skip(s->threads, (pid_t)syscall(SYS_gettid));
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	pthread_mutex_lock(&s->lock);
	for (;;) {
		int rc;

		timespec_add_ms(&deadline, s->interval_ms);
		while (!s->stopping &&
		       pthread_cond_timedwait(&s->wake, &s->lock, &deadline) != ETIMEDOUT)
			;
		if (s->stopping)
			break;
		pthread_mutex_unlock(&s->lock);
		rc = tick(s);
		pthread_mutex_lock(&s->lock);
		if (rc < 0) {
			s->failed = 1;
			err_save(&s->error);
			break;
		}
		/* after a stall, skip the missed ticks instead of firing them back to back */
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (timespec_before(&deadline, &now))
			deadline = now;
	}
	pthread_mutex_unlock(&s->lock);
	s->thread_cpu_ns = clock_thread_cpu();
	return NULL;
}

/* ---- start and stop ---- */

static int copy_name(char *dst, size_t len, const char *src, const char *what)
{
	size_t n = strlen(src);

	if (n == 0 || n >= len)
		return err_set("invalid %s name '%s'", what, src);
	memcpy(dst, src, n + 1);
	return 0;
}

static int open_all(struct sampler *s, const struct sampler_config *c)
{
	if (c->pid == 0)
		snprintf(s->pid_path, sizeof(s->pid_path), "/proc/self/stat");
	else
		snprintf(s->pid_path, sizeof(s->pid_path), "/proc/%ld/stat", (long)c->pid);
	if (open_proc("/proc/stat", &s->fd_stat) < 0 || open_proc(s->pid_path, &s->fd_pid) < 0)
		return -1;
	if (c->disk_dev && (copy_name(s->disk_dev, sizeof(s->disk_dev), c->disk_dev, "disk") < 0 ||
			    open_proc("/proc/diskstats", &s->fd_disk) < 0))
		return -1;
	if (c->iface && (copy_name(s->iface, sizeof(s->iface), c->iface, "interface") < 0 ||
			 open_proc("/proc/net/dev", &s->fd_net) < 0))
		return -1;
	return 0;
}

/* Creates the thread with every signal blocked, so signals go to the caller's threads. */
static int start_thread(struct sampler *s)
{
	pthread_condattr_t attr;
	sigset_t all, old;
	int rc;

	if ((rc = pthread_condattr_init(&attr)) != 0 ||
	    (rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)) != 0 ||
	    (rc = pthread_cond_init(&s->wake, &attr)) != 0) {
		errno = rc;
		return err_errno("cannot set up the sampler's wake-up");
	}
	pthread_condattr_destroy(&attr);
	pthread_mutex_init(&s->lock, NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&s->thread, NULL, sampler_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		pthread_cond_destroy(&s->wake);
		pthread_mutex_destroy(&s->lock);
		errno = rc;
		return err_errno("cannot start the sampler thread");
	}
	return 0;
}

int sampler_start(struct sampler *s, const struct sampler_config *c)
{
	memset(s, 0, sizeof(*s));
	s->fd_stat = s->fd_pid = s->fd_disk = s->fd_net = -1;
	s->interval_ms = c->interval_ms ? c->interval_ms : SAMPLER_DEFAULT_INTERVAL_MS;
	if (c->watch != PROC_WATCH_NONE) {
		s->watch = malloc(sizeof(*s->watch));
		if (!s->watch) {
			err_set("out of memory for the process watcher");
			goto fail;
		}
		proc_watch_init(s->watch, c->watch);
		if (proc_watch_scan(s->watch) < 0)
			goto fail;
	}
	s->threads = malloc(sizeof(*s->threads));
	if (s->threads) {
		thread_watch_init(s->threads, c->pid);
		if (thread_watch_scan(s->threads) < 0) {
			free(s->threads);
			s->threads = NULL;
		}
	}
	if (open_all(s, c) < 0 || take_reading(s, &s->first) < 0)
		goto fail;
	s->last = s->first;
	s->samples = 1;
	s->nbuckets = 1;
	s->ticks_per_bucket = 1;
	if (start_thread(s) < 0)
		goto fail;
	return 0;
fail:
	close_files(s);
	return -1;
}

static double per_second(double x, double seconds)
{
	return seconds > 0 ? x / seconds : 0;
}

static double fraction(uint64_t part, uint64_t whole)
{
	double f = whole ? (double)part / (double)whole : 0;

	return f > 1 ? 1 : f;
}

/* Our own threads, from the last reading of our stat file. */
static unsigned self_threads(void)
{
	struct pid_stat st;
	char text[1024];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 1;
	text[n] = '\0';
	return procstat_parse_pid_stat(text, &st) == 0 && st.threads > 0 ? st.threads : 1;
}

/* Our process first ("self"), then what the watcher summed. */
static void summarize_procs(const struct sampler *s, struct sampler_summary *out)
{
	struct proc_watch_sum sums[SAMPLER_PROCS_MAX - 1];
	double others = 0;
	unsigned k = 0;

	out->procs[0] = (struct sampler_proc){ .name = "self", .cpu_s = out->proc_cpu_s,
					       .threads = s->self_threads };
	out->nprocs = 1;
	if (s->watch)
		k = proc_watch_sums(s->watch, sums, SAMPLER_PROCS_MAX - 1, &others);
	for (unsigned i = 0; i < k; i++) {
		struct sampler_proc *p = &out->procs[out->nprocs++];

		memcpy(p->name, sums[i].name, sizeof(p->name));
		p->cpu_s = sums[i].cpu_s;
		p->threads = sums[i].threads;
	}
	out->procs_cpu_s = out->proc_cpu_s + others;
	procstat_boot_id(out->boot_id, sizeof(out->boot_id));
}

static void summarize_series(const struct sampler *s, struct sampler_summary *out)
{
	uint64_t elapsed = 0;

	out->npoints = s->nbuckets;
	for (unsigned i = 0; i < s->nbuckets; i++) {
		const struct sampler_bucket *b = &s->buckets[i];
		struct sampler_point *p = &out->series[i];
		double secs = (double)b->ns / 1e9;

		elapsed += b->ns;
		p->t = (double)elapsed / 1e9;
		p->cpu_busy = b->cpu_total ? 1 - fraction(b->cpu_idle, b->cpu_total) : 0;
		p->disk_busy = fraction(b->io_ticks_ms * 1000000u, b->ns);
		p->net_bytes_s = per_second((double)(b->rx_bytes > b->tx_bytes ? b->rx_bytes :
						     b->tx_bytes), secs);
	}
}

static void summarize(const struct sampler *s, struct sampler_summary *out)
{
	const struct sampler_reading *a = &s->first, *b = &s->last;
	uint64_t total = delta(cpu_times_total(&a->cpu), cpu_times_total(&b->cpu));
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double secs = (double)delta(a->t_ns, b->t_ns) / 1e9;

	memset(out, 0, sizeof(*out));
	out->seconds = secs;
	out->samples = s->samples;
	out->cpus = cpus > 0 ? (unsigned)cpus : 0;
	out->cpu_user = fraction(delta(a->cpu.user + a->cpu.nice, b->cpu.user + b->cpu.nice), total);
	out->cpu_system = fraction(delta(a->cpu.system + a->cpu.irq, b->cpu.system + b->cpu.irq),
				   total);
	out->cpu_iowait = fraction(delta(a->cpu.iowait, b->cpu.iowait), total);
	out->cpu_softirq = fraction(delta(a->cpu.softirq, b->cpu.softirq), total);
	out->cpu_steal = fraction(delta(a->cpu.steal, b->cpu.steal), total);
	out->cpu_idle = fraction(delta(a->cpu.idle, b->cpu.idle), total);
	out->cpu_busy = total ? 1 - out->cpu_idle - out->cpu_iowait : 0;
	if (out->cpu_busy < 0)
		out->cpu_busy = 0;
	out->proc_cpu_s = (double)delta(a->proc_ticks, b->proc_ticks) /
			  (double)procstat_clock_ticks();
	out->proc_cores = per_second(out->proc_cpu_s, secs);
	out->sampler_cpu_s = (double)s->thread_cpu_ns / 1e9;
	out->busiest_thread_cpu_s = -1;
	out->busiest_thread_run_delay_s = -1;
	out->threads_run_delay_s = -1;
	if (s->threads) {
		uint64_t delay_ns;

		out->busiest_thread_cpu_s = (double)thread_watch_busiest_ticks(s->threads, &delay_ns) /
					    (double)procstat_clock_ticks();
		out->busiest_thread_run_delay_s = (double)delay_ns / 1e9;
		out->threads_run_delay_s = (double)thread_watch_delay_ns(s->threads) / 1e9;
	}
	summarize_procs(s, out);

	if (s->fd_disk >= 0) {
		out->has_disk = 1;
		memcpy(out->disk_dev, s->disk_dev, sizeof(out->disk_dev));
		out->disk_read_bytes = delta(a->disk.sectors_read, b->disk.sectors_read) *
				       PROCSTAT_SECTOR;
		out->disk_write_bytes = delta(a->disk.sectors_written, b->disk.sectors_written) *
					PROCSTAT_SECTOR;
		out->disk_busy = secs > 0 ? (double)delta(a->disk.io_ticks_ms, b->disk.io_ticks_ms) /
						    1e3 / secs : 0;
		if (out->disk_busy > 1)
			out->disk_busy = 1;
		out->disk_read_bytes_per_s = per_second((double)out->disk_read_bytes, secs);
		out->disk_write_bytes_per_s = per_second((double)out->disk_write_bytes, secs);
	}
	if (s->fd_net >= 0) {
		out->has_net = 1;
		memcpy(out->iface, s->iface, sizeof(out->iface));
		out->net_rx_bytes = delta(a->net.rx_bytes, b->net.rx_bytes);
		out->net_tx_bytes = delta(a->net.tx_bytes, b->net.tx_bytes);
		out->net_rx_packets = delta(a->net.rx_packets, b->net.rx_packets);
		out->net_tx_packets = delta(a->net.tx_packets, b->net.tx_packets);
		out->net_rx_bits_per_s = per_second((double)out->net_rx_bytes * 8, secs);
		out->net_tx_bits_per_s = per_second((double)out->net_tx_bytes * 8, secs);
		out->net_bits_per_s = out->net_rx_bits_per_s > out->net_tx_bits_per_s ?
					      out->net_rx_bits_per_s : out->net_tx_bits_per_s;
	}
	summarize_series(s, out);
}

int sampler_stop(struct sampler *s, struct sampler_summary *out)
{
	int rc = 0;

	pthread_mutex_lock(&s->lock);
	s->stopping = 1;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);

	if (s->failed) {
		err_restore(&s->error);
		rc = err_wrap("sampling /proc failed");
	}
	else if (tick(s) < 0)
		rc = err_wrap("sampling /proc failed");
	else {
		s->self_threads = self_threads();
		summarize(s, out);
	}
	close_files(s);
	return rc;
}
