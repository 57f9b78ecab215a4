/*
 * The null sink (null_sink.h): the mirror of the splice/parallel senders
 * (the frames record stream, frames.h) and of the zstd sender (a tar
 * stream, plain or zstd) that reads, parses and hashes, and writes nothing.
 * Used only by --explain's "no destination disk" ablation (cmd/explain.c).
 */
#define _GNU_SOURCE
#include "agent/null_sink.h"

#include "err.h"
#include "stream/frames.h"
#include "stream/seal_stream.h"
#include "stream/tar_source.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xxhash.h>

#define NULL_SINK_DRAIN_MAX (4u << 20)	/* bytes accepted after a tar stream's end marker */

int null_sink_supports(const char *receiver)
{
	return !strcmp(receiver, "frames") || !strcmp(receiver, "tar");
}

struct sink_stream {
	int fd;
	const struct recv_opts *opts;
	const struct manifest *m;
	struct seal_reader in;	/* the stream, checked segment by segment (seal_stream.h) */
	struct recv_stats st;
	int rc;
	struct err_saved error;
};

/* Makes `want` (<= SEAL_FILL_MAX) checked bytes available; 1, 0 at the end first, -1 (error set). */
static int sink_fill(struct sink_stream *s, size_t want)
{
	int rc = seal_reader_fill(&s->in, want);

	s->st.wire_bytes = s->in.wire;
	return rc;
}

/* Hashes (when h) and drops `len` content bytes of the stream. Returns 0 or -1 (error set). */
static int sink_consume(struct sink_stream *s, uint64_t len, XXH3_state_t *h)
{
	while (len) {
		size_t have = seal_reader_avail(&s->in), take;

		if (!have) {
			int rc = sink_fill(s, 1);

			if (rc <= 0)
				return rc < 0 ? -1 : err_set("null sink: stream ended inside a record's content");
			continue;
		}
		take = have < len ? have : (size_t)len;
		if (h)
			XXH3_64bits_update(h, s->in.buf + s->in.start, take);
		s->in.start += take;
		len -= take;
	}
	return 0;
}

/*
 * Hashes (when h) and drops the `len` raw bytes of a large record's content
 * (frames.h: they follow its segment, unsealed). Returns 0 or -1 (error set).
 */
