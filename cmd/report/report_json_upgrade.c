/*
 * Reading an older report as schema 3, for the readers (xfercmp diff).
 * Schema 1 to 2: the rates renamed by their unit and scaled to it, and the 0
 * or "" that stood for "not measured" made null. Schema 2 to 3: what schema
 * 2 called a prediction was computed from the run it was compared with, so
 * it is dropped, not read as a forecast (docs/MODEL.md); the forecast's and
 * the accounting's new fields are null. docs/JSON.md's "Schema 1" lists the renames.
 */
#include "report/report.h"

#include "err.h"

#include <string.h>

/* A field of schema 1 and its schema-2 name; its value times scale. */
struct rename {
	const char *old_key, *new_key;
	double scale;
};

static const struct rename ceiling_renames[] = {
	/* schema 1 held the network's bytes per second under "bps" */
	{ "network_bps_1", "network_1_stream_bits_per_s", 8 },
	{ "network_bps_n", "network_n_streams_bits_per_s", 8 },
	{ "rtt_p50_s", "rtt_p50_seconds", 1 },
	{ "rtt_p99_s", "rtt_p99_seconds", 1 },
	{ "disk_write_bps", "disk_write_bytes_per_s", 1 },
	{ "create_per_s", "create_files_per_s", 1 },
	{ "disk_read_bps", "disk_read_bytes_per_s", 1 },
	{ "source_open_per_s", "source_open_files_per_s", 1 },
	{ "zstd_bps", "zstd_bytes_per_s", 1 },
	{ "ssh_bps", "ssh_bytes_per_s", 1 },
	{ "sftp_rtt_s", "sftp_rtt_seconds", 1 },
};

static const struct rename disk_renames[] = {
	{ "read_mb_s", "read_bytes_per_s", 1e6 },
	{ "write_mb_s", "write_bytes_per_s", 1e6 },
};

static const struct rename net_renames[] = {
	{ "rx_gbit_s", "rx_bits_per_s", 1e9 },
	{ "tx_gbit_s", "tx_bits_per_s", 1e9 },
	{ "gbit_s", "bits_per_s", 1e9 },
};

static const struct rename series_renames[] = {
	{ "net_bytes_s", "net_bytes_per_s", 1 },
};

static const struct rename what_if_renames[] = {
	{ "rtt_s", "rtt_seconds", 1 },
};

#define NRENAMES(t) (sizeof(t) / sizeof((t)[0]))

static bool is_number(json_object *v)
{
	return json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int);
}

/* v scaled; an array of numbers element by element (the series); anything else as it is. */
static json_object *scaled(json_object *v, double scale)
{
	if (scale == 1 || !v)
		return json_object_get(v);
	if (is_number(v))
		return json_object_new_double(json_object_get_double(v) * scale);
	if (json_object_is_type(v, json_type_array)) {
		json_object *a = json_object_new_array();

		for (size_t i = 0; i < json_object_array_length(v); i++)
			json_object_array_add(a, scaled(json_object_array_get_idx(v, i), scale));
		return a;
	}
	return json_object_get(v);
}

static void rename_fields(json_object *o, const struct rename *t, size_t n)
{
	if (!o || !json_object_is_type(o, json_type_object))
		return;
	for (size_t i = 0; i < n; i++) {
		json_object *v;

		if (!json_object_object_get_ex(o, t[i].old_key, &v))
			continue;
		json_object_object_add(o, t[i].new_key, scaled(v, t[i].scale));
		json_object_object_del(o, t[i].old_key);
	}
}

/* A member that schema 1 wrote as 0 or "" when not measured: null. */
static void null_if_unmeasured(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !v)
		return;
	if ((is_number(v) && !(json_object_get_double(v) > 0)) ||
	    (json_object_is_type(v, json_type_string) && !json_object_get_string(v)[0]))
		json_object_object_add(o, key, NULL);
}

