/* The one place errors reach the user: "xfercmp CMD: message" on stderr. */
#include "commands.h"
#include "err.h"
#include "exitcode.h"

#include <stdarg.h>
#include <stdio.h>

int cmd_fail(const char *cmd, int code)
{
	if (cmd)
		fprintf(stderr, "xfercmp %s: %s\n", cmd, err_msg());
	else
		fprintf(stderr, "xfercmp: %s\n", err_msg());
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
