#ifndef XFERCMP_NET_SWEEP_H
#define XFERCMP_NET_SWEEP_H

/*
 * The network probe's stream sweep, like `iperf3 -P 1, 2, 4, ...` by hand:
 * which stream count to measure next, when to stop, where the link
 * saturates, and whether one stream is held back by its window (its socket
 * buffer over the round trip) rather than by the link. Pure arithmetic on
 * what probe_net.c measured, so every rule is unit-tested
 * (tests/unit/probe/test_net_sweep.c).
 */

#include <stdbool.h>

/* Steps of the sweep: 1, 2, 4, ... 64 is 7; one spare. */
#define NET_SWEEP_MAX_STEPS 8
/*
 * A step that adds less than this fraction to the step before has found the
 * link: the field's rule of thumb when sweeping iperf3 -P by hand, and above
 * the spread of two 0.5 s measurements of one rate on the testbed (a few %).
 */
#define NET_SWEEP_GAIN 0.10
/*
 * One stream is "clearly" below the link when the sweep's best is at least
 * this many times its rate.
 */
#define NET_WINDOW_CLEARLY 1.25
/*
 * Its window explains its rate when the window over the round trip is at
 * most this many times what the stream moved (the kernel's buffer holds
 * headers and unacknowledged data as well: 4 MiB over 20 ms is 210 MB/s,
 * one stream measured 170 MB/s on the testbed).
 */
#define NET_WINDOW_EXPLAINS 2.0

/* Why a sweep ended. */
enum net_sweep_stop {
	NET_SWEEP_STOP_GAIN,	/* a step gained less than NET_SWEEP_GAIN: the link is found */
	NET_SWEEP_STOP_CAP,	/* the most streams were measured */
	NET_SWEEP_STOP_BUDGET,	/* the probe's time ran out first */
};

/* "gain", "cap", "budget". */
const char *net_sweep_stop_name(enum net_sweep_stop why);

struct net_sweep_step {
	unsigned streams;
	double bits_per_s;
};

/*
 * After n steps (steps[0..n), streams ascending): the stream count to
 * measure next, at most cap, or 0 to stop: a step gained less than
 * NET_SWEEP_GAIN over the one before, or the cap was measured, or the table
 * is full. n 0 gives 1.
 */
unsigned net_sweep_next(const struct net_sweep_step *steps, unsigned n, unsigned cap);

/* The highest rate measured (0 when n is 0). */
double net_sweep_best(const struct net_sweep_step *steps, unsigned n);

/*
 * The saturation point: the fewest streams measured to carry at least
 * 1 / (1 + NET_SWEEP_GAIN) of the best rate (0 when n is 0).
 */
unsigned net_sweep_saturation(const struct net_sweep_step *steps, unsigned n);

/*
 * The rate at `streams`: measured, or between the two steps around it
 * (linear), or the last step's beyond it (0 when n is 0).
 */
double net_sweep_rate_at(const struct net_sweep_step *steps, unsigned n, unsigned streams);

/*
 * -P auto: the saturation point, at least `floor_streams` (one stream a
 * core: the strategies' per-file work uses the cores even when the link
 * needs one stream), at most `cap` (the agent's default session limit and
 * what the cores can drive) and `pieces` (the files and large-file ranges
 * there are to share out; 0 = no limit), and at least 1. Without a sweep (n
 * 0) the floor.
 */
unsigned net_sweep_auto(const struct net_sweep_step *steps, unsigned n, unsigned floor_streams,
			unsigned cap, unsigned long long pieces);

/*
 * Large files' ranges keep the disks busy only when enough of them are in
 * flight: each stream reads one range and writes one at a time, so this
 * many streams give both disks a queue of that depth. Measured with the
 * wan bench on the testbed at 0.5 ms (1 GiB, cold source, durable
 * destination): -P 2 1.57 s, -P 4 1.35 s, -P 8 1.29 and 1.15 s, -P 16 1.77 s,
 * all disk-bound, while the sweep's saturation there came out at 2 streams
 * in one run and 8 in the next (one stream carried 8.4-16.6 Gbit/s).
 */
#define NET_AUTO_RANGE_DEPTH 8

/*
 * -P auto's fewest streams: one a core (cores, at most `most`), or, when
 * there are at least NET_AUTO_RANGE_DEPTH ranges of large files to share
 * out, NET_AUTO_RANGE_DEPTH (at most `most` too).
 */
unsigned net_sweep_floor(unsigned cores, unsigned long long ranges, unsigned most);

/* What bounds one stream, measured on its socket and this machine's sysctls (0 = unknown). */
struct net_window {
	double sndbuf_bytes;	/* SO_SNDBUF the kernel granted the probe's one stream (autotuned) */
	double wmem_max_bytes;	/* net.ipv4.tcp_wmem, third value: autotuning's send-buffer ceiling */
	double rmem_max_bytes;	/* net.ipv4.tcp_rmem, third value, on this machine */
	double rtt_s;		/* the round trip, p50 */
	double window_bits_per_s;	/* the window over the round trip: what one stream can carry */
	bool limited;		/* one stream is window-limited: the link carries clearly more */
	/*
	 * When limited and a single raw strategy sets its send buffer
	 * (sockbuf_plan.h): one stream measured with its buffers sized so
	 * (probe_net.c's sized_stream), and the send buffer it had; else 0.
	 */
	double sized_bits_per_s, sized_sndbuf_bytes;
};

/*
 * Fills w->window_bits_per_s (sndbuf, or wmem_max when the socket's is
 * unknown, over rtt) and w->limited: the best swept rate is at least
 * NET_WINDOW_CLEARLY times one stream's, and the window explains that
 * stream's rate (NET_WINDOW_EXPLAINS). Unknown window or round trip: not
 * limited.
 */
void net_window_judge(struct net_window *w, double one_stream_bits_per_s, double link_bits_per_s);

/*
 * The buffer one stream needs to fill link_bits_per_s over rtt_s: the
 * bandwidth-delay product in bytes (0 when either is unknown).
 */
double net_window_bdp_bytes(double link_bits_per_s, double rtt_s);

#endif
