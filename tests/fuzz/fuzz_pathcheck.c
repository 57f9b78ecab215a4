/*
 * libFuzzer target: pathcheck_relative (transfer/stream/pathcheck.h), the check on
 * every path a receiver is given. The input is the path, len bytes, no
 * terminator. An accepted path is checked again here, independently, for
 * each promise of the header; a rejected one must break at least one, so
 * the check neither lets a bad path through nor refuses a good one.
 */
#include "err.h"
#include "stream/pathcheck.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMPONENT_MAX 255

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void violation(const char *what, const uint8_t *path, size_t len)
{
	fprintf(stderr, "INVARIANT VIOLATED: %s: '%.*s' (%zu bytes)\n", what,
		(int)(len > 300 ? 300 : len), (const char *)path, len);
	abort();
}

/* What the header promises about an accepted path; NULL when it holds all. */
static const char *broken_promise(const uint8_t *p, size_t len)
{
	size_t start = 0, depth = 0;

	if (len == 0)
		return "empty path";
	if (p[0] == '/')
		return "leading '/'";
	for (size_t i = 0; i < len; i++)
		if (p[i] == '\0')
			return "NUL byte";
	for (size_t i = 0; i <= len; i++) {
		size_t n;

		if (i < len && p[i] != '/')
			continue;
		n = i - start;
		if (n == 0)
			return "empty component";
		if (n == 1 && p[start] == '.')
			return "'.' component";
		if (n == 2 && p[start] == '.' && p[start + 1] == '.')
			return "'..' component";
		if (n > COMPONENT_MAX)
			return "component longer than 255 bytes";
		depth++;
		start = i + 1;
	}
	if (depth > PATHCHECK_MAX_DEPTH)
		return "too many components";
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *broken = broken_promise(data, size);

	if (pathcheck_relative((const char *)data, size) == 0) {
		if (broken)
			violation(broken, data, size);
	} else {
		if (!broken)
			violation("a valid path was rejected", data, size);
		if (!err_msg()[0])
			violation("rejected without an error message", data, size);
	}
	return 0;
}
