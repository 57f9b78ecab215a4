/*
 * Unit tests for transfer/stream/tar_writer.c and tar_extract.c on a real
 * tree (symbolic and hard links, empty and read-only directories, modes,
 * mtimes, odd names) through our extractor and GNU tar both ways, and the
 * directory entries of the stream.
 */
#define _GNU_SOURCE
#include "tar_fixture.h"

/* ---- a real tree: links, hard links, directories, modes, mtimes ---- */

/*
 * Builds the tree every strategy on the tar path must carry whole: symbolic
 * links (relative, absolute, dangling, to a directory, text
 * ../../etc/passwd), hard links in groups of 2 and 3 (across directories),
 * empty directories at several depths, a 0555 directory with files (and
 * names sorting between it and its contents: "ro" < "ro.txt" < "ro/a"),
 * 0444/0600/0755 files and a 0000 one when root, names with a space, a
 * newline and bytes >= 0x80, a 0-byte file, mtimes set everywhere.
 */
static void make_real_tree(const char *dir)
{
	static const char script[] =
		"set -e; cd \"$1\"\n"
		"mkdir -p d/sub ro e1 d/e2/e3 'sp ace'\n"
		"printf alpha >d/a; printf beta >f644; printf ro >ro/a; printf ro2 >ro/b\n"
		"printf x >ro.txt; printf y >ro-1; : >zero\n"
		"printf 'new' >\"$(printf 'new\\nline')\"; printf hi >\"$(printf 'caf\\303\\251')\"\n"
		"printf raw >\"$(printf '\\377\\376bytes')\"; printf s >'sp ace/in file'\n"
		"printf ro >r444; chmod 0444 r444; printf p >p600; chmod 0600 p600\n"
		"printf '#!/bin/sh\\n' >x755; chmod 0755 x755\n"
		"if [ \"$(id -u)\" = 0 ]; then printf secret >z000; chmod 0000 z000; fi\n"
		"ln d/a d/sub/a2; ln f644 g644; ln f644 d/sub/g3\n"
		"ln -s ../f644 d/rel; ln -s /etc/hostname abs; ln -s nowhere/at/all dangling\n"
		"ln -s d todir; ln -s ../../etc/passwd up\n"
		"find . -mindepth 1 ! -type l -exec touch -h -d @1600000000 {} +\n"
		"touch -h -d @1500000000 d/rel abs up\n"
		"touch -d @1400000001 ro e1 d/e2/e3 d/e2 d/sub d 'sp ace'\n"
		"chmod 0555 ro; chmod 0700 e1; chmod 0750 d/e2/e3\n";
	char cmd[sizeof(script) + 600];
	int status;

	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(cmd, sizeof(cmd), "bash -c '%s' fixture '%s'", "eval \"$FIXTURE\"", dir);
	assert_int_equal(setenv("FIXTURE", script, 1), 0);
	status = system(cmd);
	unsetenv("FIXTURE");
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A copy that failed nothing any claim could fail, and kept every kind the tree has. */
static void expect_all_kept(const char *dir, const struct manifest *m)
{
	struct verify_report rep;
	char summary[512];
	unsigned present, kept;

	assert_int_equal(verify_tree(dir, m, 2, &rep), 0);
	kept = verify_preserved(m, &rep, &present);
	if (verify_failures(&rep, PRESERVE_ALL) != 0 || kept != present) {
		verify_summary(&rep, summary, sizeof(summary));
		print_error("%s: %s (first: %s); kept %#x of %#x\n", dir, summary,
			    rep.nexamples ? rep.examples[0] : "", kept, present);
		fail();
	}
	assert_int_equal(present, PRESERVE_ALL);
}

/*
 * The real tree, made on first use and shared, as the workloads are, by the
 * tests that only read it (its script's forks were most of their time).
 */
static const struct shared_workload *real_tree(void)
{
	struct shared_workload *w = &workloads[WL_REAL];

	if (w->ready)
		return w;
	if (!shared_root[0])
		make_temp(shared_root, sizeof(shared_root));
	snprintf(w->dir, sizeof(w->dir), "%s/real", shared_root);
	make_real_tree(w->dir);
	assert_int_equal(manifest_from_tree(&w->m, w->dir, 2), 0);
	assert_int_equal(w->m.nhardlinks, 3);
	assert_int_equal(w->m.nsymlinks, 5);
	assert_int_equal(w->m.ndirs, 7);
	w->ready = 1;
	return w;
}

/*
 * The order of our stream of a tree: every directory of the manifest once,
 * right before what is in it, its subtree one run (nothing comes into a
 * directory after the stream left it: GNU tar would have made a 0555 one
 * read-only by then); symbolic links with the manifest's text; each inode's
 * content once, its other names hard links to a name that came before.
 */
static void check_tree_order(const char *src, const struct manifest *m)
{
	struct byte_sink sink;
	struct mem_sink mem;
	struct send_stats st;
	struct archive *a;
	struct archive_entry *e;
	char (*names)[256] = calloc(256, sizeof(*names));
	char kinds[256];
	size_t n = 0, links = 0;

	assert_non_null(names);
	mem_sink_init(&mem, &sink);
	assert_int_equal(tar_stream_write(src, m, true, &sink, &st), 0);
	a = archive_read_new();
	archive_read_support_format_tar(a);
	assert_int_equal(archive_read_open_memory(a, mem.data, mem.len), ARCHIVE_OK);
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		const char *hard = archive_entry_hardlink(e);
		size_t len;

		assert_true(n < 256);
		snprintf(names[n], sizeof(names[0]), "%s", archive_entry_pathname(e));
		len = strlen(names[n]);
		if (len && names[n][len - 1] == '/')
			names[n][len - 1] = '\0';
		if (hard) {
			size_t k = 0;

			/* to a regular file with content, earlier in the stream */
			while (k < n && strcmp(names[k], hard))
				k++;
			assert_true(k < n);
			assert_int_equal(kinds[k], 'f');
			kinds[n] = 'h';
			links++;
		} else if (archive_entry_filetype(e) == AE_IFLNK) {
			const struct manifest_symlink *ms = manifest_find_symlink(m, names[n]);

			assert_non_null(ms);
			assert_string_equal(archive_entry_symlink(e), ms->target);
			kinds[n] = 'l';
		} else {
			kinds[n] = archive_entry_filetype(e) == AE_IFDIR ? 'd' : 'f';
		}
		n++;
	}
	archive_read_free(a);
	assert_int_equal(n, manifest_nodes(m));
	assert_int_equal(links, m->nhardlinks);
	for (size_t i = 0; i < n; i++) {
		char prefix[260];
		size_t plen, first = n, last = 0, inside = 0;

		if (kinds[i] != 'd')
			continue;
		plen = (size_t)snprintf(prefix, sizeof(prefix), "%s/", names[i]);
		for (size_t k = 0; k < n; k++) {
			if (k != i)
				assert_string_not_equal(names[k], names[i]);
			if (!strncmp(names[k], prefix, plen)) {
				first = k < first ? k : first;
				last = k > last ? k : last;
				inside++;
			}
		}
		if (!inside)
			continue;
		if (first != i + 1 || last - first + 1 != inside)
			print_error("'%s' (entry %zu): its %zu entries are at %zu..%zu\n", names[i], i,
				    inside, first, last);
		assert_int_equal(first, i + 1);
		assert_int_equal(last - first + 1, inside);
	}
	free(names);
	free(mem.data);
}

