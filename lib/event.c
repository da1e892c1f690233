// SPDX-License-Identifier: GPL-2.0-or-later
#include <string.h>

#include "lib/event.h"

const char *const ps_event_names[PS_EV_NR] = {
	[PS_EV_ALLOC] = "mm_page_alloc",
	[PS_EV_FREE] = "mm_page_free",
	[PS_EV_FREE_BATCHED] = "mm_page_free_batched",
	[PS_EV_ZONE_LOCKED] = "mm_page_alloc_zone_locked",
	[PS_EV_PCPU_DRAIN] = "mm_page_pcpu_drain",
	[PS_EV_EXTFRAG] = "mm_page_alloc_extfrag",
};

const char *const ps_migratetype_names[PS_MT_NR] = {
	[PS_MT_UNMOVABLE] = "Unmovable",
	[PS_MT_MOVABLE] = "Movable",
	[PS_MT_RECLAIMABLE] = "Reclaimable",
	[PS_MT_HIGHATOMIC] = "HighAtomic",
	[PS_MT_CMA] = "CMA",
	[PS_MT_ISOLATE] = "Isolate",
	[PS_MT_RESERVE] = "Reserve",
};

int ps_event_type_from_name(const char *name, int len)
{
	for (int i = 0; i < PS_EV_NR; i++)
		if ((int)strlen(ps_event_names[i]) == len && !memcmp(ps_event_names[i], name, len))
			return i;
	return -1;
}

int ps_task_of(const char *comm, int8_t *node)
{
	int task, n = 0, digits = 0;
	const char *p;

	*node = -1;
	if (!comm || comm[0] != 'k')
		return PS_TASK_OTHER;
	if (!strncmp(comm, "kswapd", 6)) {
		task = PS_TASK_KSWAPD;
		p = comm + 6;
	} else if (!strncmp(comm, "kcompactd", 9)) {
		task = PS_TASK_KCOMPACTD;
		p = comm + 9;
	} else {
		return PS_TASK_OTHER;
	}
	for (; *p >= '0' && *p <= '9' && n < 128; p++, digits++)
		n = n * 10 + (*p - '0');
	if (digits && n < 128)
		*node = (int8_t)n;
	return task;
}
