#include "content_mac.h"

#include "err.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <pthread.h>

/* HMAC is fetched once: a fetch takes a lock and a look-up in OpenSSL's tables. */
static EVP_MAC *hmac_alg;
static pthread_once_t hmac_once = PTHREAD_ONCE_INIT;

static void fetch_hmac(void)
{
	hmac_alg = EVP_MAC_fetch(NULL, "HMAC", NULL);
}

int content_mac_begin(struct content_mac *c, const unsigned char key[CONTENT_KEY_BYTES])
{
	static char digest[] = "SHA256";
	OSSL_PARAM params[] = { OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
				OSSL_PARAM_construct_end() };
	EVP_MAC_CTX *ctx;

	c->ctx = NULL;
	pthread_once(&hmac_once, fetch_hmac);
	if (!hmac_alg || !(ctx = EVP_MAC_CTX_new(hmac_alg)))
		return err_set("cannot compute a keyed hash: OpenSSL has no HMAC");
	if (EVP_MAC_init(ctx, key, CONTENT_KEY_BYTES, params) <= 0) {
		EVP_MAC_CTX_free(ctx);
		return err_set("cannot compute a keyed hash: OpenSSL's HMAC failed");
	}
	c->ctx = ctx;
	return 0;
}

int content_mac_update(struct content_mac *c, const void *p, size_t len)
{
	if (len && EVP_MAC_update(c->ctx, p, len) <= 0) {
		content_mac_release(c);
		return err_set("cannot compute a keyed hash: OpenSSL's HMAC failed");
	}
	return 0;
}

int content_mac_end(struct content_mac *c, unsigned char out[CONTENT_MAC_BYTES])
{
	size_t n = 0;
	int ok = EVP_MAC_final(c->ctx, out, &n, CONTENT_MAC_BYTES) > 0 && n == CONTENT_MAC_BYTES;

	content_mac_release(c);
	return ok ? 0 : err_set("cannot compute a keyed hash: OpenSSL's HMAC failed");
}

void content_mac_release(struct content_mac *c)
{
	/* EVP_MAC_CTX_free cleanses the key it holds */
	EVP_MAC_CTX_free(c->ctx);
	c->ctx = NULL;
}

int content_mac_equal(const unsigned char a[CONTENT_MAC_BYTES],
		      const unsigned char b[CONTENT_MAC_BYTES])
{
	return CRYPTO_memcmp(a, b, CONTENT_MAC_BYTES) == 0;
}
