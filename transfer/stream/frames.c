#include "stream/frames.h"

#include "err.h"

#include <string.h>

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

void frame_encode(const struct frame *f, unsigned char out[FRAME_HEADER])
{
	memset(out, 0, FRAME_HEADER);
	put32(out, FRAME_MAGIC);
	out[4] = (unsigned char)f->type;
	out[6] = (unsigned char)(f->path_len >> 8);
	out[7] = (unsigned char)f->path_len;
	put32(out + 8, f->mode);
	put64(out + 16, f->offset);
	put64(out + 24, f->length);
	out[5] = (unsigned char)f->flags;
	put64(out + 32, (f->flags & FRAME_F_MTIME) ? (uint64_t)f->mtime : 0);
}

static int check_path_len(const struct frame *f)
{
	if (f->path_len == 0 || f->path_len > FRAME_PATH_MAX)
		return err_set("bad record: path length %u (1..%d)", f->path_len, FRAME_PATH_MAX);
	return 0;
}

int frame_decode(const unsigned char in[FRAME_HEADER], struct frame *f)
{
	if (get32(in) != FRAME_MAGIC)
		return err_set("bad record: wrong magic 0x%08x (not an xfercmp stream of this version?)",
			       get32(in));
	if ((in[5] & ~FRAME_F_MTIME) || get32(in + 12))
		return err_set("bad record: reserved bytes not zero");
	f->type = (enum frame_type)in[4];
	f->flags = in[5];
	f->path_len = (uint16_t)(in[6] << 8 | in[7]);
	f->mode = get32(in + 8);
	f->offset = get64(in + 16);
	f->length = get64(in + 24);
	f->mtime = (int64_t)get64(in + 32);
	if (!(f->flags & FRAME_F_MTIME) && f->mtime != 0)
		return err_set("bad record: an mtime without its flag");
	switch (f->type) {
	case FRAME_FILE:
	case FRAME_RANGE:
	case FRAME_DIR:
		if (check_path_len(f) < 0)
			return -1;
		if (f->mode > 07777)
			return err_set("bad record: mode 0%o is not permission bits", f->mode);
		if (f->length > FRAME_MAX_LENGTH || f->offset > FRAME_MAX_LENGTH)
			return err_set("bad record: length %llu at offset %llu too large",
				       (unsigned long long)f->length, (unsigned long long)f->offset);
		/* a file's mtime comes once: with its first range, so the end notes it once */
		if (f->type == FRAME_RANGE && f->offset != 0 && (f->flags & FRAME_F_MTIME))
			return err_set("bad record: an mtime on a range that does not start its file");
		if (f->type != FRAME_RANGE && f->offset != 0)
			return err_set("bad record: %s record with offset %llu",
				       f->type == FRAME_DIR ? "directory" : "file",
				       (unsigned long long)f->offset);
		if (f->type == FRAME_DIR && f->length != 0)
			return err_set("bad record: directory record with %llu bytes of content",
				       (unsigned long long)f->length);
		return 0;
	case FRAME_SYMLINK:
	case FRAME_HARDLINK:
		if (check_path_len(f) < 0)
			return -1;
		if (f->mode || f->offset || f->flags)
			return err_set("bad record: link record with a mode, offset or mtime");
		if (f->length == 0 || f->length > FRAME_PATH_MAX)
			return err_set("bad record: link of %llu bytes (1..%d)",
				       (unsigned long long)f->length, FRAME_PATH_MAX);
		return 0;
	case FRAME_END:
		if (f->path_len || f->mode || f->flags)
			return err_set("bad record: end record with a path, mode or mtime");
		return 0;
	default:
		return err_set("bad record: unknown type %u", in[4]);
	}
}
