/*
 * Encoding and parsing of SFTP v3 messages (sftp_wire.h). The encoders
 * share one cursor that stops writing once a field would not fit, so each
 * encoder is a list of fields and one check at the end.
 */
#include "ssh/sftp_wire.h"

#include "err.h"

#include <string.h>

struct cursor {
	uint8_t *out;
	size_t cap, len;
	int full;		/* a field did not fit: the message is not usable */
};

static void put_bytes(struct cursor *c, const void *p, size_t n)
{
	if (c->full || n > c->cap - c->len) {
		c->full = 1;
		return;
	}
	memcpy(c->out + c->len, p, n);
	c->len += n;
}

static void put_u8(struct cursor *c, uint8_t v)
{
	put_bytes(c, &v, 1);
}

static void put_u32(struct cursor *c, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };

	put_bytes(c, b, sizeof(b));
}

static void put_u64(struct cursor *c, uint64_t v)
{
	put_u32(c, (uint32_t)(v >> 32));
	put_u32(c, (uint32_t)v);
}

static void put_string(struct cursor *c, const void *p, size_t n)
{
	if (n > UINT32_MAX) {
		c->full = 1;
		return;
	}
	put_u32(c, (uint32_t)n);
	put_bytes(c, p, n);
}

/* Starts a request: room for the length, then type and id. */
static struct cursor start(uint8_t *out, size_t cap, uint8_t type, uint32_t id)
{
	struct cursor c = { .out = out, .cap = cap };

	put_u32(&c, 0);
	put_u8(&c, type);
	put_u32(&c, id);
	return c;
}

/* Fills in the length; extra is what the caller will append (a write's data). */
static size_t finish(struct cursor *c, size_t extra)
{
	size_t body;

	if (c->full || c->len < 4)
		return 0;
	body = c->len - 4 + extra;
	if (body > UINT32_MAX)
		return 0;
	c->out[0] = (uint8_t)(body >> 24);
	c->out[1] = (uint8_t)(body >> 16);
	c->out[2] = (uint8_t)(body >> 8);
	c->out[3] = (uint8_t)body;
	return c->len;
}

size_t sftp_encode_init(uint8_t *out, size_t cap)
{
	struct cursor c = { .out = out, .cap = cap };

	put_u32(&c, 0);
	put_u8(&c, SFTP_INIT);
	put_u32(&c, SFTP_PROTOCOL_VERSION);
	return finish(&c, 0);
}

size_t sftp_encode_open(uint8_t *out, size_t cap, uint32_t id, const char *path, uint32_t pflags,
			uint32_t mode)
{
	struct cursor c = start(out, cap, SFTP_OPEN, id);

	put_string(&c, path, strlen(path));
	put_u32(&c, pflags);
	put_u32(&c, SFTP_ATTR_PERMISSIONS);
	put_u32(&c, mode);
	return finish(&c, 0);
}

/* A request of a path and attributes holding only the permissions (mkdir, setstat). */
static size_t path_with_mode(uint8_t *out, size_t cap, uint8_t type, uint32_t id, const char *path,
			     uint32_t mode)
{
	struct cursor c = start(out, cap, type, id);

	put_string(&c, path, strlen(path));
	put_u32(&c, SFTP_ATTR_PERMISSIONS);
	put_u32(&c, mode);
	return finish(&c, 0);
}

size_t sftp_encode_mkdir(uint8_t *out, size_t cap, uint32_t id, const char *path, uint32_t mode)
{
	return path_with_mode(out, cap, SFTP_MKDIR, id, path, mode);
}

size_t sftp_encode_setstat_mode(uint8_t *out, size_t cap, uint32_t id, const char *path,
				uint32_t mode)
{
	return path_with_mode(out, cap, SFTP_SETSTAT, id, path, mode);
}

size_t sftp_encode_stat(uint8_t *out, size_t cap, uint32_t id, const char *path)
{
	struct cursor c = start(out, cap, SFTP_STAT, id);

	put_string(&c, path, strlen(path));
	return finish(&c, 0);
}

size_t sftp_encode_write(uint8_t *out, size_t cap, uint32_t id, const uint8_t *handle,
			 size_t handle_len, uint64_t offset, uint32_t data_len)
{
	struct cursor c = start(out, cap, SFTP_WRITE, id);

	put_string(&c, handle, handle_len);
	put_u64(&c, offset);
	put_u32(&c, data_len);
	return finish(&c, data_len);
}

