#ifndef XFERCMP_RECV_OPTS_H
#define XFERCMP_RECV_OPTS_H

/*
 * What a receiver of a data connection is given beside the socket: the
 * key its segments are checked with (seal_stream.h).
 */

#include "stream/seal.h"

struct recv_opts {
	unsigned char key[SEAL_KEY_BYTES];	/* the connection's client-to-agent key */
};

#endif
