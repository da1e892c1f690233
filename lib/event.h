/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * event.h - the one event record every pagesim reader yields.
 *
 * Readers (ftrace text, trace-cmd report text, trace.dat, pagesim files)
 * normalise kernel-version differences before filling this record:
 *
 *  - migratetypes are always in the v4.4+ numbering (PS_MT_*); a v4.0-4.3
 *    trace's RECLAIMABLE=1 / MOVABLE=2 / RESERVE=3 are translated;
 *  - gfp flags are pagesim's own stable bits (PS_GFP_*), decoded from the
 *    kernel's symbolic names, because the kernel's bit values moved between
 *    releases (6.x "enumerate all gfp flags");
 *  - pfn is a number whatever the kernel printed (hex, decimal, page= only);
 *    a failed allocation has pfn PS_PFN_NONE.
 *
 * Plain data; no ownership.  @comm points into the reader's buffer and is
 * valid until the next call to ps_reader_next(); it may be NULL.
 */
#ifndef PS_EVENT_H
#define PS_EVENT_H

#include <stdint.h>

#include "lib/mmzone.h"

enum ps_event_type {
	/* kmem: the page allocator */
	PS_EV_ALLOC,		/* mm_page_alloc */
	PS_EV_FREE,		/* mm_page_free */
	PS_EV_FREE_BATCHED,	/* mm_page_free_batched (annotation) */
	PS_EV_ZONE_LOCKED,	/* mm_page_alloc_zone_locked */
	PS_EV_PCPU_DRAIN,	/* mm_page_pcpu_drain */
	PS_EV_EXTFRAG,		/* mm_page_alloc_extfrag */
	PS_EV_KMEM_NR,
	/* filemap, pagemap: page-cache and LRU membership (pfn of the folio) */
	PS_EV_PC_ADD = PS_EV_KMEM_NR,	/* filemap:mm_filemap_add_to_page_cache */
	PS_EV_PC_DEL,		/* filemap:mm_filemap_delete_from_page_cache */
	PS_EV_LRU_ADD,		/* pagemap:mm_lru_insertion */
	PS_EV_LRU_ACTIVATE,	/* pagemap:mm_lru_activate */
	/* vmscan: who reclaimed, when and how much (no pfn but write_folio's) */
	PS_EV_KSWAPD_WAKE,	/* vmscan:mm_vmscan_kswapd_wake */
	PS_EV_KSWAPD_SLEEP,	/* vmscan:mm_vmscan_kswapd_sleep */
	PS_EV_WAKEUP_KSWAPD,	/* vmscan:mm_vmscan_wakeup_kswapd */
	PS_EV_DIRECT_BEGIN,	/* vmscan:mm_vmscan_direct_reclaim_begin */
	PS_EV_DIRECT_END,	/* vmscan:mm_vmscan_direct_reclaim_end */
	PS_EV_NODE_RECLAIM_BEGIN,	/* vmscan:mm_vmscan_node_reclaim_begin */
	PS_EV_NODE_RECLAIM_END,	/* vmscan:mm_vmscan_node_reclaim_end */
	PS_EV_LRU_ISOLATE,	/* vmscan:mm_vmscan_lru_isolate */
	PS_EV_SHRINK_INACTIVE,	/* vmscan:mm_vmscan_lru_shrink_inactive */
	PS_EV_SHRINK_ACTIVE,	/* vmscan:mm_vmscan_lru_shrink_active */
	PS_EV_WRITE_FOLIO,	/* vmscan:mm_vmscan_write_folio (mm_vmscan_writepage up to 5.x) */
	PS_EV_NR
};

/* Whether @type is one of the kmem page events (the ones every trace has). */
static inline int ps_event_is_kmem(int type)
{
	return type < PS_EV_KMEM_NR;
}

/* enum lru_list, as mm_lru_insertion's lru field and mm_vmscan_lru_isolate's lru name give it */
enum ps_lru {
	PS_LRU_INACTIVE_ANON,
	PS_LRU_ACTIVE_ANON,
	PS_LRU_INACTIVE_FILE,
	PS_LRU_ACTIVE_FILE,
	PS_LRU_UNEVICTABLE,
	PS_NR_LRU
};

