/*
 * The model's words: the number formats its lines use and the accounting's
 * reason line (prose apart from the arithmetic in accounting.c). No clock,
 * no file: every line is unit-tested.
 */
#include "model/model_text.h"

#include "err.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *attr_grouped(double v, char *buf, size_t len)
{
	char digits[32];
	size_t n, out = 0;
	int neg = v < 0;

	if (len == 0)
		return buf;
	if (!isfinite(v)) {
		snprintf(buf, len, "?");
		return buf;
	}
	snprintf(digits, sizeof(digits), "%.0f", fabs(v));
	n = strlen(digits);
	if (neg && out + 1 < len)
		buf[out++] = '-';
	for (size_t i = 0; i < n && out + 1 < len; i++) {
		if (i > 0 && (n - i) % 3 == 0) {
			buf[out++] = ',';
			if (out + 1 >= len)
				break;
		}
		buf[out++] = digits[i];
	}
	buf[out] = '\0';
	return buf;
}

const char *attr_mb_s(double bps, char *buf, size_t len)
{
	if (bps < 10e6) {
		snprintf(buf, len, "%.1f", bps / 1e6);
		return buf;
	}
	return attr_grouped(bps / 1e6, buf, len);
}

const char *attr_rtt(double s, char *buf, size_t len)
{
	if (s < 1e-3)
		snprintf(buf, len, "%.0f µs", s * 1e6);
	else if (s < 10e-3)
		snprintf(buf, len, "%.2f ms", s * 1e3);
	else
		snprintf(buf, len, "%.1f ms", s * 1e3);
	return buf;
}

void attr_append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used = (size_t)n >= len - *used ? len : *used + (size_t)n;
}

const char *model_format_seconds(double s, char *buf, size_t len)
{
	if (!isfinite(s) || s < 0)
		snprintf(buf, len, "?");
	else if (s >= 3600)
		snprintf(buf, len, "%.0f h %.0f min", floor(s / 3600), floor(fmod(s, 3600) / 60));
	else if (s >= 60)
		snprintf(buf, len, "%.0f min %.0f s", floor(s / 60), floor(fmod(s, 60)));
	else if (s >= 10)
		snprintf(buf, len, "%.1f s", s);
	else
		snprintf(buf, len, "%.2f s", s);
	return buf;
}


/* "the link", "the disk", ...: a resource as the note names it */
static const char *resource_noun(enum resource r)
{
	static const char *const nouns[RES_COUNT] = { "the link", "the round trips", "the disk",
						      "the per-file work", "the CPU" };

	return (unsigned)r < RES_COUNT ? nouns[r] : "nothing";
}

static void reason_of(const struct run_record *run, const struct forecast_input *in,
		      const struct forecast *f, const struct accounting *a, char *buf, size_t len)
{
	double t = a->measured_s, spent = a->share[a->verdict] * t;
	double wire = run->sent.wire_bytes ? (double)run->sent.wire_bytes : f->wire_bytes;
	char x[32], y[32], z[32];
	size_t used = 0;

	switch (a->verdict) {
	case RES_NETWORK:
		attr_append(buf, len, &used, "moved %s MB at %s MB/s over a path probed at %s MB/s: %.1f s of %.1f s",
			    attr_grouped(wire / 1e6, x, sizeof(x)),
			    attr_mb_s(run->transfer_s > 0 ? wire / run->transfer_s : 0, y, sizeof(y)),
			    attr_mb_s(f->link.bytes_per_s, z, sizeof(z)), spent, t);
		break;
	case RES_LATENCY:
		if (in->strategy->traits.serial && run->sent.round_trips)
			attr_append(buf, len, &used, "%s requests each waited %s on the wire beyond their CPU: %.1f s of %.1f s",
				    attr_grouped((double)run->sent.round_trips, x, sizeof(x)),
				    attr_rtt(fmax(f->link.rtt_s - in->probes->rtt_cpu_s, 0), y, sizeof(y)),
				    spent, t);
		else
			attr_append(buf, len, &used, "handshakes and slow start waited round trips of %s: %.1f s of %.1f s",
				    attr_rtt(f->link.rtt_s, y, sizeof(y)), spent, t);
		break;
	case RES_DISK:
		attr_append(buf, len, &used, "%s MB read cold and written to durable (the flush %.1f s): %.1f s of %.1f s",
			    attr_grouped((double)run->sent.bytes_read / 1e6, x, sizeof(x)), run->flush_s, spent, t);
		break;
	case RES_METADATA:
		if (in->strategy->traits.serial && run->sent.round_trips)
			attr_append(buf, len, &used, "%s files, %s requests, each request's work on the host and ours %s: %.1f s of %.1f s",
				    attr_grouped((double)run->sent.files, x, sizeof(x)),
				    attr_grouped((double)run->sent.round_trips, y, sizeof(y)),
				    attr_rtt(fmax(f->link.request_s - fmax(f->link.rtt_s - in->probes->rtt_cpu_s, 0), 0),
					     z, sizeof(z)), spent, t);
		else
			attr_append(buf, len, &used, "%s files at %s/s, opened cold and made to durable: %.1f s of %.1f s",
				    attr_grouped((double)run->sent.files, x, sizeof(x)),
				    attr_grouped(run->transfer_s > 0 ? (double)run->sent.files / run->transfer_s : 0,
						 y, sizeof(y)), spent, t);
		break;
	case RES_CPU:
		attr_append(buf, len, &used, "the processes kept the cores busy: %.1f s of %.1f s", spent, t);
		break;
	case RES_COUNT:
		attr_append(buf, len, &used, "no probed ceiling explains this run's %.1f s", t);
		break;
	}
	if (a->verdict < RES_COUNT && a->load[a->verdict] >= 0 && a->verdict != RES_CPU)
		attr_append(buf, len, &used, " (loaded %.0f%%)", a->load[a->verdict] * 100);
	else if (a->verdict == RES_CPU && a->load[RES_CPU] >= 0)
		attr_append(buf, len, &used, " (the machine %.0f%% busy)", a->load[RES_CPU] * 100);
}

void model_text_reason(const struct run_record *run, const struct forecast_input *in,
		       const struct forecast *f, struct accounting *out)
{
	size_t used = 0;

	reason_of(run, in, f, out, out->reason, sizeof(out->reason));
	out->note[0] = '\0';
	if (out->close_behind < RES_COUNT) {
		attr_append(out->note, sizeof(out->note), &used, "%s close behind (",
			    resource_noun(out->close_behind));
		if (out->load[out->close_behind] >= 0)
			attr_append(out->note, sizeof(out->note), &used, "loaded %.0f%%, ",
				    out->load[out->close_behind] * 100);
		attr_append(out->note, sizeof(out->note), &used, "%.1f s of work at its ceiling)",
			    out->need_s[out->close_behind]);
	}
	for (int r = 0; r < RES_COUNT; r++)
		if (out->understated & (1u << r))
			attr_append(out->note, sizeof(out->note), &used,
				    "%s%s did more than its probe allows (loaded %.0f%%): the probe understated it",
				    used ? "; " : "", resource_noun((enum resource)r), out->load[r] * 100);
	if (out->share[RES_COUNT] > 0.25)
		attr_append(out->note, sizeof(out->note), &used, "%s%.1f s (%.0f%%) no probed ceiling explains",
			    used ? "; " : "", out->share[RES_COUNT] * out->measured_s,
			    out->share[RES_COUNT] * 100);
}
