#define _GNU_SOURCE
#include "client/agent_client.h"

#include "stream/wire_auth.h"

#include "err.h"
#include "netaddr.h"
#include "stream/gate_limits.h"
#include "netutil.h"
#include "ssh/ssh_tunnel.h"
#include "text_escape.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int connect_one(const struct addrinfo *ai, int timeout_ms)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
	struct pollfd p;
	int err = 0, one = 1;
	socklen_t len = sizeof(err);

	if (fd < 0)
		return -1;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	p = (struct pollfd){ .fd = fd, .events = POLLOUT };
	if (poll(&p, 1, timeout_ms) <= 0) {
		close(fd);
		errno = ETIMEDOUT;
		return -1;
	}
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
	if (err) {
		close(fd);
		errno = err;
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (net_set_peer_timeout(fd) < 0) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/*
 * How a connection that failed is named: "[2001:2::2]:42277" for a numeric
 * host, "NAME ([2001:2::2]:42277)" for a name, and how many other addresses
 * of the name were tried too.
 */
static void name_tried(char *buf, size_t len, const char *host, const struct sockaddr *last,
		       unsigned tried)
{
	char where[NET_ADDR_TEXT_MAX], addr[NET_ADDR_TEXT_MAX];
	int numeric = last && net_sockaddr_addr(last, addr, sizeof(addr)) == 0 && !strcmp(addr, host);

	if (!last || net_sockaddr_format(last, where, sizeof(where)) < 0)
		snprintf(where, sizeof(where), "?");
	if (numeric)
		snprintf(buf, len, "%s", where);
	else if (tried > 1)
		snprintf(buf, len, "%s (%s and %u other addresses)", host, where, tried - 1);
	else
		snprintf(buf, len, "%s (%s)", host, where);
}

int agent_client_is_local(const struct agent_client *c)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (c->via_ssh)
		return 0;
	if (getpeername(c->ctl.fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_UNIX)
		return 1;
	if (ss.ss_family == AF_INET)
		return (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) == 127;
	if (ss.ss_family == AF_INET6) {
		const struct in6_addr *a = &((struct sockaddr_in6 *)&ss)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return 0;
}

int agent_client_in_clear(const struct agent_client *c)
{
	return !c->via_ssh && !agent_client_is_local(c);
}

int agent_client_can_tunnel(int e)
{
	return e == ECONNREFUSED || e == ETIMEDOUT || e == ENETUNREACH || e == EHOSTUNREACH;
}

/*
 * A connection to the agent through ssh: a tunnel of its own (a new SSH
 * session, so parallel streams each have their own connection and
 * cipher, as N `ssh -W` would). The control connection's tunnel is kept
 * in c->ctl_tunnel, a data connection's in c->data_tunnels (reaped once
 * its stream has ended, agent_client_receive_end). Returns the caller's
 * end of the tunnel or -1 (error set).
 */
static int tunnel_connect(struct agent_client *c, int control)
{
	/*
	 * raw_stream.c opens data connections from several threads at once: each
	 * tunnel is a session of its own, but the list they join is shared
	 */
	static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
	struct ssh_tunnel *t = calloc(1, sizeof(*t));
	unsigned long port = strtoul(c->port, NULL, 10);
	int fd, rc = 0;

	if (!t)
		return err_set("out of memory for an ssh tunnel");
	if (ssh_tunnel_open(t, &c->ssh, c->host, (unsigned)port, AGENT_CONNECT_TIMEOUT_MS, &fd) < 0) {
		free(t);
		return err_wrap("cannot reach the agent on %s through ssh", c->label);
	}
	if (control) {
		c->ctl_tunnel = t;
		return fd;
	}
	pthread_mutex_lock(&list_lock);
	if (c->ndata_tunnels == c->data_tunnels_cap) {
		size_t cap = c->data_tunnels_cap ? 2 * c->data_tunnels_cap : 8;
		struct ssh_tunnel **more = realloc(c->data_tunnels, cap * sizeof(*more));

		if (more) {
			c->data_tunnels = more;
			c->data_tunnels_cap = cap;
		} else {
			rc = -1;
		}
	}
	if (rc == 0)
		c->data_tunnels[c->ndata_tunnels++] = t;
	pthread_mutex_unlock(&list_lock);
	if (rc < 0) {
		close(fd);
		ssh_tunnel_close(t);
		free(t);
		return err_set("out of memory for an ssh tunnel");
	}
	return fd;
}

/* Ends the control connection's tunnel, if any (its fd closed first). */
static void drop_ctl_tunnel(struct agent_client *c)
{
	if (c->ctl_tunnel) {
		ssh_tunnel_close(c->ctl_tunnel);
		free(c->ctl_tunnel);
		c->ctl_tunnel = NULL;
	}
}

int agent_client_data_closed(struct agent_client *c)
{
	int rc = 0;

	for (size_t i = 0; i < c->ndata_tunnels; i++) {
		ssh_tunnel_close(c->data_tunnels[i]);
		if (c->data_tunnels[i]->pump.error[0] && rc == 0)
			rc = err_set("the ssh tunnel of data stream %zu stopped: %s", i,
				     c->data_tunnels[i]->pump.error);
		free(c->data_tunnels[i]);
	}
	c->ndata_tunnels = 0;
	return rc;
}

int tcp_connect(const char *host, const char *port, int timeout_ms)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
	const struct addrinfo *last = NULL;
	int rc = getaddrinfo(host, port, &hints, &res), fd = -1, e;
	unsigned tried = 0;
	char where[2 * NET_ADDR_TEXT_MAX + 300];

	if (rc != 0) {
		char hp[300];

		return err_set("cannot resolve '%s': %s", net_hostport_format(hp, sizeof(hp), host, port),
			       gai_strerror(rc));
	}
	for (ai = res; ai && fd < 0; ai = ai->ai_next, tried++) {
		last = ai;
		fd = connect_one(ai, timeout_ms);
	}
	if (fd < 0) {
		e = errno;
		name_tried(where, sizeof(where), host, last ? last->ai_addr : NULL, tried);
		if (e == ECONNREFUSED)
			err_set("cannot connect to %s: connection refused", where);
		else if (e == ETIMEDOUT)
			err_set("cannot connect to %s: no answer within %d s", where, timeout_ms / 1000);
		else
			err_set("cannot connect to %s: %s", where, strerror(e));
		errno = e;
	}
	freeaddrinfo(res);
	return fd;
}

/*
 * What to do when the agent's port cannot be reached at all, by the errno
 * of the last attempt: the agent runs (it said where it listens), so what
 * stands between is the path or a firewall on the host.
 */
static const char *unreachable_hint(int e)
{
#define OPEN_A_PORT "let this machine reach the host's TCP ports beside ssh's, or start the agent " \
		    "yourself on an open port (xfercmp serve --listen ADDR:PORT) and pass --agent ADDR:PORT"
	if (e == ECONNREFUSED)
		return "nothing listens there, or a firewall on the host rejects the port: " OPEN_A_PORT;
	if (e == ETIMEDOUT)
		return "the host does not answer on that port (a firewall drops it, or the host went down): "
		       OPEN_A_PORT;
	if (e == ENETUNREACH || e == EHOSTUNREACH || e == EADDRNOTAVAIL || e == EAFNOSUPPORT)
		return "this machine has no route to that address: check that both ends have an address "
		       "and a route in that family (IPv4 or IPv6)";
	return "check that the agent runs and this machine can reach that port";
#undef OPEN_A_PORT
}

json_object *agent_client_request(const char *op, uint64_t job)
{
	json_object *req = json_object_new_object();

	json_object_object_add(req, "op", json_object_new_string(op));
	if (job)
		json_object_object_add(req, "job", json_object_new_int64((int64_t)job));
	return req;
}

int agent_client_call_request(struct agent_client *c, json_object *req, json_object **reply)
{
	json_object *dropped = NULL;
	int rc = agent_client_call(c, req, reply ? reply : &dropped);

	json_object_put(req);
	json_object_put(dropped);
	return rc;
}

/*
 * The scratch root from the agent's "info": an absolute path with no empty,
 * "." or ".." part and no control character, since every destination is
 * made from it and handed to the host's shell and tools.
 */
static int take_root(struct agent_client *c)
{
	const char *root;
	char show[256];

	if (wire_get_str(c->info, "root", &root) < 0)
		return err_wrap("agent on %s", c->label);
	text_escape(show, sizeof(show), root);
	/* first, so that no other message prints the character itself */
	for (const char *p = root; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return err_set("agent on %s: protocol error: scratch root '%s' holds a control character",
				       c->label, show);
	if (root[0] != '/' || strlen(root) >= sizeof(c->root))
		return err_set("agent on %s: protocol error: scratch root '%s' is not an absolute path",
			       c->label, show);
	if (!strcmp(root, "/"))
		return err_set("agent on %s: protocol error: scratch root '/' is the whole file system",
			       c->label);
	for (const char *p = root; *p; p++)
		if (*p == '/' && (p[1] == '/' || p[1] == '\0' ||
				  (p[1] == '.' && (p[2] == '/' || p[2] == '\0' ||
						   (p[2] == '.' && (p[3] == '/' || p[3] == '\0'))))))
			return err_set("agent on %s: protocol error: scratch root '%s' is not a plain absolute path",
				       c->label, show);
	snprintf(c->root, sizeof(c->root), "%s", root);
	return 0;
}

/*
 * Connects and makes the handshake for role (job, stream), trying once more
 * when the agent closed or reset the connection before answering: its gate
 * may have been full of key holders' handshakes (agent_gate.h), which end
 * within its hello limit. Returns the
 * fd with *chan authenticated, or -1 (error set).
 */
static int connect_authenticated(struct agent_client *c, const char *role, uint64_t job,
				 uint64_t stream, struct wire_chan *chan)
{
	const struct timespec retry_after = { AGENT_GATE_RETRY_MS / 1000,
					      (AGENT_GATE_RETRY_MS % 1000 + 100) * 1000000L };

	for (int attempt = 0;; attempt++) {
		/* the control connection finds the agent; the others go where it went */
		int fd = c->via_ssh ? tunnel_connect(c, !job) :
			 tcp_connect(c->addr[0] ? c->addr : c->host, c->port, AGENT_CONNECT_TIMEOUT_MS);

		if (fd < 0 && !job && !c->via_ssh && c->ssh.target && agent_client_can_tunnel(errno)) {
			/* the agent runs (it said where it listens): its port is closed to us, ssh's is not */
			int e = errno;

			snprintf(c->direct_failed, sizeof(c->direct_failed), "%s", err_msg());
			c->via_ssh = 1;
			fd = tunnel_connect(c, 1);
			if (fd < 0) {
				struct err_saved why;

				err_save(&why);
				return err_set("%s; directly: %s; %s", why.msg, c->direct_failed,
					       unreachable_hint(e));
			}
		}
		if (fd < 0 && !job && !c->via_ssh) {
			int e = errno;
			struct err_saved why;

			err_save(&why);
			return err_set("%s; %s", why.msg, unreachable_hint(e));
		}
		if (fd < 0)
			return -1;
		if (wire_auth_client(fd, c->key, role, job, stream, AGENT_CONNECT_TIMEOUT_MS, chan) == 0)
			return fd;
		close(fd);
		if (!job)
			drop_ctl_tunnel(c);
		if (attempt > 0 || wire_last_fault() != WIRE_FAULT_CLOSED) {
			if (job)
				return err_wrap("agent on %s refused data connection %llu", c->label,
						(unsigned long long)stream);
			return err_wrap("agent on %s refused the connection", c->label);
		}
		nanosleep(&retry_after, NULL);
	}
}

/*
 * Every string of the agent's "info" escaped (text_escape.h) in place: its
 * host name, kernel or file system type reach the report and the terminal.
 * Returns 0.
 */
static int escape_info(struct agent_client *c)
{
	json_object_object_foreach(c->info, key, v) {
		char buf[512];

		if (!json_object_is_type(v, json_type_string) || !text_needs_escape(json_object_get_string(v)))
			continue;
		text_escape(buf, sizeof(buf), json_object_get_string(v));
		json_object_object_add(c->info, key, json_object_new_string(buf));
	}
	return 0;
}

int agent_client_connect(struct agent_client *c, const char *host, const char *port,
			 const char *token)
{
	return agent_client_connect_ssh(c, host, port, token, NULL, 0);
}

int agent_client_connect_ssh(struct agent_client *c, const char *host, const char *port,
			     const char *token, const struct ssh_conn_opts *ssh, int force)
{
	struct sockaddr_storage ss;
	socklen_t salen;
	int fd;

	memset(c, 0, sizeof(*c));
	wire_chan_init(&c->ctl, -1);
	snprintf(c->label, sizeof(c->label), "%s", host);
	snprintf(c->host, sizeof(c->host), "%s", host);
	snprintf(c->port, sizeof(c->port), "%s", port);
	if (ssh) {
		c->ssh = *ssh;
		c->via_ssh = force;
	}
	if (wire_key_from_token(token, c->key) < 0)
		return -1;
	fd = connect_authenticated(c, "control", 0, 0, &c->ctl);
	if (fd < 0)
		return -1;
	/*
	 * every later connection (data, probes) goes where this one went,
	 * whatever a name resolves to; through ssh, the host resolves it
	 */
	salen = sizeof(ss);
	if (c->via_ssh || getpeername(fd, (struct sockaddr *)&ss, &salen) < 0 ||
	    net_sockaddr_addr((struct sockaddr *)&ss, c->addr, sizeof(c->addr)) < 0)
		snprintf(c->addr, sizeof(c->addr), "%s", host);
	net_hostport_format(c->where, sizeof(c->where), c->addr, port);
	if (c->via_ssh && strlen(c->where) + sizeof(" through ssh") <= sizeof(c->where))
		strcat(c->where, " through ssh");
	if (agent_client_call_request(c, agent_client_request("info", 0), &c->info) < 0 || take_root(c) < 0 ||
	    escape_info(c) < 0) {
		close(c->ctl.fd);
		c->ctl.fd = -1;
		agent_client_close(c);
		return -1;
	}
	return 0;
}

/*
 * After a failed send or receive: when the connection itself failed, says so
 * in one line naming the host and the likely cause, and closes it so that
 * nothing else waits on it. Returns -1.
 */
static int connection_failed(struct agent_client *c)
{
	enum wire_fault f = wire_last_fault();

	if (f == WIRE_FAULT_NONE)
		return err_wrap("agent");
	close(c->ctl.fd);
	c->ctl.fd = -1;
	c->lost = 1;
	if (f == WIRE_FAULT_AUTH)
		err_wrap("stopped talking to the agent on %s (%s)", c->label, c->where);
	else if (f == WIRE_FAULT_TIMEOUT)
		err_set("lost the connection to the agent on %s (%s): no answer for %d s; the link or the host went down",
			c->label, c->where, NET_PEER_TIMEOUT_S);
	else if (f == WIRE_FAULT_CLOSED)
		err_set("lost the connection to the agent on %s (%s): the agent closed it; it exited or was killed there",
			c->label, c->where);
	else
		err_wrap("lost the connection to the agent on %s (%s)", c->label, c->where);
	err_save(&c->lost_why);
	return -1;
}

/* -1 (error set to how it was lost) when an earlier call lost the connection. */
static int check_alive(const struct agent_client *c)
{
	if (c->lost)
		return err_restore(&c->lost_why);
	if (c->ctl.fd < 0)
		return err_set("not connected to the agent on %s", c->label);
	return 0;
}

int agent_client_await(struct agent_client *c, json_object **reply)
{
	enum wire_type type;

	*reply = NULL;
	if (check_alive(c) < 0)
		return -1;
	if (wire_chan_recv_json(&c->ctl, -1, &type, reply) < 0)
		return connection_failed(c);
	if (type != WIRE_OK) {
		json_object_put(*reply);
		*reply = NULL;
		return err_set("agent: protocol error: expected a reply");
	}
	return 0;
}

int agent_client_call(struct agent_client *c, json_object *req, json_object **reply)
{
	*reply = NULL;
	if (check_alive(c) < 0)
		return -1;
	if (wire_chan_send_json(&c->ctl, WIRE_REQUEST, req) < 0)
		return connection_failed(c);
	return agent_client_await(c, reply);
}

int agent_client_send_manifest(struct agent_client *c, const struct manifest *m)
{
	char *buf;
	size_t len;
	json_object *reply = NULL;
	int rc;

	if (check_alive(c) < 0 || manifest_to_buffer(m, &buf, &len) < 0)
		return -1;
	c->have_manifest = wire_sha256(buf, len, c->manifest_sha256) == 0;
	/* the agent drops the keyed hashes of the manifest before */
	c->content_macs_sent = false;
	rc = c->have_manifest ? wire_chan_send_manifest(&c->ctl, buf, len) : -1;
	free(buf);
	if (!c->have_manifest)
		return -1;
	if (rc < 0)
		return connection_failed(c);
	rc = agent_client_await(c, &reply);
	json_object_put(reply);
	return rc;
}

void agent_client_set_source(struct agent_client *c, const char *src_root,
			     const struct manifest *m)
{
	if (c->src_root != src_root || c->src_manifest != m)
		c->content_macs_sent = false;
	c->src_root = src_root;
	c->src_manifest = m;
}

int agent_client_open_data(struct agent_client *c, uint64_t job, unsigned stream,
			   unsigned char key[WIRE_KEY_BYTES])
{
	struct wire_chan data = { .fd = -1 };
	int fd;

	if (check_alive(c) < 0)
		return -1;
	fd = connect_authenticated(c, "data", job, stream, &data);
	if (fd >= 0 && key)
		memcpy(key, data.send_key, WIRE_KEY_BYTES);
	wire_chan_wipe(&data);
	return fd;
}

int agent_client_close(struct agent_client *c)
{
	int rc = 0;

	if (c->ctl.fd >= 0) {
		/* the agent removes the destinations it kept before it answers */
		if (!c->bye_said && agent_client_call_request(c, agent_client_request("bye", 0), NULL) < 0 &&
		    !c->lost) {
			struct err_saved why;

			err_save(&why);
			/* the agent's own words name what failed; the command takes all of its root */
			rc = err_set("cleanup on %s failed: %s; remove what is left there with: chmod -R u+rwx '%s' && rm -rf '%s'",
				     c->label, why.msg, c->root, c->root);
		}
		close(c->ctl.fd);
		c->ctl.fd = -1;
	}
	wire_chan_wipe(&c->ctl);
	agent_client_data_closed(c);
	free(c->data_tunnels);
	c->data_tunnels = NULL;
	c->data_tunnels_cap = 0;
	drop_ctl_tunnel(c);
	explicit_bzero(c->key, sizeof(c->key));
	json_object_put(c->info);
	c->info = NULL;
	return rc;
}
