/*
 * --sample in the reports: the sample drawn (table and JSON), each
 * strategy's time on it, and where the answer's time went. The forecast of
 * the whole from the sample's run is the model's (issue 41/42); what it
 * needs is here: both trees' counts, and each sample run's time.
 */
#include "report/report.h"

#include "model/model_text.h"
#include "report/text_wrap.h"
#include "units.h"
#include "workload_sample.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/*
 * "2,000 of 20,000 files (10.0%)"; with large files cut into pieces, which
 * count as files of the sample, "26 pieces of 1 large file" and then ", 95
 * of 1,900 other files (5.0%)" when there are others (not "26 of 1 files").
 */
static void sample_files(const struct workload_sample *s, char *buf, size_t len)
{
	char sf[32], wf[32], pc[32];
	uint64_t others = s->sample.files - s->pieces, whole_others = s->whole.files - s->cut_files;

	if (!s->pieces || s->pieces > s->sample.files || s->cut_files > s->whole.files) {
		snprintf(buf, len, "%s of %s files (%.1f%%)", units_format_count(s->sample.files, sf, sizeof(sf)),
			 units_format_count(s->whole.files, wf, sizeof(wf)), share(s->sample.files, s->whole.files));
		return;
	}
	snprintf(buf, len, "%s pieces of %llu large file%s", units_format_count(s->pieces, pc, sizeof(pc)),
		 (unsigned long long)s->cut_files, s->cut_files == 1 ? "" : "s");
	if (whole_others)
		snprintf(buf + strlen(buf), len - strlen(buf), ", %s of %s other files (%.1f%%)",
			 units_format_count(others, sf, sizeof(sf)),
			 units_format_count(whole_others, wf, sizeof(wf)), share(others, whole_others));
}

void report_sample_lines(const struct report *r, FILE *out)
{
	const struct workload_sample *s = r->sample;
	char a[32], b[32], files[160], line[1024];

	if (!s)
		return;
	if (workload_sample_is_whole(s)) {
		snprintf(line, sizeof(line), "sample: %s", s->method);
		fputc('\n', out);
		text_wrap(out, "", 2, line, text_width());
		return;
	}
	sample_files(s, files, sizeof(files));
	snprintf(line, sizeof(line),
		 "sample: %s, %s of %s (%.1f%%), %llu of %llu directories holding files, "
		 "%llu of %llu symbolic links, %llu of %llu hard links; seed %llu (--sample %s): %s",
		 files, units_format_bytes(s->sample.bytes, a, sizeof(a)),
		 units_format_bytes(s->whole.bytes, b, sizeof(b)), share(s->sample.bytes, s->whole.bytes),
		 (unsigned long long)s->sample.dirs_with_files, (unsigned long long)s->whole.dirs_with_files,
		 (unsigned long long)s->sample.symlinks, (unsigned long long)s->whole.symlinks,
		 (unsigned long long)s->sample.hardlinks, (unsigned long long)s->whole.hardlinks,
		 (unsigned long long)s->seed, s->request.text ? s->request.text : "?",
		 r->whole_moved ? "each strategy moved the sample, then the whole (--check)" :
				  "the strategies moved the sample, not the whole; the times below are the sample's");
	fputc('\n', out);
	text_wrap(out, "", 2, line, text_width());
	text_wrap(out, "  how: ", 7, s->method, text_width());
}

/* "5% sample", "2G sample", "sample": what --sample asked for. */
static void sample_name(const struct report *r, char *buf, size_t len)
{
	const char *asked = r->sample->request.text;

	snprintf(buf, len, "%s%ssample", asked ? asked : "", asked ? " " : "");
}

