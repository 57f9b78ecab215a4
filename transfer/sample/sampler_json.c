/*
 * A window summary (sampler.h) as JSON and back: the agent sends its own
 * summary this way, and the reports write it. Every double and counter
 * comes back exactly.
 */
#include "sample/sampler.h"

#include "err.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * The summary's JSON is driven by one table, read by both the encoder and
 * the decoder: a field is one line in its section, its JSON type taken from
 * the member's C type. Sections appear in this order; an optional one is
 * null in the JSON when its has_ flag is 0.
 */
enum field_type {
	FIELD_DOUBLE,
	FIELD_U64,
	FIELD_UNSIGNED,
	FIELD_NAME,	/* a char array holding a string */
};

struct field {
	const char *key;
	enum field_type type;
	size_t offset, size;
};

#define MEMBER(m) (((struct sampler_summary *)0)->m)
#define FIELD(key, m)                                                                     \
	{ key,                                                                            \
	  _Generic(MEMBER(m), double: FIELD_DOUBLE, uint64_t: FIELD_U64,                  \
		   unsigned: FIELD_UNSIGNED, char *: FIELD_NAME),                         \
	  offsetof(struct sampler_summary, m), sizeof(MEMBER(m)) }

static const struct field top_fields[] = {
	FIELD("seconds", seconds),
	FIELD("samples", samples),
};

static const struct field cpu_fields[] = {
	FIELD("cpus", cpus),
	FIELD("user", cpu_user),
	FIELD("system", cpu_system),
	FIELD("iowait", cpu_iowait),
	FIELD("softirq", cpu_softirq),
	FIELD("steal", cpu_steal),
	FIELD("idle", cpu_idle),
	FIELD("busy", cpu_busy),
};

static const struct field process_fields[] = {
	FIELD("cpu_seconds", proc_cpu_s),
	FIELD("cores", proc_cores),
	FIELD("sampler_cpu_seconds", sampler_cpu_s),
};

static const struct field disk_fields[] = {
	FIELD("device", disk_dev),
	FIELD("read_bytes", disk_read_bytes),
	FIELD("write_bytes", disk_write_bytes),
	FIELD("busy", disk_busy),
	FIELD("read_bytes_per_s", disk_read_bytes_per_s),
	FIELD("write_bytes_per_s", disk_write_bytes_per_s),
};

static const struct field net_fields[] = {
	FIELD("iface", iface),
	FIELD("rx_bytes", net_rx_bytes),
	FIELD("tx_bytes", net_tx_bytes),
	FIELD("rx_packets", net_rx_packets),
	FIELD("tx_packets", net_tx_packets),
	FIELD("rx_bits_per_s", net_rx_bits_per_s),
	FIELD("tx_bits_per_s", net_tx_bits_per_s),
	FIELD("bits_per_s", net_bits_per_s),
};

#define REQUIRED SIZE_MAX

struct section {
	const char *key;	/* NULL: the fields sit in the top-level object */
	size_t has_offset;	/* the int member saying it is present, or REQUIRED */
	const struct field *fields;
	size_t nfields;
};

#define SECTION(key, has, f) { key, has, f, sizeof(f) / sizeof((f)[0]) }

static const struct section sections[] = {
	SECTION(NULL, REQUIRED, top_fields),
	SECTION("cpu", REQUIRED, cpu_fields),
	SECTION("process", REQUIRED, process_fields),
	SECTION("disk", offsetof(struct sampler_summary, has_disk), disk_fields),
	SECTION("net", offsetof(struct sampler_summary, has_net), net_fields),
};

/* The series: one array a member of struct sampler_point, all doubles. */
static const struct {
	const char *key;
	size_t offset;
} point_fields[] = {
	{ "t", offsetof(struct sampler_point, t) },
	{ "cpu_busy", offsetof(struct sampler_point, cpu_busy) },
	{ "disk_busy", offsetof(struct sampler_point, disk_busy) },
	{ "net_bytes_per_s", offsetof(struct sampler_point, net_bytes_s) },
};

#define NPOINT_FIELDS (sizeof(point_fields) / sizeof(point_fields[0]))

static json_object *new_double(double v)
{
	return json_object_new_double(isfinite(v) ? v : 0);
}

static void add_field(json_object *o, const struct field *f, const struct sampler_summary *sum)
{
	const char *p = (const char *)sum + f->offset;
	json_object *v = NULL;

	switch (f->type) {
	case FIELD_DOUBLE:
		v = new_double(*(const double *)p);
		break;
	case FIELD_U64:
		v = json_object_new_uint64(*(const uint64_t *)p);
		break;
	case FIELD_UNSIGNED:
		v = json_object_new_uint64(*(const unsigned *)p);
		break;
	case FIELD_NAME:
		v = json_object_new_string(p);
		break;
	}
	json_object_object_add(o, f->key, v);
}

