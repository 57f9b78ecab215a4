/* The cleanup's status line (live.h): what the host and this machine have left to remove. */
#include "report/live.h"

#include "units.h"

#include <stdio.h>

static int percent(uint64_t done, uint64_t of)
{
	double p = of ? 100.0 * (double)done / (double)of : 0;

	return (int)(p > 99 && done < of ? 99 : p);
}

void live_cleanup_format(char *buf, size_t len, const struct live_cleanup *c)
{
	char a[32], b[32];
	int n;

	if (c->host_walked) {
		units_format_count(c->host_found, a, sizeof(a));
		n = snprintf(buf, len, "removing %s files on the host: %d%%", a,
			     percent(c->host_removed, c->host_found));
	} else if (c->host_expected) {
		/* the walk may find more than expected (the create probe's files): then it is the total so far */
		uint64_t about = c->host_expected > c->host_found ? c->host_expected : c->host_found;
		int p = percent(c->host_removed, about);

		units_format_count(about, a, sizeof(a));
		/* not walked: not all gone, so never 100% */
		n = snprintf(buf, len, "removing about %s files on the host: %d%%", a, p > 99 ? 99 : p);
	} else {
		units_format_count(c->host_found, a, sizeof(a));
		n = snprintf(buf, len, "removing the copies on the host (%s files so far)", a);
	}
	if (c->local_found && n >= 0 && (size_t)n < len) {
		units_format_count(c->local_found, b, sizeof(b));
		snprintf(buf + n, len - (size_t)n, ", %s here: %d%%", b,
			 percent(c->local_removed, c->local_found));
	}
}
