#define _GNU_SOURCE
#include "stream/wire.h"
#include "stream/seal.h"
#include "stream/wire_auth.h"

#include "err.h"
#include "fsutil.h"
#include "netutil.h"
#include "text_escape.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

static _Thread_local enum wire_fault last_fault;

enum wire_fault wire_last_fault(void)
{
	return last_fault;
}

/* Records why the connection failed (from errno, read first) and sets the error. */
static int conn_errno(const char *what)
{
	int e = errno;

	last_fault = net_errno_is_timeout(e) ? WIRE_FAULT_TIMEOUT
		     : e == ECONNRESET || e == EPIPE ? WIRE_FAULT_CLOSED : WIRE_FAULT_IO;
	errno = e;
	return err_errno("%s", what);
}

static uint32_t max_payload(enum wire_type type)
{
	return type == WIRE_MANIFEST ? WIRE_MAX_FRAME : WIRE_MAX_JSON;
}

int wire_header_decode(const unsigned char h[WIRE_HEADER], enum wire_type *type, uint32_t *len)
{
	uint32_t n = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];

	if (h[4] < WIRE_HELLO || h[4] > WIRE_TYPE_LAST)
		return err_set("protocol error: unknown message type %u", h[4]);
	if (h[5] & ~(WIRE_FLAG_SEALED | WIRE_FLAG_MORE))
		return err_set("protocol error: unknown header flags 0x%02x", h[5]);
	if ((h[5] & WIRE_FLAG_MORE) && h[4] != WIRE_MANIFEST)
		return err_set("protocol error: a message of type %u said more follows", h[4]);
	if (h[6] || h[7])
		return err_set("protocol error: reserved header bytes not zero");
	*type = (enum wire_type)h[4];
	if (n > max_payload(*type))
		return err_set("protocol error: message of %u bytes exceeds the limit of %u", n,
			       max_payload(*type));
	*len = n;
	return 0;
}

int wire_header_flags(const unsigned char h[WIRE_HEADER])
{
	return h[5];
}

void wire_chan_init(struct wire_chan *c, int fd)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
}

void wire_chan_wipe(struct wire_chan *c)
{
	int fd = c->fd;

	explicit_bzero(c, sizeof(*c));
	c->fd = fd;
}

static int send_all(int fd, const void *buf, size_t len, int more)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = send(fd, (const char *)buf + done, len - done,
				 MSG_NOSIGNAL | (more ? MSG_MORE : 0));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return conn_errno("cannot send to peer");
		}
		done += (size_t)n;
	}
	return 0;
}

/*
 * One frame; with c authenticated, sealed with its send key and number.
 * flags: WIRE_FLAG_MORE or 0. The payload is copied to be encrypted.
 */
static int frame_send(int fd, struct wire_chan *c, enum wire_type type, const void *payload,
		      size_t len, int flags)
{
	unsigned char h[WIRE_HEADER] = { 0 }, tag[SEAL_TAG_BYTES], *sealed = NULL;
	int authed = c && c->authenticated, rc = 0;

	last_fault = WIRE_FAULT_NONE;
	if (len > max_payload(type))
		return err_set("message of %zu bytes too large to send", len);
	h[0] = (unsigned char)(len >> 24);
	h[1] = (unsigned char)(len >> 16);
	h[2] = (unsigned char)(len >> 8);
	h[3] = (unsigned char)len;
	h[4] = (unsigned char)type;
	h[5] = (unsigned char)((authed ? WIRE_FLAG_SEALED : 0) | flags);
	if (authed) {
		struct seal s;

		sealed = malloc(len ? len : 1);
		if (!sealed)
			return err_set("out of memory sealing a %zu-byte message", len);
		if (len)
			memcpy(sealed, payload, len);
		rc = seal_init(&s, c->send_key);
		if (rc == 0)
			rc = seal_encrypt(&s, c->send_seq, h, sizeof(h), sealed, len, tag);
		seal_release(&s);
		payload = sealed;
	}
	if (rc == 0 && (send_all(fd, h, sizeof(h), len || authed) < 0 ||
			(len && send_all(fd, payload, len, authed) < 0) ||
			(authed && send_all(fd, tag, sizeof(tag), 0) < 0)))
		rc = -1;
	free(sealed);
	if (rc == 0 && authed)
		c->send_seq++;
	return rc;
}

int wire_send(int fd, enum wire_type type, const void *payload, size_t len)
{
	return frame_send(fd, NULL, type, payload, len, 0);
}

int wire_chan_send(struct wire_chan *c, enum wire_type type, const void *payload, size_t len)
{
	return frame_send(c->fd, c, type, payload, len, 0);
}

