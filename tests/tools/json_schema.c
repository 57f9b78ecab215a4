/* The JSON Schema subset validator (json_schema.h): one recursive walk. */
#include "json_schema.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* $ref chains deeper than this are a loop in the schema (ours nest 4 deep). */
#define MAX_DEPTH 64

struct walk {
	json_object *root;
	char *errs;
	size_t len, used;
	int nerrors;
	bool bad_schema;
};

static void report(struct walk *w, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void report(struct walk *w, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n;

	w->nerrors++;
	if (w->used + 1 >= w->len)
		return;
	n = snprintf(w->errs + w->used, w->len - w->used, "%s: ", path[0] ? path : "/");
	if (n > 0 && (size_t)n < w->len - w->used)
		w->used += (size_t)n;
	va_start(ap, fmt);
	n = vsnprintf(w->errs + w->used, w->len - w->used, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < w->len - w->used)
		w->used += (size_t)n;
	if (w->used + 1 < w->len) {
		w->errs[w->used++] = '\n';
		w->errs[w->used] = '\0';
	}
}

static void schema_error(struct walk *w, const char *path, const char *what)
{
	if (!w->bad_schema)
		snprintf(w->errs, w->len, "the schema is wrong at %s: %s", path[0] ? path : "/", what);
	w->bad_schema = true;
}

static const char *type_of(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a number";
	case json_type_int: return "an integer";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "?";
}

/* Whether v is of the JSON Schema type name; -1 for a name that is none. */
static int has_type(json_object *v, const char *name)
{
	enum json_type t = json_object_get_type(v);

	if (!strcmp(name, "null"))
		return t == json_type_null;
	if (!strcmp(name, "boolean"))
		return t == json_type_boolean;
	if (!strcmp(name, "object"))
		return t == json_type_object;
	if (!strcmp(name, "array"))
		return t == json_type_array;
	if (!strcmp(name, "string"))
		return t == json_type_string;
	if (!strcmp(name, "number"))
		return t == json_type_int || t == json_type_double;
	if (!strcmp(name, "integer")) {
		/* 2.0 is an integer to JSON Schema */
		double d = json_object_get_double(v);

		return t == json_type_int || (t == json_type_double && isfinite(d) && d == floor(d));
	}
	return -1;
}

static void check(struct walk *w, json_object *schema, json_object *v, const char *path, int depth);

static void check_type(struct walk *w, json_object *type, json_object *v, const char *path)
{
	char want[128] = "";
	size_t n = json_object_is_type(type, json_type_array) ? json_object_array_length(type) : 1;

	if (!json_object_is_type(type, json_type_string) && !json_object_is_type(type, json_type_array))
		return schema_error(w, path, "\"type\" is neither a name nor an array of names");
	for (size_t i = 0; i < n; i++) {
		json_object *t = json_object_is_type(type, json_type_array) ?
				 json_object_array_get_idx(type, i) : type;
		int is;

		if (!json_object_is_type(t, json_type_string))
			return schema_error(w, path, "a \"type\" entry is not a string");
		if ((is = has_type(v, json_object_get_string(t))) < 0)
			return schema_error(w, path, "unknown \"type\" name");
		if (is)
			return;
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s", i ? " or " : "",
			 json_object_get_string(t));
	}
	report(w, path, "is %s, want %s", type_of(v), want);
}

/* JSON equality, numbers by value (2 and 2.0 are one number; json_object_equal tells them apart) */
static bool same_value(json_object *a, json_object *b)
{
	if (has_type(a, "number") == 1 && has_type(b, "number") == 1)
		return json_object_get_double(a) == json_object_get_double(b);
	return json_object_equal(a, b);
}

static void check_enum(struct walk *w, json_object *list, json_object *v, const char *path)
{
	if (!json_object_is_type(list, json_type_array))
		return schema_error(w, path, "\"enum\" is not an array");
	for (size_t i = 0; i < json_object_array_length(list); i++)
		if (same_value(json_object_array_get_idx(list, i), v))
			return;
	report(w, path, "%s is not one of %s", v ? json_object_to_json_string(v) : "null",
	       json_object_to_json_string_ext(list, JSON_C_TO_STRING_PLAIN));
}