static void test_real_tree_stream_order(void **state)
{
	const struct shared_workload *w = real_tree();

	(void)state;
	check_tree_order(w->dir, &w->m);
}

/* Our stream, our extractor (plain and zstd): everything kept. */
static void test_real_tree_to_extractor(void **state)
{
	const struct shared_workload *w = real_tree();

	(void)state;
	for (int zstd = 0; zstd <= 1; zstd++) {
		struct writer_job job = { .src = w->dir, .m = &w->m, .zstd = zstd, .level = 1 };
		struct recv_stats rs;
		char dest[512];

		make_temp(dest, sizeof(dest));
		through_pipe(&job, dest, &rs);
		expect_all_kept(dest, &w->m);
		/* each inode's content once: the other names are links */
		assert_int_equal(job.st.files, w->m.count);
		assert_int_equal(rs.files, w->m.count);
		assert_int_equal(rs.bytes, w->m.total_bytes);
		assert_int_equal(fs_remove_tree(dest), 0);
	}
}

/* Our stream into GNU tar -xp (what tar-ssh runs on the host): everything kept, no warning. */
static void test_real_tree_to_gnu_tar(void **state)
{
	const struct shared_workload *w = real_tree();
	char dest[512], cmd[2048], errfile[600], errbuf[256] = "";
	FILE *ef;
	size_t n;

	(void)state;
	make_temp(dest, sizeof(dest));
	snprintf(errfile, sizeof(errfile), "%s.err", dest);
	snprintf(cmd, sizeof(cmd), "tar -xpf - -C '%s' --warning=no-unknown-keyword 2>'%s'", dest,
		 errfile);
	write_to_command(w, cmd, 0);
	ef = fopen(errfile, "r");
	assert_non_null(ef);
	n = fread(errbuf, 1, sizeof(errbuf) - 1, ef);
	fclose(ef);
	unlink(errfile);
	errbuf[n] = '\0';
	assert_string_equal(errbuf, "");
	expect_all_kept(dest, &w->m);
	assert_int_equal(fs_remove_tree(dest), 0);
}

