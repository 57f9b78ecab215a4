/*
 * Unit tests for the network sweep's lines (cmd/report/report_sweep.c): the curve
 * and where it saturates, and, when one stream is window-limited, the line
 * that names what caps it (its send buffer, or the sysctl maximum when the
 * socket's was not read, at the round trip) against what the link carries,
 * and the sysctl to raise with its number. Nothing about the window when
 * one stream is not limited.
 */
#include "testutil.h"

#include "report/report.h"

#include <stdlib.h>

/*
 * The link: 5.2 Gbit/s with 4+ streams, one stream 1.4 Gbit/s, 4 MiB
 * send buffer granted (under a tcp_wmem max of 8 MiB), 20 ms.
 */
static void wan(struct probe_results *p)
{
	memset(p, 0, sizeof(*p));
	p->sweep[0] = (struct net_sweep_step){ .streams = 1, .bits_per_s = 1.4e9 };
	p->sweep[1] = (struct net_sweep_step){ .streams = 2, .bits_per_s = 2.8e9 };
	p->sweep[2] = (struct net_sweep_step){ .streams = 4, .bits_per_s = 5.2e9 };
	p->sweep[3] = (struct net_sweep_step){ .streams = 8, .bits_per_s = 5.3e9 };
	p->nsweep = 4;
	p->sweep_stop = NET_SWEEP_STOP_GAIN;
	p->net_saturation = 4;
	p->net_link_bps = 5.2e9 / 8;
	p->net_bps_1 = 1.4e9 / 8;
	p->window = (struct net_window){ .sndbuf_bytes = 4 << 20, .wmem_max_bytes = 8 << 20,
					 .rmem_max_bytes = 6 << 20, .rtt_s = 0.020,
					 .window_bits_per_s = (4 << 20) * 8 / 0.020, .limited = true };
}

static void test_window_line(void **state)
{
	struct probe_results p;
	char buf[256];
	volatile size_t short_len = 11;

	(void)state;
	wan(&p);
	report_window_line(&p, buf, sizeof(buf));
	assert_string_equal(buf, "one stream is capped at 1.40 Gbit/s by a 4.0 MiB send buffer at 20.0 ms; "
			    "the link carries 5.20 Gbit/s with 4+ streams");
	/* the socket's buffer not read: the sysctl maximum autotuning stops at */
	p.window.sndbuf_bytes = 0;
	report_window_line(&p, buf, sizeof(buf));
	assert_contains(buf, "by a 8.0 MiB send buffer at 20.0 ms");
	/* a short buffer is cut, not overrun (its size unknown to the compiler, as a caller's would be) */
	report_window_line(&p, buf, short_len);
	assert_string_equal(buf, "one stream");
	/* one stream fills the link: nothing to say */
	p.window.limited = false;
	strcpy(buf, "x");
	report_window_line(&p, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

/* report_sweep's lines for p, into a string the caller frees. */
static void sweep_to(FILE *f, const void *p)
{
	report_sweep(p, f);
}

static char *sweep_text(const struct probe_results *p)
{
	return test_written(sweep_to, p);
}

static void test_sweep_lines(void **state)
{
	struct probe_results p;
	char *text;

	(void)state;
	wan(&p);
	text = sweep_text(&p);
	assert_contains(text, "streams 1: 1.40, 2: 2.80, 4: 5.20, 8: 5.30 Gbit/s; the link saturates at 4 streams "
			"(sweep stopped: the next step gained < 10%)");
	assert_contains(text, "one stream is window-limited: send buffer 4.0 MiB (SO_SNDBUF granted; "
			"net.ipv4.tcp_wmem max 8.0 MiB, net.ipv4.tcp_rmem max 6.0 MiB here) / round trip 20.0 ms = 1.68 Gbit/s");
	/* twice the product: 5.2 Gbit/s x 20 ms is 13 MB */
	assert_contains(text, "raise net.ipv4.tcp_wmem max here and net.ipv4.tcp_rmem max on the host to at least 26 MB "
			"(twice 5.20 Gbit/s x 20.0 ms), or use more streams");
	free(text);

	/* not window-limited: the curve alone; one stream says so in the singular */
	p.window.limited = false;
	p.net_saturation = 1;
	p.sweep_stop = NET_SWEEP_STOP_BUDGET;
	text = sweep_text(&p);
	assert_contains(text, "the link saturates at 1 stream (sweep stopped: the probe's time ran out)");
	assert_null(strstr(text, "window"));
	assert_null(strstr(text, "tcp_wmem"));
	free(text);

	/* no sweep: no lines */
	p.nsweep = 0;
	text = sweep_text(&p);
	assert_string_equal(text, "");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_line),
		cmocka_unit_test(test_sweep_lines),
	};

	return test_run("report_sweep", tests, ARRAY_LEN(tests), NULL, 0);
}
