/*
 * ssh_probe: a small driver for the SSH layer, used by
 * tests/integration/ssh_layer.t (not installed, not part of xfercmp).
 *
 *   ssh_probe connect -F CONFIG [--accept-new] [--cipher LIST] [--timeout S] TARGET
 *       connects, prints the negotiated cipher
 *   ssh_probe exec -F CONFIG TARGET COMMAND
 *       pipes stdin into COMMAND's stdin, prints "exit N"
 *   ssh_probe line -F CONFIG [--timeout-ms MS] TARGET COMMAND
 *       prints COMMAND's first output line, then waits for it to exit;
 *       prints "read_line waited N ms" on stderr either way, so a test can
 *       time the wait alone (connecting can take seconds on a loaded machine)
 *   ssh_probe scp -F CONFIG TARGET SRC_DIR REMOTE_DIR
 *       sends SRC_DIR (manifest SRC_DIR.manifest) with scp_send, prints
 *       "files=N bytes=N round_trips=N wire_bytes=N seconds=S"
 *
 * Exit status 0 on success; 1 with the error on stderr; 2 on a usage error.
 */
#include "clock.h"
#include "err.h"
#include "manifest.h"
#include "ssh/scp_sender.h"
#include "ssh/ssh_conn.h"
#include "ssh/ssh_exec.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STDIN_CHUNK (1024 * 1024)

static int usage(void)
{
	fprintf(stderr,
		"usage: ssh_probe connect -F CONFIG [--accept-new] [--cipher LIST] [--timeout S] TARGET\n"
		"       ssh_probe exec -F CONFIG TARGET COMMAND\n"
		"       ssh_probe line -F CONFIG [--timeout-ms MS] TARGET COMMAND\n"
		"       ssh_probe scp -F CONFIG TARGET SRC_DIR REMOTE_DIR\n");
	return 2;
}

static int fail(const char *what)
{
	fprintf(stderr, "ssh_probe %s: %s\n", what, err_msg());
	return 1;
}

static int run_exec(ssh_session s, const char *command)
{
	struct ssh_exec x;
	char *buf = malloc(STDIN_CHUNK);
	int status = -1, rc = -1;
	ssize_t n;

	if (!buf)
		return err_set("out of memory");
	if (ssh_exec_start(s, command, &x) < 0)
		goto out;
	while ((n = read(0, buf, STDIN_CHUNK)) > 0)
		if (ssh_exec_write(&x, buf, (size_t)n) < 0)
			goto out;
	if (n < 0) {
		err_errno("cannot read stdin");
		goto out;
	}
	rc = ssh_exec_finish(&x, &status);
	printf("exit %d\n", status);
out:
	ssh_exec_release(&x);
	free(buf);
	return rc;
}

static int run_line(ssh_session s, const char *command, int timeout_ms)
{
	struct ssh_exec x;
	char line[1024];
	int status, got, rc = -1;
	clock_ns t0;

	if (ssh_exec_start(s, command, &x) < 0)
		goto out;
	t0 = clock_now();
	got = ssh_exec_read_line(&x, line, sizeof(line), timeout_ms);
	fprintf(stderr, "read_line waited %.0f ms\n", clock_seconds(t0, clock_now()) * 1000.0);
	if (got < 0)
		goto out;
	printf("line %s\n", line);
	rc = ssh_exec_finish(&x, &status);
	printf("exit %d\n", status);
out:
	ssh_exec_release(&x);
	return rc;
}

static int run_scp(ssh_session s, const char *src, const char *dest)
{
	char manifest_file[PATH_MAX];
	struct manifest m;
	struct send_stats st;
	clock_ns t0;
	int rc;

	manifest_init(&m);
	if (manifest_default_path(src, manifest_file, sizeof(manifest_file)) < 0 ||
	    manifest_load(&m, manifest_file) < 0) {
		manifest_release(&m);
		return -1;
	}
	t0 = clock_now();
	rc = scp_send(s, src, &m, dest, true, &st);
	if (rc == 0)
		printf("files=%llu bytes=%llu round_trips=%llu wire_bytes=%llu seconds=%.3f\n",
		       (unsigned long long)st.files, (unsigned long long)st.bytes_read,
		       (unsigned long long)st.round_trips, (unsigned long long)st.wire_bytes,
		       clock_seconds(t0, clock_now()));
	manifest_release(&m);
	return rc;
}

int main(int argc, char **argv)
{
	struct ssh_conn_opts o = { 0 };
	const char *cmd, *args[3];
	int nargs = 0, timeout_ms = 10000, rc;
	ssh_session s;

	/* as the client does: the scp pump writing to a closed socket pair gets EPIPE, not death */
	signal(SIGPIPE, SIG_IGN);

	if (argc < 2)
		return usage();
	cmd = argv[1];
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-F") && i + 1 < argc)
			o.config_file = argv[++i];
		else if (!strcmp(argv[i], "--accept-new"))
			o.accept_new_hostkey = 1;
		else if (!strcmp(argv[i], "--cipher") && i + 1 < argc)
			o.ciphers = argv[++i];
		else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
			o.connect_timeout_s = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--timeout-ms") && i + 1 < argc)
			timeout_ms = atoi(argv[++i]);
		else if (nargs < 3)
			args[nargs++] = argv[i];
		else
			return usage();
	}
	if (nargs < 1)
		return usage();
	o.target = args[0];
	if ((!strcmp(cmd, "connect") && nargs != 1) || (!strcmp(cmd, "exec") && nargs != 2) ||
	    (!strcmp(cmd, "line") && nargs != 2) || (!strcmp(cmd, "scp") && nargs != 3))
		return usage();
	if (strcmp(cmd, "connect") && strcmp(cmd, "exec") && strcmp(cmd, "line") &&
	    strcmp(cmd, "scp"))
		return usage();
	if (ssh_conn_open(&o, &s) < 0)
		return fail(cmd);
	if (!strcmp(cmd, "connect")) {
		printf("cipher %s\n", ssh_conn_cipher(s));
		rc = 0;
	} else if (!strcmp(cmd, "exec")) {
		rc = run_exec(s, args[1]);
	} else if (!strcmp(cmd, "line")) {
		rc = run_line(s, args[1], timeout_ms);
	} else {
		rc = run_scp(s, args[1], args[2]);
	}
	ssh_conn_close(s);
	return rc < 0 ? fail(cmd) : 0;
}
