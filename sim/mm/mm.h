/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mm.h - the model's state: every zone of one machine (struct ps_zone, with
 * its buddy free lists and pageblocks), the per-CPU lists, the zonelists,
 * each node's pglist_data (kswapd, node reclaim), the vmstat per-CPU work,
 * the dirty-page accounting and the pages compaction holds isolated.
 *
 * The engine (sim/replay/) owns a struct ps_mm, sets it up from a machine
 * and the tunables in force (ps_mm_create), feeds it requests and frees,
 * and runs its timed activities.  What only the trace knows, such as which
 * blocks reclaim may take, reaches the model through struct ps_mm_trace,
 * which the engine provides; the model never looks into the engine.
 */
#ifndef PS_MM_H
#define PS_MM_H

#include <stddef.h>
#include <stdint.h>

#include "lib/rng.h"
#include "lib/machine.h"
#include "sim/mm/buddy.h"
#include "sim/mm/page-writeback.h"
#include "sim/mm/pcp.h"
#include "sim/mm/profile.h"

struct ps_lock;
struct ps_zonelists;

/* sc.priority of balance_pgdat and MAX_RECLAIM_RETRIES (mm/vmscan.c, mm/internal.h) */
#define PS_DEF_PRIORITY 12
#define PS_MAX_RECLAIM_RETRIES 16
/* SWAP_CLUSTER_MAX: the smallest reclaim batch */
#define PS_SWAP_CLUSTER_MAX 32

/*
 * The tunables the model reads, resolved (no "unset" left): the engine
 * fills them from the policy in force.
 */
struct ps_mm_tunables {
	/*
	 * Watermarks: zoneinfo's as recorded, unless wmark_recompute asks for
	 * __setup_per_zone_wmarks() by wmark_kver's rules with these values
	 * (< 0: the kernel's default)
	 */
	int wmark_recompute, wmark_kver;
	long min_free_kbytes, watermark_scale_factor;
	long watermark_boost_factor;	/* vm.watermark_boost_factor */
	long zone_reclaim_mode;		/* vm.zone_reclaim_mode bits: 1 ZONE, 2 WRITE, 4 UNMAP */
	int defrag_mode;		/* vm.defrag_mode (6.15+) */
	long min_unmapped_ratio;	/* vm.min_unmapped_ratio, percent */
	long min_slab_ratio;		/* vm.min_slab_ratio, percent */
	int swap;			/* swap space to reclaim anonymous pages into */
	int lru_gen;			/* the multi-generational LRU is on (lru_gen/enabled & 1) */
	long dirty_ratio, dirty_bytes;	/* vm.dirty_ratio, vm.dirty_bytes */
	long dirty_expire_cs, dirty_writeback_cs;	/* vm.dirty_expire_centisecs, vm.dirty_writeback_centisecs */
	long pcp_batch, pcp_high;	/* < 0: the zone's own (zoneinfo) */
	long percpu_pagelist_high_fraction;	/* < 0: the recorded lists; else pcp.c's rule */
	long recorded_high_fraction;	/* the recording's (0: the default rule) */
	long pcp_batch_scale_max;	/* < 0: CONFIG_PCP_BATCH_SCALE_MAX's default */
	long kswapd_rate;		/* the model kswapd's speed, pages per ms */
	long node_reclaim_rate;		/* node reclaim's: how long it holds the node, pages per ms */
	long kswapd_wake_latency_us;	/* from a wake to its run: wakes in between merge */
	long kswapd_wake_jitter_us;	/* an ensemble's: up to this much more, drawn per wake */
	long kswapd_slice_us;		/* > 0: kswapd reclaims in slices this long (vmscan.c) */
	int vmstat_drift;		/* NR_FREE_PAGES as zone_page_state() holds it (vmstat.c) */
	int kswapd_sleep_check;		/* prepare_kswapd_sleep before the nap (vmscan.c) */
	int kswapd_nap_ignores_boost;	/* the nap's end looks at the balance only, as the kernel (vmscan.c) */
};

