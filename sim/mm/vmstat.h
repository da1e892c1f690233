/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmstat.h - the kernel's counters, counted straight from trace events
 * (pagesim stat) or from the model's own decisions (replay).
 *
 * Semantics, as /proc/vmstat and nodeN/numastat define them:
 *  - numa_* count allocation calls (one per mm_page_alloc that got a page,
 *    whatever its order); pgalloc_<zone> and pgfree count pages (2^order).
 *  - hit/miss are judged against the preferred node.  A trace does not carry
 *    it: pagesim takes the allocating CPU's node (the default mempolicy's
 *    choice), or the page's own node for __GFP_THISNODE requests, which
 *    cannot fall back.  foreign is charged to the preferred node.
 *  - local/other are judged against the allocating CPU's node.
 *  - per version (numa_rule): 4.7-4.9 judged hit/miss against the CPU's
 *    node and counted no local/other on a miss (zone_statistics' regression,
 *    fixed in 4.10); up to 4.9 __GFP_OTHER_NODE (khugepaged) put the
 *    preferred node in the CPU's place.
 *  - numa_interleave / interleave_hit need the task's mempolicy, which no
 *    kmem event carries: they stay 0 when counted from a trace.
 *  - mm_page_free_batched is an annotation of a free that mm_page_free
 *    already reported; it counts towards pgfree only when the trace has no
 *    mm_page_free event at all (then `pgfree_from_batched` says so).
 *  - extfrag rows follow mmtests: fragmenting = fallback_order <
 *    pageblock_order (computed here, never taken from rendered text).
 */
#ifndef PS_COUNTERS_H
#define PS_COUNTERS_H

#include <stdint.h>

#include "lib/event.h"
#include "lib/kvfile.h"
#include "lib/machine.h"
#include "sim/mm/mm.h"


struct ps_numa_node {
	uint64_t numa_hit, numa_miss, numa_foreign, interleave_hit, local_node, other_node;
};

enum ps_extfrag_row {
	PS_XF_EVENTS,
	PS_XF_FRAGMENTING,
	PS_XF_FRAG_UNMOVABLE,
	PS_XF_FRAG_UNMOVABLE_FROM_MOVABLE,
	PS_XF_FRAG_UNMOVABLE_FROM_RECLAIMABLE,
	PS_XF_FRAG_RECLAIMABLE,
	PS_XF_FRAG_RECLAIMABLE_FROM_MOVABLE,
	PS_XF_FRAG_RECLAIMABLE_FROM_UNMOVABLE,
	PS_XF_FRAG_MOVABLE,
	PS_XF_CHANGE_OWNERSHIP,
	PS_XF_NR
};

extern const char *const ps_extfrag_names[PS_XF_NR];

/* zone_statistics' rule, per kernel version (docs/kernel-rules.md, NUMA counters) */
enum ps_numa_stat_rule {
	PS_NUMA_STAT_PREF,		/* 4.10+ */
	PS_NUMA_STAT_PREF_OTHERNODE,	/* <= 4.6 */
	PS_NUMA_STAT_LOCAL_BUG,		/* 4.7-4.9 */
};

/* A task inside a direct or node reclaim, from its begin event to its end (trace). */
struct ps_reclaim_task {
	int32_t pid;
	int16_t order;		/* the node reclaim's order; -1 for direct reclaim */
};

/* struct ps_counters' kswapd_state: asleep (or not yet seen), ran, ran and woken since */
enum { PS_KSWAPD_ASLEEP, PS_KSWAPD_RAN, PS_KSWAPD_WOKEN };

