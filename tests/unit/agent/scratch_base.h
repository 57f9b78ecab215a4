#ifndef XFERCMP_TEST_SCRATCH_BASE_H
#define XFERCMP_TEST_SCRATCH_BASE_H

/*
 * A fresh parent directory in /var/tmp for a test of the agent's scratch
 * roots (base), made before and removed after each test, read-only
 * directories in it included. SCRATCH_BASE_TAG names it.
 */

#include <stdio.h>
#include <stdlib.h>

static char base[64];

static int base_setup(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/var/tmp/xfercmp-%s-test-XXXXXX", SCRATCH_BASE_TAG);
	return mkdtemp(base) ? 0 : -1;
}

static int base_teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s' && rm -rf '%s'", base, base);
	return system(cmd) == 0 ? 0 : -1;
}

#endif
