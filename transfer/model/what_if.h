#ifndef XFERCMP_WHAT_IF_H
#define XFERCMP_WHAT_IF_H

/*
 * --what-if: a forecast of a run on another link (docs/MODEL.md, "Another
 * link"). What belongs to the workload and the hosts is carried over from
 * the run as measured (its bytes on the wire, its requests, the hosts' work
 * per request, the time its stages off the link took, its flush); what
 * belongs to the link is computed again for the other one (its rate, round
 * trips, windows, handshakes and slow start).
 */

#include "model/forecast.h"
#include "model/run_record.h"

#include <stddef.h>
#include <stdint.h>

/* Another link: its rate (bits/s) and round trip; 0 keeps what was probed. */
struct what_if {
	double rate_bits_per_s;
	double rtt_s;
};

/*
 * The flow-control windows that hold one stream on a long link: OpenSSH's
 * session channel window (CHAN_SES_WINDOW_DEFAULT: 64 packets of 32 KiB),
 * and, when the probe could not read the sysctl, Linux's default largest
 * TCP send buffer (net.ipv4.tcp_wmem's third value, 4 MiB).
 */
#define WHAT_IF_SSH_WINDOW_BYTES (2.0 * 1024 * 1024)
#define WHAT_IF_TCP_WINDOW_BYTES (4.0 * 1024 * 1024)

struct what_if_forecast {
	double seconds, low, high;	/* on the other link */
	struct link link;		/* the other link as the strategy's streams see it */
	/* carried over from the run */
	double wire_bytes;		/* on the wire (measured, or the forecast's when the run could not count) */
	uint64_t requests;		/* round trips waited in turn */
	double request_work_s;		/* each request's work beyond the wire, the hosts' */
	double off_link_s;		/* what the stages off the link took in the run */
	double flush_s;
	/* computed again for the other link */
	double network_s, latency_s;
};

/*
 * Parses one scenario "rate=1gbit,rtt=20ms" (either key may be left out,
 * not both; rate in bit, kbit, mbit, gbit or tbit per second, decimal
 * prefixes; rtt in us, ms or s). Returns 0, or -1 (error set naming the
 * part that is wrong).
 */
int what_if_parse(const char *text, struct what_if *out);

/* "on a 1 Gbit/s, 20 ms link", "on a 1 Gbit/s link", "on the measured link with a 2 ms round trip". */
const char *what_if_label(const struct what_if *w, char *buf, size_t len);

/*
 * The link w for in's strategy: w's rate, no faster than the probed path
 * (the hosts' own limits: the cipher, the copies), nor than its streams'
 * windows allow per round trip; w's round trip; a request's time with the
 * hosts' work on it kept.
 */
void what_if_link(const struct forecast_input *in, const struct what_if *w, struct link *out);

/* The forecast of run (of in) on w. Returns 0, or -1 (error set). */
int what_if_forecast(const struct run_record *run, const struct forecast_input *in,
		     const struct what_if *w, struct what_if_forecast *out);

#endif
