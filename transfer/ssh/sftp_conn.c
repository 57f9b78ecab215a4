/*
 * SFTP v3 over an SSH channel, by hand (sftp_conn.h says why).
 */
#include "ssh/sftp_conn.h"

#include "err.h"
#include "fsutil.h"
#include "ssh/ssh_conn.h"

#include <unistd.h>

/* libssh's last message for the channel's session; "connection lost" if none. */
static const char *session_error(ssh_channel ch, char *buf, size_t len)
{
	return ssh_conn_error_text(ch ? ssh_channel_get_session(ch) : NULL, buf, len,
				   "connection lost");
}

/* Closing our end tells the pump to send EOF on the channel and end; then it is joined. */
static void stop_pump(struct sftp_conn *c)
{
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	channel_pump_stop(&c->pump);
}

/* Our end of the pump failed: the pump has stopped, and says why once joined. */
static int ended(struct sftp_conn *c)
{
	stop_pump(c);
	return err_set("the sftp session ended (sftp-server exited or the connection broke): %s",
		       c->pump.error[0] ? c->pump.error : "the ssh pump stopped");
}

/* Reads exactly len bytes. */
static int read_full(struct sftp_conn *c, uint8_t *buf, size_t len)
{
	if (c->fd < 0 || fs_read_full(c->fd, buf, len) != (long long)len)
		return ended(c);
	return 0;
}

int sftp_conn_send(struct sftp_conn *c, const void *buf, size_t len)
{
	if (c->fd < 0 || fs_write_all(c->fd, buf, len) < 0)
		return ended(c);
	return 0;
}

int sftp_conn_recv(struct sftp_conn *c, struct sftp_reply *r)
{
	uint8_t head[4];
	uint32_t len;

	if (read_full(c, head, sizeof(head)) < 0)
		return -1;
	len = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3];
	if (len == 0 || len > sizeof(c->rx))
		return err_set("sftp: the server sent a message of %u bytes (1 to %zu expected)", len,
			       sizeof(c->rx));
	if (read_full(c, c->rx, len) < 0)
		return -1;
	return sftp_parse_reply(c->rx, len, r);
}

uint32_t sftp_conn_id(struct sftp_conn *c)
{
	return c->next_id++;
}

int sftp_conn_open(struct sftp_conn *c, ssh_session s)
{
	struct sftp_reply r;
	uint8_t init[16];
	size_t n = sftp_encode_init(init, sizeof(init));
	char e[512];

	c->next_id = 1;
	c->fd = -1;
	c->ch = ssh_channel_new(s);
	if (!c->ch || ssh_channel_open_session(c->ch) != SSH_OK)
		return err_set("cannot open an ssh session channel for sftp: %s",
			       session_error(c->ch, e, sizeof(e)));
	if (ssh_channel_request_subsystem(c->ch, "sftp") != SSH_OK)
		return err_set("cannot start sftp on the host (does its sshd_config have a 'Subsystem "
			       "sftp' line?): %s",
			       session_error(c->ch, e, sizeof(e)));
	if (channel_pump_start(&c->pump, c->ch, &c->fd) < 0)
		return -1;
	if (sftp_conn_send(c, init, n) < 0 || sftp_conn_recv(c, &r) < 0)
		return err_wrap("cannot start sftp on the host");
	if (r.type != SFTP_VERSION)
		return err_set("cannot start sftp on the host: it answered the version request with "
			       "message type %u",
			       r.type);
	if (r.version < SFTP_PROTOCOL_VERSION)
		return err_set("cannot start sftp on the host: it speaks SFTP version %u, version %d "
			       "or later is needed",
			       r.version, SFTP_PROTOCOL_VERSION);
	return 0;
}

void sftp_conn_close(struct sftp_conn *c)
{
	if (!c->ch)
		return;
	stop_pump(c);
	if (ssh_channel_is_open(c->ch))
		ssh_channel_close(c->ch);
	ssh_channel_free(c->ch);
	c->ch = NULL;
}

int sftp_conn_fail(const struct sftp_reply *r, const char *what, const char *path)
{
	const char *name;

	if (r->type != SFTP_STATUS)
		return err_set("%s remote '%s': sftp: unexpected reply type %u", what, path, r->type);
	name = sftp_status_name(r->status);
	if (r->message_len > 0)
		return err_set("%s remote '%s': sftp: %.*s (status %u%s%s)", what, path,
			       (int)(r->message_len > 200 ? 200 : r->message_len), r->message, r->status,
			       name ? ", " : "", name ? name : "");
	if (name)
		return err_set("%s remote '%s': sftp: %s (status %u)", what, path, name, r->status);
	return err_set("%s remote '%s': sftp status %u", what, path, r->status);
}
