/*
 * The attribution's words and numbers: resource and verdict names, the
 * formats its reason lines use, the what-if scenario's syntax, and the
 * compression advice. No clock, no file: every line is unit-tested.
 */
#include "model/attribution.h"
#include "model/attribution_text.h"

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

const char *attribution_resource_name(enum resource r)
{
	switch (r) {
	case RES_NETWORK: return "network";
	case RES_LATENCY: return "latency";
	case RES_DISK: return "disk";
	case RES_METADATA: return "metadata";
	case RES_CPU: return "cpu";
	case RES_COUNT: break;
	}
	return "other";
}

const char *attribution_verdict_name(enum resource r)
{
	switch (r) {
	case RES_NETWORK: return "network-bound";
	case RES_LATENCY: return "latency-bound";
	case RES_DISK: return "disk-bound";
	case RES_METADATA: return "metadata-bound";
	case RES_CPU: return "cpu-bound";
	case RES_COUNT: break;
	}
	return "unattributed";
}

const char *attribution_format_seconds(double s, char *buf, size_t len)
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

int attribution_parse_what_if(const char *text, struct what_if *out)
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

const char *attribution_what_if_label(const struct what_if *w, char *buf, size_t len)
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

/*
 * When compression pays. B content bytes, N the link (bytes/s), C the
 * compressor's content throughput, R = content / compressed.
 *
 *   uncompressed:  T_u = B / N
 *   compressed:    T_c = max(B / C, B / (R N))
 *
 * T_c takes the max because compressor, link and decompressor run as a
 * pipeline (decompression, 1.4-3 GB/s here, is faster than compression at any
 * level that matters, so it is never the slow stage). T_c < T_u holds exactly
 * when both B / C < B / N and B / (R N) < B / N, that is N < C and R > 1.
 * So the break-even link rate is the compressor's content throughput itself,
 * whatever the ratio once it exceeds 1; the ratio sets how much it pays:
 * T_u / T_c = min(C / N, R), the full ratio only on links slower than C / R.
 * Encryption after compression would also see R times fewer bytes, which
 * only favours compression more; it is left out, so the estimate errs
 * towards "does not pay".
 */
void attribution_recommend(const struct attribution_input *in, const struct ceilings *c,
			   double compress_ratio, double compress_bps, char *out, size_t len)
{
	double n = c->net_bps, speedup;
	size_t used = 0;
	char s[32];

	if (len == 0)
		return;
	out[0] = '\0';
	if (!(compress_bps > 0) || !isfinite(compress_bps) || !isfinite(compress_ratio)) {
		attr_append(out, len, &used,
			    "compression throughput was not measured: cannot say where it pays");
		return;
	}
	if (!(compress_ratio > 1)) {
		attr_append(out, len, &used,
			    "compression does not pay for this data at any link rate (ratio %.2f, zstd at %s MB/s)",
			    compress_ratio > 0 ? compress_ratio : 0, attr_mb_s(compress_bps, s, sizeof(s)));
		return;
	}
	attr_append(out, len, &used,
		    "compression pays below %.2f Gbit/s for this data (ratio %.2f, zstd at %s MB/s)",
		    compress_bps * 8 / 1e9, compress_ratio, attr_mb_s(compress_bps, s, sizeof(s)));
	if (!(n > 0) || !isfinite(n))
		return;
	speedup = compress_bps / n < compress_ratio ? compress_bps / n : compress_ratio;
	/* the stream only: per-file and disk time are the same with or without compression */
	attr_append(out, len, &used, "; on this %.2f Gbit/s link the stream would move %.1fx %s",
		    n * 8 / 1e9, speedup >= 1 ? speedup : 1 / speedup, speedup >= 1 ? "faster" : "slower");
	/* seconds only where they are big enough to mean something */
	if (in->bytes > 0 && (double)in->bytes / n >= 1.0)
		attr_append(out, len, &used, " (%.1f s instead of %.1f s)",
			    (double)in->bytes / n / speedup, (double)in->bytes / n);
}
