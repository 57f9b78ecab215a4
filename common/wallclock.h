#ifndef XFERCMP_WALLCLOCK_H
#define XFERCMP_WALLCLOCK_H

/*
 * The time of day, for records that say when something happened (a
 * forecast made, a run started): RFC 3339 in UTC with microseconds,
 * "2026-12-06T09:41:07.123456Z", so two moments a few microseconds apart
 * still compare in order, as text too. Durations use clock.h, never this.
 */

#include <stddef.h>

#define WALLCLOCK_TEXT_MAX 32

/* Now, into buf (at least WALLCLOCK_TEXT_MAX bytes). Returns buf. */
char *wallclock_now(char *buf, size_t len);

#endif
