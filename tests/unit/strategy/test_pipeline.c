/*
 * Unit tests for transfer/strategy/pipeline.c (the fork/exec pipeline the
 * reference strategies run) and host_programs.c's local check: what
 * reaches out_fd, which stage an error names when several fail, a program
 * not in PATH. reference_run_shell's account of one shell command is in
 * test_reference_cmd.c. No network.
 */
#include "testutil.h"

#include "err.h"
#include "strategy/host_programs.h"
#include "strategy/pipeline.h"

#include <limits.h>
#include <signal.h>
#include <unistd.h>

/* Runs the n stages with stdout into a pipe; returns pipeline_run's result, what came out in out. */
static int run_captured(struct pipeline_stage *st, unsigned n, char *out, size_t len)
{
	int p[2], rc;
	ssize_t got;

	assert_int_equal(pipe(p), 0);
	rc = pipeline_run(st, n, p[1]);
	close(p[1]);
	got = read(p[0], out, len - 1);
	out[got > 0 ? got : 0] = '\0';
	close(p[0]);
	pipeline_stages_free(st, n);
	return rc;
}

static void test_two_stages(void **state)
{
	struct pipeline_stage st[2] = { 0 };
	char out[256];

	(void)state;
	pipeline_arg(&st[0].argv, "printf");
	pipeline_arg(&st[0].argv, "%s", "one two");
	pipeline_arg(&st[1].argv, "tr");
	pipeline_arg(&st[1].argv, "a-z");
	pipeline_arg(&st[1].argv, "A-Z");
	assert_int_equal(run_captured(st, 2, out, sizeof(out)), 0);
	assert_string_equal(out, "ONE TWO");
	assert_null(st[0].argv.v);
}

/* The stage that failed for its own reason is named, not the one that died of its broken pipe. */
static void test_first_real_failure(void **state)
{
	struct pipeline_stage st[2] = { 0 };
	void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
	char out[16];

	(void)state;
	pipeline_arg(&st[0].argv, "yes");
	pipeline_arg(&st[1].argv, "sh");
	pipeline_arg(&st[1].argv, "-c");
	pipeline_arg(&st[1].argv, "head -c 1 >/dev/null; echo 'it broke' >&2; exit 3");
	st[1].label = "second";
	err_clear();
	assert_int_equal(run_captured(st, 2, out, sizeof(out)), -1);
	assert_string_equal(err_msg(), "second failed (exit 3): it broke");
	signal(SIGPIPE, old_pipe);
}

static void test_not_installed(void **state)
{
	static const char *const programs[] = { "sh", "no-such-program-xfercmp", NULL };
	struct pipeline_stage st[1] = { 0 };
	char path[PATH_MAX], why[256], out[16];

	(void)state;
	assert_int_equal(pipeline_which("sh", path, sizeof(path)), 1);
	assert_int_equal(access(path, X_OK), 0);
	assert_int_equal(pipeline_which("no-such-program-xfercmp", path, sizeof(path)), 0);

	pipeline_arg(&st[0].argv, "no-such-program-xfercmp");
	err_clear();
	assert_int_equal(run_captured(st, 1, out, sizeof(out)), -1);
	assert_string_equal(err_msg(), "'no-such-program-xfercmp' is not installed here (not found in PATH)");

	assert_int_equal(host_programs_need_local(programs + 1, why, sizeof(why)), 1);
	assert_string_equal(why, "'no-such-program-xfercmp' is not installed here (not found in PATH; "
				 "install the no-such-program-xfercmp package)");
	/* the packages whose names are not the program's */
	assert_string_equal(host_programs_package("ssh"), "openssh-client");
	assert_string_equal(host_programs_package("fpsync"), "fpart");
	assert_string_equal(host_programs_package("rclone"), "rclone");
	assert_int_equal(host_programs_need_local(programs + 2, why, sizeof(why)), 0);
	/* nothing runs now: stopping is harmless */
	pipeline_stop_running();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_stages),
		cmocka_unit_test(test_first_real_failure),
		cmocka_unit_test(test_not_installed),
	};

	return test_run("pipeline", tests, ARRAY_LEN(tests), NULL, 0);
}
