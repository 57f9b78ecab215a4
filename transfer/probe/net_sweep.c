/* The stream sweep's rules and the window arithmetic (net_sweep.h). */
#include "probe/net_sweep.h"

#include <math.h>

static bool known(double v)
{
	return v > 0 && isfinite(v);
}

unsigned net_sweep_next(const struct net_sweep_step *steps, unsigned n, unsigned cap)
{
	unsigned last, next;

	if (cap < 1)
		cap = 1;
	if (n == 0)
		return 1;
	if (n >= NET_SWEEP_MAX_STEPS)
		return 0;
	last = steps[n - 1].streams;
	if (last >= cap)
		return 0;
	if (n >= 2 && !(steps[n - 1].bits_per_s >= steps[n - 2].bits_per_s * (1 + NET_SWEEP_GAIN)))
		return 0;
	next = last * 2;
	return next > cap ? cap : next;
}

double net_sweep_best(const struct net_sweep_step *steps, unsigned n)
{
	double best = 0;

	for (unsigned i = 0; i < n; i++)
		if (known(steps[i].bits_per_s) && steps[i].bits_per_s > best)
			best = steps[i].bits_per_s;
	return best;
}

unsigned net_sweep_saturation(const struct net_sweep_step *steps, unsigned n)
{
	double enough = net_sweep_best(steps, n) / (1 + NET_SWEEP_GAIN);

	for (unsigned i = 0; i < n; i++)
		if (known(steps[i].bits_per_s) && steps[i].bits_per_s >= enough)
			return steps[i].streams;
	return n ? steps[n - 1].streams : 0;
}

double net_sweep_rate_at(const struct net_sweep_step *steps, unsigned n, unsigned streams)
{
	if (n == 0)
		return 0;
	if (streams <= steps[0].streams)
		return steps[0].bits_per_s;
	for (unsigned i = 1; i < n; i++) {
		const struct net_sweep_step *a = &steps[i - 1], *b = &steps[i];

		if (streams == b->streams)
			return b->bits_per_s;
		if (streams < b->streams)
			return a->bits_per_s + (b->bits_per_s - a->bits_per_s) *
						       (double)(streams - a->streams) /
						       (double)(b->streams - a->streams);
	}
	return steps[n - 1].bits_per_s;
}

unsigned net_sweep_auto(const struct net_sweep_step *steps, unsigned n, unsigned floor_streams,
			unsigned cap, unsigned long long pieces)
{
	unsigned chosen = n ? net_sweep_saturation(steps, n) : floor_streams;

	if (cap < 1)
		cap = 1;
	if (chosen < floor_streams)
		chosen = floor_streams;
	if (chosen > cap)
		chosen = cap;
	if (pieces > 0 && chosen > pieces)
		chosen = (unsigned)pieces;
	return chosen ? chosen : 1;
}

unsigned net_sweep_floor(unsigned cores, unsigned long long ranges, unsigned most)
{
	unsigned f = cores ? cores : 1;

	if (ranges >= NET_AUTO_RANGE_DEPTH && f < NET_AUTO_RANGE_DEPTH)
		f = NET_AUTO_RANGE_DEPTH;
	return most && f > most ? most : f;
}

void net_window_judge(struct net_window *w, double one_stream_bits_per_s, double link_bits_per_s)
{
	double window = known(w->sndbuf_bytes) ? w->sndbuf_bytes : w->wmem_max_bytes;

	w->window_bits_per_s = known(window) && known(w->rtt_s) ? window * 8 / w->rtt_s : 0;
	w->limited = known(w->window_bits_per_s) && known(one_stream_bits_per_s) &&
		     known(link_bits_per_s) &&
		     link_bits_per_s >= NET_WINDOW_CLEARLY * one_stream_bits_per_s &&
		     w->window_bits_per_s <= NET_WINDOW_EXPLAINS * one_stream_bits_per_s;
}

double net_window_bdp_bytes(double link_bits_per_s, double rtt_s)
{
	return known(link_bits_per_s) && known(rtt_s) ? link_bits_per_s / 8 * rtt_s : 0;
}

const char *net_sweep_stop_name(enum net_sweep_stop why)
{
	switch (why) {
	case NET_SWEEP_STOP_GAIN:
		return "gain";
	case NET_SWEEP_STOP_CAP:
		return "cap";
	case NET_SWEEP_STOP_BUDGET:
		return "budget";
	}
	return "?";
}
