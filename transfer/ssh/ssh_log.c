/* libssh's log through one callback: see ssh_log.h. */
#include "ssh/ssh_log.h"

#include "err.h"

#include <libssh/callbacks.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int log_to_stderr;
static pthread_once_t installed = PTHREAD_ONCE_INIT;

/* libssh hands over "FUNCTION: MESSAGE" in buffer. */
static void on_log(int priority, const char *function, const char *buffer, void *userdata)
{
	(void)priority;
	(void)function;
	(void)userdata;
	if (atomic_load(&log_to_stderr))
		fprintf(stderr, "libssh: %s\n", buffer);
}

static void install(void)
{
	ssh_set_log_callback(on_log);
}

void ssh_log_route(int verbose)
{
	atomic_store(&log_to_stderr, verbose ? 1 : 0);
	pthread_once(&installed, install);
}

int ssh_log_apply(ssh_session s)
{
	int level;

	pthread_once(&installed, install);
	level = atomic_load(&log_to_stderr) ? SSH_LOG_WARNING : SSH_LOG_NOLOG;
	if (ssh_options_set(s, SSH_OPTIONS_LOG_VERBOSITY, &level) < 0)
		return err_set("cannot set libssh's log level: %s", ssh_get_error(s));
	return 0;
}
