/* The manifest's text form: writing, parsing (versions 1 and 2), files. */
#define _GNU_SOURCE
#include "manifest.h"

#include "err.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\t')
			fputs("\\t", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void put_mtime(FILE *f, int64_t mtime)
{
	if (mtime == MANIFEST_NO_MTIME)
		fputs("-\t", f);
	else
		fprintf(f, "%" PRId64 "\t", mtime);
}

int manifest_write(const struct manifest *m, FILE *f)
{
	fprintf(f, "# xfercmp-manifest %d\n", MANIFEST_VERSION);
	if (m->description)
		fprintf(f, "# workload %s\n", m->description);
	for (size_t i = 0; i < m->ndirs; i++) {
		fprintf(f, "d\t%04o\t", (unsigned)m->dirs[i].mode);
		put_mtime(f, m->dirs[i].mtime);
		put_escaped(f, m->dirs[i].path);
		fputc('\n', f);
	}
	for (size_t i = 0; i < m->count; i++) {
		const struct manifest_entry *e = &m->entries[i];

		fprintf(f, "f\t%016" PRIx64 "\t%" PRIu64 "\t%04o\t", e->xxh3, e->size,
			(unsigned)e->mode);
		put_mtime(f, e->mtime);
		put_escaped(f, e->path);
		fputc('\n', f);
	}
	for (size_t i = 0; i < m->nhardlinks; i++) {
		fputs("h\t", f);
		put_escaped(f, m->hardlinks[i].primary);
		fputc('\t', f);
		put_escaped(f, m->hardlinks[i].path);
		fputc('\n', f);
	}
	for (size_t i = 0; i < m->nsymlinks; i++) {
		fputs("l\t", f);
		put_escaped(f, m->symlinks[i].target);
		fputc('\t', f);
		put_escaped(f, m->symlinks[i].path);
		fputc('\n', f);
	}
	for (size_t i = 0; i < m->nspecials; i++) {
		fprintf(f, "s\t%c\t", m->specials[i].kind);
		put_escaped(f, m->specials[i].path);
		fputc('\n', f);
	}
	if (ferror(f))
		return err_errno("cannot write manifest");
	return 0;
}

int manifest_save(const struct manifest *m, const char *file)
{
	FILE *f = fopen(file, "w");

	if (!f)
		return err_errno("cannot create manifest '%s'", file);
	if (manifest_write(m, f) < 0) {
		fclose(f);
		return err_wrap("'%s'", file);
	}
	if (fclose(f) != 0)
		return err_errno("cannot write manifest '%s'", file);
	return 0;
}

int manifest_to_buffer(const struct manifest *m, char **out, size_t *len)
{
	FILE *f = open_memstream(out, len);

	if (!f)
		return err_errno("cannot serialize manifest");
	if (manifest_write(m, f) < 0) {
		fclose(f);
		free(*out);
		return -1;
	}
	fclose(f);
	return 0;
}

/* Unescapes s in place; returns -1 on a bad escape. */
static int unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (*s != '\\') {
			*w++ = *s;
			continue;
		}
		s++;
		if (*s == '\\')
			*w++ = '\\';
		else if (*s == 't')
			*w++ = '\t';
		else if (*s == 'n')
			*w++ = '\n';
		else
			return -1;
	}
	*w = '\0';
	return 0;
}

/* Splits line at tabs into exactly n fields; returns 0 or -1 (error set). */
static int split(char *line, char **f, int n, size_t lineno)
{
	for (int i = 0; i < n - 1; i++) {
		f[i] = line;
		line = strchr(line, '\t');
		if (!line)
			return err_set("line %zu: expected %d tab-separated fields", lineno, n);
		*line++ = '\0';
	}
	f[n - 1] = line;
	return 0;
}

static int all_of(const char *s, const char *set, size_t max)
{
	size_t n = strlen(s);

	return n > 0 && n <= max && strspn(s, set) == n;
}