/* is_file_lru(), is_active_lru() */
static inline int ps_is_file_lru(int l)
{
	return l == PS_LRU_INACTIVE_FILE || l == PS_LRU_ACTIVE_FILE;
}

static inline int ps_is_active_lru(int l)
{
	return l == PS_LRU_ACTIVE_ANON || l == PS_LRU_ACTIVE_FILE;
}

/* mm_lru_insertion's flags (PAGEMAP_* of include/trace/events/pagemap.h) */
#define PS_PAGEMAP_MAPPED	0x0001u	/* "M" */
#define PS_PAGEMAP_ANONYMOUS	0x0002u	/* "a", else "f" */
#define PS_PAGEMAP_FILE		0x0004u
#define PS_PAGEMAP_SWAPCACHE	0x0008u	/* "s" */
#define PS_PAGEMAP_SWAPBACKED	0x0010u	/* "b" */
#define PS_PAGEMAP_MAPPEDDISK	0x0020u	/* "d" */
#define PS_PAGEMAP_BUFFERS	0x0040u	/* "B" */

/* pagesim's gfp bits: kernel flag names, our own (stable) values. */
#define PS_GFP_DMA		(1u << 0)
#define PS_GFP_HIGHMEM		(1u << 1)
#define PS_GFP_DMA32		(1u << 2)
#define PS_GFP_MOVABLE		(1u << 3)
#define PS_GFP_RECLAIMABLE	(1u << 4)
#define PS_GFP_HIGH		(1u << 5)
#define PS_GFP_IO		(1u << 6)
#define PS_GFP_FS		(1u << 7)
#define PS_GFP_ZERO		(1u << 8)
#define PS_GFP_ATOMIC		(1u << 9)
#define PS_GFP_DIRECT_RECLAIM	(1u << 10)
#define PS_GFP_KSWAPD_RECLAIM	(1u << 11)
#define PS_GFP_WRITE		(1u << 12)
#define PS_GFP_NOWARN		(1u << 13)
#define PS_GFP_RETRY_MAYFAIL	(1u << 14)
#define PS_GFP_NOFAIL		(1u << 15)
#define PS_GFP_NORETRY		(1u << 16)
#define PS_GFP_MEMALLOC		(1u << 17)
#define PS_GFP_COMP		(1u << 18)
#define PS_GFP_NOMEMALLOC	(1u << 19)
#define PS_GFP_HARDWALL		(1u << 20)
#define PS_GFP_THISNODE		(1u << 21)
#define PS_GFP_ACCOUNT		(1u << 22)
#define PS_GFP_ZEROTAGS		(1u << 23)
#define PS_GFP_COLD		(1u << 24)	/* <= v4.14 */
#define PS_GFP_OTHER_NODE	(1u << 25)	/* <= v4.9 */
#define PS_GFP_NOLOCKDEP	(1u << 26)
#define PS_GFP_NO_OBJ_EXT	(1u << 27)
#define PS_GFP_SKIP_KASAN	(1u << 28)
#define PS_GFP_NOTRACK		(1u << 29)	/* <= v4.14 */
#define PS_GFP_UNKNOWN		(1u << 31)	/* a flag pagesim does not know */

#define PS_PFN_NONE UINT64_MAX

/* ev->flags */
#define PS_EVF_PCPU_REFILL_KNOWN (1u << 0)	/* percpu_refill was a real field */

/*
 * Timestamps stay below 2^63 ns (292 years of any trace clock): readers
 * skip an event past it as a bad field, so that the engine's sums of a
 * timestamp and an interval (the next vmstat second, a kswapd nap) cannot
 * wrap round.
 */
#define PS_EV_MAX_TS ((1ull << 63) - 1)

