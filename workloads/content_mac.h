#ifndef XFERCMP_CONTENT_MAC_H
#define XFERCMP_CONTENT_MAC_H

/*
 * A keyed hash of a file's content: HMAC-SHA256 (OpenSSL) under a key the
 * two ends of a session derive from its key (wire_content_key) and no one
 * else has. It is what proves, at verify time, that the content of a large
 * file which crossed the network raw (transfer/stream/frames.h: content
 * longer than FRAME_RAW_MIN goes unsealed, spliced both ends) is the
 * client's: XXH3, which the manifest carries, catches faults but not a
 * forger (a block with the same XXH3 is built in a few lines).
 */

#include <stddef.h>
#include <stdint.h>

#define CONTENT_KEY_BYTES 32
#define CONTENT_MAC_BYTES 32

struct content_mac {
	void *ctx;	/* OpenSSL's EVP_MAC_CTX */
};

/* Starts a keyed hash. Returns 0 or -1 (error set; nothing to release). */
int content_mac_begin(struct content_mac *c, const unsigned char key[CONTENT_KEY_BYTES]);
/* Adds len bytes. Returns 0 or -1 (error set; c released). */
int content_mac_update(struct content_mac *c, const void *p, size_t len);
/* Writes the hash and releases c. Returns 0 or -1 (error set). */
int content_mac_end(struct content_mac *c, unsigned char out[CONTENT_MAC_BYTES]);
/* Releases c without a hash (safe after end, or on a zeroed c). */
void content_mac_release(struct content_mac *c);

/* Constant-time comparison of two hashes: 1 when equal. */
int content_mac_equal(const unsigned char a[CONTENT_MAC_BYTES],
		      const unsigned char b[CONTENT_MAC_BYTES]);

#endif