/* The model's timed activities, which the engine's timer queue runs. */
enum ps_mm_timer {
	PS_MM_TIMER_RECLAIM_LOCK,	/* arg node: ps_node_reclaim_unlock() */
	PS_MM_TIMER_KSWAPD,		/* arg node: ps_kswapd_run() */
	PS_MM_TIMER_WRITEBACK,		/* arg 0: ps_mm_writeback(), the flusher */
};

/* An arming time that never comes: the activity is disarmed. */
#define PS_MM_NEVER UINT64_MAX

/*
 * What the engine provides the model: its clock (arm: run the model's
 * activity @what for @arg at @at, replacing any earlier arming), and word
 * of the blocks the model's reclaim freed (reclaimed: block @idx of @z, of
 * 2^@order pages, left its LRU list and was freed), so that what the trace
 * does with them later is not done twice.
 */
struct ps_mm_ops {
	void (*arm)(void *ctx, int what, int arg, uint64_t at);
	void (*reclaimed)(void *ctx, struct ps_zone *z, uint32_t idx, int order);
	void *ctx;
};

/*
 * The LRU state of an allocated block's head page (struct ps_zone's lru[],
 * the model's page flags): the list it is on (PS_LRUF_LIST: 0 none, enum
 * ps_lru + 1 for the classic lists and the unevictable one,
 * PS_LRU_GEN_CODE + gen * 2 + type for a generation's list of the
 * multi-generational LRU), PG_mapped (from the insertion's flags),
 * PG_swapbacked.
 */
#define PS_LRUF_LIST		0x0f
#define PS_LRUF_MAPPED		0x10
#define PS_LRUF_SWAPBACKED	0x20
#define PS_LRU_GEN_CODE		8

/* The multi-generational LRU's sizes: MIN_NR_GENS, MAX_NR_GENS, MIN_LRU_BATCH, MAX_LRU_BATCH. */
#define PS_MIN_NR_GENS		2
#define PS_MAX_NR_GENS		4
#define PS_MIN_LRU_BATCH	64
#define PS_MAX_LRU_BATCH	4096
#define PS_LRU_GEN_ANON		0
#define PS_LRU_GEN_FILE		1

/*
 * struct lru_gen_folio: the generations of a node, max_seq the youngest,
 * min_seq[type] the oldest of anonymous and file pages; a list per
 * generation (seq % MAX_NR_GENS), type and zone, newest at the head.
 */
struct ps_lrugen {
	uint64_t max_seq, min_seq[2];
	uint32_t head[PS_MAX_NR_GENS][2][PS_ZONE_NR], tail[PS_MAX_NR_GENS][2][PS_ZONE_NR];
	long nr_pages[PS_MAX_NR_GENS][2][PS_ZONE_NR];
};

/*
 * A node's LRU lists (struct lruvec): blocks linked through their head
 * page's next[] (older) and prev[] (newer) by global model index, newest at
 * the head; pages per list, per zone type and list, and mapped file pages.
 * With the multi-generational LRU on, evictable pages are on lrugen's
 * lists instead, and only the unevictable list of the classic ones is used.
 */
struct ps_lruvec {
	uint32_t head[PS_NR_LRU], tail[PS_NR_LRU];
	uint64_t nr[PS_NR_LRU];
	uint64_t zone_nr[PS_ZONE_NR][PS_NR_LRU];
	uint64_t nr_mapped_file;
	struct ps_lrugen gen;
};

/*
 * struct scan_control, as far as the model's reclaim reads it: which zones
 * it may take from, at which priority, what it may do, how much it wants,
 * and what it has done; the pages left to scan per list in this
 * shrink_node pass and the list being scanned.
 */
