/* The --json document. Fields are added by later versions, never renamed. */
#include "report.h"

#include "err.h"
#include "version.h"

#include <stdio.h>
#include <string.h>

static const char *status_name(enum result_status s)
{
	switch (s) {
	case RESULT_OK: return "ok";
	case RESULT_FAILED: return "failed";
	case RESULT_SKIPPED: return "skipped";
	}
	return "failed";
}

/* argv as given, argv[0] included; null when the report has none. */
static json_object *command_json(const struct report *r)
{
	json_object *a;

	if (r->argc <= 0 || !r->argv)
		return NULL;
	a = json_object_new_array();
	for (int i = 0; i < r->argc; i++)
		json_object_array_add(a, json_object_new_string(r->argv[i]));
	return a;
}

/* Every verified run's time, in run order. */
static json_object *run_seconds_json(const struct strategy_result *res)
{
	json_object *a = json_object_new_array();

	for (unsigned k = 0; k < res->runs; k++)
		json_object_array_add(a, json_object_new_double(res->run_seconds[k]));
	return a;
}

/* {"strategy": the fastest or null, "clear": beyond the runs' noise, "next": the runner-up} */
static json_object *fastest_json(const struct report *r)
{
	json_object *o = json_object_new_object();
	struct report_winner w;

	report_winner(r, &w);
	json_object_object_add(o, "strategy",
			       w.best ? json_object_new_string(w.best->strategy->name) : NULL);
	json_object_object_add(o, "next", w.next ? json_object_new_string(w.next->strategy->name) : NULL);
	json_object_object_add(o, "clear", json_object_new_boolean(w.clear));
	json_object_object_add(o, "welch_p", w.best && w.next ?
			       json_object_new_double(stats_welch_p(&w.best->time, &w.next->time)) : NULL);
	return o;
}

/* [{rate_bits_per_s, rtt_s, predicted: {strategy: seconds}}]: 0 for a value kept as measured. */
static json_object *what_if_json(const struct report *r)
{
	json_object *a = json_object_new_array();

	for (size_t k = 0; k < r->nwhat_if; k++) {
		json_object *o = json_object_new_object(), *pred = json_object_new_object();

		json_object_object_add(o, "rate_bits_per_s",
				       json_object_new_double(r->what_if[k].rate_bits_per_s));
		json_object_object_add(o, "rtt_s", json_object_new_double(r->what_if[k].rtt_s));
		for (size_t i = 0; i < r->nresults; i++) {
			double p = report_predicted(r, &r->results[i], &r->what_if[k]);

			if (p > 0)
				json_object_object_add(pred, r->results[i].strategy->name,
						       json_object_new_double(p));
		}
		json_object_object_add(o, "predicted", pred);
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *result_json(const struct strategy_result *res)
{
	json_object *o = json_object_new_object(), *phases = json_object_new_object();
	double seconds = res->median.transfer + res->median.flush;

	json_object_object_add(o, "strategy", json_object_new_string(res->strategy->name));
	json_object_object_add(o, "status", json_object_new_string(status_name(res->status)));
	json_object_object_add(o, "verified", json_object_new_boolean(res->verified));
	json_object_object_add(o, "cleartext", json_object_new_boolean(res->cleartext));
	json_object_object_add(o, "agent_via_ssh", json_object_new_boolean(res->agent_via_ssh));
	json_object_object_add(o, "preserved", 
			       res->verify_summary[0] ? report_preserved_json(res) : NULL);
	json_object_object_add(o, "seconds", json_object_new_double(res->runs ? seconds : 0.0));
	json_object_object_add(phases, "transfer", json_object_new_double(res->median.transfer));
	json_object_object_add(phases, "flush", json_object_new_double(res->median.flush));
	json_object_object_add(o, "phases", phases);
	json_object_object_add(o, "runs", json_object_new_int((int)res->runs));
	json_object_object_add(o, "min_seconds", json_object_new_double(res->min_seconds));
	json_object_object_add(o, "max_seconds", json_object_new_double(res->max_seconds));
	json_object_object_add(o, "mean_seconds",
			       res->runs ? json_object_new_double(res->time.mean) : NULL);
	json_object_object_add(o, "stddev_seconds",
			       res->runs > 1 ? json_object_new_double(res->time.sd) : NULL);
	json_object_object_add(o, "run_seconds", run_seconds_json(res));
	json_object_object_add(o, "bytes", json_object_new_int64((int64_t)res->sent.bytes_read));
	json_object_object_add(o, "wire_bytes", json_object_new_int64((int64_t)res->sent.wire_bytes));
	json_object_object_add(o, "files", json_object_new_int64((int64_t)res->sent.files));
	json_object_object_add(o, "round_trips", json_object_new_int64((int64_t)res->sent.round_trips));
	json_object_object_add(o, "dest_fs", json_object_new_string(res->dest_fs));
	json_object_object_add(o, "error", res->error[0] ? json_object_new_string(res->error) : NULL);
	if (res->have_attribution) {
		json_object *shares = json_object_new_object(), *need = json_object_new_object();

		for (int k = 0; k <= RES_COUNT; k++)
			json_object_object_add(shares, attribution_resource_name((enum resource)k),
					       json_object_new_double(res->attribution.share[k]));
		for (int k = 0; k < RES_COUNT; k++)
			json_object_object_add(need, attribution_resource_name((enum resource)k),
					       json_object_new_double(res->attribution.need_s[k]));
		json_object_object_add(o, "shares", shares);
		json_object_object_add(o, "need_seconds", need);
		json_object_object_add(o, "verdict",
				       json_object_new_string(attribution_verdict_name(res->attribution.verdict)));
		json_object_object_add(o, "reason", json_object_new_string(res->attribution.reason));
		json_object_object_add(o, "predicted_seconds",
				       json_object_new_double(res->attribution.predicted_s));
		json_object_object_add(o, "predicted_ratio",
				       json_object_new_double(seconds > 0 ? res->attribution.predicted_s / seconds : 0));
		json_object_object_add(o, "predicted_bound", json_object_new_string(
				       attribution_resource_name(res->attribution.bound)));
		json_object_object_add(o, "misfit", json_object_new_boolean(res->attribution.misfit));
		json_object_object_add(o, "note", res->attribution.note[0] ?
				       json_object_new_string(res->attribution.note) : NULL);
	}
	if (res->have_local || res->have_remote) {
		json_object *samples = json_object_new_object();

		if (res->have_local)
			json_object_object_add(samples, "source", sampler_summary_json(&res->local));
		if (res->have_remote)
			json_object_object_add(samples, "destination", sampler_summary_json(&res->remote));
		json_object_object_add(o, "samples", samples);
	}
	return o;
}

/* The special files left out, by path: the first REPORT_SPECIALS_LISTED of them. */
#define REPORT_SPECIALS_LISTED 100

static json_object *special_paths(const struct manifest *m)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < m->nspecials && i < REPORT_SPECIALS_LISTED; i++)
		json_object_array_add(a, json_object_new_string(m->specials[i].path));
	return a;
}