struct ps_counters {
	const struct ps_machine *m;
	int pageblock_order;
	int numa_rule;			/* enum ps_numa_stat_rule; PREF unless set */
	uint64_t numa_hit, numa_miss, numa_foreign, numa_interleave, numa_local, numa_other;
	uint64_t pgalloc[PS_ZONE_NR];
	uint64_t pgfree, pgfree_batched_pages;
	struct ps_numa_node node[PS_MAX_NODES];
	uint64_t extfrag[PS_XF_NR];
	uint64_t events[PS_EV_NR];
	uint64_t alloc_failed;
	uint64_t pfn_outside_zones;	/* events skipped: pfn in no zone of the machine */
	uint64_t cpu_without_node;	/* allocations skipped: CPU not in any node's cpulist */
	uint64_t bad_order;		/* events skipped: order above 10 */
	uint64_t first_outside_pfn;
	int first_outside_type;
	struct ps_zone_table zt;	/* the machine's pfn -> zone table */
	/*
	 * Reclaim, as /proc/vmstat counts it: pages stolen and scanned by
	 * kswapd and by everyone else (direct and node reclaim), balance_pgdat
	 * runs (pageoutrun: one per mm_vmscan_kswapd_wake), and node reclaims
	 * run (no kernel counter: zone_reclaim_failed counts refusals).  From a
	 * trace: mm_vmscan_lru_shrink_inactive's nr_reclaimed and (classic
	 * LRU) nr_scanned, or with the multi-generational LRU on (the
	 * machine's lru_gen_enabled) mm_vmscan_lru_isolate's nr_taken, which
	 * is what scan_folios() counts; kswapd's as current_is_kswapd() tells
	 * it: by the task's name when the reader gives it, else every task
	 * outside a direct or node reclaim (begin to end, by pid).
	 */
	uint64_t pgsteal_kswapd, pgsteal_direct, pgscan_kswapd, pgscan_direct;
	uint64_t pageoutrun, node_reclaim_calls, zone_reclaim_failed;
	/*
	 * kswapd_try_to_sleep's verdicts: a run (mm_vmscan_kswapd_wake) that
	 * follows the node's previous run with no mm_vmscan_kswapd_sleep
	 * between is a kswapd_low_wmark_hit_quickly when an effective wake
	 * (mm_vmscan_wakeup_kswapd, traced only when kswapd was waiting) ended
	 * the short sleep, else a kswapd_high_wmark_hit_quickly (the node not
	 * balanced at the sleep's check).  A node's first run in the trace
	 * counts as from a full sleep.
	 */
	uint64_t kswapd_low_wmark_hit_quickly, kswapd_high_wmark_hit_quickly;
	uint8_t kswapd_state[PS_MAX_NODES];	/* PS_KSWAPD_*: the node's kswapd since its last full sleep */
	struct ps_reclaim_task reclaim_task[PS_MAX_CPUS];	/* trace: the tasks inside a direct or node reclaim */
	int nr_reclaim_task;
	int have_reclaim;		/* the reclaim rows are printed: the trace or the model has them */
	int have_reclaim_events;	/* the trace has page-cache, LRU or reclaim events: their events_ rows */
};

void ps_counters_init(struct ps_counters *c, const struct ps_machine *m, int pageblock_order);

/* The rule of kernel release @kver (PS_KVER); PREF when unknown. */
int ps_numa_stat_rule_for_kver(int kver);

/* Counts one trace event. */
void ps_counters_event(struct ps_counters *c, const struct ps_event *ev);

/* Counts @n trace events, as ps_counters_event() on each in turn would. */
void ps_counters_batch(struct ps_counters *c, const struct ps_event *evs, int n);

/* Finishes (batched-only pgfree) and appends every counter, in output order, to @kv. */
int ps_counters_to_kv(struct ps_counters *c, struct ps_kv *kv);

/*
 * vmstat_update's per-CPU work (refresh_cpu_vm_stats), which the engine
 * runs about once a second: ps_vmstat_touch() notes that a stat of zone
 * @zi changed on @cpu; ps_vmstat_refresh() is one run of @cpu's work at
 * @now, draining through @drain (the model's lists in simulate mode, follow
 * mode's shadow counts) as drain_zone_pages would.  Returns nothing; the
 * CPU's work is queued again (mm->vm_queued) while it has something left.
 */
typedef void (*ps_vmstat_drain_fn)(void *ctx, struct ps_zone *z, int cpu, int n, uint64_t now);

void ps_vmstat_touch(struct ps_mm *mm, int zi, int cpu);
void ps_vmstat_refresh(struct ps_mm *mm, int cpu, uint64_t now, ps_vmstat_drain_fn drain, void *ctx);

/*
 * NR_FREE_PAGES as the allocator's fast path reads it (zone_page_state):
 * ps_vmstat_thresholds() sets each zone's per-CPU stat thresholds
 * (refresh_zone_stat_thresholds); ps_vmstat_mod_free() gives the change of
 * @z's free pages since its last call to @cpu's vm_stat_diff, folding it
 * into the zone's count once past the threshold (__mod_zone_page_state);
 * ps_vmstat_fold_free() folds every CPU's (vmstat_update, about once a
 * second).  z->free_drift is the count's distance from the exact one.
 */
void ps_vmstat_thresholds(struct ps_mm *mm);
/* z->free_drift from the folded count and an ensemble member's drift_perturb */
void ps_vmstat_set_drift(const struct ps_mm *mm, struct ps_zone *z);
void ps_vmstat_mod_free(struct ps_mm *mm, struct ps_zone *z, int cpu);
void ps_vmstat_fold_free(struct ps_mm *mm);

#endif
