/*
 * The --json document, schema 2 (docs/JSON.md, docs/report.schema.json):
 * rates named by their unit, null for what was not measured. Fields are added
 * by later versions; schema 1's names are read by report_json_upgrade.
 */
#include "report/report.h"
#include "report/report_explain.h"

#include "err.h"
#include "version.h"

#include <math.h>
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

/* v, or null when it is not a measured value (not finite, or 0 where 0 cannot be measured) */
static json_object *number_or_null(double v, bool measured)
{
	return measured && isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *count_or_null(uint64_t v, bool measured)
{
	return measured ? json_object_new_int64((int64_t)v) : NULL;
}

static json_object *text_or_null(const char *s)
{
	return s && s[0] ? json_object_new_string(s) : NULL;
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

/*
 * {"strategy": the fastest or null, "clear": its runs beat every other's,
 * "next": the runner-up, "tied": when not clear, those within its noise}
 */
static json_object *fastest_json(const struct report *r)
{
	json_object *o = json_object_new_object(), *tied;
	struct winner w;

	report_winner(r, &w);
	json_object_object_add(o, "strategy",
			       w.best ? json_object_new_string(w.best->strategy->name) : NULL);
	json_object_object_add(o, "next", w.next ? json_object_new_string(w.next->strategy->name) : NULL);
	json_object_object_add(o, "clear", json_object_new_boolean(w.clear));
	tied = json_object_new_array();
	for (size_t i = 0; i < w.ntied; i++)
		json_object_array_add(tied, json_object_new_string(w.tied[i]->strategy->name));
	json_object_object_add(o, "tied", tied);
	json_object_object_add(o, "welch_p", w.best && w.next ?
			       json_object_new_double(stats_welch_p(&w.best->time, &w.next->time)) : NULL);
	return o;
}

/* Each resource's figure, {"network": ..., ...}; with other when n is RES_COUNT + 1. */
static json_object *per_resource(const double *v, int n)
{
	json_object *o = json_object_new_object();

	for (int k = 0; k < n; k++)
		json_object_object_add(o, resource_name((enum resource)k), json_object_new_double(v[k]));
	return o;
}

/* One strategy's forecast on one --what-if link: its figures, what it carried, what it computed. */
static json_object *what_if_forecast_json(const struct what_if_forecast *f)
{
	json_object *o = json_object_new_object(), *carried = json_object_new_object();
	json_object *again = json_object_new_object();

	json_object_object_add(o, "seconds", json_object_new_double(f->seconds));
	json_object_object_add(o, "low", json_object_new_double(f->low));
	json_object_object_add(o, "high", json_object_new_double(f->high));
	json_object_object_add(carried, "wire_bytes", json_object_new_double(f->wire_bytes));
	json_object_object_add(carried, "requests", json_object_new_int64((int64_t)f->requests));
	json_object_object_add(carried, "request_work_seconds", json_object_new_double(f->request_work_s));
	json_object_object_add(carried, "off_link_seconds", json_object_new_double(f->off_link_s));
	json_object_object_add(carried, "flush_seconds", json_object_new_double(f->flush_s));
	json_object_object_add(o, "carried", carried);
	json_object_object_add(again, "link_bytes_per_s", json_object_new_double(f->link.bytes_per_s));
	json_object_object_add(again, "rtt_seconds", json_object_new_double(f->link.rtt_s));
	json_object_object_add(again, "request_seconds", json_object_new_double(f->link.request_s));
	json_object_object_add(again, "network_seconds", json_object_new_double(f->network_s));
	json_object_object_add(again, "latency_seconds", json_object_new_double(f->latency_s));
	json_object_object_add(o, "recomputed", again);
	return o;
}

/*
 * [{rate_bits_per_s, rtt_seconds, label, forecasts: {strategy: {...}}}]: null
 * for a value kept as probed.
 */
static json_object *what_if_json(const struct report *r)
{
	json_object *a = json_object_new_array();

	for (size_t k = 0; k < r->nwhat_if; k++) {
		json_object *o = json_object_new_object(), *each = json_object_new_object();
		char label[96];

		json_object_object_add(o, "rate_bits_per_s", number_or_null(r->what_if[k].rate_bits_per_s,
								      r->what_if[k].rate_bits_per_s > 0));
		json_object_object_add(o, "rtt_seconds",
				       number_or_null(r->what_if[k].rtt_s, r->what_if[k].rtt_s > 0));
		json_object_object_add(o, "label",
				       json_object_new_string(what_if_label(&r->what_if[k], label, sizeof(label))));
		for (size_t i = 0; i < r->nresults; i++) {
			const struct strategy_result *res = &r->results[i];

			if (k < RUNNER_WHAT_IF_MAX && res->status == RESULT_OK && res->have_what_if[k])
				json_object_object_add(each, res->strategy->name,
						       what_if_forecast_json(&res->what_if[k]));
		}
		json_object_object_add(o, "forecasts", each);
		json_object_array_add(a, o);
	}
	return a;
}

/* The forecast made before the strategy ran: null without probes; seconds null (and why) when none. */
static json_object *forecast_json(const struct strategy_result *res)
{
	const struct forecast *f = &res->forecast;
	json_object *o;
	bool made = res->have_forecast;

	if (!res->forecast_made_at[0])
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "seconds", number_or_null(f->seconds, made));
	json_object_object_add(o, "low", number_or_null(f->low, made));
	json_object_object_add(o, "high", number_or_null(f->high, made));
	json_object_object_add(o, "basis", json_object_new_string(res->forecast_from_sample ? "sample" : "probes"));
	json_object_object_add(o, "made_at", json_object_new_string(res->forecast_made_at));
	json_object_object_add(o, "bound", made ? json_object_new_string(resource_name(f->bound)) : NULL);
	json_object_object_add(o, "wire_bytes", number_or_null(f->wire_bytes, made));
	json_object_object_add(o, "requests", json_object_new_int64((int64_t)f->requests));
	json_object_object_add(o, "need_seconds", made ? per_resource(f->need_s, RES_COUNT) : NULL);
	json_object_object_add(o, "flush_seconds", number_or_null(f->flush_s, made));
	json_object_object_add(o, "fixed_seconds", number_or_null(f->fixed_s, made && f->fixed_s > 0));
	json_object_object_add(o, "once_seconds", number_or_null(f->once_s, made && f->once_s > 0));
	json_object_object_add(o, "why", made ? NULL : text_or_null(f->why[0] ? f->why : "not made"));
	return o;
}

/* The accounting's fields, each null when none was made (no probes, no run). */
static void accounting_json(json_object *o, const struct strategy_result *res)
{
	const struct accounting *a = &res->accounting;
	bool have = res->have_accounting;
	json_object *loads = NULL, *understated = NULL;

	if (have) {
		loads = json_object_new_object();
		understated = json_object_new_array();
		for (int k = 0; k < RES_COUNT; k++) {
			if (k != RES_LATENCY)
				json_object_object_add(loads, resource_name((enum resource)k),
						       number_or_null(a->load[k], a->load[k] >= 0));
			if (a->understated & (1u << k))
				json_object_array_add(understated,
						      json_object_new_string(resource_name((enum resource)k)));
		}
	}
	json_object_object_add(o, "shares", have ? per_resource(a->share, RES_COUNT + 1) : NULL);
	json_object_object_add(o, "need_seconds", have ? per_resource(a->need_s, RES_COUNT) : NULL);
	json_object_object_add(o, "loads", loads);
	json_object_object_add(o, "verdict", have ?
			       json_object_new_string(resource_verdict_name(a->verdict)) : NULL);
	json_object_object_add(o, "close_behind", have && a->close_behind < RES_COUNT ?
			       json_object_new_string(resource_name(a->close_behind)) : NULL);
	json_object_object_add(o, "understated", understated);
	json_object_object_add(o, "reason", have ? text_or_null(a->reason) : NULL);
	json_object_object_add(o, "note", have ? text_or_null(a->note) : NULL);
}

/*
 * One strategy's result. A strategy that failed or was skipped has no run:
 * its times, counts and rates are null (not 0), and so is everything the
 * attribution or a far end without sampling did not give.
 */
static json_object *result_json(const struct report *r, const struct strategy_result *res)
{
	json_object *o = json_object_new_object(), *phases = NULL, *samples;
	double seconds = res->median.transfer + res->median.flush;
	bool ran = res->runs > 0, timed = ran && seconds > 0;

	json_object_object_add(o, "strategy", json_object_new_string(res->strategy->name));
	json_object_object_add(o, "status", json_object_new_string(status_name(res->status)));
	json_object_object_add(o, "verified", json_object_new_boolean(res->verified));
	json_object_object_add(o, "cleartext", json_object_new_boolean(res->cleartext));
	json_object_object_add(o, "authenticated", json_object_new_boolean(res->authenticated));
	json_object_object_add(o, "agent_via_ssh", json_object_new_boolean(res->agent_via_ssh));
	json_object_object_add(o, "preserved", 
			       res->verify_summary[0] ? report_preserved_json(res) : NULL);
	json_object_object_add(o, "seconds", number_or_null(seconds, ran));
	if (ran) {
		phases = json_object_new_object();
		json_object_object_add(phases, "transfer", json_object_new_double(res->median.transfer));
		json_object_object_add(phases, "flush", json_object_new_double(res->median.flush));
	}
	json_object_object_add(o, "phases", phases);
	json_object_object_add(o, "runs", json_object_new_int((int)res->runs));
	json_object_object_add(o, "min_seconds", number_or_null(res->min_seconds, ran));
	json_object_object_add(o, "max_seconds", number_or_null(res->max_seconds, ran));
	json_object_object_add(o, "mean_seconds", number_or_null(res->time.mean, ran));
	json_object_object_add(o, "stddev_seconds", number_or_null(res->time.sd, res->runs > 1));
	json_object_object_add(o, "run_seconds", run_seconds_json(res));
	json_object_object_add(o, "bytes", count_or_null(res->sent.bytes_read, ran));
	json_object_object_add(o, "wire_bytes",
			       count_or_null(res->wire_bytes, ran && res->wire_source != WIRE_UNMEASURED));
	json_object_object_add(o, "wire_bytes_from",
			       !ran || res->wire_source == WIRE_UNMEASURED ? NULL :
			       json_object_new_string(res->wire_source == WIRE_LINK ? "link" : "sender"));
	json_object_object_add(o, "files", count_or_null(res->sent.files, ran));
	json_object_object_add(o, "round_trips", count_or_null(res->sent.round_trips, ran));
	/* a one-thread sender's own stage, its waits for the next stage left out */
	json_object_object_add(o, "sender_own_seconds",
			       number_or_null(res->median.sender_own_s, ran && res->median.sender_own_s > 0));
	/* throughput of the median run: the tree's bytes and files over its transfer + flush */
	json_object_object_add(o, "bytes_per_s",
			       number_or_null((double)res->sent.bytes_read / seconds, timed));
	json_object_object_add(o, "files_per_s",
			       number_or_null((double)res->sent.files / seconds, timed));
	json_object_object_add(o, "dest_fs", text_or_null(res->dest_fs));
	json_object_object_add(o, "error", text_or_null(res->error));
	report_cost_json(r, res, o);
	json_object_object_add(o, "socket_buffers", report_sockbuf_json(r, res));
	json_object_object_add(o, "started_at", text_or_null(res->started_at));
	json_object_object_add(o, "forecast", forecast_json(res));
	/* a forecast of the whole against a sample's time is no ratio */
	json_object_object_add(o, "forecast_ratio", number_or_null(res->forecast.seconds / seconds,
			       timed && res->have_forecast && !report_sample_only(r)));
	accounting_json(o, res);
	samples = json_object_new_object();
	json_object_object_add(samples, "source",
			       res->have_local ? sampler_summary_json(&res->local) : NULL);
	json_object_object_add(samples, "destination",
			       res->have_remote ? sampler_summary_json(&res->remote) : NULL);
	json_object_object_add(o, "samples", samples);
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
	json_object_object_add(doc, "host", text_or_null(r->host));
	json_object_object_add(wl, "name", json_object_new_string(r->workload_name));
	json_object_object_add(wl, "files", json_object_new_int64((int64_t)r->files));
	json_object_object_add(wl, "bytes", json_object_new_int64((int64_t)r->bytes));
	{
		const struct manifest *m = r->manifest;
		bool generated = r->spec && r->spec->kind != WORKLOAD_DIR;

		json_object_object_add(wl, "dirs", m ? count_or_null(m->ndirs, true) : NULL);
		json_object_object_add(wl, "symlinks", m ? count_or_null(m->nsymlinks, true) : NULL);
		json_object_object_add(wl, "hardlinks", m ? count_or_null(m->nhardlinks, true) : NULL);
		json_object_object_add(wl, "special_left_out",
				       m ? count_or_null(m->nspecials, true) : NULL);
		json_object_object_add(wl, "special_left_out_paths", m ? special_paths(m) : NULL);
		/* a directory given (dir:PATH) has no seed nor compressibility */
		json_object_object_add(wl, "seed", generated ? count_or_null(r->spec->seed, true) : NULL);
		json_object_object_add(wl, "compressibility",
				       generated ? json_object_new_double(r->spec->compressibility) : NULL);
	}
	json_object_object_add(doc, "workload", wl);
	json_object_object_add(doc, "repeat", json_object_new_int((int)r->repeat));
	json_object_object_add(doc, "cold_source", json_object_new_boolean(!r->warm));
	/* -P: what parallel and the real parallel tools ran with, and whether auto chose it */
	json_object_object_add(doc, "streams", r->streams ? json_object_new_int((int)r->streams) : NULL);
	json_object_object_add(doc, "streams_auto", json_object_new_boolean(r->streams_auto));
	json_object_object_add(doc, "streams_reason",
			       r->streams_why && r->streams_why[0] ? json_object_new_string(r->streams_why) : NULL);
	json_object_object_add(doc, "agent_via_ssh", json_object_new_boolean(r->agent_via_ssh));
	/* null: no agent (a local run, --no-agent strategies only), no probes (--no-probes) */
	json_object_object_add(doc, "agent", r->agent_info ? json_object_get(r->agent_info) : NULL);
	json_object_object_add(doc, "environment",
			       r->environment ? json_object_get(r->environment) : NULL);
	json_object_object_add(doc, "ceilings", r->probes ? probe_results_json(r->probes) : NULL);
	json_object_object_add(doc, "xfercmp_version", json_object_new_string(XFERCMP_VERSION));
	json_object_object_add(doc, "started_at",
			       r->started_at && r->started_at[0] ? json_object_new_string(r->started_at) : NULL);
	json_object_object_add(doc, "command", command_json(r));
	json_object_object_add(doc, "partial", json_object_new_boolean(r->partial));
	json_object_object_add(doc, "peak_rss", report_peak_rss_json(r));
	json_object_object_add(doc, "fastest", fastest_json(r));
	json_object_object_add(doc, "recommendation", text_or_null(r->recommendation));
	json_object_object_add(doc, "compression_hint", text_or_null(r->compression_hint));
	for (size_t i = 0; i < r->nresults; i++) {
		json_object *one = result_json(r, &r->results[i]);

		report_explain_json(r->explain, &r->results[i], one);
		report_sample_result_json(r, i, one);
		json_object_array_add(results, one);
	}
	json_object_object_add(doc, "results", results);
	report_sample_json(r, doc);
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
