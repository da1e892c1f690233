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
	[PS_EV_PC_ADD] = "mm_filemap_add_to_page_cache",
	[PS_EV_PC_DEL] = "mm_filemap_delete_from_page_cache",
	[PS_EV_LRU_ADD] = "mm_lru_insertion",
	[PS_EV_LRU_ACTIVATE] = "mm_lru_activate",
	[PS_EV_KSWAPD_WAKE] = "mm_vmscan_kswapd_wake",
	[PS_EV_KSWAPD_SLEEP] = "mm_vmscan_kswapd_sleep",
	[PS_EV_WAKEUP_KSWAPD] = "mm_vmscan_wakeup_kswapd",
	[PS_EV_DIRECT_BEGIN] = "mm_vmscan_direct_reclaim_begin",
	[PS_EV_DIRECT_END] = "mm_vmscan_direct_reclaim_end",
	[PS_EV_NODE_RECLAIM_BEGIN] = "mm_vmscan_node_reclaim_begin",
	[PS_EV_NODE_RECLAIM_END] = "mm_vmscan_node_reclaim_end",
	[PS_EV_LRU_ISOLATE] = "mm_vmscan_lru_isolate",
	[PS_EV_SHRINK_INACTIVE] = "mm_vmscan_lru_shrink_inactive",
	[PS_EV_SHRINK_ACTIVE] = "mm_vmscan_lru_shrink_active",
	[PS_EV_WRITE_FOLIO] = "mm_vmscan_write_folio",
};

/* The tracefs system of each event. */
const char *const ps_event_systems[PS_EV_NR] = {
	[PS_EV_ALLOC] = "kmem",
	[PS_EV_FREE] = "kmem",
	[PS_EV_FREE_BATCHED] = "kmem",
	[PS_EV_ZONE_LOCKED] = "kmem",
	[PS_EV_PCPU_DRAIN] = "kmem",
	[PS_EV_EXTFRAG] = "kmem",
	[PS_EV_PC_ADD] = "filemap",
	[PS_EV_PC_DEL] = "filemap",
	[PS_EV_LRU_ADD] = "pagemap",
	[PS_EV_LRU_ACTIVATE] = "pagemap",
	[PS_EV_KSWAPD_WAKE] = "vmscan",
	[PS_EV_KSWAPD_SLEEP] = "vmscan",
	[PS_EV_WAKEUP_KSWAPD] = "vmscan",
	[PS_EV_DIRECT_BEGIN] = "vmscan",
	[PS_EV_DIRECT_END] = "vmscan",
	[PS_EV_NODE_RECLAIM_BEGIN] = "vmscan",
	[PS_EV_NODE_RECLAIM_END] = "vmscan",
	[PS_EV_LRU_ISOLATE] = "vmscan",
	[PS_EV_SHRINK_INACTIVE] = "vmscan",
	[PS_EV_SHRINK_ACTIVE] = "vmscan",
	[PS_EV_WRITE_FOLIO] = "vmscan",
};

const char *const ps_migratetype_names[PS_MIGRATETYPE_NAMES] = {
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
