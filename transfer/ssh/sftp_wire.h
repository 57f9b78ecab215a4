#ifndef XFERCMP_SFTP_WIRE_H
#define XFERCMP_SFTP_WIRE_H

/*
 * The few SFTP version 3 messages the scp model sends and the replies it
 * reads (draft-ietf-secsh-filexfer-02, the version OpenSSH speaks), encoded
 * and parsed without I/O. A message on the wire is a uint32 length, then the
 * type byte, then (but for init and version) a uint32 request id, then the
 * fields; integers are big-endian, strings a uint32 length and the bytes.
 */

#include <stddef.h>
#include <stdint.h>

#define SFTP_PROTOCOL_VERSION 3

enum sftp_type {
	SFTP_INIT = 1,
	SFTP_VERSION = 2,
	SFTP_OPEN = 3,
	SFTP_CLOSE = 4,
	SFTP_WRITE = 6,
	SFTP_SETSTAT = 9,
	SFTP_FSETSTAT = 10,
	SFTP_MKDIR = 14,
	SFTP_STAT = 17,
	SFTP_STATUS = 101,
	SFTP_HANDLE = 102,
	SFTP_ATTRS = 105,
};

/* open flags (pflags) */
#define SFTP_OPEN_WRITE 0x02u
#define SFTP_OPEN_CREATE 0x08u

/* attribute flags */
#define SFTP_ATTR_SIZE 0x01u
#define SFTP_ATTR_UIDGID 0x02u
#define SFTP_ATTR_PERMISSIONS 0x04u
#define SFTP_ATTR_ACMODTIME 0x08u
#define SFTP_ATTR_EXTENDED 0x80000000u

/* status codes */
#define SFTP_OK 0u
#define SFTP_EOF 1u
#define SFTP_NO_SUCH_FILE 2u
#define SFTP_PERMISSION_DENIED 3u
#define SFTP_FAILURE 4u
#define SFTP_BAD_MESSAGE 5u
#define SFTP_OP_UNSUPPORTED 8u

/* A handle is at most 256 bytes (the draft's limit). */
#define SFTP_HANDLE_MAX 256

/* Bytes before a write's data: length, type, id, handle string, offset, data length. */
#define SFTP_WRITE_HEAD(handle_len) (4 + 1 + 4 + 4 + (handle_len) + 8 + 4)

/*
 * Each encoder writes one whole message (length prefix included) into out,
 * which holds cap bytes, and returns its length, or 0 when it does not fit.
 * sftp_encode_write writes only the head: the caller puts data_len bytes of
 * data right after it, so the data is never copied twice.
 */
size_t sftp_encode_init(uint8_t *out, size_t cap);
size_t sftp_encode_open(uint8_t *out, size_t cap, uint32_t id, const char *path, uint32_t pflags,
			uint32_t mode);
size_t sftp_encode_mkdir(uint8_t *out, size_t cap, uint32_t id, const char *path, uint32_t mode);
size_t sftp_encode_stat(uint8_t *out, size_t cap, uint32_t id, const char *path);
/* SETSTAT of path with the permissions only, as scp gives a directory its mode after its files. */
size_t sftp_encode_setstat_mode(uint8_t *out, size_t cap, uint32_t id, const char *path,
				uint32_t mode);
size_t sftp_encode_write(uint8_t *out, size_t cap, uint32_t id, const uint8_t *handle,
			 size_t handle_len, uint64_t offset, uint32_t data_len);
size_t sftp_encode_fsetstat_size(uint8_t *out, size_t cap, uint32_t id, const uint8_t *handle,
				 size_t handle_len, uint64_t size);
size_t sftp_encode_close(uint8_t *out, size_t cap, uint32_t id, const uint8_t *handle,
			 size_t handle_len);

/* A parsed reply. Pointers point into the message passed to sftp_parse_reply. */
struct sftp_reply {
	uint8_t type;
	uint32_t id;		/* 0 for SFTP_VERSION */
	uint32_t version;	/* SFTP_VERSION */
	uint32_t status;	/* SFTP_STATUS */
	const char *message;	/* SFTP_STATUS: not NUL-terminated */
	uint32_t message_len;
	const uint8_t *handle;	/* SFTP_HANDLE */
	uint32_t handle_len;
	uint32_t attr_flags;	/* SFTP_ATTRS */
	uint64_t size;		/* SFTP_ATTRS with SFTP_ATTR_SIZE */
	uint32_t permissions;	/* SFTP_ATTRS with SFTP_ATTR_PERMISSIONS */
};

/*
 * Parses one message's body (what follows its length prefix, len bytes).
 * Knows version, status, handle and attrs; any other type, a field that runs
 * past the end or a handle over SFTP_HANDLE_MAX is an error naming it.
 * Returns 0 or -1 (error set).
 */
int sftp_parse_reply(const uint8_t *body, size_t len, struct sftp_reply *r);

/* The draft's name for a status code ("no such file"), or NULL for one it does not name. */
const char *sftp_status_name(uint32_t status);

#endif
