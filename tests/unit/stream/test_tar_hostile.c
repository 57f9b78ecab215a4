/*
 * Unit tests for transfer/stream/tar_extract.c: hostile streams must fail
 * without writing outside the destination; the extractor reads to the end of
 * its input, but not without bound.
 */
#define _GNU_SOURCE
#include "tar_fixture.h"

/* ---- hostile streams ---- */

struct hostile_entry {
	const char *name;	/* "@" is replaced by the test's base directory */
	mode_t type;
	unsigned perm;
	const char *link;	/* symlink target or hardlink name */
	int hardlink;
	size_t size;
};

/* Builds a pax-restricted archive of the entries in memory with libarchive. */
static void build_archive(const struct hostile_entry *es, size_t n, const char *base,
			  struct mem_sink *mem)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	static unsigned char content[300000];

	memset(content, 'x', sizeof(content));
	memset(mem, 0, sizeof(*mem));
	mem->cap = 64 << 20;
	mem->data = malloc(mem->cap);
	assert_non_null(mem->data);
	assert_int_equal(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
	assert_int_equal(archive_write_open_memory(a, mem->data, mem->cap, &mem->len), ARCHIVE_OK);
	for (size_t i = 0; i < n; i++) {
		char name[1024];

		if (es[i].name[0] == '@')
			snprintf(name, sizeof(name), "%s%s", base, es[i].name + 1);
		else
			snprintf(name, sizeof(name), "%s", es[i].name);
		archive_entry_clear(e);
		archive_entry_set_pathname(e, name);
		archive_entry_set_filetype(e, es[i].type);
		archive_entry_set_perm(e, es[i].perm);
		archive_entry_set_mtime(e, 1700000000, 0);
		if (es[i].link && es[i].hardlink)
			archive_entry_set_hardlink(e, es[i].link);
		else if (es[i].link)
			archive_entry_set_symlink(e, es[i].link);
		archive_entry_set_size(e, es[i].type == AE_IFREG && !es[i].hardlink ?
					   (la_int64_t)es[i].size : 0);
		assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
		if (es[i].type == AE_IFREG && es[i].size)
			assert_int_equal(archive_write_data(a, content, es[i].size),
					 (la_ssize_t)es[i].size);
	}
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	archive_entry_free(e);
}

/* A fresh base directory holding an empty dest/, and es as an archive in mem. */
static void archive_beside_dest(const struct hostile_entry *es, size_t n, char *base, size_t blen,
				char *dest, size_t dlen, struct mem_sink *mem)
{
	make_temp(base, blen);
	snprintf(dest, dlen, "%s/dest", base);
	assert_int_equal(mkdir(dest, 0755), 0);
	build_archive(es, n, base, mem);
}

/*
 * Extracts data into base/dest; expects -1, an error containing `expect`,
 * and nothing in base but dest. Returns the number of names in dest.
 */
static int extract_hostile(const char *base, const void *data, size_t len, const char *expect)
{
	char dest[600], first[256] = "";
	struct recv_stats rs;
	int fd = memfd_with(data, len), rc, n;

	snprintf(dest, sizeof(dest), "%s/dest", base);
	err_clear();
	rc = tar_stream_extract(fd, &test_opts, dest, &rs);
	close(fd);
	if (rc != -1)
		print_error("hostile stream accepted (expected '%s')\n", expect);
	assert_int_equal(rc, -1);
	assert_true(err_msg()[0] != '\0');
	assert_contains(err_msg(), "tar stream: ");
	assert_contains(err_msg(), expect);
	n = dir_entries(base, first, sizeof(first));
	if (n != 1 || strcmp(first, "dest"))
		print_error("'%s' holds %d names, first '%s'\n", base, n, first);
	assert_int_equal(n, 1);
	assert_string_equal(first, "dest");
	return dir_entries(dest, NULL, 0);
}