static json_object *series_json(const struct sampler_summary *sum)
{
	json_object *o = json_object_new_object();
	json_object *cols[NPOINT_FIELDS];

	for (size_t k = 0; k < NPOINT_FIELDS; k++)
		cols[k] = json_object_new_array_ext((int)sum->npoints);
	for (unsigned i = 0; i < sum->npoints && i < SAMPLER_SERIES_MAX; i++) {
		const char *p = (const char *)&sum->series[i];

		for (size_t k = 0; k < NPOINT_FIELDS; k++)
			json_object_array_add(cols[k],
					      new_double(*(const double *)(p + point_fields[k].offset)));
	}
	for (size_t k = 0; k < NPOINT_FIELDS; k++)
		json_object_object_add(o, point_fields[k].key, cols[k]);
	return o;
}

static json_object *procs_json(const struct sampler_summary *sum)
{
	json_object *a = json_object_new_array();

	for (unsigned i = 0; i < sum->nprocs && i < SAMPLER_PROCS_MAX; i++) {
		json_object *p = json_object_new_object();

		json_object_object_add(p, "name", json_object_new_string(sum->procs[i].name));
		json_object_object_add(p, "cpu_seconds", new_double(sum->procs[i].cpu_s));
		json_object_object_add(p, "threads", json_object_new_uint64(sum->procs[i].threads));
		json_object_array_add(a, p);
	}
	return a;
}

json_object *sampler_summary_json(const struct sampler_summary *sum)
{
	json_object *o = json_object_new_object();

	for (size_t s = 0; s < sizeof(sections) / sizeof(sections[0]); s++) {
		const struct section *sec = &sections[s];
		json_object *dst = o;

		if (sec->has_offset != REQUIRED &&
		    !*(const int *)((const char *)sum + sec->has_offset)) {
			json_object_object_add(o, sec->key, NULL);
			continue;
		}
		if (sec->key)
			dst = json_object_new_object();
		for (size_t i = 0; i < sec->nfields; i++)
			add_field(dst, &sec->fields[i], sum);
		if (sec->key)
			json_object_object_add(o, sec->key, dst);
	}
	json_object_object_add(o, "series", series_json(sum));
	json_object_object_add(o, "processes", procs_json(sum));
	json_object_object_add(o, "processes_cpu_seconds", new_double(sum->procs_cpu_s));
	json_object_object_add(o, "boot_id", json_object_new_string(sum->boot_id));
	json_object_object_add(o, "busiest_thread_cpu_seconds",
			       sum->busiest_thread_cpu_s >= 0 ? new_double(sum->busiest_thread_cpu_s) : NULL);
	json_object_object_add(o, "busiest_thread_run_delay_seconds",
			       sum->busiest_thread_run_delay_s >= 0 ? new_double(sum->busiest_thread_run_delay_s)
								    : NULL);
	json_object_object_add(o, "threads_run_delay_seconds",
			       sum->threads_run_delay_s >= 0 ? new_double(sum->threads_run_delay_s) : NULL);
	return o;
}

static int get_field(json_object *o, const char *key, json_type want, json_object **v)
{
	if (!json_object_object_get_ex(o, key, v) || !*v)
		return err_set("sampler summary: missing '%s'", key);
	if (json_object_is_type(*v, want) ||
	    (want == json_type_double && json_object_is_type(*v, json_type_int)))
		return 0;
	return err_set("sampler summary: '%s' has the wrong type", key);
}

static int get_double(json_object *o, const char *key, double *out)
{
	json_object *v;

	if (get_field(o, key, json_type_double, &v) < 0)
		return -1;
	*out = json_object_get_double(v);
	return 0;
}

static int get_u64(json_object *o, const char *key, uint64_t *out)
{
	json_object *v;

	if (get_field(o, key, json_type_int, &v) < 0)
		return -1;
	/* a uint64 above INT64_MAX reads back as INT64_MAX here, never negative */
	if (json_object_get_int64(v) < 0)
		return err_set("sampler summary: '%s' is negative", key);
	*out = json_object_get_uint64(v);
	return 0;
}

static int get_unsigned(json_object *o, const char *key, unsigned *out)
{
	uint64_t v;

	if (get_u64(o, key, &v) < 0)
		return -1;
	if (v > UINT32_MAX)
		return err_set("sampler summary: '%s' is too large", key);
	*out = (unsigned)v;
	return 0;
}

