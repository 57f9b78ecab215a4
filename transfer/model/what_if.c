/*
 * A run on another link (what_if.h, docs/MODEL.md "Another link"), and the
 * scenario's syntax.
 */
#include "model/what_if.h"

#include "err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A number with one of units[] after it (case-insensitive), scaled by its factor. */
struct unit {
	const char *name;
	double factor;
};

static int parse_with_unit(const char *text, const struct unit *units, size_t nunits, double *out)
{
	char *end;
	double v = strtod(text, &end);

	if (end == text || !isfinite(v) || !(v > 0))
		return -1;
	for (size_t i = 0; i < nunits; i++)
		if (!strcasecmp(end, units[i].name)) {
			*out = v * units[i].factor;
			return 0;
		}
	return -1;
}

static const struct unit rate_units[] = {
	{ "bit", 1 }, { "kbit", 1e3 }, { "mbit", 1e6 }, { "gbit", 1e9 }, { "tbit", 1e12 },
	{ "bit/s", 1 }, { "kbit/s", 1e3 }, { "mbit/s", 1e6 }, { "gbit/s", 1e9 }, { "tbit/s", 1e12 },
};
static const struct unit rtt_units[] = {
	{ "us", 1e-6 }, { "µs", 1e-6 }, { "ms", 1e-3 }, { "s", 1 },
};