static void hostile_case(const struct hostile_entry *es, size_t n, const char *expect,
			 int max_in_dest)
{
	char base[512], dest[600];
	struct mem_sink mem;

	archive_beside_dest(es, n, base, sizeof(base), dest, sizeof(dest), &mem);
	assert_true(extract_hostile(base, mem.data, mem.len, expect) <= max_in_dest);
	free(mem.data);
	assert_int_equal(fs_remove_tree(base), 0);
}

static void test_hostile_dotdot(void **state)
{
	const struct hostile_entry es[] = {
		{ .name = "ok", .type = AE_IFREG, .perm = 0644, .size = 10 },
		{ .name = "../evil", .type = AE_IFREG, .perm = 0644, .size = 10 },
	};
	const struct hostile_entry hidden[] = {
		{ .name = "sub/../../evil", .type = AE_IFREG, .perm = 0644, .size = 10 },
	};
	const struct hostile_entry dir[] = {
		{ .name = "../evil/", .type = AE_IFDIR, .perm = 0755 },
	};

	(void)state;
	hostile_case(es, ARRAY_LEN(es), "'../evil'", 1);
	hostile_case(hidden, ARRAY_LEN(hidden), "'sub/../../evil'", 0);
	hostile_case(dir, ARRAY_LEN(dir), "'../evil", 0);
}

static void test_hostile_absolute(void **state)
{
	const struct hostile_entry es[] = {
		{ .name = "@/abs-evil", .type = AE_IFREG, .perm = 0644, .size = 10 },
	};

	(void)state;
	hostile_case(es, ARRAY_LEN(es), "abs-evil", 0);
}

static void test_hostile_devices(void **state)
{
	const struct hostile_entry fifo[] = {
		{ .name = "f", .type = AE_IFIFO, .perm = 0644 },
	};
	const struct hostile_entry chr[] = {
		{ .name = "c", .type = AE_IFCHR, .perm = 0644 },
	};

	(void)state;
	hostile_case(fifo, ARRAY_LEN(fifo), "'f' is a fifo", 0);
	hostile_case(chr, ARRAY_LEN(chr), "'c' is a character device", 0);
}

/*
 * Links from a hostile stream: a symbolic link may say anything (its text
 * is data), but nothing is written through one, and a hard link is made
 * only to a regular file already inside the destination. Each case writes
 * nothing outside dest (extract_hostile checks base holds only dest).
 */
static void test_hostile_symlink_escape(void **state)
{
	/* a -> .. is base: a/evil would land beside dest */
	const struct hostile_entry up[] = {
		{ .name = "a", .type = AE_IFLNK, .perm = 0777, .link = ".." },
		{ .name = "a/evil", .type = AE_IFREG, .perm = 0644, .size = 10 },
	};
	/* the same through a deeper directory and a link to an absolute path */
	const struct hostile_entry abs[] = {
		{ .name = "d/", .type = AE_IFDIR, .perm = 0755 },
		{ .name = "d/l", .type = AE_IFLNK, .perm = 0777, .link = "@" },
		{ .name = "d/l/evil", .type = AE_IFREG, .perm = 0644, .size = 10 },
	};
	/* a directory entry through the link, then a file in it */
	const struct hostile_entry dir[] = {
		{ .name = "a", .type = AE_IFLNK, .perm = 0777, .link = "../" },
		{ .name = "a/sub/", .type = AE_IFDIR, .perm = 0755 },
		{ .name = "a/sub/evil", .type = AE_IFREG, .perm = 0644, .size = 10 },
	};
	/* a link, then a hard link and a symlink placed through it */
	const struct hostile_entry via[] = {
		{ .name = "f", .type = AE_IFREG, .perm = 0644, .size = 10 },
		{ .name = "a", .type = AE_IFLNK, .perm = 0777, .link = ".." },
		{ .name = "a/evil", .type = AE_IFREG, .perm = 0644, .link = "f", .hardlink = 1 },
	};
	const struct hostile_entry via_sym[] = {
		{ .name = "a", .type = AE_IFLNK, .perm = 0777, .link = ".." },
		{ .name = "a/evil", .type = AE_IFLNK, .perm = 0777, .link = "x" },
	};

	(void)state;
	hostile_case(up, ARRAY_LEN(up), "'a/evil' would be written through a symbolic link", 1);
	hostile_case(abs, ARRAY_LEN(abs), "'d/l/evil' would be written through a symbolic link", 1);
	hostile_case(dir, ARRAY_LEN(dir), "'a/sub/' would be written through a symbolic link", 1);
	hostile_case(via, ARRAY_LEN(via), "'a/evil' would be written through a symbolic link", 2);
	hostile_case(via_sym, ARRAY_LEN(via_sym), "'a/evil' would be written through", 1);
}