int wire_chan_send_manifest(struct wire_chan *c, const void *text, size_t len)
{
	size_t done = 0;

	if (len > WIRE_MAX_MANIFEST)
		return err_set("a manifest of %zu bytes is over the limit of %u MiB", len,
			       WIRE_MAX_MANIFEST >> 20);
	do {
		size_t now = len - done < WIRE_MAX_FRAME ? len - done : WIRE_MAX_FRAME;

		if (wire_chan_send_manifest_piece(c, (const char *)text + done, now, done + now < len) < 0)
			return -1;
		done += now;
	} while (done < len);
	return 0;
}

int wire_chan_send_manifest_piece(struct wire_chan *c, const void *piece, size_t len, int more)
{
	return frame_send(c->fd, c, WIRE_MANIFEST, piece, len, more ? WIRE_FLAG_MORE : 0);
}

int wire_chan_send_json(struct wire_chan *c, enum wire_type type, json_object *o)
{
	size_t len;
	const char *text = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN, &len);

	return wire_chan_send(c, type, text, len);
}

int wire_chan_send_error(struct wire_chan *c, const char *msg)
{
	json_object *o = json_object_new_object();
	int rc;

	json_object_object_add(o, "error", json_object_new_string(msg));
	rc = wire_chan_send_json(c, WIRE_ERROR, o);
	json_object_put(o);
	return rc;
}

int wire_send_json(int fd, enum wire_type type, json_object *o)
{
	struct wire_chan plain;

	wire_chan_init(&plain, fd);
	return wire_chan_send_json(&plain, type, o);
}

int wire_send_error(int fd, const char *msg)
{
	struct wire_chan plain;

	wire_chan_init(&plain, fd);
	return wire_chan_send_error(&plain, msg);
}

/* Reads exactly len bytes, each wait bounded by timeout_ms. */
static int read_exact(int fd, void *buf, size_t len, int timeout_ms, int *eof_at_start)
{
	size_t got = 0;

	*eof_at_start = 0;
	while (got < len) {
		ssize_t n;

		if (timeout_ms >= 0) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			int r = poll(&p, 1, timeout_ms);

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				return conn_errno("cannot wait for peer");
			if (r == 0) {
				last_fault = WIRE_FAULT_TIMEOUT;
				return err_set("peer sent nothing for %d ms", timeout_ms);
			}
		}
		n = read(fd, (char *)buf + got, len - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return conn_errno("cannot read from peer");
		}
		if (n == 0) {
			last_fault = WIRE_FAULT_CLOSED;
			*eof_at_start = got == 0;
			return err_set(got ? "connection closed in the middle of a message"
					   : "connection closed");
		}
		got += (size_t)n;
	}
	return 0;
}