struct ps_scan_control {
	int reclaim_idx, priority;
	int may_unmap, may_writepage, may_swap;
	int kswapd;			/* kswapd's (pgsteal_kswapd), else direct or node reclaim */
	int cpu;			/* whose per-CPU lists take the freed pages; -1: the node's first CPU */
	long nr_to_reclaim, nr_reclaimed, nr_scanned;
	long scan[PS_NR_LRU];		/* pages left to scan in this pass */
	long rotate_left[PS_NR_LRU];	/* pages it may rotate past before the list counts as scanned */
	int cur, batch_left;		/* shrink_lruvec's turn: the list and its batch */
	uint64_t now;
	int order;			/* kswapd's: should_abort_scan looks at order-0 runs only */
	/* the multi-generational LRU's pass: try_to_shrink_lruvec, evict_folios' scan_folios */
	int mg_done;			/* the pass has ended */
	int mg_in_batch;		/* a scan_folios batch under way */
	int mg_type, mg_zone_i, mg_remaining;	/* its type, zone turn and MAX_LRU_BATCH left */
	int mg_tried_other;		/* isolate_folios has no other type to try */
	long mg_isolated, mg_batch_scanned;	/* its isolated and scanned pages */
	long mg_nr_to_scan, mg_scanned;	/* get_nr_to_scan's and try_to_shrink_lruvec's counts */
};

/* kswapd's state for one node (pgdat->kswapd_* and balance_pgdat's locals). */
struct ps_kswapd {
	int awake;
	uint64_t wakeups, boost_resets, awake_ns, woken_at, last_run;
	uint64_t reclaimed;
	uint64_t credit;	/* reclaim earned and not yet done: ns x pages per ms (a page is 10^6) */
	uint64_t slice_end;	/* kswapd.slice_us: when the slice in progress ends */
	struct ps_scan_control sc;	/* the shrink_node pass in progress */
	int in_pass;
	long pass_got, run_got;	/* pages reclaimed in this pass, in this run */
	long boost_left;	/* pages of boost reclaim left (nr_boost_reclaim) */
	int priority;		/* sc.priority of balance_pgdat */
	int raise;		/* raise_priority after this pass */
	int done;		/* this run of balance_pgdat has ended */
	unsigned long zboost[PS_ZONE_NR];	/* each zone's boost when the run started */
	int napping;		/* balanced, in the HZ/10 short sleep */
	int pending;		/* woken, its run not yet started: wakes until start_at merge */
	uint64_t start_at;
	int failures;		/* kswapd_failures: runs in a row without progress */
	int req_zoneidx;	/* highest class zone of wakes since the last run, -1 none */
	int cpu;		/* the CPU whose lists take what it frees: the node's first, or the trace's */
	int zoneidx;		/* the class zone the node is balanced for */
	int req_order;		/* kswapd_order: highest order of wakes since the last run */
	int order;		/* sc.order of this run: 0 once it reclaimed compact_gap() */
	uint64_t nap_end;
	uint64_t hit_quickly_low, hit_quickly_high, runs;
	uint64_t boost_wakeups;		/* effective wakes (a fresh one or one ending the short sleep) by a boosted watermark */
};

/* One node: struct pglist_data's part the model keeps. */
struct ps_pgdat {
	struct ps_kswapd kswapd;
	/* PGDAT_RECLAIM_LOCKED: a node reclaim from that CPU holds the node */
	int reclaim_locked, reclaim_cpu;
	long min_unmapped_pages, min_slab_pages;
	long nr_slab_reclaimable;	/* as recorded (constant: slab is not modelled) */
	struct ps_lruvec lru;
};

/* Pages held with no event (compaction's isolated free pages, the untraced use). */
struct ps_isolated {
	struct ps_isolated_page { uint32_t idx, next; } *pool;
	uint32_t free;		/* first unused entry */
	uint32_t *top;		/* [zone] the page held last */
	int on;
};

