/*
 * libFuzzer target: the agent's request handling (agent/agent_session.c)
 * on an authenticated control connection, as a key holder could drive it:
 * the input is a sequence of frames, separated by a byte 0x1e, each
 * sealed with the client's key and sent in order, then the connection
 * ends; the session runs them in a scratch root of its own made in the
 * jail. A frame's first byte chooses: 'R' a REQUEST (the rest, JSON), 'M'
 * a piece of a manifest with more to come, 'm' its last piece, anything
 * else a REQUEST of the whole. Requests that wait by design (receive: 30 s
 * for data connections; the disk and create probes: their budgets) are
 * left out. Beyond the sanitizers: the session ends when the connection
 * does, nothing is left outside the scratch root and nothing inside it
 * once it is removed, no fd stays open.
 */
#define _GNU_SOURCE
#include "agent/agent.h"
#include "agent/agent_root.h"
#include "err.h"
#include "harness.h"
#include "stream/wire.h"
#include "stream/wire_auth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char key[WIRE_KEY_BYTES];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	harness_jail_init("session");
	harness_session_key(key);
	return 0;
}

/* 1 for a request left out: one that waits by design. */
static int waits(const uint8_t *p, size_t n)
{
	static const char *const slow[] = { "receive", "probe_disk", "probe_create" };
	json_object *o = NULL;
	const char *op;
	int skip = 0;

	if (wire_parse_json((const char *)p, (uint32_t)n, &o) < 0)
		return 0;
	if (wire_get_str(o, "op", &op) == 0)
		for (size_t i = 0; i < sizeof(slow) / sizeof(slow[0]); i++)
			skip |= !strcmp(op, slow[i]);
	json_object_put(o);
	return skip;
}

/* Sends the input's frames on the client's end. */
static void send_frames(struct wire_chan *client, const uint8_t *data, size_t size)
{
	while (size > 0) {
		const uint8_t *sep = memchr(data, 0x1e, size);
		size_t n = sep ? (size_t)(sep - data) : size;

		if (n > 0 && (data[0] == 'M' || data[0] == 'm')) {
			/* a manifest's piece: as wire_chan_send_manifest sends it */
			if (n - 1 <= WIRE_MAX_FRAME)
				wire_chan_send_manifest_piece(client, data + 1, n - 1, data[0] == 'M');
		} else if (n > 0) {
			const uint8_t *p = data[0] == 'R' ? data + 1 : data;
			size_t len = data[0] == 'R' ? n - 1 : n;

			if (len <= WIRE_MAX_JSON && !waits(p, len))
				wire_chan_send(client, WIRE_REQUEST, p, len);
		}
		data += n + (sep ? 1 : 0);
		size -= n + (sep ? 1 : 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_binding b = { .role = "control" };
	struct agent_session *s = calloc(1, sizeof(*s));
	struct agent_root root;
	struct wire_chan client;
	char dest[HARNESS_DEST_MAX];
	int fds = harness_count_fds(), sv[2], big = 8 << 20;

	if (!s)
		abort();
	harness_dest_make(dest);
	if (agent_root_make(&root, dest, "00112233445566778899aabbccddeeff") < 0) {
		fprintf(stderr, "harness: cannot make a scratch root in '%s'\n", dest);
		abort();
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	for (int i = 0; i < 2; i++)
		if (setsockopt(sv[i], SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)) < 0)
			setsockopt(sv[i], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	memset(b.client_nonce, 5, sizeof(b.client_nonce));
	wire_chan_init(&s->ctl, sv[0]);
	wire_chan_init(&client, sv[1]);
	if (wire_chan_authenticate(&s->ctl, key, &b, 1) < 0 || wire_chan_authenticate(&client, key, &b, 0) < 0)
		abort();
	memcpy(s->key, key, sizeof(key));
	s->listen_fd = -1;
	s->root = root.path;
	s->scratch = &root;
	s->session_idle_s = 1;
	send_frames(&client, data, size);
	shutdown(sv[1], SHUT_WR);
	agent_session_run(s);
	close(sv[0]);
	close(sv[1]);
	if (agent_root_remove_all(&root) < 0) {
		fprintf(stderr, "INVARIANT VIOLATED: the session's scratch root could not be removed: %s\n",
			err_msg());
		abort();
	}
	explicit_bzero(s, sizeof(*s));
	free(s);
	harness_dest_check(dest, fds);
	return 0;
}
