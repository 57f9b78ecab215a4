/*
 * The JSON Schema subset validator (tests/tools/json_schema.c) that
 * json_schema.t trusts: it must reject what breaks each rule, not only
 * accept what keeps them.
 */
#include "testutil.h"
#include "../../tools/json_schema.h"

static const char schema_text[] =
	"{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\","
	" \"type\": \"object\","
	" \"required\": [\"schema\", \"status\", \"seconds\", \"results\"],"
	" \"properties\": {"
	"  \"schema\": {\"type\": \"integer\", \"enum\": [2]},"
	"  \"status\": {\"enum\": [\"ok\", \"failed\", \"skipped\"]},"
	"  \"seconds\": {\"type\": [\"number\", \"null\"], \"minimum\": 0},"
	"  \"results\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/$defs/result\"}},"
	"  \"closed\": {\"type\": \"object\", \"additionalProperties\": false,"
	"             \"properties\": {\"a\": {\"type\": \"boolean\"}}},"
	"  \"rates\": {\"type\": \"object\", \"additionalProperties\": {\"type\": \"number\"}}},"
	" \"$defs\": {\"result\": {\"type\": \"object\", \"required\": [\"strategy\"],"
	"   \"properties\": {\"strategy\": {\"type\": \"string\"}}}}}";

static const char valid_text[] =
	"{\"schema\": 2, \"status\": \"ok\", \"seconds\": null, \"extra\": [1, \"open\"],"
	" \"results\": [{\"strategy\": \"splice\", \"more\": 1}],"
	" \"closed\": {\"a\": true}, \"rates\": {\"x\": 1.5, \"y\": 2}}";

struct fixture {
	json_object *schema;
	char errs[4096];
};

static int setup(void **state)
{
	static struct fixture f;

	f.schema = json_tokener_parse(schema_text);
	assert_non_null(f.schema);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	json_object_put(f->schema);
	return 0;
}

/* The number of errors doc_text gives; f->errs holds their messages. */
static int validate(struct fixture *f, const char *doc_text)
{
	json_object *doc = json_tokener_parse(doc_text);
	int n;

	assert_non_null(doc);
	n = json_schema_validate(f->schema, doc, f->errs, sizeof(f->errs));
	json_object_put(doc);
	return n;
}

/* valid_text with one member replaced: key's value becomes value (NULL: key removed). */
static int validate_changed(struct fixture *f, const char *key, const char *value)
{
	json_object *doc = json_tokener_parse(valid_text);
	int n;

	if (value)
		json_object_object_add(doc, key, json_tokener_parse(value));
	else
		json_object_object_del(doc, key);
	n = json_schema_validate(f->schema, doc, f->errs, sizeof(f->errs));
	json_object_put(doc);
	return n;
}

static void test_accepts_valid(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(validate(f, valid_text), 0);
	assert_string_equal(f->errs, "");
	/* a number where null is allowed, and 2.0 as an integer */
	assert_int_equal(validate_changed(f, "seconds", "4.25"), 0);
	assert_int_equal(validate_changed(f, "schema", "2.0"), 0);
}

static void test_rejects_wrong_types(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(validate_changed(f, "seconds", "\"4.2\""), 1);
	assert_contains(f->errs, "/seconds: is a string, want number or null");
	assert_int_equal(validate_changed(f, "results", "{}"), 1);
	assert_contains(f->errs, "/results: is an object, want array");
	/* inside an array, through $ref */
	assert_int_equal(validate_changed(f, "results", "[{\"strategy\": 7}]"), 1);
	assert_contains(f->errs, "/results/0/strategy: is an integer, want string");
	assert_int_equal(validate_changed(f, "schema", "2.5"), 2);	/* not an integer, not 2 */
	assert_contains(f->errs, "/schema: is a number, want integer");
	assert_int_equal(validate_changed(f, "rates", "{\"x\": \"fast\"}"), 1);
	assert_contains(f->errs, "/rates/x: is a string, want number");
	assert_int_equal(validate(f, "[1]"), 1);
	assert_contains(f->errs, "/: is an array, want object");
}

static void test_rejects_missing_required(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(validate_changed(f, "seconds", NULL), 1);
	assert_contains(f->errs, "/: \"seconds\" is missing (required)");
	assert_int_equal(validate_changed(f, "results", "[{\"strategy\": \"a\"}, {}]"), 1);
	assert_contains(f->errs, "/results/1: \"strategy\" is missing (required)");
	/* present as null is present */
	assert_int_equal(validate_changed(f, "seconds", "null"), 0);
}

static void test_rejects_bad_enum_and_minimum(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(validate_changed(f, "status", "\"OK\""), 1);
	assert_contains(f->errs, "/status: \"OK\" is not one of [\"ok\",\"failed\",\"skipped\"]");
	assert_int_equal(validate_changed(f, "schema", "1"), 1);
	assert_contains(f->errs, "/schema: 1 is not one of [2]");
	assert_int_equal(validate_changed(f, "seconds", "-0.5"), 1);
	assert_contains(f->errs, "/seconds: -0.5 is below the minimum 0");
}

static void test_rejects_additional_when_closed(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(validate_changed(f, "closed", "{\"a\": false, \"b\": 1}"), 1);
	assert_contains(f->errs, "/closed: \"b\" is not a member this object may have");
}

static void test_counts_every_error(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(validate(f, "{\"schema\": 3, \"status\": 1, \"results\": [{}]}"), 4);
	assert_contains(f->errs, "\"seconds\" is missing");
	assert_contains(f->errs, "/schema: 3 is not one of");
	assert_contains(f->errs, "/status: 1 is not one of");
	assert_contains(f->errs, "/results/0: \"strategy\" is missing");
}

static void test_bad_schema(void **state)
{
	static const char *const bad[] = {
		"{\"type\": \"float\"}",			/* no such type */
		"{\"$ref\": \"#/$defs/none\", \"$defs\": {}}",	/* a definition not there */
		"{\"$ref\": \"other.json#/x\"}",		/* only local $defs */
		"{\"pattern\": \"^a\"}",			/* a keyword not in the subset */
		"{\"enum\": 2}",
		"{\"$ref\": \"#/$defs/a\", \"$defs\": {\"a\": {\"$ref\": \"#/$defs/a\"}}}",
	};
	char errs[512];

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		json_object *schema = json_tokener_parse(bad[i]), *doc = json_tokener_parse("\"x\"");

		assert_non_null(schema);
		if (json_schema_validate(schema, doc, errs, sizeof(errs)) != -1)
			fail_msg("schema %s was taken as valid", bad[i]);
		assert_contains(errs, "the schema is wrong");
		json_object_put(schema);
		json_object_put(doc);
	}
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepts_valid),
		cmocka_unit_test(test_rejects_wrong_types),
		cmocka_unit_test(test_rejects_missing_required),
		cmocka_unit_test(test_rejects_bad_enum_and_minimum),
		cmocka_unit_test(test_rejects_additional_when_closed),
		cmocka_unit_test(test_counts_every_error),
		cmocka_unit_test(test_bad_schema),
	};

	return cmocka_run_group_tests_name("json_schema", tests, setup, teardown);
}
