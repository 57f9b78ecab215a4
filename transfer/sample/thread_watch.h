#ifndef XFERCMP_THREAD_WATCH_H
#define XFERCMP_THREAD_WATCH_H
/*
 * CPU seconds of one process's busiest thread over a window: the longest
 * stage that cannot spread over cores. The process's CPU over its thread
 * count (what the model read before issue 41) says nothing of it: the agent's tar receiver
 * extracts on one thread while its control and watcher threads idle, and the
 * threads counted at the window's end are not those that worked (zstd's
 * workers and the stream thread have exited by then). Measured on the
 * testbed 2026-12-02 (20,000 files through zstd, 9.41 s): the agent's
 * stream thread used 8.46 s of CPU, 96-104% of a core for most of the run;
 * the agent's process CPU over its 3 threads read 3 s.
 *
 * thread_watch_scan reads /proc/PID/task/(tid)/stat of every thread; the
 * sampler calls it at the start, at every tick and at the end. A thread's
 * seconds are its utime + stime at its last scan minus those at its first
 * (from 0 for a thread born in the window: a thread's times start at 0). A
 * thread that exits loses at most one tick of its time.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Threads followed; more (io-wq workers come and go) are not counted. */
#define THREAD_WATCH_MAX 512

struct thread_watch_entry {
	pid_t tid;
	uint64_t first, last;	/* utime + stime ticks at the first and last scan */
	uint64_t delay_first, delay_last;	/* ns runnable but waiting for a core (schedstat) */
};

/* Caller-allocated, zeroed by thread_watch_init; private to thread_watch.c. */
struct thread_watch {
	pid_t pid;		/* 0 = self */
	pid_t skip;		/* a thread left out (the sampler's own), 0 = none */
	bool started;		/* the first scan is done */
	unsigned n;
	struct thread_watch_entry e[THREAD_WATCH_MAX];
};

void thread_watch_init(struct thread_watch *w, pid_t pid);

/*
 * One thread's reading: a thread seen for the first time at the first scan
 * counts from there, one born later from 0. Pure (the scan feeds it).
 */
void thread_watch_update(struct thread_watch *w, pid_t tid, uint64_t ticks, uint64_t delay_ns);

/* Ends a scan: the next thread_watch_update of a new tid is a thread born in the window. */
void thread_watch_scanned(struct thread_watch *w);

/* Reads every thread of the process once. Returns 0, or -1 (error set) when the task directory cannot be read. */
int thread_watch_scan(struct thread_watch *w);

/* Leaves thread tid out of thread_watch_busiest_ticks (the sampler's own thread). */
void thread_watch_skip(struct thread_watch *w, pid_t tid);

/*
 * The busiest thread's CPU ticks over the window, the skipped one left out
 * (0 when none was seen); *delay_ns (may be NULL): what that thread waited
 * on a run queue over the window, runnable while no core was free (the
 * second figure of /proc/PID/task/TID/schedstat; 0 where the kernel has no
 * schedstat). On a machine whose cores both ends share, it is the CPU's
 * part of a one-thread stage beside its own CPU.
 */
uint64_t thread_watch_busiest_ticks(const struct thread_watch *w, uint64_t *delay_ns);

/*
 * What every thread followed (the skipped one left out) waited on a run
 * queue over the window, in all, ns: a request path through several of
 * them waits each of those in turn.
 */
uint64_t thread_watch_delay_ns(const struct thread_watch *w);

#endif