int what_if_parse(const char *text, struct what_if *out)
{
	char copy[256], *save = NULL;

	memset(out, 0, sizeof(*out));
	if (!text || !*text || strlen(text) >= sizeof(copy))
		return err_set("'%s' is not a scenario (rate=1gbit,rtt=20ms)", text ? text : "");
	strcpy(copy, text);
	for (char *part = strtok_r(copy, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(part, '=');

		if (!eq)
			return err_set("'%s': expected key=value (rate=1gbit,rtt=20ms)", part);
		*eq = '\0';
		if (!strcmp(part, "rate")) {
			if (parse_with_unit(eq + 1, rate_units, sizeof(rate_units) / sizeof(rate_units[0]),
					    &out->rate_bits_per_s) < 0)
				return err_set("rate '%s': expected a positive number and bit, kbit, mbit, gbit or tbit",
					       eq + 1);
		} else if (!strcmp(part, "rtt")) {
			if (parse_with_unit(eq + 1, rtt_units, sizeof(rtt_units) / sizeof(rtt_units[0]),
					    &out->rtt_s) < 0 || out->rtt_s > 10)
				return err_set("rtt '%s': expected a positive time up to 10 s in us, ms or s",
					       eq + 1);
		} else {
			return err_set("unknown key '%s' (rate or rtt)", part);
		}
	}
	if (out->rate_bits_per_s == 0 && out->rtt_s == 0)
		return err_set("'%s' sets neither rate nor rtt", text);
	return 0;
}

const char *what_if_label(const struct what_if *w, char *buf, size_t len)
{
	char rate[32], rtt[32];

	if (!(w->rate_bits_per_s > 0)) {
		snprintf(buf, len, "on the measured link with a %g ms round trip", w->rtt_s * 1e3);
		return buf;
	}
	if (w->rate_bits_per_s >= 1e9)
		snprintf(rate, sizeof(rate), "%g Gbit/s", w->rate_bits_per_s / 1e9);
	else if (w->rate_bits_per_s >= 1e6)
		snprintf(rate, sizeof(rate), "%g Mbit/s", w->rate_bits_per_s / 1e6);
	else
		snprintf(rate, sizeof(rate), "%g kbit/s", w->rate_bits_per_s / 1e3);
	if (w->rtt_s > 0)
		snprintf(rtt, sizeof(rtt), ", %g ms", w->rtt_s * 1e3);
	else
		rtt[0] = '\0';
	snprintf(buf, len, "on a %s%s link", rate, rtt);
	return buf;
}

void what_if_link(const struct forecast_input *in, const struct what_if *w, struct link *out)
{
	const struct probe_results *p = in->probes;
	const struct strategy_traits *t = &in->strategy->traits;
	unsigned n = (in->strategy->flags & STRATEGY_MULTI_STREAM) && in->streams ? in->streams : 1;
	struct link probed;
	double window;

	forecast_probed_link(in, &probed);
	*out = probed;
	if (w->rtt_s > 0) {
		out->rtt_s = w->rtt_s;
		out->request_s = fmax(probed.request_s - probed.rtt_s, 0) + w->rtt_s;
	}
	if (w->rate_bits_per_s > 0 && (!(probed.bytes_per_s > 0) || w->rate_bits_per_s / 8 < probed.bytes_per_s))
		out->bytes_per_s = w->rate_bits_per_s / 8;
	window = t->path == PATH_RAW_TCP ?
			 (p->window.wmem_max_bytes > 0 ? p->window.wmem_max_bytes : WHAT_IF_TCP_WINDOW_BYTES) :
			 WHAT_IF_SSH_WINDOW_BYTES;
	if (out->rtt_s > 0 && n * window / out->rtt_s < out->bytes_per_s)
		out->bytes_per_s = n * window / out->rtt_s;
}

/*
 * A run whose link needed this share of its overlapped time or more was
 * held by the link: what its other stages took hides under it. A probe
 * and a run of one rate agree within 10% on this machine.
 */
#define WHAT_IF_LINK_HELD 0.9

int what_if_forecast(const struct run_record *run, const struct forecast_input *in,
		     const struct what_if *w, struct what_if_forecast *out)
{
	struct forecast here, there;
	struct link other;
	double wire;

	what_if_link(in, w, &other);
	if (forecast_make(in, NULL, &here) < 0 || forecast_make(in, &other, &there) < 0)
		return -1;
	if (!(here.seconds > 0) || !(there.seconds > 0))
		return err_set("no forecast for %s: %s", in->strategy->name, here.why[0] ? here.why : there.why);
	memset(out, 0, sizeof(*out));
	out->link = other;
	wire = out->wire_bytes = run->sent.wire_bytes ? (double)run->sent.wire_bytes : here.wire_bytes;
	out->requests = run->sent.round_trips ? run->sent.round_trips : here.requests;
	out->request_work_s = fmax(here.link.request_s - fmax(here.link.rtt_s - in->probes->rtt_cpu_s, 0), 0);
	out->flush_s = run->flush_s;
	out->network_s = wire / other.bytes_per_s;
	if (in->strategy->traits.serial) {
		/* everything adds: the handshakes, each request's wait on the wire, the link, the rest */
		double setup = (double)in->strategy->traits.setup_round_trips;
		double streams = (in->strategy->flags & STRATEGY_MULTI_STREAM) && in->streams ? in->streams : 1;
		double rtt_cpu = in->probes->rtt_cpu_s;
		double lat_here = setup * here.link.rtt_s +
				  (double)out->requests * fmax(here.link.rtt_s - rtt_cpu, 0) / streams;

		out->latency_s = setup * other.rtt_s + (double)out->requests * fmax(other.rtt_s - rtt_cpu, 0) / streams;
		out->off_link_s = fmax(run->transfer_s - lat_here - wire / here.link.bytes_per_s, 0);
		out->seconds = out->latency_s + out->network_s + out->off_link_s + out->flush_s;
		out->low = out->high = out->seconds;
	} else {
		/* the stages off the link overlap the link's: the slower of the two after the round trips */
		double off = run->transfer_s - here.need_s[RES_LATENCY];
		double on = wire / here.link.bytes_per_s;

		/* the link held the run: how long the rest took is not seen; as forecast */
		if (on >= WHAT_IF_LINK_HELD * off)
			off = here.off_link_s;
		out->off_link_s = off = fmax(off, 0);
		out->latency_s = there.need_s[RES_LATENCY];
		out->seconds = out->latency_s + fmax(out->network_s, off) + out->flush_s;
		out->low = out->seconds;
		out->high = out->latency_s + out->network_s + off + out->flush_s;
	}
	if (out->seconds < out->network_s)
		out->seconds = out->network_s;
	return 0;
}
