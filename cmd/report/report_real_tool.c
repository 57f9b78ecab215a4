/*
 * The recommendation's pointer to a real tool (issue 25, item 3): when our
 * parallel strategy wins, the parallel reference tool that came closest on
 * this link and data, its command line and its measured time, so that a
 * person who cannot run xfercmp's agent on the host knows what to run.
 */
#include "report/report.h"

#include <stdio.h>
#include <string.h>

/* A result that ran and verified, by name; NULL when there is none. */
static const struct strategy_result *verified(const struct report *r, const char *name)
{
	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *res = &r->results[i];

		if (!strcmp(res->strategy->name, name) && res->status == RESULT_OK && res->verified && res->runs)
			return res;
	}
	return NULL;
}

int report_real_tool(const struct report *r, const struct strategy_result *best, char *buf, size_t len)
{
	const struct strategy_result *fpsync = verified(r, "real-fpsync"), *rclone = verified(r, "real-rclone");
	const struct strategy_result *tool;
	const char *host = r->host && r->host[0] ? r->host : "HOST";
	const char *src = r->spec && r->spec->kind == WORKLOAD_DIR ? r->spec->dir : "DIR";
	char line[256];
	int n;

	if (!best || strcmp(best->strategy->name, "parallel") || (!fpsync && !rclone) || len == 0)
		return 0;
	tool = !rclone || (fpsync && report_seconds(fpsync) <= report_seconds(rclone)) ? fpsync : rclone;
	/* the options each strategy passes (real_fpsync.c, real_rclone.c), as a person types them */
	if (tool == fpsync)
		snprintf(line, sizeof(line), "fpsync -n %u %s/ %s:DST/", r->streams, src, host);
	else
		snprintf(line, sizeof(line),
			 "rclone copy --transfers %u --create-empty-src-dirs --sftp-disable-hashcheck %s "
			 "REMOTE:DST (REMOTE an sftp remote for %s)", r->streams, src, host);
	n = snprintf(buf, len, "; the closest real tool here: %s, %.2f s (parallel %.2f s)", line,
		     report_seconds(tool), report_seconds(best));
	return n < 0 ? 0 : (size_t)n < len ? n : (int)len - 1;
}