int report_sample_recommendation(const struct report *r, const struct strategy_result *best,
				 char *buf, size_t len)
{
	const struct strategy_result *next = NULL;
	char tb[32], lo[32], hi[32], range[80] = "", bytes[32], files[32], line[160] = "", cost[160] = "", name[48];

	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *res = &r->results[i];

		if (res != best && report_whole_forecast(res) > 0 &&
		    (!next || report_whole_forecast(res) < report_whole_forecast(next)))
			next = res;
	}
	model_format_seconds(report_whole_forecast(best), tb, sizeof(tb));
	/* one run and one stage: no range to give */
	if (strcmp(model_format_seconds(best->forecast.low, lo, sizeof(lo)),
		   model_format_seconds(best->forecast.high, hi, sizeof(hi))))
		snprintf(range, sizeof(range), " (%s to %s)", lo, hi);
	if (next) {
		char tn[32];

		snprintf(line, sizeof(line), "; %s about %s", next->strategy->name,
			 model_format_seconds(report_whole_forecast(next), tn, sizeof(tn)));
	}
	sample_name(r, name, sizeof(name));
	if (r->timing) {
		char ta[32];

		snprintf(cost, sizeof(cost), " (answered in %s from a %s)",
			 model_format_seconds(r->timing->answer_s, ta, sizeof(ta)), name);
	}
	return snprintf(buf, len, "use %s for the whole workload: about %s%s for %s, %s files, "
			"forecast from its runs on the %s%s%s",
			best->strategy->name, tb, range, units_format_bytes(r->bytes, bytes, sizeof(bytes)),
			units_format_count(r->files, files, sizeof(files)), name, line, cost);
}
void report_sample_suggestion(double total_s, char *buf, size_t len)
{
	char t[32];
	double pct = total_s > 0 ? ceil(100.0 * 60.0 / total_s) : 20;

	pct = pct < 1 ? 1 : pct > 20 ? 20 : pct;
	snprintf(buf, len, "the probes forecast these runs at about %s in all; --sample %.0f%% would answer from "
		 "a sample in about a minute of runs, with a forecast of the whole (going on as asked: Ctrl-C stops "
		 "with the report so far)", model_format_seconds(total_s, t, sizeof(t)), pct);
}

/* The whole's forecast of res and its range, or "-" when none. */
static void whole_cells(const struct strategy_result *res, FILE *out)
{
	char range[48];

	snprintf(range, sizeof(range), "%.1f-%.1f", res->forecast.low, res->forecast.high);
	if (report_whole_forecast(res) > 0)
		fprintf(out, " %10.1f %21s", res->forecast.seconds, range);
	else
		fprintf(out, " %10s %21s", "-", "-");
}

/* forecast.fixed_s, forecast.once_s: what forecast_list lists */
static double fixed_of(const struct forecast *f)
{
	return f->fixed_s;
}

static double once_of(const struct forecast *f)
{
	return f->once_s;
}

/*
 * One note of every strategy with a whole's forecast and value(its
 * forecast) > 0, "name N s" each, between before and after; none: nothing.
 */
static void forecast_note(const struct report *r, FILE *out, double (*value)(const struct forecast *),
			  int decimals, const char *prefix, const char *before, const char *after)
{
	char list[320] = "", line[768];
	size_t used = 0;

	for (size_t i = 0; i < r->nresults && used < sizeof(list); i++) {
		const struct strategy_result *w = &r->results[i];
		int k;

		if (report_whole_forecast(w) <= 0 || !(value(&w->forecast) > 0))
			continue;
		k = snprintf(list + used, sizeof(list) - used, "%s%s %.*f s", used ? ", " : "", w->strategy->name,
			     decimals, value(&w->forecast));
		used = k < 0 ? sizeof(list) : used + (size_t)k;
	}
	if (!list[0])
		return;
	snprintf(line, sizeof(line), "%s%s%s", before, list, after);
	text_wrap(out, prefix, strlen(prefix), line, text_width());
}

/*
 * Each strategy's time on the sample and the whole's forecast from it, with
 * the whole's measured time beside it with --check; then which strategy is
 * fastest for the whole when the sample's fastest is another.
 */