/* GNU tar's own stream of the tree (real-tar-nc), gnu and pax formats: everything kept. */
static void test_gnu_tar_real_tree_to_extractor(void **state)
{
	static const char *formats[] = { "", "--format=pax" };
	const struct shared_workload *w = real_tree();

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(formats); i++) {
		char dest[512], cmd[1024];
		struct recv_stats rs;
		struct relay r;
		int rc, status, fd;

		make_temp(dest, sizeof(dest));
		snprintf(cmd, sizeof(cmd), "tar %s -cf - -C '%s' .", formats[i], w->dir);
		fd = relay_start(&r, cmd);
		rc = tar_stream_extract(fd, &test_opts, dest, &rs);
		if (rc < 0)
			print_error("tar_stream_extract: %s\n", err_msg());
		close(fd);
		status = relay_end(&r);
		assert_int_equal(rc, 0);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		expect_all_kept(dest, &w->m);
		assert_int_equal(rs.files, w->m.count);
		assert_int_equal(fs_remove_tree(dest), 0);
	}
}

/* ---- directory entries ---- */

/*
 * Writes src into memory and checks the stream: files in manifest order,
 * each preceded by an entry for every ancestor directory, each directory
 * once with the manifest's mode (0755 for one it does not list).
 */
static void check_directory_entries(const char *src, const struct manifest *m)
{
	struct byte_sink sink;
	struct mem_sink mem;
	struct send_stats st;
	struct archive *a;
	struct archive_entry *e;
	char (*dirs)[512] = calloc(4096, sizeof(*dirs));
	size_t ndirs = 0, files = 0;

	assert_non_null(dirs);
	mem_sink_init(&mem, &sink);
	assert_int_equal(tar_stream_write(src, m, true, &sink, &st), 0);
	assert_int_equal(mem.closes, 1);
	assert_int_equal(mem.len, st.wire_bytes);
	a = archive_read_new();
	archive_read_support_format_tar(a);
	assert_int_equal(archive_read_open_memory(a, mem.data, mem.len), ARCHIVE_OK);
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		char name[512];
		size_t len;

		snprintf(name, sizeof(name), "%s", archive_entry_pathname(e));
		len = strlen(name);
		if (archive_entry_filetype(e) == AE_IFDIR) {
			if (len && name[len - 1] == '/')
				name[--len] = '\0';
			{
				const struct manifest_dir *md = manifest_find_dir(m, name);

				assert_int_equal(archive_entry_perm(e), md ? md->mode : 0755);
			}
			for (size_t i = 0; i < ndirs; i++)
				assert_string_not_equal(dirs[i], name);
			assert_true(ndirs < 4096);
			snprintf(dirs[ndirs++], sizeof(dirs[0]), "%s", name);
			continue;
		}
		assert_int_equal(archive_entry_filetype(e), AE_IFREG);
		assert_true(files < m->count);
		assert_string_equal(name, m->entries[files].path);
		for (char *s = strchr(name, '/'); s; s = strchr(s + 1, '/')) {
			int seen = 0;

			*s = '\0';
			for (size_t i = 0; i < ndirs && !seen; i++)
				seen = !strcmp(dirs[i], name);
			if (!seen)
				print_error("no directory entry for '%s' before its file\n", name);
			assert_true(seen);
			*s = '/';
		}
		files++;
	}
	assert_int_equal(files, m->count);
	assert_int_equal(ndirs, count_dirs(m));
	archive_read_free(a);
	free(mem.data);
	free(dirs);
}

