/* RFC 3339 time of day. See wallclock.h. */
#include "wallclock.h"

#include <stdio.h>
#include <time.h>

char *wallclock_now(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char day[24];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06ldZ", day, ts.tv_nsec / 1000);
	return buf;
}
