/* What the report tests measure of written text (header only). */
#ifndef XFERCMP_TEXT_TESTUTIL_H
#define XFERCMP_TEXT_TESTUTIL_H

#include "report/text_wrap.h"

#include <string.h>

/* The widest line of text, in characters. */
static inline size_t widest(const char *text)
{
	size_t most = 0;

	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (text_columns(line, len) > most)
			most = text_columns(line, len);
		if (!end)
			break;
		line = end + 1;
	}
	return most;
}

#endif
