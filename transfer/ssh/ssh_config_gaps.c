/* What the ssh config asks and libssh does not take by itself: ssh_config_gaps.h. */
#include "ssh/ssh_config_gaps.h"
#include "ssh/ssh_log.h"

#include "err.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t defaults_once = PTHREAD_ONCE_INIT;
static struct ssh_resolved *openssh_defaults;	/* NULL: could not be read */

static void read_defaults(void)
{
	struct ssh_resolved *d = calloc(1, sizeof(*d));

	/* no config at all; the host's name is never looked up by ssh -G */
	if (d && ssh_resolve("/dev/null", "xfercmp-defaults", NULL, 0, d) == 0)
		openssh_defaults = d;
	else
		free(d);
	err_clear();
}

void ssh_config_gaps_keep_configured(struct ssh_resolved *r)
{
	pthread_once(&defaults_once, read_defaults);
	/* against itself every field is "the default": all of them cleared */
	ssh_resolve_drop_defaults(r, openssh_defaults ? openssh_defaults : r);
}

int ssh_config_gaps_apply(ssh_session s, const struct ssh_resolved *r, int ciphers_given)
{
	const struct ssh_resolved_algos *a = &r->algos;
	const struct {
		const char *name, *list;
		enum ssh_options_e one, other;	/* other == one: a single option */
	} lists[] = {
		{ "Ciphers", ciphers_given ? "" : a->ciphers, SSH_OPTIONS_CIPHERS_C_S,
		  SSH_OPTIONS_CIPHERS_S_C },
		{ "KexAlgorithms", a->kex, SSH_OPTIONS_KEY_EXCHANGE, SSH_OPTIONS_KEY_EXCHANGE },
		{ "HostKeyAlgorithms", a->hostkeys, SSH_OPTIONS_HOSTKEYS, SSH_OPTIONS_HOSTKEYS },
		{ "MACs", a->macs, SSH_OPTIONS_HMAC_C_S, SSH_OPTIONS_HMAC_S_C },
		{ "PubkeyAcceptedAlgorithms", a->pubkeys, SSH_OPTIONS_PUBLICKEY_ACCEPTED_TYPES,
		  SSH_OPTIONS_PUBLICKEY_ACCEPTED_TYPES },
	};
	char text[512];
	int n = 0;

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		const char *list = lists[i].list;

		if (!list[0])
			continue;
		/* libssh drops the names it does not know, and refuses a list of none */
		if (ssh_options_set(s, lists[i].one, list) < 0 ||
		    ssh_options_set(s, lists[i].other, list) < 0)
			n += ssh_log_warn_once("ssh config: %s %.16s%s not used: libssh has none",
					       lists[i].name, list, strlen(list) > 16 ? "..." : "");
	}
	for (unsigned i = 0; i < SSH_RESOLVE_NUNSUPPORTED; i++)
		if (ssh_resolve_ignored(r, i, text, sizeof(text)))
			n += ssh_log_warn_once("%s", text);
	return n;
}
