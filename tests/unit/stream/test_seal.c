/* Unit tests for stream/seal.c: ChaCha20-Poly1305 sealing and tagging, and what fails it. */
#include "testutil.h"

#include "err.h"
#include "stream/seal.h"

static const unsigned char key[SEAL_KEY_BYTES] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };

static void test_sealed_round_trip_and_tampering(void **state)
{
	struct seal s;
	unsigned char hdr[8] = { 0, 0, 0, 11, 2, 1, 0, 0 }, tag[SEAL_TAG_BYTES], bad[SEAL_TAG_BYTES];
	unsigned char msg[11], sealed[11];

	(void)state;
	assert_int_equal(seal_init(&s, key), 0);
	memcpy(msg, "dir/name.tx", sizeof(msg));
	assert_int_equal(seal_encrypt(&s, 5, hdr, sizeof(hdr), msg, sizeof(msg), tag), 0);
	/* encrypted: the name is not there in clear */
	assert_int_not_equal(memcmp(msg, "dir/name.tx", sizeof(msg)), 0);
	assert_int_equal(seal_decrypt(&s, 5, hdr, sizeof(hdr), msg, sizeof(msg), tag), 0);
	assert_memory_equal(msg, "dir/name.tx", sizeof(msg));
	/* each thing changed on the way fails: a byte, the header, the number, the tag */
	assert_int_equal(seal_encrypt(&s, 6, hdr, sizeof(hdr), msg, sizeof(msg), tag), 0);
	memcpy(sealed, msg, sizeof(msg));
	msg[3] ^= 1;
	assert_int_equal(seal_decrypt(&s, 6, hdr, sizeof(hdr), msg, sizeof(msg), tag), -1);
	assert_string_equal(err_msg(), "integrity check failed");
	memcpy(msg, sealed, sizeof(msg));
	hdr[3] ^= 1;
	assert_int_equal(seal_decrypt(&s, 6, hdr, sizeof(hdr), msg, sizeof(msg), tag), -1);
	hdr[3] ^= 1;
	memcpy(msg, sealed, sizeof(msg));
	assert_int_equal(seal_decrypt(&s, 7, hdr, sizeof(hdr), msg, sizeof(msg), tag), -1);
	memcpy(bad, tag, sizeof(bad));
	bad[15] ^= 0x80;
	memcpy(msg, sealed, sizeof(msg));
	assert_int_equal(seal_decrypt(&s, 6, hdr, sizeof(hdr), msg, sizeof(msg), bad), -1);
	/* and the context is good for the next message after a failure */
	memcpy(msg, sealed, sizeof(msg));
	assert_int_equal(seal_decrypt(&s, 6, hdr, sizeof(hdr), msg, sizeof(msg), tag), 0);
	assert_memory_equal(msg, "dir/name.tx", sizeof(msg));
	seal_release(&s);
	seal_release(&s);
}

/* A tag over parts is the tag over the bytes they make one after another; any change fails it. */
static void test_tag_over_parts(void **state)
{
	struct seal s, other;
	unsigned char whole[300], tag[SEAL_TAG_BYTES], tag2[SEAL_TAG_BYTES], other_key[SEAL_KEY_BYTES] = { 9 };
	struct iovec one = { whole, sizeof(whole) }, three[3] = {
		{ whole, 7 }, { whole + 7, 200 }, { whole + 207, 93 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(whole); i++)
		whole[i] = (unsigned char)(i * 7);
	assert_int_equal(seal_init(&s, key), 0);
	assert_int_equal(seal_init(&other, other_key), 0);
	assert_int_equal(seal_tag(&s, 1, &one, 1, tag), 0);
	assert_int_equal(seal_tag(&s, 1, three, 3, tag2), 0);
	assert_memory_equal(tag, tag2, SEAL_TAG_BYTES);
	assert_true(seal_tag_ok(&s, 1, three, 3, tag));
	assert_false(seal_tag_ok(&s, 2, three, 3, tag));
	assert_false(seal_tag_ok(&other, 1, three, 3, tag));
	whole[250] ^= 4;
	assert_false(seal_tag_ok(&s, 1, &one, 1, tag));
	seal_release(&s);
	seal_release(&other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sealed_round_trip_and_tampering),
		cmocka_unit_test(test_tag_over_parts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
