/*
 * xfercmp-agent: the agent alone, linked statically so that it runs on a host
 * that has nothing of ours installed (the client uploads it over SFTP).
 * It takes the arguments of `xfercmp serve`.
 */
#include "commands.h"
#include "exitcode.h"

#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

int main(int argc, char **argv)
{
	/*
	 * The client runs an uploaded agent through the descriptor it checked
	 * (/proc/self/fd/3, client/ssh_target.c), which names the process "3":
	 * it keeps its own name for ps, ss and pgrep on the host.
	 */
	prctl(PR_SET_NAME, "xfercmp-agent", 0, 0, 0);
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		printf("xfercmp-agent %s\n", XFERCMP_VERSION);
		return EXIT_OK;
	}
	/* accept both "xfercmp-agent serve ..." and "xfercmp-agent ..." */
	if (argc >= 2 && !strcmp(argv[1], "serve"))
		return cmd_serve(argc - 1, argv + 1);
	return cmd_serve(argc, argv);
}
