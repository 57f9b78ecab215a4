/*
 * The one table of strategies: --strategies all walks it in this order.
 * Only the list: finding and choosing strategies is list.c's job.
 */
#include "strategy/strategy.h"

extern const struct strategy strategy_scp, strategy_tar_ssh, strategy_zstd_ssh;
extern const struct strategy strategy_splice, strategy_zstd, strategy_parallel;
extern const struct strategy strategy_real_scp, strategy_real_scp_legacy, strategy_real_rsync;
extern const struct strategy strategy_real_tar_ssh, strategy_real_tar_zstd_ssh, strategy_real_tar_nc;
extern const struct strategy strategy_real_rclone, strategy_real_fpsync;

const struct strategy *const strategy_table[] = {
	&strategy_scp,
	&strategy_tar_ssh,
	&strategy_zstd_ssh,
	&strategy_splice,
	&strategy_zstd,
	&strategy_parallel,
	&strategy_real_scp,
	&strategy_real_scp_legacy,
	&strategy_real_rsync,
	&strategy_real_tar_ssh,
	&strategy_real_tar_zstd_ssh,
	&strategy_real_tar_nc,
	&strategy_real_rclone,
	&strategy_real_fpsync,
};
const size_t strategy_count = sizeof(strategy_table) / sizeof(strategy_table[0]);