struct ps_mm {
	const struct ps_machine *m;
	struct ps_rng rng;		/* an ensemble member's perturbations (kswapd's wake jitter) */
	const struct ps_profile *prof;
	int kver;			/* the release whose rules the model follows (PS_KVER) */
	struct ps_mm_tunables t;
	int nr_zones;
	struct ps_zone *zones;
	uint64_t *gbase;		/* global index of each zone's first array page */
	uint64_t total_pages;
	int nr_cpus;
	struct ps_pcp *pcps;		/* [zone][cpu] */
	struct ps_zonelists *zl;	/* every node's zonelists (zonelist.c), which the walk reads */
	int node_zone[PS_MAX_NODES][PS_ZONE_NR];	/* zone index of (node, type), -1 none */
	struct ps_pgdat node[PS_MAX_NODES];
	int nr_awake;			/* kswapd threads awake */
	/* vmstat_update's per-CPU work (vmstat.c) */
	uint8_t *vm_expire, *vm_touched;	/* [zone][cpu] */
	uint8_t *vm_queued;			/* [cpu] */
	int16_t *vm_diff;			/* [zone][cpu]: NR_FREE_PAGES not yet folded (vm_stat_diff) */
	struct ps_dirty dirty;
	struct ps_isolated iso;
	struct ps_lock *lock;		/* zone-lock model fed by the allocation paths; NULL: none */
	uint64_t now_ns;		/* time of the request in progress */
	struct ps_mm_ops ops;
	/* counts */
	uint64_t wmark_ignored;			/* allocations only the no-watermark pass served */
	uint64_t fair_skipped, fair_resets;	/* the fair zone policy (<= 4.7) */
	uint64_t highatomic_reserved, highatomic_unreserved;
	uint64_t node_reclaims, node_reclaimed, node_reclaim_full, node_reclaim_locked, zone_reclaim_failed;
	uint64_t pgsteal_kswapd, pgsteal_direct, pgscan_kswapd, pgscan_direct;
	uint64_t pgskip[PS_ZONE_NR];		/* pgskip_<zone>: LRU pages passed over above reclaim_idx */
	uint64_t direct_reclaims, nr_activate, nr_deactivate, nr_dirty_kept, nr_rotated;
	uint64_t lru_gen_aging;			/* the multi-generational LRU's inc_max_seq */
	uint64_t zone_reclaimed[PS_MAX_ZONES];	/* pages the model's reclaim freed, per zone */
	uint64_t remote_drains, decay_drains;
	uint64_t mig_taken, mig_failed;
};

/*
 * Builds the model of @m's zones (all pages allocated, as before the
 * initial state is laid down) under @prof at release @kver with tunables
 * @t: zones, per-CPU lists (sized from zoneinfo or the tunables), the
 * zonelists, each node's reclaim floor.  @dirty: keep the page-cache
 * bitmaps (simulate mode).  0, or -1 with a message in @err.
 */
int ps_mm_create(struct ps_mm *mm, const struct ps_machine *m, const struct ps_profile *prof, int kver,
		 const struct ps_mm_tunables *t, int dirty, char *err, int len);
void ps_mm_destroy(struct ps_mm *mm);

/* The model CPU whose per-CPU state serves @cpu (an out-of-range CPU folds onto the machine's). */
static inline int ps_mm_cpu(const struct ps_mm *mm, int cpu)
{
	if (__builtin_expect((unsigned int)cpu < (unsigned int)mm->nr_cpus, 1))
		return cpu;	/* no division on the common path */
	return cpu < 0 ? 0 : cpu % mm->nr_cpus;
}

static inline struct ps_pcp *ps_mm_pcp(struct ps_mm *mm, const struct ps_zone *z, int cpu)
{
	return &mm->pcps[(size_t)z->index * mm->nr_cpus + ps_mm_cpu(mm, cpu)];
}

/*
 * The zone (index, -1 none) of zonelist entry (@node, @type) for a walk of
 * zones up to type @high: none past @high or where the node has no such zone.
 */
static inline int ps_mm_zoneref_zone(const struct ps_mm *mm, int node, int type, int high)
{
	return type <= high ? mm->node_zone[node][type] : -1;
}

/* Model zone and index within it of model global page index @gi. */
static inline struct ps_zone *ps_mm_zone_of_global(struct ps_mm *mm, uint64_t gi, uint32_t *idx)
{
	int zi;

	for (zi = mm->nr_zones - 1; zi > 0 && mm->gbase[zi] > gi; zi--)
		;
	*idx = gi - mm->gbase[zi];
	return &mm->zones[zi];
}

/* The model's pages on node @n (its zones' page arrays). */
uint64_t ps_mm_node_pages(const struct ps_mm *mm, int n);

/* page-writeback.c: the flusher's run at @now (the engine's PS_MM_TIMER_WRITEBACK). */
void ps_mm_writeback(struct ps_mm *mm, uint64_t now);

/* The flusher's second 0 and first periodic run: @start_ns, the trace's first event. */
void ps_mm_writeback_start(struct ps_mm *mm, uint64_t start_ns);

#endif
