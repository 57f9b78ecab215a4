/*
 * The --html page's stream sweep: a small bar chart of the network probe's
 * rate at each stream count, the saturation point marked, and, when one
 * stream is window-limited, its window's rate as a dashed line.
 */
#include "report/report_html.h"

#define CHART_W 360
#define CHART_H 140
#define PAD_L 44
#define PAD_B 22

void report_html_sweep(const struct probe_results *p, FILE *f)
{
	double top = net_sweep_best(p->sweep, p->nsweep) / 1e9, plot_h = CHART_H - PAD_B - 8;
	int bar_w;

	if (p->nsweep == 0 || !(top > 0))
		return;
	bar_w = (CHART_W - PAD_L) / (int)p->nsweep - 6;
	fputs("<h3>Network: streams swept</h3>\n", f);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" "
		   "aria-label=\"network rate at each stream count\">\n", CHART_W, CHART_H);
	fprintf(f, "<text x=\"0\" y=\"12\">%.1f Gbit/s</text>\n", top);
	for (unsigned i = 0; i < p->nsweep; i++) {
		double g = p->sweep[i].bits_per_s / 1e9, h = g / top * plot_h;
		int x = PAD_L + (int)i * (bar_w + 6);

		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"><title>%u stream%s: %.2f Gbit/s</title></rect>\n",
			x, CHART_H - PAD_B - h, bar_w, h,
			p->sweep[i].streams == p->net_saturation ? "#d62728" : "#1f77b4", p->sweep[i].streams,
			p->sweep[i].streams == 1 ? "" : "s", g);
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%u</text>\n", x + bar_w / 2,
			CHART_H - 6, p->sweep[i].streams);
	}
	if (p->window.limited && p->window.window_bits_per_s / 1e9 < top) {
		double y = CHART_H - PAD_B - p->window.window_bits_per_s / 1e9 / top * plot_h;

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#555\" stroke-dasharray=\"4 3\"><title>one stream's window: %.2f Gbit/s</title></line>\n",
			PAD_L, y, CHART_W, y, p->window.window_bits_per_s / 1e9);
	}
	fputs("</svg>\n", f);
	fprintf(f, "<p>The link saturates at %u stream%s (red).", p->net_saturation, p->net_saturation == 1 ? "" : "s");
	if (p->window.limited)
		fprintf(f, " One stream is window-limited: %.1f MiB send buffer over %.1f ms (dashed).",
			p->window.sndbuf_bytes / (1024.0 * 1024.0), p->window.rtt_s * 1e3);
	fputs("</p>\n", f);
}
