#ifndef XFERCMP_VERIFY_H
#define XFERCMP_VERIFY_H

#include "manifest.h"

#include <stdint.h>
#include <stdio.h>

/*
 * Checks a tree against a manifest: every file present, sizes and xxh3
 * content hashes equal, nothing extra. The first few differences are kept by
 * name so a person can look at them.
 */

#define VERIFY_EXAMPLES 8

struct verify_report {
	uint64_t files_ok, bytes_ok;
	uint64_t missing, extra, size_differs, content_differs, not_regular;
	unsigned nexamples;
	char examples[VERIFY_EXAMPLES][512];
};

/* Total number of differences. */
uint64_t verify_differences(const struct verify_report *r);

/*
 * Verifies root against m using `threads` hashing threads. Returns 0 when the
 * check ran (look at verify_differences), -1 (error set) when it could not
 * run, e.g. root is unreadable.
 */
int verify_tree(const char *root, const struct manifest *m, unsigned threads,
		struct verify_report *r);

/* One line: "12000 files, 47.2 MiB verified" or "3 differences: 1 missing, ...". */
void verify_summary(const struct verify_report *r, char *buf, size_t len);

#endif
