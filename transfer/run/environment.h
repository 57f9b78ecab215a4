#ifndef XFERCMP_ENVIRONMENT_H
#define XFERCMP_ENVIRONMENT_H

#include <json-c/json.h>

/*
 * What the numbers depend on besides the strategies: this machine's kernel,
 * cores, TCP congestion control, the MTU towards the destination, the source
 * file system; and the agent's own answer about the destination.
 */
json_object *environment_json(const char *src_root, const char *peer_addr, json_object *agent_info);

#endif
