/*
 * Unit tests for what the agent's session refuses (agent_session.c): a job
 * directory swapped for a link, records beyond the manifest, a manifest frame
 * over its cap or checked before more is read, raw content whose keyed hash
 * does not match. A real agent in a child process on loopback.
 */
#define _GNU_SOURCE
#include "agent_session_fixture.h"

/* Appends a frames record (header, path, content) to buf at *len. */
static void put_frame(unsigned char *buf, size_t *len, struct frame f, const char *path,
		      const char *content)
{
	f.path_len = (uint16_t)strlen(path);
	f.length = strlen(content);
	frame_encode(&f, buf + *len);
	*len += FRAME_HEADER;
	memcpy(buf + *len, path, strlen(path));
	*len += strlen(path);
	memcpy(buf + *len, content, strlen(content));
	*len += strlen(content);
}

/* Moves the job's directory aside (to DEST.moved) and puts a link to outside in its place. */
static void swap_for_link(const char *dest, const char *outside)
{
	char moved[4200];

	snprintf(moved, sizeof(moved), "%s.moved", dest);
	assert_int_equal(rename(dest, moved), 0);
	assert_int_equal(symlink(outside, dest), 0);
}

/*
 * A job directory swapped for a symbolic link to a directory outside the
 * root, by someone with the agent's own rights: before the receive, the
 * receive, flush and verify are refused (the agent opens it beneath the
 * root's descriptor, no link followed); in the middle of the receive, the
 * stream goes on into the directory the receive opened, hard link and
 * directory mode included (the agent never resolves the path again).
 * Either way nothing is written outside, the cleanup removes the link and
 * not what it points to, and the root goes at the end. The agent before
 * this check opened the path: the receive wrote into outside.
 */
static void test_swapped_job_directory(void **state)
{
	struct agent_child a = { 0 };
	struct agent_client c;
	struct agent_verify v;
	struct recv_stats got;
	struct manifest m;
	char dest[4096], fs[32], outside[192], path[4300];
	unsigned char buf[1024], key[WIRE_KEY_BYTES], *sealed;
	size_t len = 0, sealed_len = 0;
	struct stat st;
	uint64_t job;
	int fd;

	(void)state;
	agent_child_start(&a);
	snprintf(outside, sizeof(outside), "%s/outside", a.base);
	assert_int_equal(mkdir(outside, 0755), 0);
	assert_int_equal(agent_client_connect(&c, "127.0.0.1", a.port, TOKEN), 0);
	manifest_init(&m);
	assert_int_equal(manifest_add(&m, "d/f", 3, 0644, 42), 0);
	/* the stream below brings a directory and a hard link: the manifest lists them */
	assert_int_equal(manifest_add_dir(&m, "d", 0555, 1100000000), 0);
	assert_int_equal(manifest_add_hardlink(&m, "d/g", "d/f"), 0);
	manifest_sort(&m);
	assert_int_equal(agent_client_send_manifest(&c, &m), 0);

	/* before the receive */
	assert_int_equal(agent_client_prepare(&c, "splice", &job, dest, sizeof(dest), fs, sizeof(fs)), 0);
	swap_for_link(dest, outside);
	assert_int_equal(raw_stream_open(&c, job, "frames", 1, &fd, &key), -1);
	assert_contains(err_msg(), "is a symbolic link now, not the directory the agent made: refused");
	assert_false(c.lost);
	assert_int_equal(agent_client_flush(&c, job), -1);
	assert_int_equal(agent_client_verify(&c, job, 0, &v), -1);
	assert_contains(err_msg(), "is a symbolic link now, not the directory the agent made: refused");
	assert_int_equal(destinations(outside), 0);
	/* parked or removed: the link goes, never what it points to */
	assert_int_equal(agent_client_cleanup(&c, job, NULL), 0);

	/* in the middle of it: the data connection is open, the receiver has its directory */
	assert_int_equal(agent_client_prepare(&c, "splice", &job, dest, sizeof(dest), fs, sizeof(fs)), 0);
	assert_int_equal(raw_stream_open(&c, job, "frames", 1, &fd, &key), 0);
	swap_for_link(dest, outside);
	put_frame(buf, &len, (struct frame){ .type = FRAME_DIR, .flags = FRAME_F_MTIME, .mode = 0555,
					     .mtime = 1100000000 }, "d", "");
	put_frame(buf, &len, (struct frame){ .type = FRAME_FILE, .mode = 0644 }, "d/f", "abc");
	put_frame(buf, &len, (struct frame){ .type = FRAME_HARDLINK }, "d/g", "d/f");
	frame_encode(&(struct frame){ .type = FRAME_END, .offset = 3, .length = 6 }, buf + len);
	len += FRAME_HEADER;
	/* in the connection's authenticated segments (stream/seal_stream.h) */
	sealed = test_seal_with(key, buf, len, 0, &sealed_len);
	assert_non_null(sealed);
	assert_int_equal(write(fd, sealed, sealed_len), (ssize_t)sealed_len);
	free(sealed);
	assert_int_equal(raw_stream_finish(&c, &fd, 1, 0, &got), 0);
	assert_int_equal(got.files, 1);
	assert_int_equal(destinations(outside), 0);
	/* all of it, the hard link and the mode too, went where the receive began */
	snprintf(path, sizeof(path), "%s.moved/d/g", dest);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_nlink, 2);
	snprintf(path, sizeof(path), "%s.moved/d", dest);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0555);
	assert_int_equal(agent_client_cleanup(&c, job, NULL), 0);
	assert_int_equal(destinations(outside), 0);
	agent_client_close(&c);
	manifest_release(&m);
	/* the root went, the moved directories (a 0555 one inside) with it; outside is empty */
	agent_child_wait_keep_base(&a);
	assert_int_equal(rmdir(outside), 0);
	assert_int_equal(fs_remove_tree(a.base), 0);
}