static int get_name(json_object *o, const char *key, char *out, size_t len)
{
	json_object *v;
	const char *s;

	if (get_field(o, key, json_type_string, &v) < 0)
		return -1;
	s = json_object_get_string(v);
	if (strlen(s) >= len)
		return err_set("sampler summary: '%s' is too long", key);
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

/* Reads field f of o into out. Returns 0 or -1 (error set naming it). */
static int get_value(json_object *o, const struct field *f, struct sampler_summary *out)
{
	char *p = (char *)out + f->offset;

	switch (f->type) {
	case FIELD_DOUBLE:
		return get_double(o, f->key, (double *)p);
	case FIELD_U64:
		return get_u64(o, f->key, (uint64_t *)p);
	case FIELD_UNSIGNED:
		return get_unsigned(o, f->key, (unsigned *)p);
	case FIELD_NAME:
		return get_name(o, f->key, p, f->size);
	}
	return err_set("sampler summary: '%s' has no reader", f->key);
}

/* An optional section: 1 when present, 0 when null or missing. */
static int get_section(json_object *o, const char *key, json_object **v)
{
	if (!json_object_object_get_ex(o, key, v) || !*v)
		return 0;
	if (!json_object_is_type(*v, json_type_object))
		return err_set("sampler summary: '%s' is not an object", key);
	return 1;
}

static int series_from_json(json_object *o, struct sampler_summary *out)
{
	json_object *series, *cols[NPOINT_FIELDS];
	size_t n = 0;

	if (get_field(o, "series", json_type_object, &series) < 0)
		return -1;
	for (size_t k = 0; k < NPOINT_FIELDS; k++) {
		const char *key = point_fields[k].key;

		if (get_field(series, key, json_type_array, &cols[k]) < 0)
			return -1;
		if (k == 0)
			n = json_object_array_length(cols[0]);
		if (json_object_array_length(cols[k]) != n || n > SAMPLER_SERIES_MAX)
			return err_set("sampler summary: series '%s' has %zu points (want %zu, at most %d)",
				       key, json_object_array_length(cols[k]), n,
				       SAMPLER_SERIES_MAX);
	}
	out->npoints = (unsigned)n;
	for (size_t i = 0; i < n; i++) {
		char *p = (char *)&out->series[i];

		for (size_t k = 0; k < NPOINT_FIELDS; k++) {
			json_object *x = json_object_array_get_idx(cols[k], i);

			if (!json_object_is_type(x, json_type_double) &&
			    !json_object_is_type(x, json_type_int))
				return err_set("sampler summary: series '%s' holds a non-number",
					       point_fields[k].key);
			*(double *)(p + point_fields[k].offset) = json_object_get_double(x);
		}
	}
	return 0;
}

/* The processes, optional (an older agent sends none): only what is well formed is kept. */
static int procs_from_json(json_object *o, struct sampler_summary *out)
{
	json_object *a, *v;

	if (json_object_object_get_ex(o, "processes_cpu_seconds", &v) &&
	    (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		out->procs_cpu_s = json_object_get_double(v);
	if (json_object_object_get_ex(o, "boot_id", &v) && json_object_is_type(v, json_type_string))
		snprintf(out->boot_id, sizeof(out->boot_id), "%s", json_object_get_string(v));
	if (!json_object_object_get_ex(o, "processes", &a) || !a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return err_set("sampler summary: 'processes' is not an array");
	for (size_t i = 0; i < json_object_array_length(a) && out->nprocs < SAMPLER_PROCS_MAX; i++) {
		json_object *p = json_object_array_get_idx(a, i);
		struct sampler_proc *pr = &out->procs[out->nprocs];
		unsigned threads = 0;

		if (!json_object_is_type(p, json_type_object) ||
		    get_name(p, "name", pr->name, sizeof(pr->name)) < 0 ||
		    get_double(p, "cpu_seconds", &pr->cpu_s) < 0 ||
		    get_unsigned(p, "threads", &threads) < 0)
			return err_wrap("sampler summary: process %zu", i);
		pr->threads = threads;
		out->nprocs++;
	}
	return 0;
}

/* An optional number of seconds in o: *out, or -1 when absent or null. Returns 0 or -1 (error set). */
static int optional_seconds(json_object *o, const char *key, double *out)
{
	json_object *v;

	*out = -1;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return err_set("sampler summary: '%s' is not a number", key);
	*out = json_object_get_double(v);
	return 0;
}

int sampler_summary_from_json(json_object *o, struct sampler_summary *out)
{
	memset(out, 0, sizeof(*out));
	if (!json_object_is_type(o, json_type_object))
		return err_set("sampler summary: not a JSON object");
	for (size_t s = 0; s < sizeof(sections) / sizeof(sections[0]); s++) {
		const struct section *sec = &sections[s];
		json_object *src = o;

		if (sec->has_offset != REQUIRED) {
			int has = get_section(o, sec->key, &src);

			if (has <= 0) {
				if (has < 0)
					return -1;
				continue;
			}
		} else if (sec->key && get_field(o, sec->key, json_type_object, &src) < 0) {
			return -1;
		}
		for (size_t i = 0; i < sec->nfields; i++)
			if (get_value(src, &sec->fields[i], out) < 0)
				return -1;
		if (sec->has_offset != REQUIRED)
			*(int *)((char *)out + sec->has_offset) = 1;
	}
	if (series_from_json(o, out) < 0)
		return -1;
	/* optional: an older agent does not send them */
	if (optional_seconds(o, "busiest_thread_cpu_seconds", &out->busiest_thread_cpu_s) < 0 ||
	    optional_seconds(o, "busiest_thread_run_delay_seconds", &out->busiest_thread_run_delay_s) < 0 ||
	    optional_seconds(o, "threads_run_delay_seconds", &out->threads_run_delay_s) < 0)
		return -1;
	return procs_from_json(o, out);
}
