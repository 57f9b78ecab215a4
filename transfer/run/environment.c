#include "run/environment.h"

#include "fsutil.h"
#include "parallel.h"
#include "sample/procstat.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

/* First line of a small /proc or /sys file, "" when unreadable. */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

json_object *environment_json(const char *src_root, const char *peer_addr, json_object *agent_info)
{
	json_object *env = json_object_new_object(), *local = json_object_new_object();
	char buf[256], iface[64] = "", path[128], fs[32] = "";
	struct utsname u;

	uname(&u);
	json_object_object_add(local, "kernel", json_object_new_string(u.release));
	json_object_object_add(local, "machine", json_object_new_string(u.machine));
	json_object_object_add(local, "cores", json_object_new_int((int)parallel_cpus()));
	read_line("/proc/sys/net/ipv4/tcp_congestion_control", buf, sizeof(buf));
	json_object_object_add(local, "congestion_control", buf[0] ? json_object_new_string(buf) : NULL);
	/* null, never "" or 0: no peer (a local run), or what could not be read */
	{
		json_object *iface_v = NULL, *mtu_v = NULL;
		int mtu;

		if (peer_addr && procstat_iface_for_addr(peer_addr, iface, sizeof(iface)) == 0) {
			snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", iface);
			read_line(path, buf, sizeof(buf));
			iface_v = json_object_new_string(iface);
			if (sscanf(buf, "%d", &mtu) == 1)
				mtu_v = json_object_new_int(mtu);
		}
		json_object_object_add(local, "interface", iface_v);
		json_object_object_add(local, "mtu", mtu_v);
	}
	json_object_object_add(local, "source_fs",
			       src_root && fs_type_name(src_root, fs, sizeof(fs)) == 0 && fs[0] ?
			       json_object_new_string(fs) : NULL);
	json_object_object_add(env, "local", local);
	json_object_object_add(env, "destination", agent_info ? json_object_get(agent_info) : NULL);
	return env;
}
