/*
 * xfercmp diff's reading and rendering (report_diff.h): per strategy time A,
 * time B, the change and whether it is beyond the runs' noise; then the
 * ceilings that moved. Reads schema 1 and 2 (a schema-1 file is read as
 * schema 2: report_json_upgrade; without run_seconds, the min..max range is
 * the noise).
 */
#include "report/report_diff.h"

#include "report/report.h"
#include "err.h"
#include "stats.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

/* A ceiling that moved less than this is not listed: probes repeat within it here. */
#define CEILING_CHANGE 0.10

json_object *report_diff_load(const char *path)
{
	json_object *doc = json_object_from_file(path), *results;

	if (!doc)
		return err_set("cannot read '%s' as JSON: %s", path, json_util_get_last_err()), NULL;
	if (!json_object_object_get_ex(doc, "results", &results) ||
	    !json_object_is_type(results, json_type_array)) {
		json_object_put(doc);
		return err_set("'%s' is not an xfercmp --json report (no results)", path), NULL;
	}
	if (report_json_upgrade(doc, path) < 0) {
		json_object_put(doc);
		return NULL;
	}
	return doc;
}

static double number(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !v)
		return NAN;
	return json_object_get_double(v);
}

static const char *text(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !v)
		return NULL;
	return json_object_get_string(v);
}

/* The result of strategy `name` in doc, or NULL; with ok_only, only one that ran ok. */
static json_object *find(json_object *doc, const char *name, int ok_only)
{
	json_object *results;

	json_object_object_get_ex(doc, "results", &results);
	for (size_t i = 0; i < json_object_array_length(results); i++) {
		json_object *r = json_object_array_get_idx(results, i);
		const char *s = text(r, "strategy"), *status = text(r, "status");

		if (s && !strcmp(s, name) && (!ok_only || (status && !strcmp(status, "ok"))))
			return r;
	}
	return NULL;
}

/*
 * A result's times as statistics: its run_seconds when the report has them;
 * otherwise (older reports) one point of its median spread over min..max,
 * which stats_differ compares as a range.
 */
static void result_stats(json_object *r, struct stats *s)
{
	json_object *runs;
	double v[128];
	unsigned n = 0;

	if (json_object_object_get_ex(r, "run_seconds", &runs) &&
	    json_object_is_type(runs, json_type_array) && json_object_array_length(runs) > 0) {
		for (size_t i = 0; i < json_object_array_length(runs) && n < 128; i++)
			v[n++] = json_object_get_double(json_object_array_get_idx(runs, i));
		stats_of(v, n, s);
		return;
	}
	v[0] = number(r, "seconds");
	stats_of(v, 1, s);
	if (isfinite(number(r, "min_seconds")) && isfinite(number(r, "max_seconds"))) {
		s->min = number(r, "min_seconds");
		s->max = number(r, "max_seconds");
	}
}

static void diff_results(json_object *a, json_object *b, FILE *out)
{
	json_object *results;

	json_object_object_get_ex(a, "results", &results);
	fprintf(out, "%-17s %10s %10s %9s  %s\n", "strategy", "A seconds", "B seconds", "change",
		"beyond the noise");
	for (size_t i = 0; i < json_object_array_length(results); i++) {
		json_object *ra = json_object_array_get_idx(results, i), *rb;
		const char *name = text(ra, "strategy");
		struct stats sa, sb;

		if (!name)
			continue;
		ra = find(a, name, 1);
		rb = find(b, name, 1);
		if (!ra || !rb) {
			fprintf(out, "%-17s %10s %10s %9s  %s\n", name, ra ? "ok" : "not ok",
				rb ? "ok" : "not ok", "-", "not comparable: it did not run ok in both");
			continue;
		}
		result_stats(ra, &sa);
		result_stats(rb, &sb);
		fprintf(out, "%-17s %10.2f %10.2f %+8.1f%%  %s\n", name, number(ra, "seconds"),
			number(rb, "seconds"),
			(number(rb, "seconds") / number(ra, "seconds") - 1) * 100,
			stats_differ(&sa, &sb) ? (sb.mean < sa.mean ? "yes, faster" : "yes, slower")
					       : "no");
	}
	/* strategies only B ran */
	json_object_object_get_ex(b, "results", &results);
	for (size_t i = 0; i < json_object_array_length(results); i++) {
		const char *name = text(json_object_array_get_idx(results, i), "strategy");

		if (name && !find(a, name, 0) && find(b, name, 1))
			fprintf(out, "%-17s %10s %10.2f %9s  %s\n", name, "-",
				number(find(b, name, 1), "seconds"), "-", "only in B");
	}
}

/* A ceiling's unit, from its key's ending: the key without it is the ceiling's name. */
static const struct {
	const char *suffix;
	double scale;		/* to the unit shown */
	const char *unit;
} ceiling_units[] = {
	{ "_bits_per_s", 1e-9, "Gbit/s" },
	{ "_bytes_per_s", 1e-6, "MB/s" },
	{ "_files_per_s", 1, "files/s" },
	{ "_seconds", 1, "s" },
	{ "_bytes", 1e-6, "MB" },
};

