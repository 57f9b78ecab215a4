#ifndef XFERCMP_SAMPLER_H
#define XFERCMP_SAMPLER_H

/*
 * Samples /proc (machine CPU, one process's CPU, one disk, one interface) on
 * a thread at about 10 Hz while a strategy runs, and sums the window up.
 *
 * The window runs from sampler_start() to sampler_stop(); both take a sample
 * themselves, so the summary covers exactly that span. The /proc files are
 * opened once and re-read from offset 0 each tick; the thread's own CPU time
 * is reported (sampler_cpu_s) so the cost of watching is known, not assumed.
 */

#include "err.h"
#include "sample/proc_watch.h"
#include "sample/procstat.h"
#include "sample/thread_watch.h"

#include <json-c/json.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#define SAMPLER_DEFAULT_INTERVAL_MS 100
#define SAMPLER_SERIES_MAX 256

struct sampler_config {
	const char *disk_dev;	/* as in /proc/diskstats; NULL = none */
	const char *iface;	/* as in /proc/net/dev; NULL = none */
	pid_t pid;		/* our process, 0 = self */
	unsigned interval_ms;	/* 0 = SAMPLER_DEFAULT_INTERVAL_MS */
	enum proc_watch_kind watch;	/* which other processes' CPU to measure (proc_watch.h) */
};

/* The processes kept apart in a summary: ours first, then the busiest others by name. */
#define SAMPLER_PROCS_MAX 8

/* One command's CPU over the window. */
struct sampler_proc {
	char name[16];
	double cpu_s;		/* user + system seconds */
	unsigned threads;	/* the most threads one of its processes had */
};

/* One point of the chart series: averages over an equal slice of the window. */
struct sampler_point {
	double t;		/* seconds from the start to the end of the slice */
	double cpu_busy;	/* machine, 1 - idle - iowait */
	double disk_busy;	/* io_ticks / time; 0 without a disk */
	double net_bytes_s;	/* the busier direction; 0 without an interface */
};

/*
 * The whole window. CPU fractions are of all CPU time of the machine (all
 * cores): user includes nice, system includes hardware irq, and user +
 * system + iowait + softirq + steal + idle = 1.
 */
struct sampler_summary {
	double seconds;
	unsigned samples;	/* readings, the two ends included */
	unsigned cpus;		/* online CPUs */
	double cpu_user, cpu_system, cpu_iowait, cpu_softirq, cpu_steal, cpu_idle;
	double cpu_busy;	/* 1 - idle - iowait */
	double proc_cpu_s;	/* the process's user + system seconds (the sampler included) */
	double proc_cores;	/* proc_cpu_s / seconds: fraction of one core */
	double sampler_cpu_s;	/* the sampling thread's own CPU seconds */
	double busiest_thread_cpu_s;	/* the process's busiest thread, the sampler's left out; -1 = unknown */
	double busiest_thread_run_delay_s;	/* what that thread waited for a core (thread_watch.h); -1 = unknown */
	double threads_run_delay_s;	/* what all its threads (the sampler's left out) waited for a core; -1 = unknown */
	/* our process ("self") and the processes watched, busiest first; all of them together */
	unsigned nprocs;
	struct sampler_proc procs[SAMPLER_PROCS_MAX];
	double procs_cpu_s;
	char boot_id[40];	/* /proc/sys/kernel/random/boot_id: both ends one machine when equal */

	int has_disk;
	char disk_dev[PROCSTAT_NAME_MAX];
	uint64_t disk_read_bytes, disk_write_bytes;
	double disk_busy;	/* io_ticks delta / window, in [0, 1] */
	double disk_read_bytes_per_s, disk_write_bytes_per_s;	/* averages */

	int has_net;
	char iface[PROCSTAT_NAME_MAX];
	uint64_t net_rx_bytes, net_tx_bytes, net_rx_packets, net_tx_packets;
	double net_rx_bits_per_s, net_tx_bits_per_s;	/* averages */
	double net_bits_per_s;	/* the busier direction: a full-duplex link's bottleneck */

	unsigned npoints;	/* at most SAMPLER_SERIES_MAX */
	struct sampler_point series[SAMPLER_SERIES_MAX];
};

/* Cumulative counters at one instant. */
struct sampler_reading {
	uint64_t t_ns;		/* clock_now() */
	struct cpu_times cpu;
	uint64_t proc_ticks;
	struct disk_counters disk;
	struct net_counters net;
};

/* Sums over one slice of the window (merged pairwise as the window grows). */
struct sampler_bucket {
	uint64_t ns, cpu_total, cpu_idle, io_ticks_ms, rx_bytes, tx_bytes;
};

/* Caller-allocated; every field is private to sampler.c. */
struct sampler {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int stopping;		/* under lock */
	unsigned interval_ms;
	int fd_stat, fd_pid, fd_disk, fd_net;
	char pid_path[32];	/* for messages */
	char *buf;
	size_t cap;
	char disk_dev[PROCSTAT_NAME_MAX];
	char iface[PROCSTAT_NAME_MAX];
	struct sampler_reading first, last;
	unsigned samples;
	struct sampler_bucket buckets[SAMPLER_SERIES_MAX];
	unsigned nbuckets;	/* filled, the current one included */
	unsigned ticks_per_bucket, ticks_in_bucket;
	uint64_t thread_cpu_ns;
	struct proc_watch *watch;	/* NULL: only our own process */
	struct thread_watch *threads;	/* our process's threads; NULL when it could not be had */
	unsigned self_threads;
	int failed;		/* set by the thread when a read failed */
	struct err_saved error;	/* why, for sampler_stop to raise */
};

/*
 * Opens the files, takes the first reading and starts the thread. Fails (-1,
 * error set, nothing left running) when a file cannot be read or the named
 * disk or interface is not there. Every sampler_start that returned 0 must be
 * followed by one sampler_stop.
 */
int sampler_start(struct sampler *s, const struct sampler_config *c);

/*
 * Stops the thread, takes the last reading, closes the files and fills out.
 * Returns 0, or -1 (error set) when a reading failed during the window (the
 * sampler is released either way).
 */
int sampler_stop(struct sampler *s, struct sampler_summary *out);

/* A new JSON object for the summary (the caller owns it: json_object_put). */
json_object *sampler_summary_json(const struct sampler_summary *sum);

/*
 * Reads a summary made by sampler_summary_json (e.g. from the agent). Doubles
 * and counters come back exactly. Returns 0 or -1 (error set naming the field).
 */
int sampler_summary_from_json(json_object *obj, struct sampler_summary *out);

#endif
