#ifndef XFERCMP_TAR_SOURCE_H
#define XFERCMP_TAR_SOURCE_H

/*
 * The tar bytes of a data connection, for libarchive's reader (the agent's
 * extraction, tar_extract.c, and its null sink): the checked bytes of the
 * stream's segments (seal_stream.h), decompressed here when they are a zstd
 * frame, so that zstd's window is the one the receive's memory accounts for
 * (TAR_SOURCE_WINDOW_LOG: libarchive's own zstd filter takes any window up
 * to 128 MiB and has no option to bound it), and never more tar bytes than
 * max (the manifest's tree and its framing, recv_opts.h) however well a
 * stream compresses. libarchive is then given no filter of its own.
 */

#include "stream/seal_stream.h"

#include <archive.h>
#include <stdint.h>

/* 8 MiB: what zstd_sink's compressor uses at most (it caps its window so). */
#define TAR_SOURCE_WINDOW_LOG 23

struct ZSTD_DCtx_s;

struct tar_source {
	struct seal_reader *in;
	struct ZSTD_DCtx_s *z;	/* the stream is a zstd frame (seen in its first bytes) */
	int started, frame_done;
	unsigned char *out;	/* decompressed bytes handed to libarchive */
	uint64_t produced, max;	/* tar bytes given so far; at most (0: no bound) */
};

/* Prepares s over in (not owned). Returns 0 or -1 (error set). */
int tar_source_init(struct tar_source *s, struct seal_reader *in, uint64_t max);
void tar_source_release(struct tar_source *s);

/*
 * The next tar bytes: at *out (valid until the next call), their count; 0 at
 * the stream's end; -1 with the error set (the stream's, zstd's: a window
 * over the bound, a corrupt frame, a checksum that differs; or more tar
 * bytes than max).
 */
ssize_t tar_source_next(struct tar_source *s, const void **out);

/* libarchive's read callback over a tar_source (ctx). */
la_ssize_t tar_source_read(struct archive *a, void *ctx, const void **out);

#endif