/*
 * Issue 43, finding 3, through the agent: 200,000 DIR records on a frames
 * stream whose manifest lists 2 directories. The receive is refused at the
 * third, naming the cap; the old agent took all of them into a list the
 * session's memory cap did not count (seen: 796 MB for 808 MB of records).
 */
static void test_records_over_the_manifest_refused(void **state)
{
	const unsigned records = 200000;
	struct agent_child a = { 0 };
	struct agent_client c;
	struct manifest m;
	struct recv_stats got;
	unsigned char key[WIRE_KEY_BYTES], *plain, *sealed;
	size_t plain_len = (size_t)records * (FRAME_HEADER + 6) + FRAME_HEADER, o = 0, len = 0;
	uint64_t job;
	int fd;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	plain = malloc(plain_len);
	assert_non_null(plain);
	for (unsigned i = 0; i < records; i++) {
		frame_encode(&(struct frame){ .type = FRAME_DIR, .path_len = 6, .mode = 0755 }, plain + o);
		memcpy(plain + o + FRAME_HEADER, "d/same", 6);
		o += FRAME_HEADER + 6;
	}
	frame_encode(&(struct frame){ .type = FRAME_END, .offset = records }, plain + o);
	agent_child_start(&a);
	assert_int_equal(agent_client_connect(&c, "127.0.0.1", a.port, TOKEN), 0);
	manifest_init(&m);
	assert_int_equal(manifest_add_dir(&m, "d", 0755, 1), 0);
	assert_int_equal(manifest_add_dir(&m, "d/same", 0755, 1), 0);
	assert_int_equal(manifest_add(&m, "d/f", 3, 0644, 42), 0);
	manifest_sort(&m);
	assert_int_equal(agent_client_send_manifest(&c, &m), 0);
	job = prepare(&c);
	assert_int_equal(raw_stream_open(&c, job, "frames", 1, &fd, &key), 0);
	sealed = test_seal_with(key, plain, plain_len, 64 << 10, &len);
	assert_non_null(sealed);
	/* the agent stops reading at the third record: the rest may not all go */
	fs_write_all(fd, sealed, len);
	assert_int_equal(raw_stream_finish(&c, &fd, 1, 0, &got), -1);
	assert_contains(err_msg(), "more directory records than the manifest the client sent allows (2)");
	assert_false(c.lost);
	agent_client_close(&c);
	agent_child_wait(&a);
	manifest_release(&m);
	free(sealed);
	free(plain);
}

/* The agent's virtual size in KiB (VmSize or VmPeak of /proc/PID/status). */
static unsigned long agent_vm_kib(pid_t pid, const char *field)
{
	char path[64], line[256];
	unsigned long kib = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)) && line[strlen(field)] == ':')
			kib = strtoul(line + strlen(field) + 1, NULL, 10);
	fclose(f);
	assert_true(kib > 0);
	return kib;
}

/* Sends, on the authenticated control connection, a MANIFEST header announcing len bytes. */
static void send_manifest_header(struct agent_client *c, uint32_t len)
{
	unsigned char h[WIRE_HEADER] = { (unsigned char)(len >> 24), (unsigned char)(len >> 16),
					 (unsigned char)(len >> 8), (unsigned char)len,
					 WIRE_MANIFEST, WIRE_FLAG_SEALED, 0, 0 };

	assert_int_equal(write(c->ctl.fd, h, sizeof(h)), (ssize_t)sizeof(h));
}

