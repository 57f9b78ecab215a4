/* Peak resident memory of this process (rss.h). */
#include "sample/rss.h"

#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The highest VmHWM read before a reset: what the resets would otherwise lose. */
static _Atomic uint64_t folded_peak;

/* The "Key:   N kB" line's N in bytes. Returns 0, or -1 when absent or malformed. */
static int status_kb(const char *text, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);
	const char *p = text;
	char *end;
	unsigned long long kb;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':') {
			errno = 0;
			kb = strtoull(p + klen + 1, &end, 10);
			while (*end == ' ' || *end == '\t')
				end++;
			if (errno || end == p + klen + 1 || strncmp(end, "kB", 2))
				return err_set("/proc status line '%s' is malformed", key);
			*out = (uint64_t)kb * 1024u;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return err_set("/proc status has no '%s' line", key);
}

int rss_parse_status(const char *text, uint64_t *rss_bytes, uint64_t *hwm_bytes)
{
	if (rss_bytes && status_kb(text, "VmRSS", rss_bytes) < 0)
		return -1;
	if (hwm_bytes && status_kb(text, "VmHWM", hwm_bytes) < 0)
		return -1;
	return 0;
}

int rss_read(uint64_t *rss_bytes, uint64_t *hwm_bytes)
{
	/* about 1.5 KiB on kernel 6.x; the two lines sit in the first third */
	char text[4096];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return err_errno("cannot open /proc/self/status");
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return err_errno("cannot read /proc/self/status");
	text[n] = '\0';
	return rss_parse_status(text, rss_bytes, hwm_bytes);
}

static void fold(uint64_t hwm)
{
	uint64_t old = atomic_load(&folded_peak);

	while (hwm > old && !atomic_compare_exchange_weak(&folded_peak, &old, hwm))
		;
}

int rss_window_start(void)
{
	uint64_t hwm;
	int fd, ok;

	if (rss_read(NULL, &hwm) < 0)
		return -1;
	fold(hwm);
	fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	ok = fd >= 0 && write(fd, "5", 1) == 1;
	if (fd >= 0)
		close(fd);
	return ok ? 0 : 1;
}

uint64_t rss_window_peak(void)
{
	uint64_t hwm;

	return rss_read(NULL, &hwm) == 0 ? hwm : 0;
}

uint64_t rss_lifetime_peak(void)
{
	uint64_t hwm = rss_window_peak(), old = atomic_load(&folded_peak);

	return hwm > old ? hwm : old;
}
