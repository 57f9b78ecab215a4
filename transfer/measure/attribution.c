/*
 * Bottleneck attribution: the model is documented in attribution.h. Nothing
 * here reads a clock or a file, so every number is unit-tested.
 */
#include "measure/attribution.h"

#include "err.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* amount / rate, or 0 when the rate is unknown (0, negative, NaN, infinite). */
static double at_rate(double amount, double rate)
{
	if (!(rate > 0) || !isfinite(rate))
		return 0;
	return amount / rate;
}

/* A measured fraction clamped to [0, 1], or -1 when unknown. */
static double measured(double frac)
{
	if (!(frac >= 0) || !isfinite(frac))
		return -1;
	return frac > 1 ? 1 : frac;
}

static double clamp01(double v)
{
	if (!(v > 0))
		return 0;
	return v > 1 ? 1 : v;
}

/* Rounds v to a whole number and writes it with thousands separators: "19,800". */
static const char *grouped(double v, char *buf, size_t len)
{
	char digits[32];
	size_t n, out = 0;
	int neg = v < 0;

	if (!isfinite(v)) {
		snprintf(buf, len, "?");
		return buf;
	}
	snprintf(digits, sizeof(digits), "%.0f", fabs(v));
	n = strlen(digits);
	if (len == 0)
		return buf;
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

/* Megabytes per second for the reasons: "0.4", "48", "2,500". */
static const char *mb_s(double bps, char *buf, size_t len)
{
	if (bps < 10e6) {
		snprintf(buf, len, "%.1f", bps / 1e6);
		return buf;
	}
	return grouped(bps / 1e6, buf, len);
}

/* snprintf appending at *used, never past len. */
static void __attribute__((format(printf, 4, 5)))
append(char *buf, size_t len, size_t *used, const char *fmt, ...)
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

static void append_busy(char *buf, size_t len, size_t *used, const char *what, double busy)
{
	if (busy >= 0)
		append(buf, len, used, " (%s %.0f%% busy)", what, busy * 100);
}

const char *attribution_resource_name(enum resource r)
{
	switch (r) {
	case RES_NETWORK: return "network";
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
	case RES_DISK: return "disk-bound";
	case RES_METADATA: return "metadata-bound";
	case RES_CPU: return "cpu-bound";
	case RES_COUNT: break;
	}
	return "unattributed";
}

/* The terms of each need, kept apart so the reason can name the largest. */
struct terms {
	double net_model, net_measured;
	double disk_write, disk_read, disk_dest_busy, disk_src_busy, disk_flush;
	double meta_create, meta_open, meta_wait, request_rtt;
	double cpu_compress, cpu_cipher;
	double dest_busy, src_busy, net_util, cpu_busy;	/* measured fractions or -1 */
};

static void compute_terms(const struct attribution_input *in, const struct ceilings *c,
			  double wall, struct terms *t)
{
	memset(t, 0, sizeof(*t));
	t->dest_busy = in->dest_is_tmpfs ? -1 : measured(in->dest_disk_busy);
	t->src_busy = in->src_is_warm ? -1 : measured(in->src_disk_busy);
	t->net_util = measured(in->net_util);
	t->cpu_busy = measured(in->cpu_busy);

	t->net_model = at_rate((double)in->wire_bytes, c->net_bps);
	t->net_measured = t->net_util >= 0 ? t->net_util * wall : 0;

	t->disk_write = in->dest_is_tmpfs ? 0 : at_rate((double)in->bytes, c->disk_write_bps);
	t->disk_read = in->src_is_warm ? 0 : at_rate((double)in->bytes, c->disk_read_bps);
	t->disk_dest_busy = t->dest_busy >= 0 ? t->dest_busy * wall : 0;
	t->disk_src_busy = t->src_busy >= 0 ? t->src_busy * wall : 0;
	t->disk_flush = !in->dest_is_tmpfs && in->flush_s > 0 && isfinite(in->flush_s) ?
				in->flush_s : 0;

	t->request_rtt = c->request_rtt_s > 0 && isfinite(c->request_rtt_s) ? c->request_rtt_s :
			 c->rtt_s > 0 && isfinite(c->rtt_s) ? c->rtt_s : 0;
	t->meta_create = at_rate((double)in->files, c->create_per_s);
	t->meta_open = in->src_is_warm ? 0 : at_rate((double)in->files, c->src_open_per_s);
	t->meta_wait = (double)in->round_trips * t->request_rtt;

	t->cpu_compress = at_rate((double)in->bytes, c->cpu_bps);
	t->cpu_cipher = at_rate((double)in->wire_bytes, c->cipher_bps);
}

static double max2(double a, double b)
{
	return a > b ? a : b;
}

static void reason_network(const struct attribution_input *in, const struct ceilings *c,
			   double wall, const struct terms *t, char *buf, size_t len)
{
	char rate[32], ceil[32];
	size_t used = 0;

	append(buf, len, &used, "moved %s MB/s", mb_s((double)in->wire_bytes / wall, rate,
							  sizeof(rate)));
	if (t->net_model > 0)
		append(buf, len, &used, " over a link measured at %s MB/s",
		       mb_s(c->net_bps, ceil, sizeof(ceil)));
	else
		append(buf, len, &used, " over a link whose ceiling was not measured");
	if (t->net_util >= 0)
		append(buf, len, &used, " (link %.0f%% utilized)", t->net_util * 100);
}

static void reason_disk(const struct attribution_input *in, const struct ceilings *c,
			double wall, const struct terms *t, char *buf, size_t len)
{
	double write_side = max2(max2(t->disk_write, t->disk_dest_busy), t->disk_flush);
	double read_side = max2(t->disk_read, t->disk_src_busy);
	char rate[32], ceil[32];
	size_t used = 0;

	/* MB/s, not GB/s: 120,000 small files move a few MB/s, which GB/s shows as 0.00 */
	mb_s((double)in->bytes / wall, rate, sizeof(rate));
	if (write_side >= read_side) {
		append(buf, len, &used, "wrote %s MB/s", rate);
		if (t->disk_write > 0)
			append(buf, len, &used, " to a disk measured at %s MB/s durable",
			       mb_s(c->disk_write_bps, ceil, sizeof(ceil)));
		else
			append(buf, len, &used, " to a disk whose ceiling was not measured");
		append_busy(buf, len, &used, "destination disk", t->dest_busy);
		if (t->disk_flush > 0)
			append(buf, len, &used, "; flush to durable took %.1f s", t->disk_flush);
	} else {
		append(buf, len, &used, "read %s MB/s", rate);
		if (t->disk_read > 0)
			append(buf, len, &used, " from a source disk measured at %s MB/s cold",
			       mb_s(c->disk_read_bps, ceil, sizeof(ceil)));
		else
			append(buf, len, &used, " from a source disk whose ceiling was not measured");
		append_busy(buf, len, &used, "source disk", t->src_busy);
	}
}

static void reason_metadata(const struct attribution_input *in, const struct ceilings *c,
			    double wall, const struct terms *t, char *buf, size_t len)
{
	char a[32], b[32], d[32];
	double per_s = (double)in->files / wall;
	size_t used = 0;

	if (t->meta_wait >= t->meta_create && t->meta_wait >= t->meta_open)
		append(buf, len, &used,
		       "%s requests waited on the peer, %.0f µs each: %.1f s of %.1f s (%s files at %s/s)",
		       grouped((double)in->round_trips, a, sizeof(a)), t->request_rtt * 1e6,
		       t->meta_wait, wall, grouped((double)in->files, b, sizeof(b)),
		       grouped(per_s, d, sizeof(d)));
	else if (t->meta_create >= t->meta_open)
		append(buf, len, &used,
		       "creates ran at %s/s, the destination's measured ceiling is %s/s",
		       grouped(per_s, a, sizeof(a)), grouped(c->create_per_s, b, sizeof(b)));
	else
		append(buf, len, &used,
		       "opens ran at %s/s, the source's measured cold ceiling is %s/s",
		       grouped(per_s, a, sizeof(a)), grouped(c->src_open_per_s, b, sizeof(b)));
}

static void reason_cpu(const struct attribution_input *in, const struct ceilings *c,
		       double wall, const struct terms *t, char *buf, size_t len)
{
	char a[32], b[32];
	size_t used = 0;

	if (t->cpu_compress >= t->cpu_cipher)
		append(buf, len, &used,
		       "compressed at %s MB/s, the measured zstd ceiling at this level is %s MB/s",
		       mb_s((double)in->bytes / wall, a, sizeof(a)),
		       mb_s(c->cpu_bps, b, sizeof(b)));
	else
		append(buf, len, &used,
		       "encrypted at %s MB/s, the measured cipher ceiling is %s MB/s",
		       mb_s((double)in->wire_bytes / wall, a, sizeof(a)),
		       mb_s(c->cipher_bps, b, sizeof(b)));
	append_busy(buf, len, &used, "machine CPU", t->cpu_busy);
}

int attribution_compute(const struct attribution_input *in, const struct ceilings *c,
			struct attribution *out)
{
	double wall = in->wall_s > 0 ? in->wall_s : in->transfer_s + in->flush_s;
	double sum = 0, best = 0;
	struct terms t;

	if (!(wall > 0) || !isfinite(wall))
		return err_set("cannot attribute a run of %g seconds", wall);
	memset(out, 0, sizeof(*out));
	compute_terms(in, c, wall, &t);

	out->need_s[RES_NETWORK] = max2(t.net_model, t.net_measured);
	{
		/*
		 * A disk busy for longer than its bytes explain was doing per-file
		 * work: journal commits, inodes and directories of every create.
		 * That excess is split between disk and metadata in proportion to
		 * their models, so many small files read as metadata even where the
		 * device's busy time is what measured them.
		 */
		double data = max2(t.disk_write, t.disk_read);
		double meta = t.meta_create + t.meta_open;
		double excess = max2(t.disk_dest_busy, t.disk_src_busy) - data;
		double to_meta = excess > 0 && meta > 0 ? excess * meta / (meta + data) : 0;
		double to_disk = excess > 0 ? excess - to_meta : 0;

		out->need_s[RES_DISK] = max2(data + to_disk, t.disk_flush);
		out->need_s[RES_METADATA] = max2(meta + t.meta_wait, to_meta);
	}
	out->need_s[RES_CPU] = t.cpu_compress + t.cpu_cipher;

	out->verdict = RES_COUNT;
	for (int r = 0; r < RES_COUNT; r++) {
		double need = out->need_s[r];

		if (!isfinite(need))
			need = out->need_s[r] = 0;
		out->share[r] = need / wall;
		sum += out->share[r];
		if (need > best) {
			best = need;
			out->verdict = (enum resource)r;
		}
	}
	if (sum > 1) {
		for (int r = 0; r < RES_COUNT; r++)
			out->share[r] = clamp01(out->share[r] / sum);
		out->share[RES_COUNT] = 0;
	} else {
		out->share[RES_COUNT] = clamp01(1 - sum);
	}

	switch (out->verdict) {
	case RES_NETWORK:
		reason_network(in, c, wall, &t, out->reason, sizeof(out->reason));
		break;
	case RES_DISK:
		reason_disk(in, c, wall, &t, out->reason, sizeof(out->reason));
		break;
	case RES_METADATA:
		reason_metadata(in, c, wall, &t, out->reason, sizeof(out->reason));
		break;
	case RES_CPU:
		reason_cpu(in, c, wall, &t, out->reason, sizeof(out->reason));
		break;
	case RES_COUNT:
		snprintf(out->reason, sizeof(out->reason),
			 "no ceiling was measured for this run's work (%.1f s unexplained)", wall);
		break;
	}
	return 0;
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
		append(out, len, &used,
		       "compression throughput was not measured: cannot say where it pays");
		return;
	}
	if (!(compress_ratio > 1)) {
		append(out, len, &used,
		       "compression does not pay for this data at any link rate (ratio %.2f, zstd at %s MB/s)",
		       compress_ratio > 0 ? compress_ratio : 0, mb_s(compress_bps, s, sizeof(s)));
		return;
	}
	append(out, len, &used, "compression pays below %.2f Gbit/s for this data (ratio %.2f, zstd at %s MB/s)",
	       compress_bps * 8 / 1e9, compress_ratio, mb_s(compress_bps, s, sizeof(s)));
	if (!(n > 0) || !isfinite(n))
		return;
	speedup = compress_bps / n < compress_ratio ? compress_bps / n : compress_ratio;
	/* the stream only: per-file and disk time are the same with or without compression */
	append(out, len, &used, "; on this %.2f Gbit/s link the stream would move %.1fx %s", n * 8 / 1e9,
	       speedup >= 1 ? speedup : 1 / speedup, speedup >= 1 ? "faster" : "slower");
	/* seconds only where they are big enough to mean something */
	if (in->bytes > 0 && (double)in->bytes / n >= 1.0)
		append(out, len, &used, " (%.1f s instead of %.1f s)",
		       (double)in->bytes / n / speedup, (double)in->bytes / n);
}