static void sample_and_whole(const struct report *r, FILE *out)
{
	const struct strategy_result *fast_sample = NULL, *fast_whole = NULL;
	bool any = false;

	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *w = &r->results[i], *s = &r->sample_results[i];
		double ts = report_seconds(s), tw = report_seconds(w);

		if (!s->runs && !w->runs)
			continue;
		if (!any)
			fprintf(out, "\nthe whole from the sample (seconds; the whole holds %.1fx the sample's files, %.1fx its bytes):\n"
				"  %-17s %9s %10s %21s%s\n", r->sample->sample.files ?
				(double)r->sample->whole.files / (double)r->sample->sample.files : 0,
				r->sample->sample.bytes ? (double)r->sample->whole.bytes / (double)r->sample->sample.bytes : 0,
				"strategy", "sample", "forecast", "range", r->whole_moved ? "     whole   f/m" : "");
		any = true;
		fprintf(out, "  %-17s ", w->strategy->name);
		if (s->runs)
			fprintf(out, "%9.2f", ts);
		else
			fprintf(out, "%9s", "-");
		whole_cells(w, out);
		if (r->whole_moved && w->runs && tw > 0)
			fprintf(out, " %9.2f %5.2fx", tw, report_whole_forecast(w) > 0 ? report_whole_forecast(w) / tw : 0);
		else if (r->whole_moved)
			fprintf(out, " %9s %6s", "-", "-");
		fputc('\n', out);
		if (s->status == RESULT_OK && s->runs && (!fast_sample || ts < report_seconds(fast_sample)))
			fast_sample = s;
		if (report_whole_forecast(w) > 0 &&
		    (!fast_whole || report_whole_forecast(w) < report_whole_forecast(fast_whole)))
			fast_whole = w;
	}
	if (any) {
		forecast_note(r, out, fixed_of, 3, "  note: ", "a run's fixed cost, measured on one file before "
			      "the sample, is kept whole, not scaled: ", "");
		forecast_note(r, out, once_of, 2, "  note: ", "each of these opens its own OpenSSH connection, "
			      "which warms up on its first megabytes; what its sample's later bytes' rate leaves "
			      "out of that run is kept whole, paid once a run, not scaled: ", " (docs/MODEL.md).");
	}
	if (fast_sample && fast_whole && fast_sample->strategy != fast_whole->strategy)
		fprintf(out, "  fastest on the sample: %s; for the whole, %s is forecast fastest\n",
			fast_sample->strategy->name, fast_whole->strategy->name);
}

void report_sample_tail(const struct report *r, FILE *out)
{
	const struct report_timing *t = r->timing;
	char answer[32], host[32], here[32], cleanup[200] = "", leftover[96] = "", line[600];

	if (r->sample_results && r->sample)
		sample_and_whole(r, out);
	if (!t)
		return;
	model_format_seconds(t->answer_s, answer, sizeof(answer));
	units_format_count(t->local_removed, here, sizeof(here));
	if (t->cleaned && t->host_background)
		snprintf(cleanup, sizeof(cleanup),
			 ", cleanup %.1f s (removed %s entries here; the host removes about %s after xfercmp exits)",
			 t->cleanup_s, here, units_format_count(t->host_background_entries, host, sizeof(host)));
	else if (t->cleaned)
		snprintf(cleanup, sizeof(cleanup), ", cleanup %.1f s (removed %s entries on the host, %s here)",
			 t->cleanup_s, units_format_count(t->host_removed, host, sizeof(host)), here);
	if (t->leftover_roots)
		snprintf(leftover, sizeof(leftover), " (%.1f s of it an earlier run's copies going on the host)",
			 t->leftover_s);
	snprintf(line, sizeof(line), "answered in %s: setup %.1f s%s, probes %.1f s, strategies %.1f s%s",
		 answer, t->setup_s, leftover, t->probes_s, t->strategies_s, cleanup);
	fputc('\n', out);
	text_wrap(out, "", 2, line, text_width());
}

static json_object *counts_json(const struct workload_sample_counts *c, const struct workload_sample_counts *other)
{
	json_object *o = json_object_new_object(), *classes = json_object_new_array();

	json_object_object_add(o, "files", json_object_new_int64((int64_t)c->files));
	json_object_object_add(o, "bytes", json_object_new_int64((int64_t)c->bytes));
	json_object_object_add(o, "dirs", json_object_new_int64((int64_t)c->dirs));
	json_object_object_add(o, "dirs_with_files", json_object_new_int64((int64_t)c->dirs_with_files));
	json_object_object_add(o, "symlinks", json_object_new_int64((int64_t)c->symlinks));
	json_object_object_add(o, "hardlinks", json_object_new_int64((int64_t)c->hardlinks));
	json_object_object_add(o, "compressed_files", json_object_new_int64((int64_t)c->compressed_files));
	/* the classes either tree has: a file of class k has 2^(k-1) to 2^k - 1 bytes (0: empty) */
	for (unsigned k = 0; k < WORKLOAD_SAMPLE_CLASSES; k++) {
		json_object *one;

		if (!c->class_files[k] && !other->class_files[k])
			continue;
		one = json_object_new_object();
		json_object_object_add(one, "min_bytes", json_object_new_int64(k ? (int64_t)(1ull << (k - 1)) : 0));
		json_object_object_add(one, "files", json_object_new_int64((int64_t)c->class_files[k]));
		json_object_object_add(one, "bytes", json_object_new_int64((int64_t)c->class_bytes[k]));
		json_object_array_add(classes, one);
	}
	json_object_object_add(o, "size_classes", classes);
	return o;
}

