#define _GNU_SOURCE
#include "manifest.h"

#include "err.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void manifest_init(struct manifest *m)
{
	memset(m, 0, sizeof(*m));
}

void manifest_release(struct manifest *m)
{
	for (size_t i = 0; i < m->count; i++)
		free(m->entries[i].path);
	free(m->entries);
	free(m->description);
	manifest_init(m);
}

int manifest_add(struct manifest *m, const char *path, uint64_t size, uint32_t mode, uint64_t xxh3)
{
	struct manifest_entry *e;

	if (m->count == m->alloc) {
		size_t n = m->alloc ? m->alloc * 2 : 1024;
		struct manifest_entry *grown = realloc(m->entries, n * sizeof(*grown));

		if (!grown)
			return err_set("out of memory for manifest of %zu entries", n);
		m->entries = grown;
		m->alloc = n;
	}
	e = &m->entries[m->count];
	e->path = strdup(path);
	if (!e->path)
		return err_set("out of memory for manifest path");
	e->size = size;
	e->mode = mode;
	e->xxh3 = xxh3;
	m->count++;
	m->total_bytes += size;
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct manifest_entry *)a)->path,
		      ((const struct manifest_entry *)b)->path);
}

static int path_cmp(const void *key, const void *entry)
{
	return strcmp(key, ((const struct manifest_entry *)entry)->path);
}

void manifest_sort(struct manifest *m)
{
	if (m->count > 1)
		qsort(m->entries, m->count, sizeof(*m->entries), entry_cmp);
}

const struct manifest_entry *manifest_find(const struct manifest *m, const char *path)
{
	if (!m->count)
		return NULL;
	return bsearch(path, m->entries, m->count, sizeof(*m->entries), path_cmp);
}

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

int manifest_write(const struct manifest *m, FILE *f)
{
	fprintf(f, "# xfercmp-manifest %d\n", MANIFEST_VERSION);
	if (m->description)
		fprintf(f, "# workload %s\n", m->description);
	for (size_t i = 0; i < m->count; i++) {
		const struct manifest_entry *e = &m->entries[i];

		fprintf(f, "%016" PRIx64 "\t%" PRIu64 "\t%04o\t", e->xxh3, e->size, (unsigned)e->mode);
		put_escaped(f, e->path);
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

/* Unescapes path in place; returns -1 on a bad escape. */
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

static int parse_line(struct manifest *m, char *line, size_t lineno)
{
	char *f[4], *end;
	uint64_t hash, size;
	unsigned long mode;
	int i;

	for (i = 0; i < 3; i++) {
		f[i] = line;
		line = strchr(line, '\t');
		if (!line)
			return err_set("line %zu: expected 4 tab-separated fields", lineno);
		*line++ = '\0';
	}
	f[3] = line;
	/* strto* accept signs, blanks and 0x: check the characters first */
	if (strlen(f[0]) != 16 || strspn(f[0], "0123456789abcdefABCDEF") != 16)
		return err_set("line %zu: bad hash '%s' (16 hex digits)", lineno, f[0]);
	if (!*f[1] || strspn(f[1], "0123456789") != strlen(f[1]) || strlen(f[1]) > 20)
		return err_set("line %zu: bad size '%s'", lineno, f[1]);
	if (!*f[2] || strspn(f[2], "01234567") != strlen(f[2]) || strlen(f[2]) > 6)
		return err_set("line %zu: bad mode '%s'", lineno, f[2]);
	errno = 0;
	hash = strtoull(f[0], &end, 16);
	size = strtoull(f[1], &end, 10);
	if (errno)
		return err_set("line %zu: bad size '%s'", lineno, f[1]);
	mode = strtoul(f[2], &end, 8);
	if (mode > 07777)
		return err_set("line %zu: bad mode '%s'", lineno, f[2]);
	if (!*f[3] || unescape(f[3]) < 0)
		return err_set("line %zu: bad path", lineno);
	if (f[3][0] == '/' || !strcmp(f[3], "..") || !strncmp(f[3], "../", 3) ||
	    strstr(f[3], "/../") || (strlen(f[3]) >= 3 && !strcmp(f[3] + strlen(f[3]) - 3, "/..")))
		return err_set("line %zu: path '%s' leaves the tree", lineno, f[3]);
	return manifest_add(m, f[3], size, (uint32_t)mode, hash);
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
			if (strcmp(line + sizeof(header) - 1, "1"))
				rc = err_set("manifest version '%s' not supported (this xfercmp reads %d)",
					     line + sizeof(header) - 1, MANIFEST_VERSION);
			continue;
		}
		if (!strncmp(line, "# workload ", 11)) {
			free(m->description);
			m->description = strdup(line + 11);
			continue;
		}
		if (line[0] == '#' || line[0] == '\0')
			continue;
		rc = parse_line(m, line, lineno);
	}
	free(line);
	if (rc < 0) {
		manifest_release(m);
		return err_wrap("manifest");
	}
	manifest_sort(m);
	for (size_t i = 1; i < m->count; i++)
		if (!strcmp(m->entries[i - 1].path, m->entries[i].path)) {
			err_set("manifest lists '%s' twice", m->entries[i].path);
			manifest_release(m);
			return -1;
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
