/*
 * libFuzzer target: manifest_parse (workloads/manifest.h), which the agent
 * runs on every manifest a client sends. A manifest it accepts must be one
 * tree (manifest_check holds), with no path leaving the root, and its text
 * written again must parse to the same counts and write the same bytes: what
 * the agent verifies is what the client meant.
 */
#include "err.h"
#include "manifest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void violation(const char *what)
{
	fprintf(stderr, "INVARIANT VIOLATED: %s\n", what);
	abort();
}

static int leaves_root(const char *p)
{
	size_t n = strlen(p);

	return p[0] == '/' || !strcmp(p, "..") || !strncmp(p, "../", 3) || strstr(p, "/../") ||
	       (n >= 3 && !strcmp(p + n - 3, "/.."));
}

static void check_paths(const struct manifest *m)
{
	for (size_t i = 0; i < m->count; i++)
		if (leaves_root(m->entries[i].path))
			violation("a file path leaves the root");
	for (size_t i = 0; i < m->ndirs; i++)
		if (leaves_root(m->dirs[i].path))
			violation("a directory path leaves the root");
	for (size_t i = 0; i < m->nsymlinks; i++)
		if (leaves_root(m->symlinks[i].path) || !m->symlinks[i].target[0])
			violation("a symbolic link's path leaves the root, or its target is empty");
	for (size_t i = 0; i < m->nhardlinks; i++)
		if (leaves_root(m->hardlinks[i].path) || !manifest_find(m, m->hardlinks[i].primary))
			violation("a hard link leaves the root or names no file of the manifest");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct manifest m, again;
	char *text = NULL, *text2 = NULL;
	size_t len = 0, len2 = 0;

	if (manifest_parse(&m, (const char *)data, size) < 0) {
		if (!err_msg()[0])
			violation("rejected without an error message");
		return 0;
	}
	if (manifest_check(&m) < 0)
		violation("an accepted manifest is not one tree");
	check_paths(&m);
	if (manifest_to_buffer(&m, &text, &len) < 0)
		violation("an accepted manifest cannot be written");
	if (manifest_parse(&again, text, len) < 0)
		violation("a written manifest does not parse");
	if (again.count != m.count || again.ndirs != m.ndirs || again.nsymlinks != m.nsymlinks ||
	    again.nhardlinks != m.nhardlinks || again.nspecials != m.nspecials ||
	    again.total_bytes != m.total_bytes)
		violation("a written manifest parses to other counts");
	if (manifest_to_buffer(&again, &text2, &len2) < 0 || len2 != len || memcmp(text, text2, len))
		violation("a written manifest, parsed and written again, changed");
	free(text);
	free(text2);
	manifest_release(&again);
	manifest_release(&m);
	return 0;
}