json_object *report_json(const struct report *r)
{
	json_object *doc = json_object_new_object(), *wl = json_object_new_object();
	json_object *results = json_object_new_array();

	json_object_object_add(doc, "schema", json_object_new_int(REPORT_SCHEMA));
	json_object_object_add(doc, "host", json_object_new_string(r->host));
	json_object_object_add(wl, "name", json_object_new_string(r->workload_name));
	json_object_object_add(wl, "files", json_object_new_int64((int64_t)r->files));
	json_object_object_add(wl, "bytes", json_object_new_int64((int64_t)r->bytes));
	if (r->manifest) {
		json_object_object_add(wl, "dirs", json_object_new_int64((int64_t)r->manifest->ndirs));
		json_object_object_add(wl, "symlinks",
				       json_object_new_int64((int64_t)r->manifest->nsymlinks));
		json_object_object_add(wl, "hardlinks",
				       json_object_new_int64((int64_t)r->manifest->nhardlinks));
		json_object_object_add(wl, "special_left_out",
				       json_object_new_int64((int64_t)r->manifest->nspecials));
		json_object_object_add(wl, "special_left_out_paths", special_paths(r->manifest));
	}
	if (r->spec && r->spec->kind != WORKLOAD_DIR) {
		json_object_object_add(wl, "seed", json_object_new_int64((int64_t)r->spec->seed));
		json_object_object_add(wl, "compressibility",
				       json_object_new_double(r->spec->compressibility));
	}
	json_object_object_add(doc, "workload", wl);
	json_object_object_add(doc, "repeat", json_object_new_int((int)r->repeat));
	json_object_object_add(doc, "cold_source", json_object_new_boolean(!r->warm));
	json_object_object_add(doc, "agent_via_ssh", json_object_new_boolean(r->agent_via_ssh));
	if (r->agent_info)
		json_object_object_add(doc, "agent", json_object_get(r->agent_info));
	if (r->environment)
		json_object_object_add(doc, "environment", json_object_get(r->environment));
	if (r->probes)
		json_object_object_add(doc, "ceilings", probe_results_json(r->probes));
	json_object_object_add(doc, "xfercmp_version", json_object_new_string(XFERCMP_VERSION));
	json_object_object_add(doc, "started_at",
			       r->started_at && r->started_at[0] ? json_object_new_string(r->started_at) : NULL);
	json_object_object_add(doc, "command", command_json(r));
	json_object_object_add(doc, "partial", json_object_new_boolean(r->partial));
	json_object_object_add(doc, "fastest", fastest_json(r));
	json_object_object_add(doc, "recommendation",
			       r->recommendation[0] ? json_object_new_string(r->recommendation) : NULL);
	json_object_object_add(doc, "compression_hint",
			       r->compression_hint[0] ? json_object_new_string(r->compression_hint) : NULL);
	for (size_t i = 0; i < r->nresults; i++)
		json_object_array_add(results, result_json(&r->results[i]));
	json_object_object_add(doc, "results", results);
	json_object_object_add(doc, "what_if", what_if_json(r));
	json_object_object_add(doc, "error", r->error ? json_object_new_string(r->error) : NULL);
	return doc;
}

int report_json_write(const struct report *r, const char *path)
{
	json_object *doc = report_json(r);
	const char *text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_NOSLASHESCAPE);
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	int rc = 0;

	if (!f) {
		json_object_put(doc);
		return err_errno("cannot write '%s'", path);
	}
	if (fprintf(f, "%s\n", text) < 0)
		rc = err_errno("cannot write %s", f == stdout ? "the JSON report to stdout" : path);
	if (f != stdout) {
		if (fclose(f) != 0 && rc == 0)
			rc = err_errno("cannot write '%s'", path);
	} else if ((fflush(f) != 0 || ferror(f)) && rc == 0) {
		/* a reader that went away (| head) or a full disk: the document is cut */
		rc = err_errno("cannot write the JSON report to stdout");
	}
	json_object_put(doc);
	return rc;
}
