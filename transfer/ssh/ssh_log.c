/* libssh's log through one callback: see ssh_log.h. */
#include "ssh/ssh_log.h"

#include "err.h"

#include <libssh/callbacks.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

/* 0: nowhere; else the libssh verbosity that goes to stderr */
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

void ssh_log_route(int level)
{
	atomic_store(&log_to_stderr, level <= 0 ? 0 : level == 1 ? SSH_LOG_WARNING : SSH_LOG_PROTOCOL);
	pthread_once(&installed, install);
}

int ssh_log_apply(ssh_session s)
{
	int level;

	pthread_once(&installed, install);
	level = atomic_load(&log_to_stderr);	/* 0 is SSH_LOG_NOLOG */
	if (ssh_options_set(s, SSH_OPTIONS_LOG_VERBOSITY, &level) < 0)
		return err_set("cannot set libssh's log level: %s", ssh_get_error(s));
	return 0;
}

/* The warnings said so far, by a hash of their text: a run has a handful. */
#define WARNED_MAX 64
static uint64_t warned[WARNED_MAX];
static size_t nwarned;
static pthread_mutex_t warned_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t text_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

int ssh_log_warn_once(const char *fmt, ...)
{
	char text[512];
	uint64_t h;
	int seen = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	h = text_hash(text);
	pthread_mutex_lock(&warned_lock);
	for (size_t i = 0; i < nwarned && !seen; i++)
		seen = warned[i] == h;
	if (!seen && nwarned < WARNED_MAX)
		warned[nwarned++] = h;
	pthread_mutex_unlock(&warned_lock);
	if (!seen)
		fprintf(stderr, "xfercmp: warning: %s\n", text);
	return !seen;
}
