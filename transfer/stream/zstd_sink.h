#ifndef XFERCMP_ZSTD_SINK_H
#define XFERCMP_ZSTD_SINK_H

/*
 * A byte sink that compresses into another sink with libzstd's streaming
 * API: one zstd frame, content checksum on, so `zstd -d` and libarchive's
 * zstd filter read it and catch corruption. With threads >= 1 the
 * compression runs on that many zstd worker threads beside the caller.
 */

#include "stream/tar_stream.h"

#include <stdint.h>

struct ZSTD_CCtx_s;

struct zstd_sink {
	struct ZSTD_CCtx_s *cctx;
	struct byte_sink *out;
	struct byte_sink self;
	unsigned char *buf;	/* compressed bytes not yet handed to out */
	size_t fill, cap;
	uint64_t bytes_in;	/* uncompressed bytes written into the sink */
	uint64_t bytes_out;	/* compressed bytes handed to out */
	int finished;
};

/*
 * Prepares z to compress into out (not owned) at `level` (zstd's range,
 * negative for the fast levels; 0 is zstd's default, 3) with `threads`
 * worker threads (0: compress in the caller's thread). Returns 0 or -1
 * (error set; nothing to release).
 */
int zstd_sink_init(struct zstd_sink *z, struct byte_sink *out, int level, int threads);

/*
 * The sink to write into; valid while z is. Its close is zstd_sink_finish.
 */
struct byte_sink *zstd_sink_as_sink(struct zstd_sink *z);

/*
 * Ends the frame, hands every compressed byte to out, then closes out.
 * Returns 0 or -1 (error set). Writes after it are errors.
 */
int zstd_sink_finish(struct zstd_sink *z);

/* Frees what init allocated; never closes out. Safe after a failed finish. */
void zstd_sink_release(struct zstd_sink *z);

#endif
