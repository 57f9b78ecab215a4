#include "measure/verdict.h"

#include <string.h>

void verdict_inputs(const struct strategy_result *r, const struct probe_results *p,
		    struct attribution_input *in, struct ceilings *c)
{
	unsigned flags = r->strategy->flags;

	memset(in, 0, sizeof(*in));
	memset(c, 0, sizeof(*c));
	in->transfer_s = r->median.transfer;
	in->flush_s = r->median.flush;
	in->wall_s = r->median.transfer + r->median.flush;
	in->bytes = r->sent.bytes_read;
	in->wire_bytes = r->sent.wire_bytes;
	in->files = r->sent.files;
	in->round_trips = r->sent.round_trips;
	in->dest_is_tmpfs = !strcmp(r->dest_fs, "tmpfs");
	in->src_is_warm = r->warm_source;
	in->dest_disk_busy = r->have_remote && r->remote.has_disk ? r->remote.disk_busy : -1;
	in->src_disk_busy = r->have_local && r->local.has_disk ? r->local.disk_busy : -1;
	/* the wire bytes over the link ceiling is the model's own network term: no extra evidence */
	in->net_util = -1;
	in->cpu_busy = r->have_local ? r->local.cpu_busy : -1;

	c->net_bps = (flags & STRATEGY_MULTI_STREAM) && p->net_bps_n > 0 ? p->net_bps_n : p->net_bps_1;
	c->rtt_s = p->rtt_p50_s;
	c->request_rtt_s = (flags & STRATEGY_SSH) ? p->sftp_rtt_s : 0;
	c->disk_write_bps = p->disk_write_bps;
	c->disk_read_bps = p->disk_read_bps;
	c->create_per_s = p->create_per_s;
	c->src_open_per_s = p->src_open_per_s;
	c->cpu_bps = (flags & STRATEGY_COMPRESSED) ? p->zstd_bps : 0;
	/*
	 * Through sshd a stream cannot beat the SSH channel's measured ceiling
	 * (cipher, sshd's copies, its 2 MiB window): that is the path's network
	 * ceiling, so the cipher is not counted again as CPU.
	 */
	if ((flags & STRATEGY_SSH) && p->ssh_bps > 0 && (c->net_bps <= 0 || p->ssh_bps < c->net_bps))
		c->net_bps = p->ssh_bps;
}

void verdict_compute(struct strategy_result *r, const struct probe_results *p)
{
	struct attribution_input in;
	struct ceilings c;

	if (r->status != RESULT_OK || !p)
		return;
	verdict_inputs(r, p, &in, &c);
	r->have_attribution = attribution_compute(&in, &c, &r->attribution) == 0;
}
