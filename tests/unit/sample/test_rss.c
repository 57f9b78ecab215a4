/*
 * Unit tests for transfer/sample/rss.c: the status parser on captured text
 * (kernel 6.18 on the development VM), and the live window: touching 64 MiB
 * raises the window's peak, a new window starts again from the current size,
 * and the lifetime peak keeps what the reset dropped.
 */
#include "testutil.h"

#include "err.h"
#include "sample/rss.h"

#include <sys/mman.h>

static const char status_text[] =
	"Name:\txfercmp\n"
	"Umask:\t0022\n"
	"State:\tS (sleeping)\n"
	"VmPeak:\t  301612 kB\n"
	"VmSize:\t  236076 kB\n"
	"VmLck:\t       0 kB\n"
	"VmHWM:\t   35392 kB\n"
	"VmRSS:\t   20000 kB\n"
	"Threads:\t3\n";

static void test_parse(void **state)
{
	uint64_t rss = 0, hwm = 0;

	(void)state;
	assert_int_equal(rss_parse_status(status_text, &rss, &hwm), 0);
	assert_int_equal(rss, 20000ull * 1024);
	assert_int_equal(hwm, 35392ull * 1024);
	/* one of them only */
	hwm = 0;
	assert_int_equal(rss_parse_status(status_text, NULL, &hwm), 0);
	assert_int_equal(hwm, 35392ull * 1024);
	/* a kernel thread's status has neither line */
	assert_int_equal(rss_parse_status("Name:\tkworker/0:1\nState:\tI (idle)\n", &rss, NULL), -1);
	assert_contains(err_msg(), "VmRSS");
	/* VmHWMx is not VmHWM; a missing unit is malformed */
	assert_int_equal(rss_parse_status("VmHWMx:\t5 kB\n", NULL, &hwm), -1);
	assert_int_equal(rss_parse_status("VmHWM:\t5\n", NULL, &hwm), -1);
	assert_contains(err_msg(), "malformed");
}

/* Maps and touches n bytes; the caller unmaps them. */
static char *touch(size_t n)
{
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	return p;
}

static void test_window(void **state)
{
	const size_t big = 64u << 20;
	uint64_t before, during, after, life, rss;
	char *p;
	int reset;

	(void)state;
	reset = rss_window_start();
	assert_true(reset == 0 || reset == 1);
	before = rss_window_peak();
	assert_true(before > 0);
	p = touch(big);
	during = rss_window_peak();
	assert_true(during >= before + big - (4u << 20));
	munmap(p, big);
	assert_int_equal(rss_read(&rss, NULL), 0);
	assert_true(rss + big / 2 < during);
	/* a new window: the 64 MiB are gone from it, kept in the lifetime peak */
	reset = rss_window_start();
	after = rss_window_peak();
	life = rss_lifetime_peak();
	/* the kernel's RSS counters are per-CPU approximations: a few pages either way (seen: 100 kB) */
	assert_true(life + (1u << 20) >= during);
	if (reset == 0)
		assert_true(after + big / 2 < during);
	else
		print_message("clear_refs refused here: the window's peak is the lifetime's\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_window),
	};

	return test_run("rss", tests, ARRAY_LEN(tests), NULL, 0);
}
