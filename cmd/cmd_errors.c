/* The one place errors reach the user: "xfercmp CMD: message" on stderr. */
#include "commands.h"
#include "err.h"
#include "exitcode.h"
#include "text_escape.h"

#include <stdarg.h>
#include <stdio.h>

int cmd_fail(const char *cmd, int code)
{
	char shown[ERR_MAX * 4];

	/* an error may quote the agent, the host or a name from the tree: text_escape.h */
	text_escape(shown, sizeof(shown), err_msg());
	if (cmd)
		fprintf(stderr, "xfercmp %s: %s\n", cmd, shown);
	else
		fprintf(stderr, "xfercmp: %s\n", shown);
	return code;
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	char msg[ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "xfercmp%s%s: %s (see 'xfercmp%s%s --help')\n", cmd ? " " : "",
		cmd ? cmd : "", msg, cmd ? " " : "", cmd ? cmd : "");
	return EXIT_USAGE;
}
