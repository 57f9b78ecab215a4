/*
 * zstd_sink: streaming zstd compression between the tar writer and the
 * wire. Compressed bytes collect in a 1 MiB buffer so the sink below sees a
 * few large writes, not one per zstd block.
 */
#include "stream/zstd_sink.h"

#include "err.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define ZSTD_SINK_BUF (1u << 20)
/*
 * The window, at most 8 MiB: what the agent's decompression takes
 * (stream/tar_source.h) and its memory cap accounts for. zstd's own levels
 * use 8 MiB or less up to 19; the ultra levels (20-22) would use 32-128 MiB.
 */
#define ZSTD_SINK_WINDOW_LOG 23

static int zstd_sink_flush(struct zstd_sink *z)
{
	if (z->fill == 0)
		return 0;
	if (z->out->write(z->out->ctx, z->buf, z->fill) < 0)
		return -1;
	z->bytes_out += z->fill;
	z->fill = 0;
	return 0;
}

/*
 * Feeds in to the compressor. ZSTD_e_continue: until all of in is taken
 * (with workers the call returns as soon as it has queued input).
 * ZSTD_e_end: until the frame is complete (the call returns 0). A full
 * buffer goes to out in between.
 */
static int zstd_sink_run(struct zstd_sink *z, ZSTD_inBuffer *in, ZSTD_EndDirective op)
{
	for (;;) {
		ZSTD_outBuffer o = { z->buf, z->cap, z->fill };
		size_t r = ZSTD_compressStream2(z->cctx, &o, in, op);

		if (ZSTD_isError(r))
			return err_set("zstd: cannot compress: %s", ZSTD_getErrorName(r));
		z->fill = o.pos;
		if (z->fill == z->cap && zstd_sink_flush(z) < 0)
			return -1;
		if (op == ZSTD_e_end ? r == 0 : in->pos == in->size)
			return 0;
	}
}

static int zstd_sink_write(void *ctx, const void *buf, size_t len)
{
	struct zstd_sink *z = ctx;
	ZSTD_inBuffer in = { buf, len, 0 };

	if (z->finished)
		return err_set("zstd: write after the end of the stream");
	if (zstd_sink_run(z, &in, ZSTD_e_continue) < 0)
		return -1;
	z->bytes_in += len;
	return 0;
}

static int zstd_sink_close(void *ctx)
{
	return zstd_sink_finish(ctx);
}

static int zstd_sink_param(struct zstd_sink *z, ZSTD_cParameter p, int value, const char *name)
{
	size_t r = ZSTD_CCtx_setParameter(z->cctx, p, value);

	if (ZSTD_isError(r))
		return err_set("zstd: cannot set %s to %d: %s", name, value, ZSTD_getErrorName(r));
	return 0;
}

int zstd_sink_init(struct zstd_sink *z, struct byte_sink *out, int level, int threads)
{
	memset(z, 0, sizeof(*z));
	if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
		return err_set("zstd level %d is out of range (%d to %d)", level, ZSTD_minCLevel(),
			       ZSTD_maxCLevel());
	if (threads < 0)
		return err_set("zstd threads %d: expected 0 or more", threads);
	z->out = out;
	z->cap = ZSTD_SINK_BUF;
	z->cctx = ZSTD_createCCtx();
	z->buf = malloc(z->cap);
	if (!z->cctx || !z->buf) {
		zstd_sink_release(z);
		return err_set("out of memory starting zstd");
	}
	/* Level 0 is passed on as is: zstd reads it as its default, 3. */
	if (zstd_sink_param(z, ZSTD_c_compressionLevel, level, "the compression level") < 0 ||
	    zstd_sink_param(z, ZSTD_c_checksumFlag, 1, "the checksum flag") < 0 ||
	    zstd_sink_param(z, ZSTD_c_nbWorkers, threads, "the worker threads") < 0 ||
	    (level > 19 && zstd_sink_param(z, ZSTD_c_windowLog, ZSTD_SINK_WINDOW_LOG, "the window") < 0)) {
		zstd_sink_release(z);
		return -1;
	}
	z->self.write = zstd_sink_write;
	z->self.close = zstd_sink_close;
	z->self.ctx = z;
	return 0;
}

struct byte_sink *zstd_sink_as_sink(struct zstd_sink *z)
{
	return &z->self;
}

int zstd_sink_finish(struct zstd_sink *z)
{
	ZSTD_inBuffer in = { NULL, 0, 0 };

	if (z->finished)
		return err_set("zstd: the stream is already finished");
	z->finished = 1;
	if (zstd_sink_run(z, &in, ZSTD_e_end) < 0 || zstd_sink_flush(z) < 0)
		return -1;
	return z->out->close(z->out->ctx);
}

void zstd_sink_release(struct zstd_sink *z)
{
	ZSTD_freeCCtx(z->cctx);
	free(z->buf);
	z->cctx = NULL;
	z->buf = NULL;
	z->fill = 0;
}
