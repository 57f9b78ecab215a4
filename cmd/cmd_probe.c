/*
 * xfercmp probe [OPTIONS] [HOST]: the ceilings alone, with the comparison's
 * options and setup (compare.h), then no strategy.
 */
#include "commands.h"
#include "compare.h"
#include "exitcode.h"
#include "report/report.h"
#include "report/text_wrap.h"

#include <stdio.h>
#include <string.h>

/* Prints the ceilings (unless the JSON goes to stdout) and writes --json. Returns the exit code. */
static int report_probes(struct compare_session *s)
{
	const struct compare_opts *o = &s->o;
	struct report rep;

	if (!o->json || strcmp(o->json, "-")) {
		report_ceilings(&s->probes, stdout);
		if (o->streams_why[0])
			text_wrap(stdout, "  streams     ", 14, o->streams_why, text_width());
	}
	if (!o->json)
		return EXIT_OK;
	rep = (struct report){ .host = o->host, .workload_name = o->workload_name,
			       .spec = &o->wo.spec, .files = s->m.count,
			       .bytes = s->m.total_bytes, .probes = &s->probes,
			       .agent_info = s->dest.agent.info, .agent_via_ssh = s->dest.agent.via_ssh,
			       .streams = o->run.strategy.streams,
			       .streams_auto = o->streams_auto, .streams_why = o->streams_why };
	if (report_json_write(&rep, o->json) < 0)
		return compare_fail();
	return EXIT_OK;
}

int cmd_probe(int argc, char **argv)
{
	struct compare_session s;
	int rc, code;

	if ((rc = compare_parse(argc, argv, &s.o, 1)) != 0)
		return rc;
	code = compare_open(&s, NULL, 0);
	if (code == EXIT_OK)
		code = report_probes(&s);
	if (compare_close(&s) != EXIT_OK && code == EXIT_OK)
		code = EXIT_FAILED;
	return code;
}