static int sink_consume_raw(struct sink_stream *s, uint64_t len, XXH3_state_t *h)
{
	static _Thread_local unsigned char buf[1u << 16];

	if (seal_reader_avail(&s->in))
		return err_set("null sink: integrity check failed: a large record does not end its segment");
	while (len) {
		ssize_t n;

		if (seal_reader_raw_wait(&s->in) < 0)
			return -1;
		n = read(s->fd, buf, len < sizeof(buf) ? (size_t)len : sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return err_errno("null sink: cannot read the stream");
		if (n == 0)
			return err_set("null sink: stream ended inside a record's content");
		if (seal_reader_raw_took(&s->in, (uint64_t)n) < 0)
			return -1;
		if (h)
			XXH3_64bits_update(h, buf, (size_t)n);
		len -= (uint64_t)n;
	}
	s->st.wire_bytes = s->in.wire;
	return 0;
}

/* A whole file's size and hash against the manifest (when one was sent). */
static int sink_check(const struct manifest *m, const char *path, uint64_t size, uint64_t hash)
{
	const struct manifest_entry *e;

	const struct manifest_hardlink *h;

	if (!m || !m->count)
		return 0;
	/* a tool's walk may meet a hard link's other name first and send the content under it (GNU tar) */
	if (!(e = manifest_find(m, path)) && (h = manifest_find_hardlink(m, path)))
		e = manifest_find(m, h->primary);
	if (!e)
		return err_set("null sink: '%s' is not in the manifest", path);
	if (e->size != size || e->xxh3 != hash)
		return err_set("null sink: content of '%s' differs from the manifest", path);
	return 0;
}

/* The record stream of frames.h, to its end record. Returns 0 or -1 (error set). */
static int sink_frames(struct sink_stream *s)
{
	XXH3_state_t *h = XXH3_createState();
	uint64_t records = 0, content = 0;
	char path[FRAME_PATH_MAX + 1];
	int rc = -1;

	if (!h)
		return err_set("null sink: out of memory for a hash state");
	for (;;) {
		unsigned char hdr[FRAME_HEADER];
		struct frame f;
		int got = sink_fill(s, FRAME_HEADER);

		if (got <= 0) {
			if (got == 0)
				err_set("null sink: stream ended before the end record (%llu records arrived)",
					(unsigned long long)records);
			break;
		}
		memcpy(hdr, s->in.buf + s->in.start, FRAME_HEADER);
		s->in.start += FRAME_HEADER;
		if (frame_decode(hdr, &f) < 0)
			break;
		if (f.type == FRAME_END) {
			if (f.offset != records || f.length != content) {
				err_set("null sink: end record says %llu records of %llu bytes, %llu of %llu arrived",
					(unsigned long long)f.offset, (unsigned long long)f.length,
					(unsigned long long)records, (unsigned long long)content);
				break;
			}
			/* the end record ends the sealed stream, and the sender shuts its side down */
			got = sink_fill(s, 1);
			rc = got == 0 ? seal_reader_finish(&s->in) : got < 0 ? -1 :
			     err_set("null sink: bytes after the end record");
			s->st.wire_bytes = s->in.wire;
			break;
		}
		if (sink_fill(s, f.path_len) <= 0) {
			err_set("null sink: stream ended inside a record's path");
			break;
		}
		memcpy(path, s->in.buf + s->in.start, f.path_len);
		path[f.path_len] = '\0';
		s->in.start += f.path_len;
		records++;
		content += f.length;
		if (f.type == FRAME_FILE || f.type == FRAME_RANGE) {
			XXH3_64bits_reset(h);
			if ((f.length > FRAME_RAW_MIN ? sink_consume_raw(s, f.length, h) :
			     sink_consume(s, f.length, h)) < 0)
				break;
			/* a range's hash is spent work only: its file's whole hash needs every range */
			if (f.type == FRAME_FILE && sink_check(s->m, path, f.length, XXH3_64bits_digest(h)) < 0)
				break;
			if (f.type == FRAME_FILE || f.offset == 0)
				s->st.files++;
			s->st.bytes += f.length;
		} else if (sink_consume(s, f.length, NULL) < 0) {
			break;
		}
	}
	XXH3_freeState(h);
	return rc;
}

/* A tar stream (plain or zstd), every regular file hashed and checked. Returns 0 or -1 (error set). */
static int sink_tar(struct sink_stream *s)
{
	struct archive *a = archive_read_new();
	XXH3_state_t *h = XXH3_createState();
	struct archive_entry *e;
	struct tar_source src;
	int rc = -1, r;

	/* zstd decompressed by the tar source, in the window the receive accounts for */
	tar_source_init(&src, &s->in, s->opts->bounds ? s->opts->bounds->max_tar : 0);
	if (!a || !h)
		goto out;
	if (archive_read_support_format_tar(a) != ARCHIVE_OK ||
	    archive_read_support_filter_none(a) != ARCHIVE_OK ||
	    archive_read_open(a, &src, NULL, tar_source_read, NULL) != ARCHIVE_OK) {
		err_set("null sink: cannot read the tar stream: %s", archive_error_string(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		const void *block;
		size_t size;
		la_int64_t off;
		uint64_t bytes = 0;

		if (archive_entry_filetype(e) != AE_IFREG || archive_entry_hardlink(e))
			continue;
		while (name && name[0] == '.' && name[1] == '/')
			name += 2;
		XXH3_64bits_reset(h);
		while ((r = archive_read_data_block(a, &block, &size, &off)) == ARCHIVE_OK) {
			XXH3_64bits_update(h, block, size);
			bytes += size;
		}
		if (r != ARCHIVE_EOF) {
			err_set("null sink: tar stream: %s", archive_error_string(a));
			goto out;
		}
		if (sink_check(s->m, name ? name : "", bytes, XXH3_64bits_digest(h)) < 0)
			goto out;
		s->st.files++;
		s->st.bytes += bytes;
	}
	if (r != ARCHIVE_EOF) {
		err_set("null sink: tar stream: %s", archive_error_string(a));
		goto out;
	}
	/* the bytes after the end marker (a zstd frame's tail, padding), as the extractor reads them */
	for (uint64_t after = 0;;) {
		const void *p;
		ssize_t n = tar_source_next(&src, &p);

		if (n < 0)
			goto out;
		if (n == 0)
			break;
		if ((after += (uint64_t)n) > NULL_SINK_DRAIN_MAX) {
			err_set("null sink: more than %u bytes follow the end of the archive", NULL_SINK_DRAIN_MAX);
			goto out;
		}
	}
	if (seal_reader_finish(&s->in) < 0)
		goto out;
	s->st.wire_bytes = s->in.wire;
	rc = 0;
out:
	if (!a || !h)
		err_set("null sink: out of memory");
	if (a)
		archive_read_free(a);
	tar_source_release(&src);
	s->st.wire_bytes = s->in.wire;
	XXH3_freeState(h);
	return rc;
}

struct sink_job {
	struct sink_stream s;
	int tar;
};

static void *sink_main(void *arg)
{
	struct sink_job *j = arg;

	if (seal_reader_init(&j->s.in, j->s.fd, j->s.opts) < 0)
		j->s.rc = err_wrap("null sink");
	else
		j->s.rc = j->tar ? sink_tar(&j->s) : sink_frames(&j->s);
	if (j->s.rc < 0)
		err_save(&j->s.error);
	seal_reader_release(&j->s.in);
	return NULL;
}

int null_sink_receive(const struct manifest *m, const char *receiver, const int *fds,
		      const struct recv_opts *opts, unsigned n, struct recv_stats *total)
{
	struct sink_job *jobs = calloc(n, sizeof(*jobs));
	pthread_t *tids = calloc(n, sizeof(*tids));
	bool *started = calloc(n, sizeof(*started));
	int rc = 0;

	if (!null_sink_supports(receiver))
		rc = err_set("the null sink has no form of receiver '%s'", receiver);
	else if (!jobs || !tids || !started)
		rc = err_set("out of memory for %u streams", n);
	for (unsigned i = 0; rc == 0 && i < n; i++) {
		int e;

		jobs[i] = (struct sink_job){ .s = { .fd = fds[i], .opts = &opts[i], .m = m },
					     .tar = !strcmp(receiver, "tar") };
		if ((e = pthread_create(&tids[i], NULL, sink_main, &jobs[i])) != 0) {
			/* the streams nobody reads are cut, so their senders fail rather than stall */
			for (unsigned k = i; k < n; k++)
				shutdown(fds[k], SHUT_RDWR);
			rc = err_set("cannot start the null sink of stream %u of %u: %s", i, n, strerror(e));
			break;
		}
		started[i] = true;
	}
	for (unsigned i = 0; started && i < n; i++) {
		if (!started[i])
			continue;
		pthread_join(tids[i], NULL);
		if (jobs[i].s.rc < 0 && rc == 0) {
			err_restore(&jobs[i].s.error);
			rc = err_wrap("stream %u", i);
		}
		total->files += jobs[i].s.st.files;
		total->bytes += jobs[i].s.st.bytes;
		total->wire_bytes += jobs[i].s.st.wire_bytes;
	}
	free(jobs);
	free(tids);
	free(started);
	return rc;
}