static json_object *timing_json(const struct report_timing *t)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "setup_seconds", json_object_new_double(t->setup_s));
	json_object_object_add(o, "probes_seconds", json_object_new_double(t->probes_s));
	json_object_object_add(o, "strategies_seconds", json_object_new_double(t->strategies_s));
	json_object_object_add(o, "cleanup_seconds", t->cleaned ? json_object_new_double(t->cleanup_s) : NULL);
	json_object_object_add(o, "answer_seconds", json_object_new_double(t->answer_s));
	json_object_object_add(o, "host_removed", t->cleaned ? json_object_new_int64((int64_t)t->host_removed) : NULL);
	json_object_object_add(o, "local_removed",
			       t->cleaned ? json_object_new_int64((int64_t)t->local_removed) : NULL);
	json_object_object_add(o, "host_cleanup",
			       !t->cleaned ? NULL : json_object_new_string(t->host_background ? "background" : "done"));
	json_object_object_add(o, "host_background_entries",
			       t->host_background ? json_object_new_int64((int64_t)t->host_background_entries) : NULL);
	json_object_object_add(o, "leftover_seconds", t->leftover_roots ? json_object_new_double(t->leftover_s) : NULL);
	json_object_object_add(o, "leftover_removed",
			       t->leftover_roots ? json_object_new_int64((int64_t)t->leftover_removed) : NULL);
	return o;
}

void report_sample_json(const struct report *r, json_object *doc)
{
	const struct workload_sample *s = r->sample;
	json_object *o;

	json_object_object_add(doc, "timing", r->timing ? timing_json(r->timing) : NULL);
	if (!s) {
		json_object_object_add(doc, "sample", NULL);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "files", json_object_new_int64((int64_t)s->sample.files));
	json_object_object_add(o, "bytes", json_object_new_int64((int64_t)s->sample.bytes));
	json_object_object_add(o, "fraction", json_object_new_double(s->fraction));
	json_object_object_add(o, "seed", json_object_new_int64((int64_t)s->seed));
	json_object_object_add(o, "method", json_object_new_string(s->method));
	json_object_object_add(o, "request", s->request.text ? json_object_new_string(s->request.text) : NULL);
	json_object_object_add(o, "whole_moved", json_object_new_boolean(r->whole_moved));
	json_object_object_add(o, "cut_files", json_object_new_int64((int64_t)s->cut_files));
	json_object_object_add(o, "pieces", json_object_new_int64((int64_t)s->pieces));
	json_object_object_add(o, "counts", counts_json(&s->sample, &s->whole));
	json_object_object_add(o, "whole", counts_json(&s->whole, &s->sample));
	json_object_object_add(doc, "sample", o);
}

void report_sample_result_json(const struct report *r, size_t i, json_object *o)
{
	const struct strategy_result *s = r->sample_results ? &r->sample_results[i] : NULL;
	json_object *runs = NULL;

	if (r->sample && !r->whole_moved)
		json_object_object_add(o, "seconds", NULL);
	if (s && s->runs) {
		runs = json_object_new_array();
		for (unsigned k = 0; k < s->runs; k++)
			json_object_array_add(runs, json_object_new_double(s->run_seconds[k]));
	}
	json_object_object_add(o, "sample_seconds", s && s->runs ? json_object_new_double(report_seconds(s)) : NULL);
	json_object_object_add(o, "sample_run_seconds", runs);
}