static int parse_hash(const char *s, uint64_t *v, size_t lineno)
{
	/* strto* accept signs, blanks and 0x: check the characters first */
	if (strlen(s) != 16 || !all_of(s, "0123456789abcdefABCDEF", 16))
		return err_set("line %zu: bad hash '%s' (16 hex digits)", lineno, s);
	*v = strtoull(s, NULL, 16);
	return 0;
}

static int parse_size(const char *s, uint64_t *v, size_t lineno)
{
	if (!all_of(s, "0123456789", 20))
		return err_set("line %zu: bad size '%s'", lineno, s);
	errno = 0;
	*v = strtoull(s, NULL, 10);
	if (errno)
		return err_set("line %zu: bad size '%s'", lineno, s);
	return 0;
}

static int parse_mode(const char *s, uint32_t *v, size_t lineno)
{
	unsigned long mode;

	if (!all_of(s, "01234567", 6) || (mode = strtoul(s, NULL, 8)) > 07777)
		return err_set("line %zu: bad mode '%s'", lineno, s);
	*v = (uint32_t)mode;
	return 0;
}

static int parse_mtime(const char *s, int64_t *v, size_t lineno)
{
	if (!strcmp(s, "-")) {
		*v = MANIFEST_NO_MTIME;
		return 0;
	}
	if (!all_of(s + (s[0] == '-'), "0123456789", 19))
		return err_set("line %zu: bad mtime '%s'", lineno, s);
	errno = 0;
	*v = strtoll(s, NULL, 10);
	if (errno)
		return err_set("line %zu: bad mtime '%s'", lineno, s);
	return 0;
}

/* A path of the tree: unescaped in place, relative, never leaving the root. */
static int parse_path(char *s, size_t lineno)
{
	size_t n;

	if (!*s || unescape(s) < 0)
		return err_set("line %zu: bad path", lineno);
	n = strlen(s);
	if (s[0] == '/' || !strcmp(s, "..") || !strncmp(s, "../", 3) || strstr(s, "/../") ||
	    (n >= 3 && !strcmp(s + n - 3, "/..")))
		return err_set("line %zu: path '%s' leaves the tree", lineno, s);
	return 0;
}

static int parse_v1(struct manifest *m, char *line, size_t lineno)
{
	char *f[4];
	uint64_t hash, size;
	uint32_t mode;

	if (split(line, f, 4, lineno) < 0 || parse_hash(f[0], &hash, lineno) < 0 ||
	    parse_size(f[1], &size, lineno) < 0 || parse_mode(f[2], &mode, lineno) < 0 ||
	    parse_path(f[3], lineno) < 0)
		return -1;
	return manifest_add(m, f[3], size, mode, hash);
}

static int parse_v2(struct manifest *m, char *line, size_t lineno)
{
	char *f[6] = { 0 };
	uint64_t hash, size;
	uint32_t mode;
	int64_t mtime;

	if (line[0] == '\0' || line[1] != '\t')
		return err_set("line %zu: expected a kind (f, h, l, d or s) and a tab", lineno);
	switch (line[0]) {
	case 'f':
		if (split(line + 2, f, 5, lineno) < 0 || parse_hash(f[0], &hash, lineno) < 0 ||
		    parse_size(f[1], &size, lineno) < 0 || parse_mode(f[2], &mode, lineno) < 0 ||
		    parse_mtime(f[3], &mtime, lineno) < 0 || parse_path(f[4], lineno) < 0)
			return -1;
		return manifest_add_file(m, f[4], size, mode, mtime, hash);
	case 'd':
		if (split(line + 2, f, 3, lineno) < 0 || parse_mode(f[0], &mode, lineno) < 0 ||
		    parse_mtime(f[1], &mtime, lineno) < 0 || parse_path(f[2], lineno) < 0)
			return -1;
		return manifest_add_dir(m, f[2], mode, mtime);
	case 'h':
		if (split(line + 2, f, 2, lineno) < 0 || parse_path(f[0], lineno) < 0 ||
		    parse_path(f[1], lineno) < 0)
			return -1;
		return manifest_add_hardlink(m, f[1], f[0]);
	case 'l':
		/* the target is data: any text but empty, never checked as a path */
		if (split(line + 2, f, 2, lineno) < 0 || parse_path(f[1], lineno) < 0)
			return -1;
		if (!*f[0] || unescape(f[0]) < 0)
			return err_set("line %zu: bad symbolic link target", lineno);
		return manifest_add_symlink(m, f[1], f[0]);
	case 's':
		if (split(line + 2, f, 2, lineno) < 0 || parse_path(f[1], lineno) < 0)
			return -1;
		if (strlen(f[0]) != 1 || !strchr("cbps", f[0][0]))
			return err_set("line %zu: bad special file kind '%s' (c, b, p or s)", lineno,
				       f[0]);
		return manifest_add_special(m, f[1], f[0][0]);
	default:
		return err_set("line %zu: unknown kind '%c' (f, h, l, d or s)", lineno, line[0]);
	}
}

