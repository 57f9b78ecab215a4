#ifndef XFERCMP_CLOCK_H
#define XFERCMP_CLOCK_H

#include <stdint.h>
#include <time.h>

/*
 * One monotonic nanosecond clock, used only for differences: never compare it
 * with wall-clock time and never print it as a date.
 */
typedef uint64_t clock_ns;

static inline clock_ns clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (clock_ns)ts.tv_sec * 1000000000u + (clock_ns)ts.tv_nsec;
}

static inline double clock_seconds(clock_ns from, clock_ns to)
{
	return (double)(to - from) / 1e9;
}

/* CPU time of a CPU-time clock (thread or process), nanoseconds; 0 when it cannot be read. */
static inline clock_ns clock_cpu_of(clockid_t which)
{
	struct timespec ts;

	if (clock_gettime(which, &ts) != 0)
		return 0;
	return (clock_ns)ts.tv_sec * 1000000000u + (clock_ns)ts.tv_nsec;
}

/* CPU time the calling thread has used, nanoseconds (for differences too). */
static inline clock_ns clock_thread_cpu(void)
{
	return clock_cpu_of(CLOCK_THREAD_CPUTIME_ID);
}

/* CPU time every thread of this process has used, nanoseconds (for differences too). */
static inline clock_ns clock_process_cpu(void)
{
	return clock_cpu_of(CLOCK_PROCESS_CPUTIME_ID);
}

#endif
