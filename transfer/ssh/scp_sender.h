#ifndef XFERCMP_SCP_SENDER_H
#define XFERCMP_SCP_SENDER_H

/*
 * The `scp` strategy's sender: a model of OpenSSH 9's `scp -r SRC host:DEST`,
 * which speaks SFTP to the host's own sftp-server, one file at a time.
 */

#include "manifest.h"
#include "stream/xfer_stats.h"

#include <stdbool.h>
#include <libssh/libssh.h>

/*
 * The largest SFTP write: OpenSSH's sftp-server exits on a message over 256 KiB,
 * and announces this as its write limit (limits@openssh.com), which its scp uses.
 */
#define SCP_WRITE_MAX (255 * 1024)

/* Writes of one file in flight at once: OpenSSH's sftp client's default (-R 64). */
#define SCP_REQUESTS 64

/*
 * Sends the manifest's tree from src_root to remote_dest over one SFTP
 * session on s, as scp -r does (scp_sender.c says how each kind of node
 * goes): the nodes land at remote_dest/PATH (remote_dest itself is created
 * if missing; its parent must exist). Directories are made as the walk in
 * tree order reaches them (with u+rwx; an existing one is fine) and given
 * their mode once all below them is sent; files (a hard link's every name,
 * a symbolic link's target when it is a regular file) are created with
 * their mode & 0777, written in chunks of at most SCP_WRITE_MAX with up to
 * SCP_REQUESTS in flight, set to the size written, and closed. Symbolic
 * links to anything else and special files are not sent. Each source
 * file's page cache is dropped once it is read (when drop_cache is set).
 *
 * st (zeroed here): files (each file created), bytes_read, wire_bytes (the
 * SFTP requests' bytes: framing, paths, handles, data; not the SSH packets
 * around them), round_trips (requests the sender waited on before sending
 * more: mkdir, the stat after a mkdir that failed, open, the last write of
 * each file, set-size, close, a directory's setstat; the session setup is
 * not counted). A source file whose size is not the manifest's is an error
 * naming it; remote errors name the remote path and the SFTP status. On
 * failure what was sent stays. Returns 0 or -1 (error set).
 */
int scp_send(ssh_session s, const char *src_root, const struct manifest *m,
	     const char *remote_dest, bool drop_cache, struct send_stats *st);

/*
 * Compares two paths in tree order: a directory's nodes come right after
 * it ('/' ranks before any other byte), the order both this model and
 * real_scp.c's plan walk a tree in. Returns <0, 0 or >0 as strcmp.
 */
int scp_tree_order_cmp(const char *a, const char *b);

#endif
