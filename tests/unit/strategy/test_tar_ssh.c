/*
 * Unit tests for the command tar-ssh and zstd-ssh run on the host
 * (transfer/strategy/tar_ssh.c).
 */
#include "testutil.h"

#include "err.h"
#include "strategy/tar_ssh.h"

static void plain_tar_unpacks_into_the_quoted_dest(void **state)
{
	char cmd[4400];

	(void)state;
	assert_int_equal(tar_ssh_extract_command("/srv/x y", false, cmd, sizeof(cmd)), 0);
	assert_string_equal(cmd, "tar -xpf - -C '/srv/x y' --warning=no-unknown-keyword");
}

/* zstd -d in its own process ahead of tar, never tar's --zstd (its child is fed 512 bytes a write) */
static void compressed_stream_is_decompressed_by_zstd_before_tar(void **state)
{
	char cmd[4400];

	(void)state;
	assert_int_equal(tar_ssh_extract_command("/srv/d", true, cmd, sizeof(cmd)), 0);
	assert_string_equal(cmd, "zstd -dc | tar -xpf - -C '/srv/d' --warning=no-unknown-keyword");
	assert_null(strstr(cmd, "--zstd"));
}

static void a_quote_in_dest_stays_one_word(void **state)
{
	char cmd[4400];

	(void)state;
	assert_int_equal(tar_ssh_extract_command("/srv/it's", true, cmd, sizeof(cmd)), 0);
	assert_string_equal(cmd, "zstd -dc | tar -xpf - -C '/srv/it'\\''s' --warning=no-unknown-keyword");
}

static void a_command_that_does_not_fit_is_an_error(void **state)
{
	char cmd[40];

	(void)state;
	assert_int_equal(tar_ssh_extract_command("/srv/a-long-destination-path", true, cmd, sizeof(cmd)), -1);
	assert_non_null(strstr(err_msg(), "too long"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_tar_unpacks_into_the_quoted_dest),
		cmocka_unit_test(compressed_stream_is_decompressed_by_zstd_before_tar),
		cmocka_unit_test(a_quote_in_dest_stays_one_word),
		cmocka_unit_test(a_command_that_does_not_fit_is_an_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
