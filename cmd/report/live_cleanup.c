/* The cleanup's status line (live.h): what the host and this machine have left to remove. */
#include "report/live.h"

#include "units.h"

#include <stdio.h>

static int percent(uint64_t done, uint64_t of)
{
	double p = of ? 100.0 * (double)done / (double)of : 0;

	return (int)(p > 99 && done < of ? 99 : p);
}

void live_cleanup_format(char *buf, size_t len, uint64_t host_found, uint64_t host_removed,
			 bool host_walked, uint64_t local_found, uint64_t local_removed)
{
	char a[32], b[32];
	int n;

	units_format_count(host_found, a, sizeof(a));
	if (host_walked)
		n = snprintf(buf, len, "removing %s files on the host: %d%%", a,
			     percent(host_removed, host_found));
	else
		n = snprintf(buf, len, "removing the copies on the host (%s files so far)", a);
	if (local_found && n >= 0 && (size_t)n < len) {
		units_format_count(local_found, b, sizeof(b));
		snprintf(buf + n, len - (size_t)n, ", %s here: %d%%", b, percent(local_removed, local_found));
	}
}