static json_object *member(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

static void upgrade_depths(json_object *ceilings, const char *key, const char *unit_key)
{
	json_object *a = member(ceilings, key);

	if (!a || !json_object_is_type(a, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		const struct rename r = { "per_s", unit_key, 1 };

		rename_fields(json_object_array_get_idx(a, i), &r, 1);
	}
}

static void upgrade_ceilings(json_object *c)
{
	if (!c || !json_object_is_type(c, json_type_object))
		return;
	rename_fields(c, ceiling_renames, NRENAMES(ceiling_renames));
	for (size_t i = 0; i < NRENAMES(ceiling_renames); i++)
		null_if_unmeasured(c, ceiling_renames[i].new_key);
	null_if_unmeasured(c, "zstd_ratio");
	null_if_unmeasured(c, "network_streams");
	null_if_unmeasured(c, "disk_write_bytes");
	null_if_unmeasured(c, "ssh_cipher");
	null_if_unmeasured(c, "dest_fs");
	null_if_unmeasured(c, "network_peer");
	null_if_unmeasured(c, "network_interface");
	upgrade_depths(c, "create_at", "files_per_s");
	upgrade_depths(c, "open_at", "files_per_s");
	upgrade_depths(c, "read_at", "bytes_per_s");
}

static void upgrade_samples(json_object *s)
{
	if (!s || !json_object_is_type(s, json_type_object))
		return;
	rename_fields(member(s, "disk"), disk_renames, NRENAMES(disk_renames));
	rename_fields(member(s, "net"), net_renames, NRENAMES(net_renames));
	rename_fields(member(s, "series"), series_renames, NRENAMES(series_renames));
}

/* Adds what schema 2 always has and schema 1 left out when absent: each as null. */
static void add_null_if_missing(json_object *o, const char *key)
{
	if (!json_object_object_get_ex(o, key, NULL))
		json_object_object_add(o, key, NULL);
}

static void upgrade_result(json_object *r)
{
	static const char *const attribution_keys[] = {
		"shares", "need_seconds", "verdict", "reason", "predicted_seconds",
		"predicted_ratio", "predicted_bound", "misfit", "note",
	};
	json_object *runs = member(r, "runs"), *samples = member(r, "samples");
	bool ran = runs && json_object_get_int(runs) > 0;
	double seconds = ran ? json_object_get_double(member(r, "seconds")) : 0;

	if (!json_object_is_type(r, json_type_object))
		return;
	if (!ran) {
		/* schema 1 wrote a strategy without a run as 0 seconds, 0 bytes */
		static const char *const timed[] = {
			"seconds", "phases", "min_seconds", "max_seconds", "mean_seconds",
			"bytes", "wire_bytes", "files", "round_trips",
		};

		for (size_t i = 0; i < sizeof(timed) / sizeof(timed[0]); i++)
			json_object_object_add(r, timed[i], NULL);
	}
	json_object_object_add(r, "bytes_per_s", ran && seconds > 0 ?
			       json_object_new_double(json_object_get_double(member(r, "bytes")) /
						      seconds) : NULL);
	json_object_object_add(r, "files_per_s", ran && seconds > 0 ?
			       json_object_new_double(json_object_get_double(member(r, "files")) /
						      seconds) : NULL);
	null_if_unmeasured(r, "dest_fs");
	null_if_unmeasured(r, "predicted_ratio");
	for (size_t i = 0; i < sizeof(attribution_keys) / sizeof(attribution_keys[0]); i++)
		add_null_if_missing(r, attribution_keys[i]);
	if (!samples) {
		samples = json_object_new_object();
		json_object_object_add(r, "samples", samples);
	}
	add_null_if_missing(samples, "source");
	add_null_if_missing(samples, "destination");
	upgrade_samples(member(samples, "source"));
	upgrade_samples(member(samples, "destination"));
}

/* Schema 1 to 2. */
static void upgrade_1_to_2(json_object *doc)
{
	json_object *a;

	upgrade_ceilings(member(doc, "ceilings"));
	add_null_if_missing(doc, "ceilings");
	add_null_if_missing(doc, "agent");
	add_null_if_missing(doc, "environment");
	if ((a = member(doc, "results")) && json_object_is_type(a, json_type_array))
		for (size_t i = 0; i < json_object_array_length(a); i++)
			upgrade_result(json_object_array_get_idx(a, i));
	if ((a = member(doc, "what_if")) && json_object_is_type(a, json_type_array))
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			json_object *w = json_object_array_get_idx(a, i);

			rename_fields(w, what_if_renames, NRENAMES(what_if_renames));
			null_if_unmeasured(w, "rtt_seconds");
			null_if_unmeasured(w, "rate_bits_per_s");
		}
}

/* Schema 2 to 3: the in-sample prediction dropped, the forecast's and accounting's fields null. */
static void upgrade_2_to_3(json_object *doc)
{
	static const char *const dropped[] = {
		"predicted_seconds", "predicted_ratio", "predicted_bound", "misfit",
		"prediction_fitted", "create_rechecked_files_per_s",
	};
	static const char *const added[] = {
		"started_at", "forecast", "forecast_ratio", "loads", "close_behind", "understated",
	};
	json_object *a;

	if ((a = member(doc, "results")) && json_object_is_type(a, json_type_array))
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			json_object *r = json_object_array_get_idx(a, i);

			if (!json_object_is_type(r, json_type_object))
				continue;
			for (size_t k = 0; k < NRENAMES(dropped); k++)
				json_object_object_del(r, dropped[k]);
			for (size_t k = 0; k < NRENAMES(added); k++)
				add_null_if_missing(r, added[k]);
		}
	if ((a = member(doc, "what_if")) && json_object_is_type(a, json_type_array))
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			json_object *w = json_object_array_get_idx(a, i);

			if (!json_object_is_type(w, json_type_object))
				continue;
			json_object_object_del(w, "predicted");
			add_null_if_missing(w, "label");
			if (!member(w, "forecasts"))
				json_object_object_add(w, "forecasts", json_object_new_object());
		}
}

int report_json_upgrade(json_object *doc, const char *path)
{
	json_object *schema = member(doc, "schema");
	int version;

	if (!schema || !json_object_is_type(schema, json_type_int))
		return err_set("'%s' has no \"schema\" number: not an xfercmp --json report", path);
	version = json_object_get_int(schema);
	if (version == REPORT_SCHEMA)
		return 0;
	if (version < 1 || version > REPORT_SCHEMA)
		return err_set("'%s' is schema %d; this xfercmp reads schemas 1 to %d (a newer "
			       "xfercmp wrote it?)", path, version, REPORT_SCHEMA);
	if (version == 1)
		upgrade_1_to_2(doc);
	upgrade_2_to_3(doc);
	json_object_object_add(doc, "schema", json_object_new_int(REPORT_SCHEMA));
	return 0;
}
