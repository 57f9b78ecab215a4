/*
 * The HTML page's timelines: for each strategy that was sampled, one small
 * SVG chart per end (source, destination) of the 10 Hz series the samplers
 * kept: network bytes/s (scaled to its own peak, which the legend names),
 * disk busy and CPU busy (both 0-100%), over the run's seconds.
 */
#include "report/report_html.h"

#include <stdio.h>

#define TL_WIDTH 420
#define TL_HEIGHT 110
#define TL_LEFT 40
#define TL_TOP 18

static const char *const line_colors[3] = { "#3b6fd6", "#d6973b", "#d64545" };
static const char *const line_names[3] = { "network", "disk busy", "cpu busy" };
/* the network entry carries its peak ("network (peak 59.9 MB/s)"): the others start after it */
static const int legend_x[3] = { TL_LEFT, TL_LEFT + 200, TL_LEFT + 300 };

static double point_value(const struct sampler_point *p, int k, double net_peak)
{
	switch (k) {
	case 0: return net_peak > 0 ? p->net_bytes_s / net_peak : 0;
	case 1: return p->disk_busy;
	default: return p->cpu_busy;
	}
}

/* One end's chart; nothing when it has no points. */
static void end_chart(FILE *f, const char *end, const struct sampler_summary *s)
{
	double net_peak = 0, span;

	if (!s->npoints)
		return;
	span = s->series[s->npoints - 1].t > 0 ? s->series[s->npoints - 1].t : s->seconds;
	if (!(span > 0))
		return;
	for (unsigned i = 0; i < s->npoints; i++)
		if (s->series[i].net_bytes_s > net_peak)
			net_peak = s->series[i].net_bytes_s;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"%d\" "
		   "height=\"%d\" role=\"img\" aria-label=\"%s over time\">\n",
		TL_WIDTH + TL_LEFT + 30, TL_HEIGHT + TL_TOP + 40, end);
	fprintf(f, "<text x=\"%d\" y=\"12\" class=\"label\">%s</text>\n", TL_LEFT, end);
	/* axes: 0-100% up the left, seconds along the bottom */
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>"
		   "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n",
		TL_LEFT, TL_TOP, TL_LEFT, TL_TOP + TL_HEIGHT, TL_LEFT, TL_TOP + TL_HEIGHT,
		TL_LEFT + TL_WIDTH, TL_TOP + TL_HEIGHT);
	for (int pct = 0; pct <= 100; pct += 50)
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"tick\">%d%%</text>\n",
			TL_LEFT - 4, TL_TOP + TL_HEIGHT - pct * TL_HEIGHT / 100 + 4, pct);
	for (int i = 0; i <= 4; i++)
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"tick\">%.1f s</text>\n",
			TL_LEFT + i * TL_WIDTH / 4, TL_TOP + TL_HEIGHT + 14, span * i / 4);
	for (int k = 0; k < 3; k++) {
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
			line_colors[k]);
		for (unsigned i = 0; i < s->npoints; i++) {
			double v = point_value(&s->series[i], k, net_peak);

			if (v > 1)
				v = 1;
			fprintf(f, "%.1f,%.1f ", TL_LEFT + s->series[i].t / span * TL_WIDTH,
				TL_TOP + TL_HEIGHT - v * TL_HEIGHT);
		}
		fputs("\"/>\n", f);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			   "<text x=\"%d\" y=\"%d\" class=\"legend\">%s",
			legend_x[k], TL_TOP + TL_HEIGHT + 22, line_colors[k], legend_x[k] + 14,
			TL_TOP + TL_HEIGHT + 31, line_names[k]);
		if (k == 0)
			fprintf(f, " (peak %.1f MB/s)", net_peak / 1e6);
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
}

void report_html_timelines(const struct report *r, FILE *f)
{
	int any = 0;

	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *res = &r->results[i];

		if (res->status != RESULT_OK || (!res->have_local && !res->have_remote))
			continue;
		if (!any++)
			fputs("<h2>Timelines</h2>\n<p>Each end as its sampler saw it at about 10 Hz "
			      "during the strategy's timed window (median run): network bytes/s as a "
			      "share of its own peak, disk and CPU busy as a share of the time.</p>\n",
			      f);
		fputs("<div class=\"timeline-row\"><h3>", f);
		report_html_escape(f, res->strategy->name);
		fputs("</h3>\n", f);
		if (res->have_local)
			end_chart(f, "source (this machine)", &res->local);
		if (res->have_remote)
			end_chart(f, "destination (the host)", &res->remote);
		fputs("</div>\n", f);
	}
}
