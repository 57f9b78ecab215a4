/* What test_procstat and test_sampler share: a temporary directory under /var/tmp (a real disk). */
#ifndef XFERCMP_TEST_TEMP_DIR_FIXTURE_H
#define XFERCMP_TEST_TEMP_DIR_FIXTURE_H

#include "testutil.h"

#include "fsutil.h"

#include <stdio.h>
#include <stdlib.h>

/* The test's temporary directory; the teardown removes it even after a failed assertion. */
static char temp_dir[64] __attribute__((unused));

static inline const char *make_temp_dir(void)
{
	snprintf(temp_dir, sizeof(temp_dir), "/var/tmp/xfercmp-procstat-XXXXXX");
	assert_non_null(mkdtemp(temp_dir));
	return temp_dir;
}

static inline int remove_temp_dir(void **state)
{
	(void)state;
	if (temp_dir[0] && fs_remove_tree(temp_dir) != 0)
		return -1;
	temp_dir[0] = '\0';
	return 0;
}

#endif