/* lstat of dir/name, which must exist. */
static void lstat_in(const char *dir, const char *name, struct stat *sb)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (lstat(path, sb) < 0)
		print_error("lstat '%s': %s\n", path, strerror(errno));
	assert_int_equal(lstat(path, sb), 0);
}

/* Creates the empty file dir/name. */
static void create_in(const char *dir, const char *name)
{
	char path[1024];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
}

static void test_hostile_hardlinks(void **state)
{
	const struct hostile_entry up[] = {
		{ .name = "hl", .type = AE_IFREG, .perm = 0644, .link = "../x", .hardlink = 1 },
	};
	const struct hostile_entry abs[] = {
		{ .name = "hl", .type = AE_IFREG, .perm = 0644, .link = "/etc/passwd", .hardlink = 1 },
	};
	/* the hard link's target through a link that leads out */
	const struct hostile_entry through[] = {
		{ .name = "a", .type = AE_IFLNK, .perm = 0777, .link = ".." },
		{ .name = "hl", .type = AE_IFREG, .perm = 0644, .link = "a/x", .hardlink = 1 },
	};
	/* to a symbolic link (link(2) would link the link itself) and to a directory */
	const struct hostile_entry to_sym[] = {
		{ .name = "s", .type = AE_IFLNK, .perm = 0777, .link = "/etc/passwd" },
		{ .name = "hl", .type = AE_IFREG, .perm = 0644, .link = "s", .hardlink = 1 },
	};
	const struct hostile_entry to_dir[] = {
		{ .name = "d/", .type = AE_IFDIR, .perm = 0755 },
		{ .name = "hl", .type = AE_IFREG, .perm = 0644, .link = "d", .hardlink = 1 },
	};
	/* to nothing yet extracted */
	const struct hostile_entry ahead[] = {
		{ .name = "hl", .type = AE_IFREG, .perm = 0644, .link = "later", .hardlink = 1 },
		{ .name = "later", .type = AE_IFREG, .perm = 0644, .size = 10 },
	};
	char base[512], dest[600];
	struct mem_sink mem;
	struct stat sb;
	int fd;

	(void)state;
	hostile_case(up, ARRAY_LEN(up), "'hl' is a hard link to '../x'", 0);
	hostile_case(abs, ARRAY_LEN(abs), "'hl' is a hard link to '/etc/passwd'", 0);
	hostile_case(to_sym, ARRAY_LEN(to_sym), "'hl' is a hard link to 's', which is not a regular file", 1);
	hostile_case(to_dir, ARRAY_LEN(to_dir), "'hl' is a hard link to 'd', which is not a regular file", 1);
	hostile_case(ahead, ARRAY_LEN(ahead), "'hl' is a hard link to 'later', not a file extracted", 0);

	/* base/x exists: a link through "a" would reach it, and must not. */
	archive_beside_dest(through, ARRAY_LEN(through), base, sizeof(base), dest, sizeof(dest), &mem);
	create_in(base, "x");
	fd = memfd_with(mem.data, mem.len);
	err_clear();
	assert_int_equal(tar_stream_extract(fd, &test_opts, dest, &(struct recv_stats){ 0 }), -1);
	close(fd);
	assert_contains(err_msg(), "'hl' is a hard link to 'a/x'");
	lstat_in(base, "x", &sb);
	assert_int_equal(sb.st_nlink, 1);
	free(mem.data);
	assert_int_equal(fs_remove_tree(base), 0);
}

