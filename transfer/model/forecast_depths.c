/* The concurrencies the probes measure at, for the forecasts to come. See forecast.h. */
#include "model/forecast.h"

#include <string.h>

void forecast_depths(const struct strategy *const *list, size_t n, unsigned streams,
		     struct probe_depths *creates, struct probe_depths *opens,
		     struct probe_depths *reads)
{
	memset(creates, 0, sizeof(*creates));
	memset(opens, 0, sizeof(*opens));
	memset(reads, 0, sizeof(*reads));
	probe_depths_add(creates, 1);
	probe_depths_add(opens, 1);
	probe_depths_add(reads, 1);
	for (size_t i = 0; i < n; i++) {
		const struct strategy_traits *t = &list[i]->traits;
		unsigned k = (list[i]->flags & STRATEGY_MULTI_STREAM) && streams > 1 ? streams : 1;
		unsigned made = t->creator == CREATOR_AGENT && t->receiver_depth ? t->receiver_depth : 1;

		probe_depths_add(creates, made * k);
		probe_depths_add(opens, (t->sender_depth ? t->sender_depth : 1) * k);
		probe_depths_add(reads, k);
	}
}