/* Reads len (<= WIRE_MAX_FRAME) payload bytes into *out (malloc'd, NUL-terminated). */
static int read_payload(int fd, uint32_t len, int timeout_ms, char **out)
{
	char *buf = malloc((size_t)len + 1);
	int eof;

	*out = NULL;
	if (!buf)
		return err_set("out of memory for a %u-byte message", len);
	if (read_exact(fd, buf, len, timeout_ms, &eof) < 0) {
		if (eof && len)
			err_set("connection closed in the middle of a message");
		free(buf);
		return -1;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/* 1 when this end of an authenticated channel ever receives type. */
static int type_expected(const struct wire_chan *c, enum wire_type type)
{
	if (c->is_agent)
		return type == WIRE_REQUEST || type == WIRE_MANIFEST;
	return type == WIRE_OK || type == WIRE_ERROR;
}

/* Fails the connection for a frame that is not authenticated as it must be. */
static int auth_failed(const struct wire_chan *c, const char *why)
{
	last_fault = WIRE_FAULT_AUTH;
	return err_set("protocol error: message %llu from the peer %s (altered, replayed, reordered or injected on the way)",
		       (unsigned long long)c->recv_seq, why);
}

static int frame_recv(int fd, struct wire_chan *c, int timeout_ms, enum wire_type *type,
		      char **payload, uint32_t *len)
{
	unsigned char h[WIRE_HEADER], tag[SEAL_TAG_BYTES];
	int eof, authed = c && c->authenticated, rc;
	char *buf = NULL;
	struct seal s;

	*payload = NULL;
	last_fault = WIRE_FAULT_NONE;
	if (read_exact(fd, h, sizeof(h), timeout_ms, &eof) < 0)
		return -1;
	if (wire_header_decode(h, type, len) < 0)
		return -1;
	if (!authed && (h[5] & WIRE_FLAG_SEALED))
		return err_set("protocol error: a sealed message before the handshake");
	if (authed && !(h[5] & WIRE_FLAG_SEALED))
		return auth_failed(c, "is not sealed");
	/* refused by its header: nothing of a frame this end never takes is read */
	if (authed && !type_expected(c, *type))
		return auth_failed(c, "is of a type never sent this way");
	if (read_payload(fd, *len, timeout_ms, &buf) < 0)
		return -1;
	if (!authed) {
		*payload = buf;
		return 0;
	}
	if (read_exact(fd, tag, sizeof(tag), timeout_ms, &eof) < 0) {
		if (eof)
			err_set("connection closed in the middle of a message");
		free(buf);
		return -1;
	}
	rc = seal_init(&s, c->recv_key);
	if (rc == 0 && seal_decrypt(&s, c->recv_seq, h, sizeof(h), (unsigned char *)buf, *len, tag) < 0)
		rc = auth_failed(c, "failed its integrity check");
	seal_release(&s);
	if (rc < 0) {
		free(buf);
		return -1;
	}
	c->recv_seq++;
	c->more = !!(h[5] & WIRE_FLAG_MORE);
	*payload = buf;
	return 0;
}

int wire_recv(int fd, int timeout_ms, enum wire_type *type, char **payload, uint32_t *len)
{
	return frame_recv(fd, NULL, timeout_ms, type, payload, len);
}

int wire_chan_recv(struct wire_chan *c, int timeout_ms, enum wire_type *type, char **payload,
		   uint32_t *len)
{
	return frame_recv(c->fd, c, timeout_ms, type, payload, len);
}

int wire_parse_json(const char *payload, uint32_t len, json_object **o)
{
	json_tokener *tok = json_tokener_new();
	json_object *obj;

	if (!tok)
		return err_set("out of memory parsing a message");
	obj = json_tokener_parse_ex(tok, payload, (int)len);
	if (!obj || json_tokener_get_error(tok) != json_tokener_success ||
	    (size_t)json_tokener_get_parse_end(tok) != len || !json_object_is_type(obj, json_type_object)) {
		json_object_put(obj);
		json_tokener_free(tok);
		return err_set("protocol error: message is not a JSON object");
	}
	json_tokener_free(tok);
	*o = obj;
	return 0;
}

/* A JSON frame from payload (consumed); an ERROR frame becomes -1 with its message. */
static int json_frame(enum wire_type type, char *payload, uint32_t len, json_object **o)
{
	int rc;

	if (type == WIRE_MANIFEST) {
		free(payload);
		return err_set("protocol error: unexpected manifest message");
	}
	rc = wire_parse_json(payload, len, o);
	free(payload);
	if (rc < 0)
		return -1;
	if (type == WIRE_ERROR) {
		json_object *e;
		const char *msg = json_object_object_get_ex(*o, "error", &e) ? json_object_get_string(e)
									       : "unspecified error";
		char shown[ERR_MAX];

		/* the peer's words: shown as text, never as the terminal's commands */
		text_escape(shown, sizeof(shown), msg);
		err_set("%s", shown);
		json_object_put(*o);
		*o = NULL;
		return -1;
	}
	return 0;
}

int wire_recv_json(int fd, int timeout_ms, enum wire_type *type, json_object **o)
{
	char *payload;
	uint32_t len;

	*o = NULL;
	if (wire_recv(fd, timeout_ms, type, &payload, &len) < 0)
		return -1;
	return json_frame(*type, payload, len, o);
}

int wire_chan_recv_json(struct wire_chan *c, int timeout_ms, enum wire_type *type, json_object **o)
{
	char *payload;
	uint32_t len;

	*o = NULL;
	if (wire_chan_recv(c, timeout_ms, type, &payload, &len) < 0)
		return -1;
	return json_frame(*type, payload, len, o);
}

int wire_get_u64(json_object *o, const char *key, uint64_t *out)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return err_set("protocol error: field '%s' missing or not a number", key);
	if (json_object_get_int64(v) < 0)
		return err_set("protocol error: field '%s' is negative", key);
	*out = json_object_get_uint64(v);
	return 0;
}

int wire_get_str(json_object *o, const char *key, const char **out)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return err_set("protocol error: field '%s' missing or not a string", key);
	*out = json_object_get_string(v);
	return 0;
}

int wire_token_generate(char out[WIRE_TOKEN_HEX + 1])
{
	unsigned char raw[WIRE_TOKEN_HEX / 2];
	static const char hex[] = "0123456789abcdef";

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return err_errno("cannot make a session token");
	for (size_t i = 0; i < sizeof(raw); i++) {
		out[2 * i] = hex[raw[i] >> 4];
		out[2 * i + 1] = hex[raw[i] & 15];
	}
	out[WIRE_TOKEN_HEX] = '\0';
	return 0;
}

int wire_token_valid(const char *token)
{
	size_t i;

	for (i = 0; token[i]; i++)
		if (!((token[i] >= '0' && token[i] <= '9') || (token[i] >= 'a' && token[i] <= 'f')))
			return 0;
	return i == WIRE_TOKEN_HEX;
}

int wire_token_equal(const char *a, const char *b)
{
	unsigned char diff = 0;
	size_t la = strnlen(a, WIRE_TOKEN_HEX + 1), lb = strnlen(b, WIRE_TOKEN_HEX + 1);

	if (la != WIRE_TOKEN_HEX || lb != WIRE_TOKEN_HEX)
		return 0;
	for (size_t i = 0; i < WIRE_TOKEN_HEX; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}
