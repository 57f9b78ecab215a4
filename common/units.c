#include "units.h"

#include "err.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int units_parse_size(const char *text, uint64_t *out)
{
	const char *p = text;
	uint64_t value = 0;
	unsigned shift = 0;

	if (!text || !isdigit((unsigned char)*p))
		return err_set("invalid size '%s': use digits with an optional K, M, G or T suffix, e.g. 4G",
			       text ? text : "");
	while (isdigit((unsigned char)*p)) {
		unsigned digit = (unsigned)(*p - '0');

		if (value > (UINT64_MAX - digit) / 10)
			return err_set("invalid size '%s': too large", text);
		value = value * 10 + digit;
		p++;
	}
	switch (toupper((unsigned char)*p)) {
	case 'K': shift = 10; p++; break;
	case 'M': shift = 20; p++; break;
	case 'G': shift = 30; p++; break;
	case 'T': shift = 40; p++; break;
	default: break;
	}
	if (shift && (*p == 'i' || *p == 'I'))
		p++;
	if (*p == 'B' || *p == 'b')
		p++;
	if (*p != '\0')
		return err_set("invalid size '%s': use digits with an optional K, M, G or T suffix, e.g. 4G",
			       text);
	if (shift && value > (UINT64_MAX >> shift))
		return err_set("invalid size '%s': too large", text);
	*out = value << shift;
	return 0;
}

int units_parse_count(const char *text, uint64_t max, uint64_t *out)
{
	const char *p = text;
	uint64_t value = 0;

	if (!text || !*p)
		return err_set("invalid count '': expected a whole number");
	for (; *p; p++) {
		unsigned digit;

		if (!isdigit((unsigned char)*p))
			return err_set("invalid count '%s': expected a whole number", text);
		digit = (unsigned)(*p - '0');
		if (value > (UINT64_MAX - digit) / 10)
			return err_set("invalid count '%s': too large (at most %llu)", text,
				       (unsigned long long)max);
		value = value * 10 + digit;
	}
	if (value > max)
		return err_set("invalid count '%s': too large (at most %llu)", text,
			       (unsigned long long)max);
	*out = value;
	return 0;
}

int units_parse_double(const char *text, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = text ? strtod(text, &end) : 0;
	if (!text || end == text || *end != '\0' || errno || isnan(v))
		return err_set("invalid number '%s': expected a decimal between %g and %g",
			       text ? text : "", lo, hi);
	if (v < lo || v > hi)
		return err_set("invalid number '%s': must be between %g and %g", text, lo, hi);
	*out = v;
	return 0;
}

const char *units_format_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	size_t i = 0;

	/* 1023.999 KiB would print as "1024.00 KiB": promote what rounds up to 1024 */
	while (v >= 1023.995 && i + 1 < sizeof(names) / sizeof(names[0])) {
		v /= 1024.0;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%.2f %s", v, names[i]);
	return buf;
}

const char *units_format_count(uint64_t v, char *buf, size_t len)
{
	char digits[24];
	size_t n = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v), o = 0;

	if (len == 0)
		return buf;
	for (size_t i = 0; i < n; i++) {
		bool comma = i > 0 && (n - i) % 3 == 0;

		/* room for the comma, the digit and the NUL */
		if (o + comma + 1 >= len)
			break;
		if (comma)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}