/* "network 1 stream" for network_1_stream_bits_per_s, and its value in that unit ("2.29 Gbit/s") */
static void ceiling_text(const char *key, double v, char *name, size_t nlen, char *val, size_t vlen)
{
	size_t klen = strlen(key), cut = klen;

	snprintf(val, vlen, "%.4g", v);
	for (size_t i = 0; i < sizeof(ceiling_units) / sizeof(ceiling_units[0]); i++) {
		size_t sl = strlen(ceiling_units[i].suffix);
		double x = v * ceiling_units[i].scale;

		if (klen <= sl || strcmp(key + klen - sl, ceiling_units[i].suffix))
			continue;
		cut = klen - sl;
		if (!strcmp(ceiling_units[i].unit, "s"))
			snprintf(val, vlen, x < 1e-3 ? "%.1f µs" : x < 1 ? "%.2f ms" : "%.2f s",
				 x < 1e-3 ? x * 1e6 : x < 1 ? x * 1e3 : x);
		else
			snprintf(val, vlen, x >= 100 ? "%.0f %s" : "%.2f %s", x, ceiling_units[i].unit);
		break;
	}
	snprintf(name, nlen, "%.*s", (int)cut, key);
	for (char *p = name; *p; p++)
		if (*p == '_')
			*p = ' ';
}

/* the bytes of s beyond its columns (UTF-8 continuation bytes), for printf's widths */
static int extra_bytes(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) == 0x80;
	return n;
}

static void diff_ceilings(json_object *a, json_object *b, FILE *out)
{
	json_object *ca, *cb;
	int header = 0;

	if (!json_object_object_get_ex(a, "ceilings", &ca) ||
	    !json_object_object_get_ex(b, "ceilings", &cb) || !ca || !cb) {
		fprintf(out, "\nceilings: not in both reports (--no-probes?)\n");
		return;
	}
	json_object_object_foreach(ca, key, va) {
		json_object *vb;
		char name[64], xs[32], ys[32];
		double x, y;

		if (!json_object_object_get_ex(cb, key, &vb) || !va || !vb ||
		    !(json_object_is_type(va, json_type_double) || json_object_is_type(va, json_type_int)))
			continue;
		x = json_object_get_double(va);
		y = json_object_get_double(vb);
		if (!(x > 0) || !(y > 0) || fabs(y / x - 1) <= CEILING_CHANGE)
			continue;
		if (!header++)
			fprintf(out, "\nceilings that changed by more than %.0f%%:\n", CEILING_CHANGE * 100);
		ceiling_text(key, x, name, sizeof(name), xs, sizeof(xs));
		ceiling_text(key, y, name, sizeof(name), ys, sizeof(ys));
		/* the widths in columns: "µ" is two bytes in one column */
		fprintf(out, "  %-24s %*s → %-*s %+6.0f%%\n", name, 14 + extra_bytes(xs), xs,
			14 + extra_bytes(ys), ys, (y / x - 1) * 100);
	}
	if (!header)
		fprintf(out, "\nceilings: none changed by more than %.0f%%\n", CEILING_CHANGE * 100);
}

/* whether argv array arr holds the string s */
static bool holds(json_object *arr, const char *s)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(arr, i)), s))
			return true;
	return false;
}

/* the words of x's command line that y's lacks, an option's value with its option: " -P 4" */
static void words_only_in(json_object *x, json_object *y, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 1; i < json_object_array_length(x) && used < len; i++) {
		const char *w = json_object_get_string(json_object_array_get_idx(x, i));
		const char *before = json_object_get_string(json_object_array_get_idx(x, i - 1));
		int n;

		if (holds(y, w))
			continue;
		if (w[0] != '-' && i > 1 && before[0] == '-' && holds(y, before))
			n = snprintf(buf + used, len - used, " %s %s", before, w);
		else
			n = snprintf(buf + used, len - used, " %s", w);
		used += n > 0 ? (size_t)n : 0;
	}
}

/* the two command lines, when they differ: a change of options explains a change of times */
static void diff_commands(json_object *a, json_object *b, FILE *out)
{
	json_object *ca, *cb;
	char only[2][512];

	if (!json_object_object_get_ex(a, "command", &ca) || !json_object_object_get_ex(b, "command", &cb) ||
	    !json_object_is_type(ca, json_type_array) || !json_object_is_type(cb, json_type_array) ||
	    json_object_equal(ca, cb))
		return;
	words_only_in(ca, cb, only[0], sizeof(only[0]));
	words_only_in(cb, ca, only[1], sizeof(only[1]));
	fputs("the command lines differ", out);
	if (!only[0][0] && !only[1][0])
		fputs(" in the order of their words", out);
	fputs(":\n", out);
	for (int k = 0; k < 2; k++)
		if (only[k][0])
			fprintf(out, "  only in %c:%s\n", "AB"[k], only[k]);
	fputc('\n', out);
}

void report_diff(json_object *a, const char *a_path, json_object *b, const char *b_path, FILE *out)
{
	fprintf(out, "A: %s (%s)\nB: %s (%s)\n\n", a_path, text(a, "host") ? text(a, "host") : "?", b_path,
		text(b, "host") ? text(b, "host") : "?");
	diff_commands(a, b, out);
	diff_results(a, b, out);
	diff_ceilings(a, b, out);
}
