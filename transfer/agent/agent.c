/* The agent's outer loop: listening, authenticating, lifetime. See agent.h. */
#define _GNU_SOURCE
#include "agent/agent.h"

#include "agent/agent_gate.h"
#include "agent/agent_leftover.h"
#include "agent/agent_root.h"
#include "stream/agent_startup.h"
#include "stream/wire_auth.h"
#include "err.h"
#include "fsutil.h"
#include "netaddr.h"
#include "text_escape.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The scratch root; the lifetime watchers remove it unless remove_at_exit is 0 (--keep). */
static struct agent_root scratch = { .fd = -1, .parent_fd = -1 };
static int remove_at_exit;

/* the session's end, stdin's end, a signal and a detach can all arrive at once: one remover */
static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;

/*
 * Removes the scratch root, its marker last (agent_root_remove_all): a root
 * that could not be wholly removed keeps its marker, so the client's
 * fallback may still take it; a directory that refills is waited for
 * (agent_root_remove_all_retrying). Returns 0, or -1 with the error set.
 */
static int remove_root(void)
{
	int rc = 0;

	pthread_mutex_lock(&once);
	if (remove_at_exit) {
		rc = agent_root_remove_all_retrying(&scratch);
		if (rc < 0)
			err_wrap("scratch root left behind (remove it with: chmod -R u+rwx '%s' && rm -rf '%s')",
				 scratch.path, scratch.path);
		remove_at_exit = 0;
	}
	pthread_mutex_unlock(&once);
	return rc;
}

/*
 * "bye" {"background": true} (agent_cleanup.h): the root goes to a remover
 * of its own; from then on nothing here removes it, at exit or on a signal.
 */
static int detach_root(void)
{
	int rc;

	pthread_mutex_lock(&once);
	rc = remove_at_exit ? agent_root_remove_detached(&scratch) : err_set("the scratch root is kept");
	if (rc == 0)
		remove_at_exit = 0;
	pthread_mutex_unlock(&once);
	return rc;
}

/* Ends the agent; a root that could not be removed is said on stderr and in the status. */
static void cleanup_and_exit(int code)
{
	if (remove_root() < 0) {
		char shown[ERR_MAX * 4];

		/* it may name what a stream made: text_escape.h */
		text_escape(shown, sizeof(shown), err_msg());
		fprintf(stderr, "xfercmp-agent: %s\n", shown);
		if (code == 0)
			code = 1;
	}
	_exit(code);
}

/*
 * SIGINT, SIGTERM and SIGHUP are blocked in every thread and taken here, so
 * a stop in the middle of a transfer still removes the scratch root.
 */
static void *watch_signals(void *arg)
{
	sigset_t *set = arg;
	int sig;

	while (sigwait(set, &sig) != 0)
		;
	cleanup_and_exit(128 + sig);
	return NULL;
}

/*
 * When the token came over stdin (an SSH exec channel, or the pipe of a local
 * client), the agent lives as long as that stream: EOF means the client is
 * gone, whatever the state of the session.
 */
static void *watch_stdin(void *arg)
{
	char buf[256];

	(void)arg;
	for (;;) {
		ssize_t n = read(0, buf, sizeof(buf));

		if (n == 0 || (n < 0 && errno != EINTR))
			cleanup_and_exit(0);
	}
	return NULL;
}

/* The token from --token-file, "-" being the first line of stdin. */
static int read_token(const char *file, char token[WIRE_TOKEN_HEX + 1])
{
	if (!strcmp(file, "-"))
		return agent_token_read_fd(0, file, token);
	return agent_token_load(file, token);
}

/*
 * --listen ADDR:PORT: an IPv4 address, "[IPv6]" (what the client passes when
 * the SSH connection came in over IPv6), or empty or "*" for every IPv4
 * address of the host. Numeric only: the static agent resolves no names.
 */
static int parse_listen(const char *spec, struct sockaddr_storage *ss, socklen_t *sslen)
{
	char host[256], port[8];

	if (net_hostport_split(spec, host, sizeof(host), port, sizeof(port)) < 0)
		return err_wrap("invalid --listen");
	if (host[0] == '\0' || !strcmp(host, "*"))
		snprintf(host, sizeof(host), "0.0.0.0");
	if (net_sockaddr_parse(host, (unsigned)atoi(port), ss, sslen) < 0)
		return err_wrap("invalid --listen");
	return 0;
}

