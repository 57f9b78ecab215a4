/* xfercmp serve: the agent. See transfer/agent/agent.h. */
#include "agent/agent.h"
#include "commands.h"
#include "err.h"
#include "exitcode.h"
#include "units.h"

#include "cli.h"
#include <stdio.h>

enum { OPT_LISTEN = 256, OPT_ROOT, OPT_TOKEN, OPT_ONCE, OPT_IDLE, OPT_KEEP, OPT_PROTOCOL, OPT_SESSION_IDLE };

static const struct cli_option serve_options[] = {
	CLI_OPTION("listen", OPT_LISTEN, required_argument, "ADDR:PORT",
	  "where to listen (default 0.0.0.0:5210; port 0 = any free port;\n"
	  "IPv6 as [ADDR]:PORT, e.g. [2001:2::2]:0)"),
	CLI_OPTION("root", OPT_ROOT, required_argument, "DIR",
	  "where the agent makes its scratch root, a fresh\n"
	  "DIR/xfercmp.XXXXXX (mode 0700) removed at the end (default\n"
	  "DIR /var/tmp); DIR is made if missing; a DIR reached through\n"
	  "a link, or that others may write without the sticky bit, is\n"
	  "refused"),
	CLI_OPTION("token-file", OPT_TOKEN, required_argument, "FILE",
	  "the session token, 64 hex characters (- = first line of\n"
	  "stdin; the agent then exits when stdin closes); a file\n"
	  "others may read is refused"),
	CLI_OPTION("once", OPT_ONCE, no_argument, NULL, "exit when the first session ends"),
	CLI_OPTION("idle-timeout", OPT_IDLE, required_argument, "SECS", "exit after this long without a session (default 600)"),
	CLI_OPTION("session-idle", OPT_SESSION_IDLE, required_argument, "SECS",
	  "end a session that sends no request for this long while\n"
	  "no destination is in use (default 3600; 24 h while one is)"),
	CLI_OPTION("keep", OPT_KEEP, no_argument, NULL, "keep each destination after the session (debugging)"),
	CLI_OPTION("protocol", OPT_PROTOCOL, no_argument, NULL, "print the protocol version this agent speaks and exit"),
	CLI_OPTION("help", 'h', no_argument, NULL, "this text"),
	CLI_END,
};

static void print_help(void)
{
	fputs("usage: xfercmp serve [OPTIONS]\n"
	      "Runs the agent on the destination host: receives the raw-TCP strategies,\n"
	      "flushes and verifies what each strategy wrote, and answers only peers that\n"
	      "prove they hold the session key (derived from the token, which never crosses\n"
	      "the network); every control message is authenticated and encrypted, every data\n"
	      "byte authenticated (docs/SECURITY.md). The raw-TCP strategies' data is NOT\n"
	      "encrypted (that is what they measure: the link without a cipher); the SSH\n"
	      "strategies' is. Prints 'xfercmp-agent listening ADDR:PORT' once ready.\n\n",
	      stdout);
	cli_help(stdout, serve_options, 27);
}

int cmd_serve(int argc, char **argv)
{
	struct cli_parser p;
	struct agent_opts o = { .idle_timeout_s = AGENT_DEFAULT_IDLE_S };
	uint64_t secs;
	int opt;

	cli_parser_init(&p, serve_options);
	while ((opt = cli_next(&p, argc, argv)) != -1) {
		switch (opt) {
		case OPT_LISTEN: o.listen = optarg; break;
		case OPT_ROOT: o.root = optarg; break;
		case OPT_TOKEN: o.token_file = optarg; break;
		case OPT_ONCE: o.once = 1; break;
		case OPT_KEEP: o.keep = 1; break;
		case OPT_IDLE:
			if (units_parse_count(optarg, 86400 * 7, &secs) < 0 || secs == 0)
				return cmd_usage_error("serve", "--idle-timeout: expected seconds, got '%s'",
						       optarg);
			o.idle_timeout_s = (int)secs;
			break;
		case OPT_SESSION_IDLE:
			if (units_parse_count(optarg, 86400, &secs) < 0 || secs == 0)
				return cmd_usage_error("serve", "--session-idle: expected seconds, got '%s'",
						       optarg);
			o.session_idle_s = (int)secs;
			break;
		case OPT_PROTOCOL:
			/* the client asks this over SSH to see whether the host's xfercmp can serve it */
			printf("%d\n", WIRE_PROTO);
			return EXIT_OK;
		case 'h':
			print_help();
			return EXIT_OK;
		default:
			return cli_bad_option("serve", opt, argv);
		}
	}
	if (optind != argc)
		return cmd_usage_error("serve", "unexpected argument '%s'", argv[optind]);
	if (!o.token_file)
		return cmd_usage_error("serve", "no session token: pass --token-file FILE (or - for stdin)");
	if (agent_serve(&o) < 0)
		return cmd_fail("serve", EXIT_FAILED);
	return EXIT_OK;
}
