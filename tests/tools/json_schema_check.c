/*
 * json_schema_check SCHEMA DOC...: validates each DOC (a JSON file) against
 * SCHEMA with the subset validator of json_schema.h. Prints "DOC: valid" or
 * each place it breaks a rule; exit 0 all valid, 1 one is not, 2 a file
 * cannot be read or the schema is wrong.
 */
#include "json_schema.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	static char errs[16384];
	json_object *schema;
	int rc = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: json_schema_check SCHEMA.json DOC.json...\n");
		return 2;
	}
	if (!(schema = json_object_from_file(argv[1]))) {
		fprintf(stderr, "json_schema_check: cannot read '%s': %s\n", argv[1],
			json_util_get_last_err());
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		json_object *doc = json_object_from_file(argv[i]);
		int n;

		if (!doc) {
			fprintf(stderr, "json_schema_check: cannot read '%s': %s\n", argv[i],
				json_util_get_last_err());
			rc = 2;
			continue;
		}
		n = json_schema_validate(schema, doc, errs, sizeof(errs));
		if (n < 0) {
			fprintf(stderr, "json_schema_check: %s: %s\n", argv[1], errs);
			json_object_put(doc);
			json_object_put(schema);
			return 2;
		}
		if (n == 0)
			printf("%s: valid\n", argv[i]);
		else {
			printf("%s: %d error%s\n%s", argv[i], n, n == 1 ? "" : "s", errs);
			if (rc == 0)
				rc = 1;
		}
		json_object_put(doc);
	}
	json_object_put(schema);
	return rc;
}
