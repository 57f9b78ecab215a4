/* The background dirty threshold. See dirty_limit.h. */
#include "sample/dirty_limit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads path's text into buf (NUL-terminated). Returns 0, or -1 when it cannot. */
static int read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

/* A "Key:   123 kB" line's value in bytes, 0 when absent. */
static uint64_t meminfo_kb(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ':')
			return strtoull(p + klen + 1, NULL, 10) * 1024;
	return 0;
}

uint64_t dirty_limit_parse(const char *meminfo, const char *bytes, const char *ratio)
{
	uint64_t set = bytes ? strtoull(bytes, NULL, 10) : 0, dirtyable;
	unsigned long pct = ratio ? strtoul(ratio, NULL, 10) : 0;

	if (set > 0)
		return set;
	if (!meminfo || pct == 0)
		return 0;
	dirtyable = meminfo_kb(meminfo, "MemFree") + meminfo_kb(meminfo, "Active(file)") +
		    meminfo_kb(meminfo, "Inactive(file)");
	return dirtyable / 100 * pct;
}

uint64_t dirty_limit_read(void)
{
	char meminfo[8192], bytes[64], ratio[64];

	if (read_text("/proc/meminfo", meminfo, sizeof(meminfo)) < 0 ||
	    read_text("/proc/sys/vm/dirty_background_bytes", bytes, sizeof(bytes)) < 0 ||
	    read_text("/proc/sys/vm/dirty_background_ratio", ratio, sizeof(ratio)) < 0)
		return 0;
	return dirty_limit_parse(meminfo, bytes, ratio);
}
