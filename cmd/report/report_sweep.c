/*
 * The network sweep in the terminal report: the curve, the saturation point,
 * and what limits one stream when its window does (net_sweep.h).
 */
#include "report/report.h"

#include "probe/net_sweep.h"
#include "stream/sockbuf_plan.h"

#include <stdio.h>

#define MIB (1024.0 * 1024.0)

void report_window_line(const struct probe_results *p, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!p->window.limited)
		return;
	snprintf(buf, len, "one stream is capped at %.2f Gbit/s by a %.1f MiB send buffer at %.1f ms; the link carries %.2f Gbit/s with %u+ streams",
		 p->net_bps_1 * 8 / 1e9,
		 (p->window.sndbuf_bytes > 0 ? p->window.sndbuf_bytes : p->window.wmem_max_bytes) / MIB,
		 p->window.rtt_s * 1e3, p->net_link_bps * 8 / 1e9, p->net_saturation);
}

void report_sweep(const struct probe_results *p, FILE *out)
{
	double need;

	if (p->nsweep == 0)
		return;
	fputs("              streams", out);
	for (unsigned i = 0; i < p->nsweep; i++)
		fprintf(out, "%s %u: %.2f", i ? "," : "", p->sweep[i].streams, p->sweep[i].bits_per_s / 1e9);
	fprintf(out, " Gbit/s; the link saturates at %u stream%s (sweep stopped: %s)\n", p->net_saturation,
		p->net_saturation == 1 ? "" : "s",
		p->sweep_stop == NET_SWEEP_STOP_GAIN	? "the next step gained < 10%" :
		p->sweep_stop == NET_SWEEP_STOP_CAP	? "the most streams measured" :
							  "the probe's time ran out");
	if (!p->window.limited)
		return;
	/* the buffer, not the product: the kernel counts its bookkeeping in it (sockbuf_plan.h) */
	need = SOCKBUF_PER_BDP * net_window_bdp_bytes(p->net_link_bps * 8, p->window.rtt_s);
	fprintf(out, "              one stream is window-limited: send buffer %.1f MiB (SO_SNDBUF granted; net.ipv4.tcp_wmem max %.1f MiB, net.ipv4.tcp_rmem max %.1f MiB here) / round trip %.1f ms = %.2f Gbit/s\n",
		p->window.sndbuf_bytes / MIB, p->window.wmem_max_bytes / MIB, p->window.rmem_max_bytes / MIB,
		p->window.rtt_s * 1e3, p->window.window_bits_per_s / 1e9);
	fprintf(out, "              to fill the link with one stream raise net.ipv4.tcp_wmem max here and net.ipv4.tcp_rmem max on the host to at least %.0f MB (twice %.2f Gbit/s x %.1f ms), or use more streams\n",
		need / 1e6, p->net_link_bps * 8 / 1e9, p->window.rtt_s * 1e3);
}
