/*
 * The live view's lines for the probes (live.h): the one probing and, once
 * it ended, what it measured, the figures the report's ceilings show.
 */
#include "report/live.h"
#include "report/live_fit.h"
#include "units.h"

#include <math.h>
#include <stdio.h>

/* "2.31 G<unit>", "940 M<unit>", "8.5 M<unit>": a rate in unit (bits or bytes) per second */
static void rate(char *buf, size_t len, double per_s, const char *unit)
{
	if (per_s >= 1e9)
		snprintf(buf, len, "%.2f G%s", per_s / 1e9, unit);
	else if (per_s >= 1e7)
		snprintf(buf, len, "%.0f M%s", per_s / 1e6, unit);
	else
		snprintf(buf, len, "%.1f M%s", per_s / 1e6, unit);
}

/* "2.31 Gbit/s" for bytes/s */
static void bits(char *buf, size_t len, double bytes_per_s)
{
	rate(buf, len, bytes_per_s * 8, "bit/s");
}

/* "1.23 GB/s" */
static void bytes(char *buf, size_t len, double bytes_per_s)
{
	rate(buf, len, bytes_per_s, "B/s");
}

/* "51 µs", "12.3 ms" */
static void trip(char *buf, size_t len, double s)
{
	if (s < 1e-3)
		snprintf(buf, len, "%.0f µs", s * 1e6);
	else
		snprintf(buf, len, "%.1f ms", s * 1e3);
}

/* "3,200" for a rate per second */
static const char *per_second(char *buf, size_t len, double per_s)
{
	return units_format_count((uint64_t)llround(per_s), buf, len);
}

void live_probe_format(char *buf, size_t len, const char *name, unsigned index, unsigned count,
		       double elapsed, unsigned width)
{
	static const unsigned drop[] = { 2, 1 };
	struct live_fields f = { 0 };

	snprintf(live_fields_add(&f, NULL), LIVE_FIELD_LEN, "probing %.32s", name);
	if (count > 0)
		snprintf(live_fields_add(&f, " "), LIVE_FIELD_LEN, "(%u/%u)", index, count);
	else
		live_fields_add(&f, NULL);
	live_duration(live_fields_add(&f, "  "), LIVE_FIELD_LEN, elapsed);
	live_fields_fit(buf, len, &f, drop, sizeof(drop) / sizeof(drop[0]), width > 1 ? width - 1 : 1);
}

/* The figures of what a probe measured, most telling first, into f after its head. */
static void figures(struct live_fields *f, enum probe_kind kind, const struct probe_results *r)
{
	char a[32], b[32];
	const struct probe_rate *deep;

	switch (kind) {
	case PROBE_NETWORK:
		bits(a, sizeof(a), r->net_bps_1);
		snprintf(live_fields_add(f, " "), LIVE_FIELD_LEN, "%s one stream", a);
		trip(a, sizeof(a), r->rtt_p50_s);
		snprintf(live_fields_add(f, ", "), LIVE_FIELD_LEN, "rtt %s", a);
		if (r->net_saturation > 1 && r->net_link_bps > 0) {
			bits(a, sizeof(a), r->net_link_bps);
			snprintf(live_fields_add(f, ", "), LIVE_FIELD_LEN, "the link %s with %u streams", a,
				 r->net_saturation);
		}
		break;
	case PROBE_DESTINATION:
		bytes(a, sizeof(a), r->disk_write_bps);
		snprintf(live_fields_add(f, " "), LIVE_FIELD_LEN, "write %s durable%s%s%s", a,
			 r->dest_fs[0] ? " (" : "", r->dest_fs, r->dest_fs[0] ? ")" : "");
		snprintf(live_fields_add(f, ", "), LIVE_FIELD_LEN, "%s creates/s",
			 per_second(a, sizeof(a), r->create_per_s));
		deep = r->ncreate_at > 1 ? &r->create_at[r->ncreate_at - 1] : NULL;
		if (deep)
			snprintf(live_fields_add(f, ", "), LIVE_FIELD_LEN, "%s/s with %u",
				 per_second(a, sizeof(a), deep->per_s), deep->depth);
		break;
	case PROBE_SOURCE:
		if (r->disk_read_bps > 0) {
			bytes(a, sizeof(a), r->disk_read_bps);
			snprintf(live_fields_add(f, f->n > 1 ? ", " : " "), LIVE_FIELD_LEN, "read %s cold", a);
		}
		if (r->src_open_per_s > 0)
			snprintf(live_fields_add(f, f->n > 1 ? ", " : " "), LIVE_FIELD_LEN, "%s opens/s",
				 per_second(a, sizeof(a), r->src_open_per_s));
		deep = r->nread_at > 1 ? &r->read_at[r->nread_at - 1] : NULL;
		if (deep && deep->per_s > 0) {
			bytes(a, sizeof(a), deep->per_s);
			snprintf(live_fields_add(f, ", "), LIVE_FIELD_LEN, "read %s with %u", a, deep->depth);
		}
		if (f->n == 1)
			snprintf(live_fields_add(f, " "), LIVE_FIELD_LEN, "nothing to measure");
		break;
	case PROBE_SHARED_DISK:
		/* a line holds so many figures: the depths past them are in the report */
		for (unsigned i = 0; i < r->ndisk_at_once && f->n < LIVE_FIELDS_MAX; i++) {
			char *t = live_fields_add(f, i ? ", " : " ");

			bytes(a, sizeof(a), r->disk_at_once[i].copy_bps);
			if (i)
				snprintf(t, LIVE_FIELD_LEN, "%s with %u", a, r->disk_at_once[i].depth);
			else
				snprintf(t, LIVE_FIELD_LEN, "%s each way read and written at once", a);
		}
		if (f->n == 1)
			snprintf(live_fields_add(f, " "), LIVE_FIELD_LEN, "nothing to measure");
		break;
	case PROBE_ZSTD:
		if (r->zstd_bps > 0) {
			bytes(a, sizeof(a), r->zstd_bps);
			snprintf(live_fields_add(f, " "), LIVE_FIELD_LEN, "%s", a);
			snprintf(live_fields_add(f, ", "), LIVE_FIELD_LEN, "ratio %.2f", r->zstd_ratio);
		} else
			snprintf(live_fields_add(f, " "), LIVE_FIELD_LEN, "nothing to compress");
		break;
	case PROBE_SSH:
		bits(a, sizeof(a), r->ssh_bps);
		snprintf(live_fields_add(f, " "), LIVE_FIELD_LEN, "%s through sshd", a);
		if (r->ssh_cipher[0])
			snprintf(live_fields_add(f, ", "), LIVE_FIELD_LEN, "%.60s", r->ssh_cipher);
		trip(b, sizeof(b), r->sftp_rtt_s);
		snprintf(live_fields_add(f, ", "), LIVE_FIELD_LEN, "SFTP request %s", b);
		break;
	default:
		break;
	}
}

void live_probe_result(char *buf, size_t len, const struct probe_step *step, unsigned width)
{
	struct live_fields f = { 0 };
	unsigned drop[LIVE_FIELDS_MAX];
	size_t ndrop = 0;

	snprintf(live_fields_add(&f, NULL), LIVE_FIELD_LEN, "  probe %.32s:", step->name);
	if (step->done)
		figures(&f, step->kind, step->done);
	/* the head and the first figure stay; the others go from the last */
	for (unsigned i = f.n; i > 2; i--)
		drop[ndrop++] = i - 1;
	live_fields_fit(buf, len, &f, drop, ndrop, width > 1 ? width - 1 : 1);
}
