#ifndef XFERCMP_EXITCODE_H
#define XFERCMP_EXITCODE_H

/* Every exit code xfercmp uses, in one place. */
enum exit_code {
	EXIT_OK = 0,		/* everything ran and verified */
	EXIT_FAILED = 1,	/* a strategy or a verification failed, or an error at run time */
	EXIT_USAGE = 2,		/* bad command line: nothing was run */
	EXIT_INTERRUPTED = 130,	/* Ctrl-C or SIGTERM; cleaned up */
};

#endif