size_t sftp_encode_fsetstat_size(uint8_t *out, size_t cap, uint32_t id, const uint8_t *handle,
				 size_t handle_len, uint64_t size)
{
	struct cursor c = start(out, cap, SFTP_FSETSTAT, id);

	put_string(&c, handle, handle_len);
	put_u32(&c, SFTP_ATTR_SIZE);
	put_u64(&c, size);
	return finish(&c, 0);
}

size_t sftp_encode_close(uint8_t *out, size_t cap, uint32_t id, const uint8_t *handle,
			 size_t handle_len)
{
	struct cursor c = start(out, cap, SFTP_CLOSE, id);

	put_string(&c, handle, handle_len);
	return finish(&c, 0);
}

struct reader {
	const uint8_t *p;
	size_t left;
	int bad;		/* a field ran past the end */
};

static uint32_t get_u32(struct reader *r)
{
	uint32_t v;

	if (r->bad || r->left < 4) {
		r->bad = 1;
		return 0;
	}
	v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 | r->p[3];
	r->p += 4;
	r->left -= 4;
	return v;
}

static uint64_t get_u64(struct reader *r)
{
	uint64_t hi = get_u32(r);

	return hi << 32 | get_u32(r);
}

/* A string's bytes (in place); *len is set. NULL when it runs past the end. */
static const uint8_t *get_string(struct reader *r, uint32_t *len)
{
	const uint8_t *s;

	*len = get_u32(r);
	if (r->bad || *len > r->left) {
		r->bad = 1;
		*len = 0;
		return NULL;
	}
	s = r->p;
	r->p += *len;
	r->left -= *len;
	return s;
}

static void parse_attrs(struct reader *rd, struct sftp_reply *r)
{
	uint32_t n;

	r->attr_flags = get_u32(rd);
	if (r->attr_flags & SFTP_ATTR_SIZE)
		r->size = get_u64(rd);
	if (r->attr_flags & SFTP_ATTR_UIDGID) {
		get_u32(rd);
		get_u32(rd);
	}
	if (r->attr_flags & SFTP_ATTR_PERMISSIONS)
		r->permissions = get_u32(rd);
	if (r->attr_flags & SFTP_ATTR_ACMODTIME) {
		get_u32(rd);
		get_u32(rd);
	}
	if (r->attr_flags & SFTP_ATTR_EXTENDED) {
		uint32_t count = get_u32(rd);

		for (uint32_t i = 0; i < count && !rd->bad; i++) {
			get_string(rd, &n);
			get_string(rd, &n);
		}
	}
}

int sftp_parse_reply(const uint8_t *body, size_t len, struct sftp_reply *r)
{
	struct reader rd = { .p = body, .left = len };

	memset(r, 0, sizeof(*r));
	if (len < 1)
		return err_set("sftp: empty message from the server");
	r->type = body[0];
	rd.p++;
	rd.left--;
	switch (r->type) {
	case SFTP_VERSION:
		/* the extensions that follow are not used */
		r->version = get_u32(&rd);
		break;
	case SFTP_STATUS:
		r->id = get_u32(&rd);
		r->status = get_u32(&rd);
		/* version 3 adds a message and a language tag; older servers send neither */
		if (!rd.bad && rd.left > 0)
			r->message = (const char *)get_string(&rd, &r->message_len);
		break;
	case SFTP_HANDLE:
		r->id = get_u32(&rd);
		r->handle = get_string(&rd, &r->handle_len);
		if (!rd.bad && (r->handle_len == 0 || r->handle_len > SFTP_HANDLE_MAX))
			return err_set("sftp: the server sent a handle of %u bytes (1 to %d allowed)",
				       r->handle_len, SFTP_HANDLE_MAX);
		break;
	case SFTP_ATTRS:
		r->id = get_u32(&rd);
		parse_attrs(&rd, r);
		break;
	default:
		return err_set("sftp: unexpected message type %u from the server", r->type);
	}
	if (rd.bad)
		return err_set("sftp: message type %u from the server is cut short (%zu bytes)",
			       r->type, len);
	return 0;
}

const char *sftp_status_name(uint32_t status)
{
	static const char *const names[] = {
		"ok", "end of file", "no such file", "permission denied", "failure",
		"bad message", "no connection", "connection lost", "operation unsupported",
	};

	return status < sizeof(names) / sizeof(names[0]) ? names[status] : NULL;
}
