/* What a tree holds beyond its files, and what each strategy kept of it. */
#include "report/report.h"

#include "verify.h"

#include <string.h>

/* Appends ", N WHAT" (WHATs for N != 1) to buf when n > 0. */
static void count(char *buf, size_t len, uint64_t n, const char *one, const char *many,
		  const char *tail)
{
	size_t used = strlen(buf);

	if (n && used < len)
		snprintf(buf + used, len - used, ", %llu %s%s", (unsigned long long)n,
			 n == 1 ? one : many, tail);
}

void report_tree_shape(const struct manifest *m, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!m)
		return;
	/* a generated tree's directories say nothing the file count does not */
	if (m->nsymlinks || m->nhardlinks || m->nspecials)
		count(buf, len, m->ndirs, "directory", "directories", "");
	count(buf, len, m->nsymlinks, "symbolic link", "symbolic links", "");
	count(buf, len, m->nhardlinks, "hard link", "hard links", "");
	count(buf, len, m->nspecials, "special file", "special files", " left out");
}

void report_preserved_text(const struct strategy_result *res, char *buf, size_t len)
{
	/* for people: preserve_name()'s JSON keys, in words */
	static const char *const label[PRESERVE_KINDS] = {
		"symlinks", "hardlinks", "empty dirs", "modes", "mtimes",
	};
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < PRESERVE_KINDS && used < len; i++) {
		unsigned bit = 1u << i;
		int n;

		if (!(res->tree_present & bit))
			continue;
		n = snprintf(buf + used, len - used, "%s%s %s", used ? ", " : "",
			     label[i],
			     res->tree_kept & bit ? "yes" : "no");
		if (n < 0)
			return;
		used += (size_t)n;
	}
}

json_object *report_preserved_json(const struct strategy_result *res)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "content", json_object_new_boolean(res->content_ok));
	for (unsigned i = 0; i < PRESERVE_KINDS; i++) {
		unsigned bit = 1u << i;

		json_object_object_add(o, preserve_name(i),
				       res->tree_present & bit ?
				       json_object_new_boolean((res->tree_kept & bit) != 0) : NULL);
	}
	return o;
}
