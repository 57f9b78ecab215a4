#ifndef XFERCMP_AGENT_CLIENT_H
#define XFERCMP_AGENT_CLIENT_H

/* The client's side of the agent's control protocol (wire.h). */

#include "err.h"
#include "manifest.h"
#include "stream/wire.h"

#include <stdint.h>

struct agent_client {
	int fd;			/* -1 once the connection is lost */
	int lost;		/* the connection failed: every later call fails at once */
	char label[256];	/* the host as the user named it, for messages (default: host) */
	char host[256];
	char port[16];
	char token[WIRE_TOKEN_HEX + 1];
	json_object *info;	/* the agent's answer to "info" */
	char lost_why[ERR_MAX];	/* how the connection was lost, repeated by later calls */
};

#define AGENT_CONNECT_TIMEOUT_MS 10000

/* Connects to host:port and says hello with token. Returns 0 or -1 (error set). */
int agent_client_connect(struct agent_client *c, const char *host, const char *port,
			 const char *token);

/*
 * Sends a request; *reply (owned by the caller) is the OK object. -1 (error set) on ERROR.
 * When the connection itself fails (the agent died, the link or the host went
 * down), the error says "lost the connection to the agent on LABEL ..." with
 * the cause, the connection is closed and every later call fails at once.
 */
int agent_client_call(struct agent_client *c, json_object *req, json_object **reply);

/* A request with only "op" and, if job is non-zero, "job". */
int agent_client_simple(struct agent_client *c, const char *op, uint64_t job, json_object **reply);

/* Waits for the reply that ends a receive. */
int agent_client_await(struct agent_client *c, json_object **reply);

int agent_client_send_manifest(struct agent_client *c, const struct manifest *m);

/* Opens data connection `stream` of job; returns the fd or -1 (error set). */
int agent_client_open_data(struct agent_client *c, uint64_t job, unsigned stream);

/* Says bye and closes. */
void agent_client_close(struct agent_client *c);

/* A TCP connection with a bounded connect time; returns the fd or -1 (error set). */
int tcp_connect(const char *host, const char *port, int timeout_ms);

#endif
