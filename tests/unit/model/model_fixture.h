/*
 * A pair of hosts and workloads for the model's unit tests: probes of the
 * shape the testbed's are (two cores, one machine, one disk), round
 * numbers so the arithmetic can be checked by hand. Header only.
 */
#ifndef XFERCMP_MODEL_FIXTURE_H
#define XFERCMP_MODEL_FIXTURE_H

#include "model/forecast.h"

#include <string.h>

#define GIB (1024.0 * 1024 * 1024)

static inline struct probe_results fixture_probes(void)
{
	struct probe_results p;

	memset(&p, 0, sizeof(p));
	p.net_bps_1 = 2e9;		/* 16 Gbit/s */
	p.net_link_bps = 3e9;
	p.sweep[0] = (struct net_sweep_step){ .streams = 1, .bits_per_s = 16e9 };
	p.sweep[1] = (struct net_sweep_step){ .streams = 2, .bits_per_s = 24e9 };
	p.nsweep = 2;
	p.rtt_p50_s = 40e-6;
	p.rtt_p99_s = 60e-6;
	p.rtt_cpu_s = 30e-6;
	p.sftp_rtt_s = 110e-6;
	p.ssh_bps = 500e6;
	p.ssh_cpu_busy = 0.5;
	p.disk_write_bps = 400e6;
	p.disk_read_bps = 1e9;
	p.create_per_s = 5000;
	p.create_at[0] = (struct probe_rate){ .depth = 1, .per_s = 5000 };
	p.create_at[1] = (struct probe_rate){ .depth = 16, .per_s = 20000 };
	p.create_made_at[0] = (struct probe_rate){ .depth = 1, .per_s = 10000 };
	p.create_made_at[1] = (struct probe_rate){ .depth = 16, .per_s = 40000 };
	p.ncreate_at = 2;
	p.create_cpu_s = 50e-6;
	p.src_open_per_s = 10000;
	p.open_at[0] = (struct probe_rate){ .depth = 1, .per_s = 10000 };
	p.open_at[1] = (struct probe_rate){ .depth = 64, .per_s = 40000 };
	p.nopen_at = 2;
	p.src_open_cpu_s = 20e-6;
	p.zstd_bps = 600e6;
	p.zstd_ratio = 2.0;
	p.cores_local = p.cores_remote = 2;
	p.one_machine = p.one_disk = true;
	p.dest_dirty_bytes = 2 * GIB;
	snprintf(p.dest_fs, sizeof(p.dest_fs), "ext4");
	return p;
}

/* n small files of 4 KiB in n / 1,000 directories. */
static inline struct workload_counts fixture_small(uint64_t n)
{
	struct workload_counts w;

	memset(&w, 0, sizeof(w));
	w.files = w.nonempty_files = w.small_files = n;
	w.bytes = w.small_bytes = w.bytes_in_blocks = w.small_bytes_in_pages = n * 4096;
	w.dirs = n / 1000;
	w.name_bytes = n * 20;
	return w;
}

/* One file of `bytes`. */
static inline struct workload_counts fixture_large(double bytes)
{
	struct workload_counts w;

	memset(&w, 0, sizeof(w));
	w.files = w.nonempty_files = w.large_files = 1;
	w.bytes = w.large_bytes = w.bytes_in_blocks = (uint64_t)bytes;
	w.name_bytes = 7;
	return w;
}

static inline struct forecast_input fixture_input(const struct strategy *s, const struct probe_results *p,
						  struct workload_counts w)
{
	struct forecast_input in = { .strategy = s, .probes = p, .work = w, .streams = 2 };

	return in;
}

#endif
