/* When a window's traffic reached a share of its bytes (series_progress.h). */
#include "sample/series_progress.h"

double series_time_at_fraction(const struct sampler_summary *s, double fraction)
{
	double total = 0, target, done = 0, start = 0;

	if (!s->has_net || !(fraction > 0 && fraction < 1))
		return -1;
	for (unsigned i = 0; i < s->npoints; i++)
		total += s->series[i].net_bytes_s * (s->series[i].t - (i ? s->series[i - 1].t : 0));
	if (!(total > 0))
		return -1;
	target = fraction * total;
	for (unsigned i = 0; i < s->npoints; i++) {
		double end = s->series[i].t, bytes = s->series[i].net_bytes_s * (end - start);

		if (bytes > 0 && done + bytes >= target)
			return start + (end - start) * (target - done) / bytes;
		done += bytes;
		start = end;
	}
	return -1;
}