static void check_object(struct walk *w, json_object *schema, json_object *v, const char *path,
			 int depth)
{
	json_object *props = NULL, *required = NULL, *additional = NULL;
	char sub[1024];

	json_object_object_get_ex(schema, "properties", &props);
	json_object_object_get_ex(schema, "required", &required);
	json_object_object_get_ex(schema, "additionalProperties", &additional);
	if (props && !json_object_is_type(props, json_type_object))
		return schema_error(w, path, "\"properties\" is not an object");
	if (required && !json_object_is_type(required, json_type_array))
		return schema_error(w, path, "\"required\" is not an array");
	for (size_t i = 0; required && i < json_object_array_length(required); i++) {
		json_object *name = json_object_array_get_idx(required, i);

		if (!json_object_is_type(name, json_type_string))
			return schema_error(w, path, "a \"required\" entry is not a string");
		if (!json_object_object_get_ex(v, json_object_get_string(name), NULL))
			report(w, path, "\"%s\" is missing (required)", json_object_get_string(name));
	}
	json_object_object_foreach(v, key, member) {
		json_object *sub_schema = NULL;

		snprintf(sub, sizeof(sub), "%s/%s", path, key);
		if (props && json_object_object_get_ex(props, key, &sub_schema))
			check(w, sub_schema, member, sub, depth + 1);
		else if (additional && json_object_is_type(additional, json_type_boolean) &&
			 !json_object_get_boolean(additional))
			report(w, path, "\"%s\" is not a member this object may have", key);
		else if (additional)
			check(w, additional, member, sub, depth + 1);
	}
}

static void check_array(struct walk *w, json_object *items, json_object *v, const char *path,
			int depth)
{
	char sub[1024];

	for (size_t i = 0; i < json_object_array_length(v); i++) {
		snprintf(sub, sizeof(sub), "%s/%zu", path, i);
		check(w, items, json_object_array_get_idx(v, i), sub, depth + 1);
	}
}

static void check_ref(struct walk *w, json_object *ref, json_object *v, const char *path, int depth)
{
	static const char prefix[] = "#/$defs/";
	json_object *defs, *target;
	const char *s = json_object_get_string(ref);

	if (!json_object_is_type(ref, json_type_string) || strncmp(s, prefix, strlen(prefix)))
		return schema_error(w, path, "\"$ref\" other than \"#/$defs/NAME\"");
	if (!json_object_object_get_ex(w->root, "$defs", &defs) ||
	    !json_object_object_get_ex(defs, s + strlen(prefix), &target))
		return schema_error(w, path, "\"$ref\" to a definition that is not in $defs");
	check(w, target, v, path, depth + 1);
}

static bool known_keyword(const char *k)
{
	static const char *const known[] = {
		"$schema", "$id", "$comment", "title", "description", "$defs", "type", "properties",
		"required", "items", "enum", "minimum", "additionalProperties", "$ref",
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(k, known[i]))
			return true;
	return false;
}

static void check(struct walk *w, json_object *schema, json_object *v, const char *path, int depth)
{
	json_object *k;

	if (w->bad_schema)
		return;
	if (depth > MAX_DEPTH)
		return schema_error(w, path, "nested beyond 64 levels ($ref loop?)");
	if (json_object_is_type(schema, json_type_boolean)) {
		if (!json_object_get_boolean(schema))
			report(w, path, "is not allowed here");
		return;
	}
	if (!json_object_is_type(schema, json_type_object))
		return schema_error(w, path, "a schema is neither an object nor a boolean");
	json_object_object_foreach(schema, key, unused) {
		(void)unused;
		if (!known_keyword(key)) {
			char what[160];

			snprintf(what, sizeof(what), "keyword \"%s\" is not in the subset validated", key);
			return schema_error(w, path, what);
		}
	}
	if (json_object_object_get_ex(schema, "$ref", &k))
		check_ref(w, k, v, path, depth);
	if (json_object_object_get_ex(schema, "type", &k))
		check_type(w, k, v, path);
	if (json_object_object_get_ex(schema, "enum", &k))
		check_enum(w, k, v, path);
	if (json_object_object_get_ex(schema, "minimum", &k)) {
		if (has_type(k, "number") != 1)
			return schema_error(w, path, "\"minimum\" is not a number");
		if (has_type(v, "number") == 1 && json_object_get_double(v) < json_object_get_double(k))
			report(w, path, "%g is below the minimum %g", json_object_get_double(v),
			       json_object_get_double(k));
	}
	if (json_object_is_type(v, json_type_object))
		check_object(w, schema, v, path, depth);
	if (json_object_is_type(v, json_type_array) && json_object_object_get_ex(schema, "items", &k))
		check_array(w, k, v, path, depth);
}

int json_schema_validate(json_object *schema, json_object *doc, char *errs, size_t len)
{
	struct walk w = { .root = schema, .errs = errs, .len = len };

	if (len)
		errs[0] = '\0';
	check(&w, schema, doc, "", 0);
	return w.bad_schema ? -1 : w.nerrors;
}
