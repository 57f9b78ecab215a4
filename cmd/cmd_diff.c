/*
 * xfercmp diff A.json B.json: two runs side by side (before and after a
 * tuning, two hosts, two days): per strategy time A, time B, the change and
 * whether it is beyond the runs' noise; then the ceilings that moved. Reads
 * schema 1 and 2 (a schema-1 file is read as schema 2: report_json_upgrade;
 * without run_seconds, the min..max range is the noise).
 */
#include "commands.h"
#include "err.h"
#include "exitcode.h"
#include "report.h"
#include "stats.h"

#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char diff_help[] =
	"usage: xfercmp diff A.json B.json\n"
	"Compares two --json reports: per strategy, the time in A and in B, the change,\n"
	"and whether it is beyond the runs' noise (Welch's t-test on --repeat runs, or\n"
	"ranges that do not overlap); then the ceilings that changed by more than 10%.\n"
	"Exit 0 when both files were read, 1 when one cannot be, 2 usage error.\n\n"
	"  -h, --help           this text\n";

/* A ceiling that moved less than this is not listed: probes repeat within it here. */
#define CEILING_CHANGE 0.10

static json_object *load(const char *path)
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

int cmd_diff(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	json_object *a, *b;
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(diff_help, stdout);
			return EXIT_OK;
		}
		return cmd_usage_error("diff", "unknown option '%s'", argv[optind - 1]);
	}
	if (argc - optind != 2)
		return cmd_usage_error("diff", "expected two JSON reports, got %d", argc - optind);
	if (!(a = load(argv[optind])))
		return cmd_fail("diff", EXIT_FAILED);
	if (!(b = load(argv[optind + 1]))) {
		json_object_put(a);
		return cmd_fail("diff", EXIT_FAILED);
	}
	printf("A: %s (%s)\nB: %s (%s)\n\n", argv[optind], text(a, "host") ? text(a, "host") : "?",
	       argv[optind + 1], text(b, "host") ? text(b, "host") : "?");
	diff_results(a, b, stdout);
	diff_ceilings(a, b, stdout);
	json_object_put(a);
	json_object_put(b);
	return EXIT_OK;
}
