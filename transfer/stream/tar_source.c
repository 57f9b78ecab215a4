/* A data connection's tar bytes, zstd decompressed within a bounded window. See tar_source.h. */
#define _GNU_SOURCE
#include "stream/tar_source.h"

#include "err.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

static const unsigned char zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

int tar_source_init(struct tar_source *s, struct seal_reader *in, uint64_t max)
{
	memset(s, 0, sizeof(*s));
	s->in = in;
	s->max = max;
	return 0;
}

void tar_source_release(struct tar_source *s)
{
	ZSTD_freeDCtx(s->z);
	free(s->out);
	s->z = NULL;
	s->out = NULL;
}

/* The stream's first bytes say whether it is a zstd frame. Returns 0 or -1 (error set). */
static int start(struct tar_source *s)
{
	int rc = seal_reader_fill(s->in, sizeof(zstd_magic));
	size_t r;

	s->started = 1;
	if (rc < 0)
		return -1;
	if (rc == 0 || memcmp(s->in->buf + s->in->start, zstd_magic, sizeof(zstd_magic)))
		return 0;
	s->z = ZSTD_createDCtx();
	s->out = malloc(ZSTD_DStreamOutSize());
	if (!s->z || !s->out)
		return err_set("out of memory for zstd");
	r = ZSTD_DCtx_setParameter(s->z, ZSTD_d_windowLogMax, TAR_SOURCE_WINDOW_LOG);
	if (ZSTD_isError(r))
		return err_set("zstd: cannot bound the window: %s", ZSTD_getErrorName(r));
	return 0;
}

/* Counts n more tar bytes against the bound. */
static int produced(struct tar_source *s, size_t n)
{
	s->produced += n;
	if (s->max && s->produced > s->max)
		return err_set("the stream gives more than the %llu tar bytes the manifest allows: refused",
			       (unsigned long long)s->max);
	return 0;
}

/* The next decompressed bytes of a zstd stream. */
static ssize_t next_zstd(struct tar_source *s, const void **out)
{
	for (;;) {
		ZSTD_inBuffer in;
		ZSTD_outBuffer o = { s->out, ZSTD_DStreamOutSize(), 0 };
		size_t r;
		int rc;

		if (seal_reader_avail(s->in) == 0) {
			rc = seal_reader_fill(s->in, 1);
			if (rc < 0)
				return -1;
			if (rc == 0) {
				if (!s->frame_done)
					return err_set("zstd: the stream ends inside its frame");
				return 0;
			}
		}
		in = (ZSTD_inBuffer){ s->in->buf + s->in->start, seal_reader_avail(s->in), 0 };
		if (s->frame_done)
			return err_set("zstd: bytes after the end of the frame");
		r = ZSTD_decompressStream(s->z, &o, &in);
		s->in->start += in.pos;
		if (ZSTD_isError(r))
			return err_set("zstd: %s%s", ZSTD_getErrorName(r),
				       ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge ?
				       " (the agent takes windows of at most 8 MiB)" : "");
		if (r == 0)
			s->frame_done = 1;
		if (o.pos > 0) {
			if (produced(s, o.pos) < 0)
				return -1;
			*out = s->out;
			return (ssize_t)o.pos;
		}
	}
}

ssize_t tar_source_next(struct tar_source *s, const void **out)
{
	size_t n;
	int rc;

	if (!s->started && start(s) < 0)
		return -1;
	if (s->z)
		return next_zstd(s, out);
	if (seal_reader_avail(s->in) == 0 && (rc = seal_reader_fill(s->in, 1)) <= 0)
		return rc;
	n = seal_reader_avail(s->in);
	*out = s->in->buf + s->in->start;
	s->in->start += n;
	if (produced(s, n) < 0)
		return -1;
	return (ssize_t)n;
}

la_ssize_t tar_source_read(struct archive *a, void *ctx, const void **out)
{
	ssize_t n = tar_source_next(ctx, out);

	if (n < 0) {
		archive_set_error(a, EIO, "%s", err_msg());
		return -1;
	}
	return n;
}