/*
 * An entry in the place of a symbolic link replaces the link and does not
 * write through it: a file, a directory, a hard link, another link. The
 * stream succeeds; base (outside dest) is left as it was.
 */
static void test_entry_replaces_symlink(void **state)
{
	const struct hostile_entry es[] = {
		{ .name = "f", .type = AE_IFREG, .perm = 0644, .size = 10 },
		{ .name = "s1", .type = AE_IFLNK, .perm = 0777, .link = "../victim" },
		{ .name = "s1", .type = AE_IFREG, .perm = 0600, .size = 20 },
		{ .name = "s2", .type = AE_IFLNK, .perm = 0777, .link = "../victimdir" },
		{ .name = "s2/", .type = AE_IFDIR, .perm = 0700 },
		{ .name = "s2/in", .type = AE_IFREG, .perm = 0644, .size = 5 },
		{ .name = "s3", .type = AE_IFLNK, .perm = 0777, .link = "../victim" },
		{ .name = "s3", .type = AE_IFREG, .perm = 0644, .link = "f", .hardlink = 1 },
		{ .name = "s4", .type = AE_IFLNK, .perm = 0777, .link = "../victim" },
		{ .name = "s4", .type = AE_IFLNK, .perm = 0777, .link = "../../etc/passwd" },
	};
	char base[512], dest[600], path[700], text[64];
	struct mem_sink mem;
	struct recv_stats rs;
	struct stat sb, fsb;
	ssize_t n;
	int fd;

	(void)state;
	archive_beside_dest(es, ARRAY_LEN(es), base, sizeof(base), dest, sizeof(dest), &mem);
	create_in(base, "victim");
	snprintf(path, sizeof(path), "%s/victimdir", base);
	assert_int_equal(mkdir(path, 0755), 0);
	fd = memfd_with(mem.data, mem.len);
	err_clear();
	if (tar_stream_extract(fd, &test_opts, dest, &rs) < 0)
		print_error("tar_stream_extract: %s\n", err_msg());
	close(fd);
	/* nothing changed outside: victim empty with one link, victimdir empty */
	lstat_in(base, "victim", &sb);
	assert_true(S_ISREG(sb.st_mode) && sb.st_size == 0 && sb.st_nlink == 1);
	assert_int_equal(dir_entries(path, NULL, 0), 0);
	assert_int_equal(dir_entries(base, NULL, 0), 3);
	/* and inside, each entry took the link's place */
	lstat_in(dest, "s1", &sb);
	assert_true(S_ISREG(sb.st_mode) && sb.st_size == 20 && (sb.st_mode & 07777) == 0600);
	lstat_in(dest, "s2", &sb);
	assert_true(S_ISDIR(sb.st_mode) && (sb.st_mode & 07777) == 0700);
	lstat_in(dest, "s3", &sb);
	lstat_in(dest, "f", &fsb);
	assert_true(S_ISREG(sb.st_mode) && sb.st_ino == fsb.st_ino && sb.st_nlink == 2);
	snprintf(path, sizeof(path), "%s/s4", dest);
	n = readlink(path, text, sizeof(text) - 1);
	assert_true(n > 0);
	text[n] = '\0';
	assert_string_equal(text, "../../etc/passwd");
	assert_int_equal(rs.files, 3);
	free(mem.data);
	assert_int_equal(fs_remove_tree(base), 0);
}

