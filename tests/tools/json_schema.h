#ifndef XFERCMP_TESTS_JSON_SCHEMA_H
#define XFERCMP_TESTS_JSON_SCHEMA_H

/*
 * A validator of the JSON Schema subset docs/report.schema.json uses (no
 * validator package is in Debian 12 offline): type (a name or an array of
 * names), properties, required, items, enum, minimum, additionalProperties
 * (false or a schema), $ref to "#/$defs/NAME", and the annotations $schema,
 * $id, $comment, title, description, $defs. Any other keyword is an error in
 * the schema, so a schema never relies on a rule this validator skips.
 */

#include <json-c/json.h>
#include <stddef.h>

/*
 * Validates doc against schema (the root, which holds $defs). Returns the
 * number of places doc breaks a rule (0: valid), their messages in errs
 * ("/results/0/seconds: is a string, want number or null", one a line, as
 * many as fit in len); -1 when the schema itself is wrong (message in errs).
 */
int json_schema_validate(json_object *schema, json_object *doc, char *errs, size_t len);

#endif
