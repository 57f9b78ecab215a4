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
		fprintf(out, "  %-30s %12.4g → %-12.4g %+6.0f%%\n", key, x, y, (y / x - 1) * 100);
	}
	if (!header)
		fprintf(out, "\nceilings: none changed by more than %.0f%%\n", CEILING_CHANGE * 100);
}

void report_diff(json_object *a, const char *a_path, json_object *b, const char *b_path, FILE *out)
{
	fprintf(out, "A: %s (%s)\nB: %s (%s)\n\n", a_path, text(a, "host") ? text(a, "host") : "?", b_path,
		text(b, "host") ? text(b, "host") : "?");
	diff_results(a, b, out);
	diff_ceilings(a, b, out);
}
