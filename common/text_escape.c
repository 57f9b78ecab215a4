/* The one escape for text shown to people. See text_escape.h. */
#include "text_escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The length of the valid UTF-8 character at p (2-4), 0 when the bytes
 * there are not one (a stray continuation byte, an overlong form, a
 * surrogate, beyond U+10FFFF, or cut by the end of the string).
 */
static size_t utf8_len(const unsigned char *p, unsigned *cp)
{
	size_t n;
	unsigned c, min;

	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2, c = p[0] & 0x1fu, min = 0x80;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3, c = p[0] & 0x0fu, min = 0x800;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4, c = p[0] & 0x07u, min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;	/* the NUL at the end stops here too */
		c = c << 6 | (p[i] & 0x3fu);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

int text_escape(char *out, size_t len, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t o = 0;
	int changed = 0;

	while (*p) {
		char piece[8];
		size_t n = 1;
		unsigned cp = 0;

		if (*p == '\n' || *p == '\t') {
			snprintf(piece, sizeof(piece), "\\%c", *p == '\n' ? 'n' : 't');
		} else if (*p < 0x20 || *p == 0x7f) {
			snprintf(piece, sizeof(piece), "\\x%02x", *p);
		} else if (*p < 0x80) {
			piece[0] = (char)*p;
			piece[1] = '\0';
		} else if ((n = utf8_len(p, &cp)) == 0) {
			n = 1;
			snprintf(piece, sizeof(piece), "\\x%02x", *p);
		} else if (cp <= 0x9f) {
			snprintf(piece, sizeof(piece), "\\u%04x", cp);
		} else {
			memcpy(piece, p, n);
			piece[n] = '\0';
		}
		if (strlen(piece) != n || memcmp(piece, p, n))
			changed = 1;
		if (o + strlen(piece) >= len) {
			changed = 1;
			break;
		}
		memcpy(out + o, piece, strlen(piece));
		o += strlen(piece);
		p += n;
	}
	if (len)
		out[o < len ? o : len - 1] = '\0';
	return changed;
}

void text_escape_inplace(char *s, size_t cap)
{
	char *tmp;

	if (!cap || !text_needs_escape(s))
		return;
	if (!(tmp = malloc(cap))) {
		/* out of memory: every byte but printable ASCII goes as '?' */
		for (unsigned char *p = (unsigned char *)s; *p; p++)
			if (*p < 0x20 || *p >= 0x7f)
				*p = '?';
		return;
	}
	text_escape(tmp, cap, s);
	memcpy(s, tmp, strlen(tmp) + 1);
	free(tmp);
}

int text_needs_escape(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		unsigned cp;
		size_t n;

		if (*p < 0x20 || *p == 0x7f)
			return 1;
		if (*p < 0x80) {
			p++;
			continue;
		}
		n = utf8_len(p, &cp);
		if (n == 0 || cp <= 0x9f)
			return 1;
		p += n;
	}
	return 0;
}
