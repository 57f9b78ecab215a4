/* A line of the live view fitted to the terminal (live_fit.h). */
#include "report/live_fit.h"

#include <stdio.h>
#include <string.h>

char *live_fields_add(struct live_fields *f, const char *sep)
{
	/* a line has a handful of fields: the last is reused rather than overrun */
	unsigned i = f->n < LIVE_FIELDS_MAX ? f->n++ : LIVE_FIELDS_MAX - 1;

	f->sep[i] = sep;
	f->keep[i] = true;
	f->text[i][0] = '\0';
	return f->text[i];
}

size_t live_fields_join(char *buf, size_t len, const struct live_fields *f)
{
	size_t n = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < f->n; i++) {
		if (!f->keep[i] || !f->text[i][0])
			continue;
		int w = snprintf(buf + n, len - n, "%s%s", f->sep[i] ? f->sep[i] : "", f->text[i]);

		if (w < 0 || (size_t)w >= len - n)
			return strlen(buf);
		n += (size_t)w;
	}
	return n;
}

void live_fields_fit(char *buf, size_t len, struct live_fields *f, const unsigned *drop, size_t ndrop,
		     size_t max)
{
	size_t n = live_fields_join(buf, len, f);

	for (size_t i = 0; i < ndrop && n > max; i++) {
		if (drop[i] < f->n)
			f->keep[drop[i]] = false;
		n = live_fields_join(buf, len, f);
	}
	if (n <= max)
		return;
	/* back to the start of a character: a UTF-8 continuation byte is 10xxxxxx */
	while (max > 0 && ((unsigned char)buf[max] & 0xC0) == 0x80)
		max--;
	buf[max] = '\0';
}