int manifest_parse(struct manifest *m, const char *text, size_t len)
{
	static const char header[] = "# xfercmp-manifest ";
	size_t pos = 0, lineno = 0;
	char *line = NULL;
	size_t line_alloc = 0;
	int rc = 0;

	manifest_init(m);
	if (len < sizeof(header) - 1 || memcmp(text, header, sizeof(header) - 1))
		return err_set("not an xfercmp manifest (missing '# xfercmp-manifest' header)");
	while (pos < len && rc == 0) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;

		lineno++;
		if (n + 1 > line_alloc) {
			char *grown = realloc(line, n + 1);

			if (!grown) {
				rc = err_set("out of memory reading manifest");
				break;
			}
			line = grown;
			line_alloc = n + 1;
		}
		memcpy(line, text + pos, n);
		line[n] = '\0';
		pos += n + 1;
		if (lineno == 1) {
			const char *v = line + sizeof(header) - 1;

			if (!strcmp(v, "1") || !strcmp(v, "2"))
				m->version = v[0] - '0';
			else
				rc = err_set("manifest version '%s' not supported (this xfercmp reads 1 and %d)",
					     v, MANIFEST_VERSION);
			continue;
		}
		if (!strncmp(line, "# workload ", 11)) {
			free(m->description);
			m->description = strdup(line + 11);
			continue;
		}
		if (line[0] == '#' || line[0] == '\0')
			continue;
		rc = m->version == 1 ? parse_v1(m, line, lineno) : parse_v2(m, line, lineno);
	}
	free(line);
	if (rc == 0) {
		manifest_sort(m);
		rc = manifest_check(m);
	}
	if (rc < 0) {
		manifest_release(m);
		return err_wrap("manifest");
	}
	return 0;
}

int manifest_load(struct manifest *m, const char *file)
{
	FILE *f = fopen(file, "r");
	char *buf = NULL;
	size_t alloc = 0, len = 0;
	int rc;

	if (!f)
		return err_errno("cannot open manifest '%s'", file);
	for (;;) {
		size_t n;

		if (len + 65536 > alloc) {
			char *grown = realloc(buf, alloc ? alloc * 2 : 1 << 20);

			if (!grown) {
				free(buf);
				fclose(f);
				return err_set("out of memory reading manifest '%s'", file);
			}
			buf = grown;
			alloc = alloc ? alloc * 2 : 1 << 20;
		}
		n = fread(buf + len, 1, alloc - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return err_errno("cannot read manifest '%s'", file);
	}
	fclose(f);
	rc = manifest_parse(m, buf, len);
	free(buf);
	return rc < 0 ? err_wrap("'%s'", file) : 0;
}

int manifest_default_path(const char *dir, char *buf, size_t len)
{
	size_t n = strlen(dir);
	int w;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	w = snprintf(buf, len, "%.*s.manifest", (int)n, dir);
	if (w < 0 || (size_t)w >= len)
		return err_set("path too long: '%s'", dir);
	return 0;
}
