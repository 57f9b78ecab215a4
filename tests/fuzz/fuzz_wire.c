/*
 * libFuzzer target: the agent's parsers of untrusted bytes. One input feeds
 *   - wire_header_decode: its first 8 bytes; wire_parse_json: the rest, and
 *     the hello's and the proof's fields read from it;
 *   - frame_decode: its first 32 bytes;
 *   - manifest_parse: all of it.
 * Beyond the sanitizers: a header or record header that decodes encodes back
 * to the same bytes and within its bounds; a parsed JSON object, written as
 * wire_send_json writes it, parses again; a parsed manifest holds no path
 * that leaves the tree, and writing it and parsing that gives it back.
 */
#include "stream/frames.h"
#include "manifest.h"
#include "stream/wire.h"
#include "stream/wire_auth.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void violation(const char *what)
{
	fprintf(stderr, "INVARIANT VIOLATED: %s\n", what);
	abort();
}

static void fuzz_header(const uint8_t *data)
{
	enum wire_type type;
	uint32_t len, want = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 |
			     (uint32_t)data[2] << 8 | data[3];

	if (wire_header_decode(data, &type, &len) < 0)
		return;
	if (type < WIRE_HELLO || type > WIRE_TYPE_LAST || (unsigned)type != data[4])
		violation("wire header: type not the one sent, or unknown");
	if ((data[5] & ~(WIRE_FLAG_SEALED | WIRE_FLAG_MORE)) || data[6] || data[7])
		violation("wire header: unknown flags or reserved bytes not zero");
	if ((data[5] & WIRE_FLAG_MORE) && type != WIRE_MANIFEST)
		violation("wire header: more follows a message that is not a manifest's piece");
	if (wire_header_flags(data) != data[5])
		violation("wire header: flags not the ones sent");
	if (len != want || len > (type == WIRE_MANIFEST ? WIRE_MAX_FRAME : WIRE_MAX_JSON))
		violation("wire header: length not the one sent, or beyond its bound");
}

static void fuzz_json(const uint8_t *data, size_t size)
{
	json_object *o, *again;
	const char *text, *s;
	uint64_t u;
	size_t len;

	if (size > WIRE_MAX_JSON || wire_parse_json((const char *)data, (uint32_t)size, &o) < 0)
		return;
	if (!json_object_is_type(o, json_type_object))
		violation("wire_parse_json: not an object");
	/* the agent's reads of a HELLO and a REQUEST */
	wire_get_u64(o, "proto", &u);
	wire_get_u64(o, "job", &u);
	wire_get_u64(o, "stream", &u);
	if (wire_get_str(o, "token", &s) == 0)
		wire_token_valid(s);
	wire_get_str(o, "role", &s);
	wire_get_str(o, "op", &s);
	/* the handshake's reads (wire_auth.c) */
	{
		unsigned char bytes[WIRE_NONCE_BYTES];

		wire_get_hex(o, "nonce", bytes, sizeof(bytes));
		wire_get_hex(o, "proof", bytes, sizeof(bytes));
	}
	wire_get_str(o, "strategy", &s);
	text = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN, &len);
	if (wire_parse_json(text, (uint32_t)len, &again) < 0)
		violation("wire_parse_json: an object it parsed, written back, does not parse");
	json_object_put(again);
	json_object_put(o);
}

static void fuzz_frame(const uint8_t *data)
{
	struct frame f;
	unsigned char back[FRAME_HEADER];

	if (frame_decode(data, &f) < 0)
		return;
	if (f.type == FRAME_END ? f.path_len != 0 : f.path_len == 0 || f.path_len > FRAME_PATH_MAX)
		violation("frame_decode: path length out of bounds");
	if (f.mode > 07777 ||
	    (f.type != FRAME_END && (f.offset > FRAME_MAX_LENGTH || f.length > FRAME_MAX_LENGTH)))
		violation("frame_decode: mode, offset or length out of bounds");
	if ((f.type == FRAME_SYMLINK || f.type == FRAME_HARDLINK) &&
	    (f.length == 0 || f.length > FRAME_PATH_MAX || f.mode || f.flags))
		violation("frame_decode: a link record out of bounds");
	if (f.type == FRAME_DIR && (f.length || f.offset))
		violation("frame_decode: a directory record with content");
	frame_encode(&f, back);
	if (memcmp(back, data, FRAME_HEADER))
		violation("frame_decode: the decoded header encodes to other bytes");
}

static int leaves_tree(const char *p)
{
	size_t n = strlen(p);

	return p[0] == '/' || !strcmp(p, "..") || !strncmp(p, "../", 3) || strstr(p, "/../") ||
	       (n >= 3 && !strcmp(p + n - 3, "/.."));
}

static void fuzz_manifest(const uint8_t *data, size_t size)
{
	struct manifest m, again;
	char *text, *text2;
	size_t len, len2;

	if (manifest_parse(&m, (const char *)data, size) < 0)
		return;
	for (size_t i = 0; i < m.count; i++) {
		if (leaves_tree(m.entries[i].path))
			violation("manifest_parse: a path leaves the tree");
		if (m.entries[i].mode > 07777)
			violation("manifest_parse: mode beyond 07777");
		if (manifest_find(&m, m.entries[i].path) != &m.entries[i])
			violation("manifest_parse: manifest_find misses an entry");
	}
	if (manifest_to_buffer(&m, &text, &len) < 0)
		violation("manifest_to_buffer failed");
	if (manifest_parse(&again, text, len) < 0)
		violation("manifest_parse: its own output does not parse");
	if (again.count != m.count || again.total_bytes != m.total_bytes ||
	    !again.description != !m.description ||
	    (m.description && strcmp(again.description, m.description)))
		violation("manifest round trip: counts or description differ");
	for (size_t i = 0; i < m.count; i++) {
		const struct manifest_entry *a = &m.entries[i], *b = &again.entries[i];

		if (strcmp(a->path, b->path) || a->size != b->size || a->mode != b->mode ||
		    a->xxh3 != b->xxh3)
			violation("manifest round trip: an entry differs");
	}
	if (manifest_to_buffer(&again, &text2, &len2) < 0)
		violation("manifest_to_buffer failed");
	if (len2 != len || memcmp(text, text2, len))
		violation("manifest round trip: the text differs");
	free(text);
	free(text2);
	manifest_release(&again);
	manifest_release(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= WIRE_HEADER) {
		fuzz_header(data);
		fuzz_json(data + WIRE_HEADER, size - WIRE_HEADER);
	}
	if (size >= FRAME_HEADER)
		fuzz_frame(data);
	fuzz_manifest(data, size);
	return 0;
}