/*
 * An authenticated peer announces a manifest frame over the cap of a frame
 * (WIRE_MAX_FRAME, 1 MiB; a manifest goes in pieces of at most that): the
 * agent refuses it by its header, with an ERROR that names the size and the
 * limit, and ends the session (the frame cannot be skipped: the stream is
 * lost), without reading or allocating anything for it.
 */
static void test_oversized_manifest_frame_refused(void **state)
{
	struct agent_child a = { 0 };
	struct agent_client c;
	enum wire_type t;
	json_object *o = NULL;
	char msg[128];

	(void)state;
	agent_child_start(&a);
	assert_int_equal(agent_client_connect(&c, "127.0.0.1", a.port, TOKEN), 0);
	send_manifest_header(&c, 0xffffff00u);
	assert_int_equal(wire_chan_recv_json(&c.ctl, 10000, &t, &o), -1);
	snprintf(msg, sizeof(msg), "message of %u bytes exceeds the limit of %u", 0xffffff00u, WIRE_MAX_FRAME);
	assert_contains(err_msg(), msg);
	/* and the agent closed the session */
	assert_int_equal(wire_chan_recv_json(&c.ctl, 10000, &t, &o), -1);
	assert_contains(err_msg(), "connection closed");
	close(c.ctl.fd);
	c.ctl.fd = -1;
	agent_client_close(&c);
	agent_child_wait(&a);
}

/*
 * Bytes that are not the client's (an injected or altered frame) are
 * checked before they are acted on, and the agent reads at most one frame's
 * 1 MiB of them before it knows: a sealed MANIFEST frame of WIRE_MAX_FRAME
 * bytes with a wrong tag, followed by 2 MiB more, ends the session with no
 * manifest taken. The agent's address space stays within 128 MiB of its
 * size before (protocol 2 read a 512 MiB frame whole before its MAC, and
 * grew its buffer with what came: a 480 MiB frame took it to 480 MiB).
 */
static void test_manifest_frame_checked_before_more_is_read(void **state)
{
	const size_t sent = (2u << 20) + WIRE_MAX_FRAME + SEAL_TAG_BYTES;
	struct agent_child a = { 0 };
	struct agent_client c;
	unsigned long before, peak;
	char *bytes = malloc(sent);
	size_t done = 0;

	(void)state;
	assert_non_null(bytes);
	memset(bytes, 'x', sent);
	agent_child_start(&a);
	assert_int_equal(agent_client_connect(&c, "127.0.0.1", a.port, TOKEN), 0);
	before = agent_vm_kib(a.pid, "VmSize");
	send_manifest_header(&c, WIRE_MAX_FRAME);
	signal(SIGPIPE, SIG_IGN);
	while (done < sent) {
		ssize_t n = write(c.ctl.fd, bytes + done, sent - done);

		if (n <= 0)
			break;	/* the agent closed on the bad tag */
		done += (size_t)n;
	}
	peak = agent_vm_kib(a.pid, "VmPeak");
	if (peak > before + (128u << 10))
		fail_msg("the agent's VmPeak grew by %lu MiB for a forged frame", (peak - before) >> 10);
	print_message("# VmSize %lu KiB before, VmPeak %lu KiB after a forged 1 MiB frame\n", before, peak);
	/* it ends the session (--once: and exits) without answering the forgery */
	close(c.ctl.fd);
	c.ctl.fd = -1;
	agent_client_close(&c);
	agent_child_wait(&a);
	free(bytes);
}

/*
 * A frames receive of a file larger than FRAME_RAW_MIN: its content comes
 * raw (stream/frames.h), so its verify checks the keyed hash the client
 * sends from its source (agent_content.c). The honest copy verifies; a
 * copy whose content was changed on the way fails naming integrity (and
 * not merely as "content differs": a same-XXH3 block would pass that); a
 * client that sent no keyed hash gets no "verified"; and a client that
 * cannot name its source refuses to verify. Before this check a raw
 * large file was verified by its XXH3 alone.
 */
