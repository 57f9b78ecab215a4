/*
 * --sample in the reports: the sample drawn (table and JSON), each
 * strategy's time on it, and where the answer's time went. The forecast of
 * the whole from the sample's run is the model's (issue 41/42); what it
 * needs is here: both trees' counts, and each sample run's time.
 */
#include "report/report.h"

#include "report/text_wrap.h"
#include "units.h"
#include "workload_sample.h"

#include <stdio.h>
#include <string.h>

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

void report_sample_lines(const struct report *r, FILE *out)
{
	const struct workload_sample *s = r->sample;
	char a[32], b[32], sf[32], wf[32], line[1024];

	if (!s)
		return;
	if (workload_sample_is_whole(s)) {
		snprintf(line, sizeof(line), "sample: %s", s->method);
		fputc('\n', out);
		text_wrap(out, "", 2, line, TEXT_WIDTH);
		return;
	}
	snprintf(line, sizeof(line),
		 "sample: %s of %s files (%.1f%%), %s of %s (%.1f%%), %llu of %llu directories holding files, "
		 "%llu of %llu symbolic links, %llu of %llu hard links; seed %llu (--sample %s): %s",
		 units_format_count(s->sample.files, sf, sizeof(sf)),
		 units_format_count(s->whole.files, wf, sizeof(wf)), share(s->sample.files, s->whole.files), units_format_bytes(s->sample.bytes, a, sizeof(a)),
		 units_format_bytes(s->whole.bytes, b, sizeof(b)), share(s->sample.bytes, s->whole.bytes),
		 (unsigned long long)s->sample.dirs_with_files, (unsigned long long)s->whole.dirs_with_files,
		 (unsigned long long)s->sample.symlinks, (unsigned long long)s->whole.symlinks,
		 (unsigned long long)s->sample.hardlinks, (unsigned long long)s->whole.hardlinks,
		 (unsigned long long)s->seed, s->request.text ? s->request.text : "?",
		 r->whole_moved ? "each strategy moved the sample, then the whole (--check)" :
				  "the strategies moved the sample, not the whole; the times below are the sample's");
	fputc('\n', out);
	text_wrap(out, "", 2, line, TEXT_WIDTH);
	text_wrap(out, "  how: ", 7, s->method, TEXT_WIDTH);
}

/* With --check: each strategy's time on the sample and on the whole, side by side. */
static void sample_and_whole(const struct report *r, FILE *out)
{
	bool any = false;

	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *w = &r->results[i], *s = &r->sample_results[i];
		double ts = report_seconds(s), tw = report_seconds(w);

		if (!s->runs && !w->runs)
			continue;
		if (!any)
			fprintf(out, "\nsample and whole (seconds; the whole holds %.1fx the sample's files, %.1fx its bytes):\n"
				"  %-17s %9s %9s %12s\n", r->sample->sample.files ?
				(double)r->sample->whole.files / (double)r->sample->sample.files : 0,
				r->sample->sample.bytes ? (double)r->sample->whole.bytes / (double)r->sample->sample.bytes : 0,
				"strategy", "sample", "whole", "whole/sample");
		any = true;
		fprintf(out, "  %-17s ", w->strategy->name);
		if (s->runs)
			fprintf(out, "%9.2f ", ts);
		else
			fprintf(out, "%9s ", "-");
		if (w->runs)
			fprintf(out, "%9.2f %11.1fx\n", tw, s->runs && ts > 0 ? tw / ts : 0);
		else
			fprintf(out, "%9s %12s\n", "-", "-");
	}
}

static void duration(char *buf, size_t len, double s)
{
	if (s < 60)
		snprintf(buf, len, "%.1f s", s);
	else if (s < 3600)
		snprintf(buf, len, "%d min %02d s", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, len, "%d h %02d min", (int)s / 3600, (int)s % 3600 / 60);
}

void report_sample_tail(const struct report *r, FILE *out)
{
	const struct report_timing *t = r->timing;
	char answer[32], host[32], here[32], cleanup[160] = "", line[512];

	if (r->sample_results && r->sample && r->whole_moved && r->sample_results != r->results)
		sample_and_whole(r, out);
	if (!t)
		return;
	duration(answer, sizeof(answer), t->answer_s);
	if (t->cleaned) {
		units_format_count(t->host_removed, host, sizeof(host));
		units_format_count(t->local_removed, here, sizeof(here));
		snprintf(cleanup, sizeof(cleanup), ", cleanup %.1f s (removed %s entries on the host, %s here)",
			 t->cleanup_s, host, here);
	}
	snprintf(line, sizeof(line), "answered in %s: setup %.1f s, probes %.1f s, strategies %.1f s%s",
		 answer, t->setup_s, t->probes_s, t->strategies_s, cleanup);
	fputc('\n', out);
	text_wrap(out, "", 2, line, TEXT_WIDTH);
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