static void test_hostile_truncated_and_garbage(void **state)
{
	const struct hostile_entry es[] = {
		{ .name = "a", .type = AE_IFREG, .perm = 0644, .size = 300000 },
		{ .name = "b", .type = AE_IFREG, .perm = 0644, .size = 300000 },
		{ .name = "c", .type = AE_IFREG, .perm = 0644, .size = 300000 },
	};
	char base[512], dest[600];
	struct mem_sink mem;
	unsigned char *garbage = malloc(1 << 16);
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	assert_non_null(garbage);
	archive_beside_dest(es, ARRAY_LEN(es), base, sizeof(base), dest, sizeof(dest), &mem);
	/* Cut inside b's content, then inside b's header, then right after a. */
	extract_hostile(base, mem.data, 512 + 300000 + 512 + 1000, "runcated");
	assert_int_equal(fs_clear_dir(dest), 0);
	extract_hostile(base, mem.data, 512 + 300032 + 100, "runcated");
	assert_int_equal(fs_clear_dir(dest), 0);
	extract_hostile(base, mem.data, 512 + 300032, "");
	assert_int_equal(fs_clear_dir(dest), 0);
	for (size_t i = 0; i < (1 << 16); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		garbage[i] = (unsigned char)x;
	}
	assert_int_equal(extract_hostile(base, garbage, 1 << 16, ""), 0);
	/* Garbage behind a zstd magic number. */
	memcpy(garbage, "\x28\xb5\x2f\xfd", 4);
	assert_int_equal(extract_hostile(base, garbage, 1 << 16, ""), 0);
	free(garbage);
	free(mem.data);
	assert_int_equal(fs_remove_tree(base), 0);
}

/* Counts this process's open file descriptors. */
static int open_fds(void)
{
	return dir_entries("/proc/self/fd", NULL, 0);
}

/*
 * An entry larger than `ulimit -f` is refused before any file exists: libarchive
 * 3.6.2 would fail at the end of that entry and leave its file open (the
 * fuzzer's find, tests/fuzz/crashes/fuzz_tar_extract/).
 */
static void test_entry_over_file_size_limit(void **state)
{
	const struct hostile_entry es[] = {
		{ .name = "small", .type = AE_IFREG, .perm = 0644, .size = 1000 },
		{ .name = "big", .type = AE_IFREG, .perm = 0644, .size = 200000 },
	};
	char base[512], dest[600];
	struct mem_sink mem;
	struct rlimit saved, capped;
	void (*xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
	int fds;

	(void)state;
	archive_beside_dest(es, ARRAY_LEN(es), base, sizeof(base), dest, sizeof(dest), &mem);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
	capped = saved;
	capped.rlim_cur = 65536;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &capped), 0);
	fds = open_fds();
	/* The stream as far as 10,000 bytes into big: the copy in a memfd is under the cap too. */
	assert_int_equal(extract_hostile(base, mem.data, 512 + 1024 + 512 + 10000,
					 "entry 'big' declares 200000 bytes, more than this "
					 "process may write (ulimit -f: 65536 bytes)"),
			 1);
	assert_int_equal(open_fds(), fds);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
	signal(SIGXFSZ, xfsz);
	free(mem.data);
	assert_int_equal(fs_remove_tree(base), 0);
}

/* A symlink already in the destination is not written through. */
static void test_planted_symlink(void **state)
{
	const struct hostile_entry es[] = {
		{ .name = "sub/file", .type = AE_IFREG, .perm = 0644, .size = 10 },
	};
	char base[512], dest[600], outside[600], link[700], target[700];
	struct mem_sink mem;
	struct recv_stats rs;
	int fd, rc;

	(void)state;
	make_temp(base, sizeof(base));
	snprintf(dest, sizeof(dest), "%s/dest", base);
	snprintf(outside, sizeof(outside), "%s/outside", base);
	snprintf(link, sizeof(link), "%s/sub", dest);
	snprintf(target, sizeof(target), "%s/file", outside);
	assert_int_equal(mkdir(dest, 0755), 0);
	assert_int_equal(mkdir(outside, 0755), 0);
	assert_int_equal(symlink(outside, link), 0);
	build_archive(es, ARRAY_LEN(es), base, &mem);
	fd = memfd_with(mem.data, mem.len);
	err_clear();
	rc = tar_stream_extract(fd, &test_opts, dest, &rs);
	close(fd);
	assert_int_equal(rc, -1);
	assert_contains(err_msg(), "sub/file");
	assert_int_equal(access(target, F_OK), -1);
	assert_int_equal(dir_entries(outside, NULL, 0), 0);
	free(mem.data);
	assert_int_equal(fs_remove_tree(base), 0);
}

