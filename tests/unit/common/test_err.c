/* Unit tests for common/err.c: setting, wrapping, and keeping a message aside. */
#include "testutil.h"

#include "err.h"

#include <errno.h>
#include <pthread.h>

static void test_set_and_wrap(void **state)
{
	(void)state;
	assert_int_equal(err_set("cannot open '%s'", "x"), -1);
	assert_int_equal(err_wrap("strategy %s", "splice"), -1);
	assert_string_equal(err_msg(), "strategy splice: cannot open 'x'");
	errno = ENOENT;
	assert_int_equal(err_errno("cannot stat '%s'", "y"), -1);
	assert_contains(err_msg(), "cannot stat 'y': No such file or directory");
	err_clear();
	assert_string_equal(err_msg(), "");
}

/* A cleanup between save and restore sets its own message; restore brings the first back. */
static void test_save_survives_cleanup(void **state)
{
	struct err_saved saved;

	(void)state;
	err_set("the first failure");
	err_save(&saved);
	err_set("what the cleanup said");
	assert_int_equal(err_restore(&saved), -1);
	assert_string_equal(err_msg(), "the first failure");
}

/* Saving with no message set keeps the empty message. */
static void test_save_empty(void **state)
{
	struct err_saved saved;

	(void)state;
	err_clear();
	err_save(&saved);
	err_set("later");
	err_restore(&saved);
	assert_string_equal(err_msg(), "");
}

/* The longest message survives the round trip whole and terminated. */
static void test_save_longest(void **state)
{
	struct err_saved saved;
	char big[ERR_MAX + 100];

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	err_set("%s", big);
	err_save(&saved);
	err_clear();
	err_restore(&saved);
	assert_int_equal(strlen(err_msg()), ERR_MAX - 1);
}

static void *worker_fails(void *arg)
{
	err_set("worker %d failed", 7);
	err_save(arg);
	return NULL;
}

/* Messages are per thread: a worker's reaches the joining thread only through err_saved. */
static void test_save_across_threads(void **state)
{
	struct err_saved from_worker;
	pthread_t t;

	(void)state;
	err_set("main's own");
	assert_int_equal(pthread_create(&t, NULL, worker_fails, &from_worker), 0);
	pthread_join(t, NULL);
	assert_string_equal(err_msg(), "main's own");
	err_restore(&from_worker);
	assert_string_equal(err_msg(), "worker 7 failed");
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_and_wrap),
		cmocka_unit_test(test_save_survives_cleanup),
		cmocka_unit_test(test_save_empty),
		cmocka_unit_test(test_save_longest),
		cmocka_unit_test(test_save_across_threads),
	};

	return test_run("err", tests, ARRAY_LEN(tests), NULL, 0);
}
