#ifndef XFERCMP_RSS_H
#define XFERCMP_RSS_H

/*
 * Peak resident memory of this process (VmHWM in /proc/self/status), per
 * window and over its life.
 *
 * A window starts with rss_window_start(): the peak so far is folded into the
 * lifetime peak, then the kernel's high-water mark is reset to the current
 * resident size (writing "5" to /proc/self/clear_refs, Linux >= 4.0), so that
 * VmHWM read later is the peak since then. Where the reset is refused (an old
 * kernel, a locked-down /proc) VmHWM stays the peak since the process began:
 * an upper bound, which rss_window_start says by returning 1.
 *
 * The windows are the runner's and the agent's, one strategy run at a time;
 * the lifetime peak is kept with atomics so a sampler thread may read it.
 */

#include <stdint.h>

/*
 * Parses /proc/PID/status text: VmRSS and VmHWM in bytes (the file gives kB).
 * Either pointer may be NULL. Returns 0, or -1 (error set) when a line asked
 * for is missing or malformed (a kernel thread has neither).
 */
int rss_parse_status(const char *text, uint64_t *rss_bytes, uint64_t *hwm_bytes);

/* VmRSS and VmHWM of this process, now. Returns 0 or -1 (error set). */
int rss_read(uint64_t *rss_bytes, uint64_t *hwm_bytes);

/*
 * Starts a window: the peak so far joins the lifetime peak, then VmHWM is
 * reset. Returns 0 when reset, 1 when the kernel refused the reset (VmHWM
 * stays the lifetime peak), -1 (error set) when /proc/self/status is
 * unreadable.
 */
int rss_window_start(void);

/* The peak since the last rss_window_start (since the start without one); 0 when unreadable. */
uint64_t rss_window_peak(void);

/* The peak since the process began, across every window; 0 when unreadable. */
uint64_t rss_lifetime_peak(void);

#endif