/* Set-id bits from the stream are dropped; other permissions are kept. */
static void test_setid_dropped(void **state)
{
	const struct hostile_entry es[] = {
		{ .name = "suid", .type = AE_IFREG, .perm = 06755, .size = 10 },
		{ .name = "plain", .type = AE_IFREG, .perm = 0640, .size = 10 },
	};
	char base[512], dest[600], path[700];
	struct mem_sink mem;
	struct recv_stats rs;
	struct stat sb;
	int fd;

	(void)state;
	archive_beside_dest(es, ARRAY_LEN(es), base, sizeof(base), dest, sizeof(dest), &mem);
	fd = memfd_with(mem.data, mem.len);
	assert_int_equal(tar_stream_extract(fd, &test_opts, dest, &rs), 0);
	close(fd);
	assert_int_equal(rs.files, 2);
	assert_int_equal(rs.bytes, 20);
	assert_int_equal(rs.wire_bytes, test_sealed_len(mem.len, 0));
	snprintf(path, sizeof(path), "%s/suid", dest);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0755);
	snprintf(path, sizeof(path), "%s/plain", dest);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0640);
	assert_int_equal(sb.st_mtime, 1700000000);
	free(mem.data);
	assert_int_equal(fs_remove_tree(base), 0);
}


/*
 * The extractor reads to the end of fd, past the end marker (a sender's
 * last bytes must land), but not without bound.
 */
static void test_reads_to_end(void **state)
{
	const struct hostile_entry es[] = {
		{ .name = "a", .type = AE_IFREG, .perm = 0644, .size = 1000 },
	};
	char base[512], dest[600];
	struct mem_sink mem;
	struct recv_stats rs;
	size_t archive_len;
	int fd;

	(void)state;
	archive_beside_dest(es, ARRAY_LEN(es), base, sizeof(base), dest, sizeof(dest), &mem);
	archive_len = mem.len;
	memset(mem.data + archive_len, 0, 5 * MIB);

	fd = memfd_with(mem.data, archive_len + 3 * MIB);
	assert_int_equal(tar_stream_extract(fd, &test_opts, dest, &rs), 0);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), test_sealed_len(archive_len + 3 * MIB, 0));
	close(fd);
	assert_int_equal(rs.wire_bytes, test_sealed_len(archive_len + 3 * MIB, 0));
	assert_int_equal(rs.files, 1);
	assert_int_equal(fs_clear_dir(dest), 0);

	fd = memfd_with(mem.data, archive_len + 5 * MIB);
	err_clear();
	assert_int_equal(tar_stream_extract(fd, &test_opts, dest, &rs), -1);
	assert_contains(err_msg(), "follow the end");
	close(fd);
	free(mem.data);
	assert_int_equal(fs_remove_tree(base), 0);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_to_end),
		cmocka_unit_test(test_hostile_dotdot),
		cmocka_unit_test(test_hostile_absolute),
		cmocka_unit_test(test_hostile_devices),
		cmocka_unit_test(test_hostile_symlink_escape),
		cmocka_unit_test(test_hostile_hardlinks),
		cmocka_unit_test(test_entry_replaces_symlink),
		cmocka_unit_test(test_hostile_truncated_and_garbage),
		cmocka_unit_test(test_entry_over_file_size_limit),
		cmocka_unit_test(test_planted_symlink),
		cmocka_unit_test(test_setid_dropped),
	};
	int rc;

	/* Writers to a pipe whose reader has gone get EPIPE, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	rc = test_run("tar_hostile", tests, ARRAY_LEN(tests), NULL, 0);
	shared_cleanup();
	return rc;
}
