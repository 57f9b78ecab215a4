/* The pair of hosts as the agent describes its own. See probes.h, probe_hosts. */
#include "probe/probes.h"

#include "parallel.h"
#include "sample/procstat.h"

#include <string.h>

void probe_hosts(json_object *agent_info, bool one_disk, struct probe_results *r)
{
	json_object *v;
	char mine[40];

	r->one_disk = one_disk;
	r->cores_local = parallel_cpus();
	if (!agent_info)
		return;
	if (json_object_object_get_ex(agent_info, "cores", &v) && json_object_get_int(v) > 0)
		r->cores_remote = (unsigned)json_object_get_int(v);
	if (json_object_object_get_ex(agent_info, "dirty_background_bytes", &v) &&
	    json_object_get_int64(v) > 0)
		r->dest_dirty_bytes = (double)json_object_get_int64(v);
	procstat_boot_id(mine, sizeof(mine));
	r->one_machine = mine[0] && json_object_object_get_ex(agent_info, "boot_id", &v) &&
			 json_object_is_type(v, json_type_string) &&
			 !strcmp(json_object_get_string(v), mine);
}