static void raw_receive(struct agent_client *c, uint64_t job, const unsigned char *content,
			size_t size)
{
	size_t plain_len = 2 * FRAME_HEADER + 3 + size, len = 0;
	unsigned char key[WIRE_KEY_BYTES], *plain = malloc(plain_len), *sealed;
	struct recv_stats got;
	int fd;

	assert_non_null(plain);
	frame_encode(&(struct frame){ .type = FRAME_FILE, .path_len = 3, .mode = 0644, .length = size },
		     plain);
	memcpy(plain + FRAME_HEADER, "big", 3);
	memcpy(plain + FRAME_HEADER + 3, content, size);
	frame_encode(&(struct frame){ .type = FRAME_END, .offset = 1, .length = size },
		     plain + FRAME_HEADER + 3 + size);
	assert_int_equal(raw_stream_open(c, job, "frames", 1, &fd, &key), 0);
	sealed = test_seal_records_with(key, plain, plain_len, &len);
	assert_non_null(sealed);
	/* the record's segment, then the content raw, then the end record's segment */
	assert_true(len < plain_len + 3 * (SEAL_SEG_HEADER + SEAL_TAG_BYTES) + 1);
	assert_int_equal(fs_write_all(fd, sealed, len), 0);
	assert_int_equal(raw_stream_finish(c, &fd, 1, 0, &got), 0);
	assert_int_equal(got.bytes, size);
	assert_true(c->raw_content);
	free(sealed);
	free(plain);
}

static void test_raw_content_checked_by_keyed_hash(void **state)
{
	const size_t size = FRAME_RAW_MIN + 4096;
	struct agent_child a = { 0 };
	struct agent_client c;
	struct agent_verify v;
	struct manifest m;
	char src[sizeof(a.base) + 8], path[sizeof(src) + 8];
	unsigned char *content = malloc(size), buf[4096];
	uint64_t job, hash, got_size;
	int fd;

	(void)state;
	assert_non_null(content);
	for (size_t i = 0; i < size; i++)
		content[i] = (unsigned char)(i * 131 + (i >> 9));
	agent_child_start(&a);
	snprintf(src, sizeof(src), "%s/src", a.base);
	assert_int_equal(mkdir(src, 0755), 0);
	snprintf(path, sizeof(path), "%s/big", src);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fs_write_all(fd, content, size), 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(tree_hash_file(path, buf, sizeof(buf), 0, &hash, &got_size), 0);
	manifest_init(&m);
	assert_int_equal(manifest_add(&m, "big", size, 0644, hash), 0);
	manifest_sort(&m);
	assert_int_equal(agent_client_connect(&c, "127.0.0.1", a.port, TOKEN), 0);
	assert_int_equal(agent_client_send_manifest(&c, &m), 0);

	/* no source named: the client cannot vouch for the raw content */
	job = prepare(&c);
	raw_receive(&c, job, content, size);
	assert_int_equal(agent_client_verify(&c, job, 0, &v), -1);
	assert_contains(err_msg(), "no source was named");
	/* a client that sends no keyed hash (as one that skipped them): not verified */
	c.content_macs_sent = true;
	assert_int_equal(agent_client_verify(&c, job, 0, &v), 0);
	assert_false(v.verified);
	assert_contains(v.summary, "integrity check failed");
	assert_contains(v.example, "integrity check failed: big (the client sent no keyed hash of its content)");
	assert_int_equal(agent_client_cleanup(&c, job, NULL), 0);

	/* the honest copy */
	agent_client_set_source(&c, src, &m);
	c.content_macs_sent = false;
	job = prepare(&c);
	raw_receive(&c, job, content, size);
	assert_int_equal(agent_client_verify(&c, job, 0, &v), 0);
	if (!v.verified)
		print_error("verify: %s (%s)\n", v.summary, v.example);
	assert_true(v.verified);
	assert_true(c.content_macs_sent);
	assert_int_equal(agent_client_cleanup(&c, job, NULL), 0);

	/* one byte of the raw content changed on the way */
	content[size / 2] ^= 1;
	job = prepare(&c);
	raw_receive(&c, job, content, size);
	assert_int_equal(agent_client_verify(&c, job, 0, &v), 0);
	assert_false(v.verified);
	assert_contains(v.example, "integrity check failed: big is not what the client sent (its keyed hash differs)");
	assert_int_equal(agent_client_cleanup(&c, job, NULL), 0);

	agent_client_close(&c);
	manifest_release(&m);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(src), 0);
	agent_child_wait(&a);
	free(content);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swapped_job_directory),
		cmocka_unit_test(test_records_over_the_manifest_refused),
		cmocka_unit_test(test_oversized_manifest_frame_refused),
		cmocka_unit_test(test_manifest_frame_checked_before_more_is_read),
		cmocka_unit_test(test_raw_content_checked_by_keyed_hash),
	};

	signal(SIGPIPE, SIG_IGN);
	return test_run("agent_refusals", tests, ARRAY_LEN(tests), NULL, 0);
}
