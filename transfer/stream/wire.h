#ifndef XFERCMP_WIRE_H
#define XFERCMP_WIRE_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The agent's control protocol. Every message is a frame: an 8-byte header
 * (4-byte big-endian payload length, 1-byte type, 1-byte flags, 2 zero
 * bytes) and a payload. On an authenticated connection (WIRE_FLAG_SEALED)
 * the payload is encrypted with ChaCha20-Poly1305 (seal.h), the header its
 * associated data, and its 16-byte tag follows it: nothing but the header
 * (a length and a type) is readable on the wire. WIRE_HELLO, WIRE_REQUEST,
 * WIRE_OK, WIRE_ERROR and WIRE_AUTH carry one JSON object; WIRE_MANIFEST
 * carries a piece of a manifest's text, at most WIRE_MAX_FRAME bytes, with
 * WIRE_FLAG_MORE on every piece but the last, so no frame's payload is
 * larger than 1 MiB and each is authenticated before the next is read.
 *
 * A session: the client opens it with the handshake of wire_auth.h (HELLO
 * {"proto":N,"role":"control","nonce":...,"tag":...}, the agent's proof, the
 * client's AUTH) which proves both ends hold the session key; from then on
 * every frame in either direction is sealed and numbered. The client sends
 * REQUEST {"op":...} frames (and a manifest's MANIFEST frames), each request
 * and each whole manifest answered by exactly one OK or ERROR; a frame of a
 * type its direction never carries (an OK to the agent, a REQUEST to the
 * client) is refused by its header, before its payload is read. A data
 * connection makes the same handshake with "role":"data","job":J,
 * "stream":S, then carries a stream (the record format of frames.h, or a
 * tar stream) in authenticated segments (seal_stream.h) and nothing else,
 * but a large record's content, raw after its segment (frames.h), which
 * the "content_macs" request vouches for at verify (agent.h).
 */

/*
 * 6: a large record's content raw between segments, "content_macs"; 5: data
 * connections in tagged segments (seal_stream.h); 4: control frames
 * encrypted (ChaCha20-Poly1305), a manifest in pieces of at most 1 MiB; 3:
 * the hello carries a keyed tag (wire_auth.h); 2 had HMAC'd frames in
 * clear. Both ends of a session are one build (the agent is uploaded from
 * the client's own), so any change of a frame, of a stream's format or of
 * the handshake bumps it.
 */
#define WIRE_PROTO 6
#define WIRE_HEADER 8
#define WIRE_MAX_JSON (64u * 1024)
#define WIRE_MAX_FRAME (1u << 20)	/* a MANIFEST frame's payload */
#define WIRE_MAX_MANIFEST (512u * 1024 * 1024)	/* a whole manifest, all its frames */
#define WIRE_TOKEN_HEX 64
#define WIRE_KEY_BYTES 32
#define WIRE_MAC_BYTES 32	/* HMAC-SHA256: the handshake's proofs (wire_auth.h) */
/* header byte 5: the payload is sealed, its tag follows it (seal.h) */
#define WIRE_FLAG_SEALED 1
/* header byte 5, MANIFEST only: more of the manifest follows in the next frame */
#define WIRE_FLAG_MORE 2

enum wire_type {
	WIRE_HELLO = 1,
	WIRE_REQUEST = 2,
	WIRE_OK = 3,
	WIRE_ERROR = 4,
	WIRE_MANIFEST = 5,
	WIRE_AUTH = 6,
	WIRE_TYPE_LAST = WIRE_AUTH,
};

/*
 * One end of a connection's frames. Plain (authenticated == 0) until the
 * handshake of wire_auth.h makes it authenticated; then every frame sent is
 * sealed with send_key and number send_seq, and every frame received must
 * open with recv_key and recv_seq, each counting up by one a frame. is_agent:
 * which end this is, so that a frame of a type this end never receives is
 * refused by its header. more: the WIRE_FLAG_MORE of the last frame received.
 */
struct wire_chan {
	int fd;
	int authenticated, is_agent, more;
	unsigned char send_key[WIRE_KEY_BYTES], recv_key[WIRE_KEY_BYTES];
	uint64_t send_seq, recv_seq;
};

/* Resets c to a plain channel on fd. */
void wire_chan_init(struct wire_chan *c, int fd);

/* Wipes c's keys (explicit_bzero) and makes it plain again; its fd is left as it is. */
void wire_chan_wipe(struct wire_chan *c);

/*
 * Checks a header: known type, known flags, zero padding, length within that
 * type's bound. Pure. wire_header_flags: the flags of a decoded header.
 */
int wire_header_decode(const unsigned char h[WIRE_HEADER], enum wire_type *type, uint32_t *len);
int wire_header_flags(const unsigned char h[WIRE_HEADER]);

/* Sends one frame; returns 0 or -1 (error set). */
int wire_send(int fd, enum wire_type type, const void *payload, size_t len);
int wire_send_json(int fd, enum wire_type type, json_object *o);
/* Sends ERROR {"error": msg}. */
int wire_send_error(int fd, const char *msg);

/*
 * Receives one frame within timeout_ms (-1: no limit) of each read.
 * *payload is malloc'd and NUL-terminated; the caller frees it.
 * Returns 0, or -1 (error set; "connection closed" on clean EOF before a header).
 */
int wire_recv(int fd, int timeout_ms, enum wire_type *type, char **payload, uint32_t *len);

/*
 * Receives a JSON frame; *o is owned by the caller (json_object_put).
 * An ERROR frame from the peer becomes -1 with the peer's message.
 */
int wire_recv_json(int fd, int timeout_ms, enum wire_type *type, json_object **o);

/*
 * The same on a channel: on an authenticated one each frame is sealed and
 * numbered, and a received frame that fails to open (altered, replayed,
 * reordered, injected, made with another key) or is not sealed is -1 with
 * the fault WIRE_FAULT_AUTH; the connection is then unusable.
 */
int wire_chan_send(struct wire_chan *c, enum wire_type type, const void *payload, size_t len);
int wire_chan_send_json(struct wire_chan *c, enum wire_type type, json_object *o);
int wire_chan_send_error(struct wire_chan *c, const char *msg);
int wire_chan_recv(struct wire_chan *c, int timeout_ms, enum wire_type *type, char **payload,
		   uint32_t *len);
int wire_chan_recv_json(struct wire_chan *c, int timeout_ms, enum wire_type *type, json_object **o);

/*
 * A manifest's text (at most WIRE_MAX_MANIFEST bytes) as MANIFEST frames of
 * at most WIRE_MAX_FRAME bytes, WIRE_FLAG_MORE on all but the last. Returns
 * 0 or -1 (error set).
 */
int wire_chan_send_manifest(struct wire_chan *c, const void *text, size_t len);
/* One MANIFEST frame of at most WIRE_MAX_FRAME bytes, more: WIRE_FLAG_MORE. Returns 0 or -1. */
int wire_chan_send_manifest_piece(struct wire_chan *c, const void *piece, size_t len, int more);

/*
 * Why this thread's last wire_send or wire_recv failed: NONE when it did not
 * fail on the connection itself (a protocol error, the peer's ERROR frame),
 * CLOSED when the peer closed or reset it (it exited or was killed), TIMEOUT
 * when the peer went silent (netutil.h: a cut link, a vanished host, or a
 * timeout_ms that ran out), IO for any other socket error, AUTH when a frame
 * on an authenticated channel failed to open (its integrity check).
 */
enum wire_fault { WIRE_FAULT_NONE, WIRE_FAULT_CLOSED, WIRE_FAULT_TIMEOUT, WIRE_FAULT_IO, WIRE_FAULT_AUTH };
enum wire_fault wire_last_fault(void);

/* Parses a JSON payload into an object; -1 (error set) unless it is a JSON object. */
int wire_parse_json(const char *payload, uint32_t len, json_object **o);

/* JSON field helpers: -1 (error set naming the field) when absent or of the wrong type. */
int wire_get_u64(json_object *o, const char *key, uint64_t *out);
int wire_get_str(json_object *o, const char *key, const char **out);

/* Token: 64 lower-case hex characters. */
int wire_token_generate(char out[WIRE_TOKEN_HEX + 1]);
int wire_token_valid(const char *token);
/* Compares in time independent of where they differ. 1 when equal. */
int wire_token_equal(const char *a, const char *b);

#endif
