#ifndef XFERCMP_ATTRIBUTION_WINDOW_H
#define XFERCMP_ATTRIBUTION_WINDOW_H

/*
 * The window-limited part of the attribution (attribution_window.c): a
 * stream held back by its window (its socket buffer over the round trip)
 * waits on the round trip, not on the link, so that wait is latency. Kept
 * apart from attribution.c so the model's arithmetic there stays whole.
 */

#include "model/attribution.h"

/*
 * The time the run's streams wait on their window beyond the slowest
 * overlapped stage (network at the link's capacity, disk, metadata, cpu;
 * for a serial strategy the network alone): wire_bytes / stream_cap_bps
 * minus that, or 0 when c->stream_cap_bps is unknown or not below net_bps.
 * need[] are the stages' needs (latency is not read).
 */
double attribution_window_wait(const struct attribution_input *in, const struct ceilings *c,
			       const double need[RES_COUNT]);

/*
 * The reason of a window-limited latency verdict: "one stream is
 * window-limited at 170 MB/s (a 4.0 MiB window per 20.2 ms round trip);
 * the link carries 650 MB/s: 9.1 s of 12.0 s waited on the window".
 */
void attribution_window_reason(const struct attribution_input *in, const struct ceilings *c,
			       double wall, double wait, char *buf, size_t len);

#endif