static void test_directory_entries(void **state)
{
	const struct shared_workload *w = workload(WL_MIXED);

	(void)state;
	check_directory_entries(w->dir, &w->m);
}

/*
 * Directory names that share a prefix ("a/b!" sorts before "a/b", "a/b"
 * before "a/bc") each get their entry, and the tree extracts.
 */
static void test_directory_names_sharing_a_prefix(void **state)
{
	static const char *files[] = { "a/b!/f", "a/b/g", "a/b/h/i", "a/bc/j", "a/bc/k/l/m",
				       "a/x", "top", "z/y" };
	char base[512], src[600], dest[600], path[700];
	struct manifest m;
	struct recv_stats rs;
	struct send_stats st;
	struct byte_sink sink;
	struct seal_sink sealed;
	int p[2];

	(void)state;
	make_temp(base, sizeof(base));
	snprintf(src, sizeof(src), "%s/src", base);
	snprintf(dest, sizeof(dest), "%s/dest", base);
	assert_int_equal(mkdir(dest, 0755), 0);
	for (size_t i = 0; i < ARRAY_LEN(files); i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/%s", src, files[i]);
		*strrchr(path, '/') = '\0';
		assert_int_equal(fs_mkdir_p(path), 0);
		snprintf(path, sizeof(path), "%s/%s", src, files[i]);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		assert_true(fd >= 0);
		assert_int_equal(fs_write_all(fd, files[i], strlen(files[i])), 0);
		close(fd);
	}
	manifest_init(&m);
	assert_int_equal(manifest_from_tree(&m, src, 1), 0);
	assert_int_equal(m.count, ARRAY_LEN(files));
	check_directory_entries(src, &m);

	/* Small enough for the pipe buffer: write (in segments), then extract. */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	byte_sink_fd(&sink, &p[1]);
	assert_int_equal(seal_sink_init(&sealed, &sink, test_key), 0);
	assert_int_equal(tar_stream_write(src, &m, true, seal_sink_as_sink(&sealed), &st), 0);
	assert_int_equal(p[1], -1);
	assert_int_equal(tar_stream_extract(p[0], &test_opts, dest, &rs), 0);
	close(p[0]);
	assert_int_equal(rs.wire_bytes, sealed.wire);
	seal_sink_release(&sealed);
	expect_verified(dest, &m);
	manifest_release(&m);
	assert_int_equal(fs_remove_tree(base), 0);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_tree_stream_order),
		cmocka_unit_test(test_real_tree_to_extractor),
		cmocka_unit_test(test_real_tree_to_gnu_tar),
		cmocka_unit_test(test_gnu_tar_real_tree_to_extractor),
		cmocka_unit_test(test_directory_entries),
		cmocka_unit_test(test_directory_names_sharing_a_prefix),
	};
	int rc;

	/* Writers to a pipe whose reader has gone get EPIPE, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	rc = test_run("tar_tree", tests, ARRAY_LEN(tests), NULL, 0);
	shared_cleanup();
	return rc;
}