struct ps_event {
	uint64_t ts_ns;
	uint64_t pfn;
	uint32_t gfp;		/* PS_GFP_* (mm_page_alloc) */
	int32_t pid;		/* -1 when unknown */
	uint16_t cpu;
	uint8_t type;		/* enum ps_event_type */
	uint8_t order;
	int8_t migratetype;	/* enum ps_migratetype */
	uint8_t percpu_refill;	/* mm_page_alloc_zone_locked */
	uint8_t flags;		/* PS_EVF_* */
	/* mm_page_alloc_extfrag */
	uint8_t alloc_order;
	uint8_t fallback_order;
	int8_t alloc_migratetype;
	int8_t fallback_migratetype;
	uint8_t change_ownership;
	/* with PS_RD_COMM: the task, read once from its name by the reader */
	uint8_t task;		/* enum ps_task */
	int8_t task_node;	/* kswapdN, kcompactdN: N (-1: no number below 128); else undefined */
	const char *comm;	/* may be NULL; borrowed */
	/*
	 * The fields of the page-cache, LRU and reclaim events (zero for the
	 * kmem events).  pfn, order and gfp are the common fields above:
	 * PC_ADD/PC_DEL and LRU_ADD/LRU_ACTIVATE/WRITE_FOLIO carry the folio's
	 * pfn (order: the folio's, PC_* only); WAKEUP_KSWAPD, DIRECT_BEGIN and
	 * NODE_RECLAIM_BEGIN their order and gfp_flags; KSWAPD_WAKE and
	 * WAKEUP_KSWAPD their order.
	 */
	union {
		struct {		/* PS_EV_PC_ADD, PS_EV_PC_DEL */
			uint64_t ino, index;	/* i_ino; index in pages */
			uint32_t dev;		/* s_dev as the kernel encodes it: major << 20 | minor */
		} pc;
		struct {		/* PS_EV_LRU_ADD */
			uint8_t lru;		/* enum ps_lru */
			uint16_t flags;		/* PS_PAGEMAP_* */
		} lru;
		struct {		/* KSWAPD_WAKE/SLEEP, WAKEUP_KSWAPD, NODE_RECLAIM_BEGIN */
			int16_t nid, zid;	/* zid: the class zone's index, -1 when absent */
		} ks;
		struct {		/* DIRECT_END, NODE_RECLAIM_END, LRU_ISOLATE, SHRINK_*, WRITE_FOLIO */
			uint32_t nr_scanned, nr_reclaimed;	/* SHRINK_INACTIVE; *_END: nr_reclaimed */
			uint32_t nr_taken, nr_skipped;		/* LRU_ISOLATE; SHRINK_ACTIVE: nr_taken */
			int16_t nid;		/* SHRINK_*: nid; -1 when absent */
			int8_t priority;	/* SHRINK_* */
			uint8_t lru;		/* LRU_ISOLATE: enum ps_lru */
			uint16_t flags;		/* SHRINK_*, WRITE_FOLIO: reclaim_flags (RECLAIM_WB_*) */
		} rc;
	} x;
};

/* mm_vmscan_* reclaim_flags (RECLAIM_WB_* of include/trace/events/vmscan.h) */
#define PS_RECLAIM_WB_ANON	0x0001u
#define PS_RECLAIM_WB_FILE	0x0002u
#define PS_RECLAIM_WB_MIXED	0x0010u
#define PS_RECLAIM_WB_SYNC	0x0004u
#define PS_RECLAIM_WB_ASYNC	0x0008u

/* The kernel threads the model tells apart by name. */
enum ps_task {
	PS_TASK_OTHER = 0,	/* or unknown */
	PS_TASK_KSWAPD,		/* "kswapd", "kswapdN" */
	PS_TASK_KCOMPACTD,	/* "kcompactd", "kcompactdN" */
};

/* The class of task name @comm (NULL: PS_TASK_OTHER); its node into *@node. */
int ps_task_of(const char *comm, int8_t *node);

/* Sets @ev's comm and the task class read from it. */
static inline void ps_event_set_comm(struct ps_event *ev, const char *comm)
{
	ev->comm = comm;
	ev->task = (uint8_t)ps_task_of(comm, &ev->task_node);
}

extern const char *const ps_event_names[PS_EV_NR];
extern const char *const ps_event_systems[PS_EV_NR];
extern const char *const ps_migratetype_names[PS_MIGRATETYPE_NAMES];

/* Index into ps_event_names for a kmem event name, or -1. */
int ps_event_type_from_name(const char *name, int len);

#endif