static int open_listener(const char *spec, char *bound, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t salen;
	int one = 1, fd;

	if (parse_listen(spec, &ss, &salen) < 0)
		return -1;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_errno("cannot create a socket to listen on %s", spec);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, salen) < 0) {
		err_errno("cannot listen on %s", spec);
		if (errno == EADDRINUSE)
			err_set("cannot listen on %s: the port is in use; pick another with --listen ADDR:PORT (0 = any free port)",
				spec);
		else if (errno == EADDRNOTAVAIL)
			err_set("cannot listen on %s: no interface of this host has that address", spec);
		close(fd);
		return -1;
	}
	if (listen(fd, 64) < 0) {
		err_errno("cannot listen on %s", spec);
		close(fd);
		return -1;
	}
	salen = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &salen) < 0 ||
	    net_sockaddr_format((struct sockaddr *)&ss, bound, len) < 0) {
		err_errno("cannot read the address the agent listens on");
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The scratch root is always one the agent just made (agent_root.h), in
 * --root or else the scratch base (/var/tmp): never an existing directory,
 * so nothing of anyone else's is written into or removed.
 */
static int prepare_root(const struct agent_opts *o, const unsigned char key[WIRE_KEY_BYTES])
{
	char id[WIRE_SESSION_ID_HEX + 1];

	if (wire_session_id(key, id) < 0 ||
	    agent_root_make(&scratch, o->root ? o->root : fs_scratch_base(), id) < 0)
		return -1;
	/* --keep: nothing is removed, at the end or on a signal */
	remove_at_exit = !o->keep;
	return 0;
}

/* Only a control connection opens a session (agent_gate_accept's check). */
static int control_hello(void *arg, json_object *hello)
{
	const char *role;

	(void)arg;
	if (wire_get_str(hello, "role", &role) < 0)
		return err_set("protocol error: expected a hello");
	if (strcmp(role, "control"))
		return err_set("no transfer is waiting for a data connection");
	return 0;
}

int agent_serve(const struct agent_opts *o)
{
	char token[WIRE_TOKEN_HEX + 1], bound[NET_ADDR_TEXT_MAX];
	unsigned char key[WIRE_KEY_BYTES];
	static sigset_t stop_signals;
	struct agent_gate gate;
	int lfd, rc = 0;
	pthread_t watcher;

	if (!o->token_file)
		return err_set("no session token: pass --token-file FILE (or - for stdin) holding 64 hex characters");
	rc = read_token(o->token_file, token) < 0 || wire_key_from_token(token, key) < 0 ? -1 : 0;
	/* from here on only the key is used */
	explicit_bzero(token, sizeof(token));
	if (rc < 0) {
		explicit_bzero(key, sizeof(key));
		return -1;
	}
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
	signal(SIGPIPE, SIG_IGN);
	lfd = open_listener(o->listen ? o->listen : "0.0.0.0:5210", bound, sizeof(bound));
	if (lfd < 0 || prepare_root(o, key) < 0) {
		if (lfd >= 0)
			close(lfd);
		explicit_bzero(key, sizeof(key));
		return -1;
	}
	if (!strcmp(o->token_file, "-"))
		pthread_create(&watcher, NULL, watch_stdin, NULL);
	pthread_create(&watcher, NULL, watch_signals, &stop_signals);
	printf(AGENT_LISTENING_PREFIX "%s\n", bound);
	fflush(stdout);

	/*
	 * Idle: no authenticated session for that long. Strangers that connect
	 * and say nothing do not keep the agent alive (agent_gate.h).
	 */
	agent_gate_init(&gate, lfd);
	for (;;) {
		int idle_ms = (o->idle_timeout_s > 0 ? o->idle_timeout_s : AGENT_DEFAULT_IDLE_S) * 1000;
		struct agent_session *s;
		struct wire_binding bound_to;
		struct wire_chan ctl;
		int cfd = agent_gate_accept(&gate, key, idle_ms, control_hello, NULL, &ctl, &bound_to);

		if (cfd == -2)
			break;	/* idle timeout */
		if (cfd < 0) {
			rc = -1;
			break;
		}
		s = calloc(1, sizeof(*s));
		if (!s) {
			close(cfd);
			continue;
		}
		/* one client at a time: the strangers still waiting are sent away */
		agent_gate_release(&gate);
		s->ctl = ctl;
		s->listen_fd = lfd;
		memcpy(s->key, key, sizeof(s->key));
		s->root = scratch.path;
		s->scratch = &scratch;
		s->keep = o->keep;
		/* one session, one root: its copies may go after the client left */
		s->detach_root = o->once && !o->keep ? detach_root : NULL;
		s->session_idle_s = o->session_idle_s > 0 ? o->session_idle_s : AGENT_SESSION_IDLE_S;
		agent_session_run(s);
		close(cfd);
		/* the session's keys go with it */
		explicit_bzero(s, sizeof(*s));
		free(s);
		if (o->once)
			break;
	}
	agent_gate_release(&gate);
	close(lfd);
	explicit_bzero(key, sizeof(key));
	if (remove_root() < 0)
		rc = -1;
	return rc;
}
