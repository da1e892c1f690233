// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay_priv.h - what the replay's files share: struct ps_replay, the
 * simulate-mode map encoding, small helpers, and the functions one file
 * calls in another (rp_ prefix).  Not for use outside sim/replay*.c.
 *
 *   replay.c           create, pass 1, the initial state, the event entry
 *   replay_follow.c    follow mode (the trace decides; checks and shadows)
 *   replay_vmstat.c    vmstat_update's per-CPU work, both modes
 *   replay_simulate.c  simulate mode: zone walk, allocation, free, pages
 *                      held with no event
 *   replay_reclaim.c   simulate mode: watermarks checks, kswapd, node reclaim
 *   replay_results.c   counters and the /proc-style outputs
 */
#ifndef PS_REPLAY_PRIV_H
#define PS_REPLAY_PRIV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mm/pcp.h"
#include "sim/replay/replay.h"
#include "sim/mm/watermark.h"
#include "sim/mm/zonelist.h"
#include "lib/kver.h"
#include "sim/mm/page-writeback.h"

#define PS_MAX_RECLAIM_RETRIES 16
#define PS_DEF_PRIORITY 12

enum touch {
	T_NONE,
	T_FREED,	/* first event frees it: allocated at the start */
	T_PCP_ALLOC,	/* first event hands it out with no zone_locked: on a pcp list */
	T_BUDDY,	/* first event takes it from the buddy: free in the buddy */
	T_DRAIN,	/* first event drains it: on a pcp list */
};
#define T_CLASS(t) ((t) & 7)
#define T_HEAD 0x80
#define T_ORDER_SHIFT 3
#define T_ORDER(t) (((t) >> T_ORDER_SHIFT) & 0xf)

struct ps_replay {
	struct ps_replay_opts o;
	const struct ps_machine *m;
	int nr_zones;
	struct ps_zone *zones;
	uint64_t *gbase;		/* global index of each zone's first array page */
	uint64_t total_pages;
	uint8_t **touch;		/* pass 1 only */
	uint8_t **pb_evidence;		/* pass 1 only: first type seen per pageblock, 0xff none */
	uint8_t **pb_changed;		/* pass 1 only: an extfrag event touched the block */
	uint32_t *map;			/* simulate: traced global index -> model global index + 1, or MAP_* */
	struct ps_zone_table zt, tzt;	/* pfn -> zone of the model's and the traced machine */
	struct ps_counters cnt;
	struct ps_counters inv;		/* invisible (bulk) allocations, as if traced */
	uint64_t defects[PS_DEF_NR];
	uint64_t invisible_pages, invisible_frees;
	uint64_t invisible_replayed;		/* simulate: bulk allocations replayed (simulate_invisible) */
	uint64_t untraced_buddy_allocs, pcp_resyncs, isolated_pages;
	uint64_t sim_alloc_failed, sim_skipped_failed, sim_wmark_ignored;
	uint64_t fair_skipped, fair_resets;	/* the fair zone policy (<= 4.7): depleted zones passed over, batch resets */
	uint64_t capped_blocks, placed_blocks, placed_pages, unplaced_blocks;
	int verbose_left;
	int nr_cpus;
	struct ps_pcp *pcps;		/* [zone][cpu]: lists in simulate mode, counts in follow mode */
	int *shadow;			/* follow: [zone][cpu][list] blocks the kernel's rules would hold */
	int *shadow_seed;		/* follow: [zone][cpu] pages on the lists at the start, lists unknown */
	/* vmstat_update once a second per CPU: remote lists' expiry, 6.7+ decay of high */
	uint8_t *vm_expire, *vm_touched;	/* [zone][cpu] pcp->expire; a stat of the zone changed on the CPU */
	uint8_t *vm_queued;			/* [cpu] the CPU's vmstat_update runs at the next tick */
	/* memory the kernel used with no event (replay.h, opts.after) */
	int64_t *net_pages;			/* [zone] prepass: pages the trace frees less those it allocates */
	int64_t *untraced_target, *untraced_taken;	/* [zone] */
	/*
	 * Pages held with no event, the untraced use's and compaction's
	 * migration targets: one stack per zone, last taken on top, in a pool
	 * sized in pass 1 (no allocation while replaying).
	 */
	struct hidden_page { uint32_t idx, next; } *hidden;
	uint32_t hidden_free;			/* first unused entry of the pool */
	uint32_t *hidden_top;			/* [zone] */
	int64_t *mig_expected;			/* [zone] prepass: kcompactd's order-0 frees */
	uint64_t mig_total;			/* prepass: the same on any zone */
	uint64_t mig_taken, mig_failed;
	uint64_t untraced_returned;		/* given back for the trace's frees of hidden pages */
	uint64_t first_ns, last_ns, untraced_next_ns;
	int untraced_on, hidden_on;
	uint64_t vm_next_ns, remote_drains, decay_drains;
	uint64_t seed_pages, seed_used;
	uint8_t *section;		/* follow: per CPU, the zone-lock section in progress */
	uint64_t trace_refills, trace_drains;
	/* follow: time of the recorded kswapdN's latest event, per node, once seen */
	uint64_t kswapd_seen_ns[PS_MAX_NODES];
	uint8_t kswapd_seen[PS_MAX_NODES];
	struct {
		int awake;
		uint64_t wakeups, boost_resets, awake_ns, woken_at, last_run;
		uint64_t reclaimed, budget_milli;
		long round_left;	/* pages left in this shrink_node pass */
		long pass_got, run_got;	/* pages reclaimed in this pass, in this run */
		long boost_left;	/* pages of boost reclaim left (nr_boost_reclaim) */
		int priority;		/* sc.priority of balance_pgdat */
		int raise;		/* raise_priority after this pass */
		int done;		/* this run of balance_pgdat has ended */
		unsigned long zboost[PS_ZONE_NR];	/* each zone's boost when the run started */
		int napping;		/* balanced, in the HZ/10 short sleep */
		int pending;		/* woken, its run not yet started: wakes until start_at merge */
		uint64_t start_at;
		uint64_t last_recorded_ns;	/* the trace's last free by the node's kswapd (pass 1) */
		int failures;		/* kswapd_failures: runs in a row without progress */
		int req_zoneidx;	/* highest class zone of wakes since the last run, -1 none */
		int zoneidx;		/* the class zone the node is balanced for */
		int req_order;		/* kswapd_order: highest order of wakes since the last run */
		int order;		/* sc.order of this run: 0 once it reclaimed compact_gap() */
		uint64_t nap_end;
		uint64_t hit_quickly_low, hit_quickly_high, runs;
		/* inactive list stand-in: traced blocks of reclaimable allocations, oldest first */
		uint32_t *ring;
		uint32_t cap, head, count;
		/*
		 * kswapd.takeover: model blocks whose trace free was the recorded
		 * kswapd's, left allocated for the model's kswapd (model global
		 * index), in the order the recorded kswapd freed them
		 */
		uint32_t *deferred;
		uint32_t dcap, dhead, dcount;
		uint64_t handed;	/* frees of the recorded kswapd handed over so far */
		/*
		 * kswapd.ahead: traced blocks the model holds on this node whose
		 * trace free is the recorded kswapd's, later (pass 1 says which),
		 * oldest allocation first, with the allocation's number
		 */
		struct ahead_ent { uint32_t tg, seq; } *ahead;
		uint32_t acap, ahead_head, ahead_count;
	} kswapd[PS_MAX_NODES];
	int kswapd_takeover, kswapd_ahead;
	/*
	 * kswapd.ahead: allocations are numbered in trace order (both passes);
	 * pass 1 sets the bit of each whose block the recorded kswapd freed.
	 * alloc_of: per traced page, the number of the allocation holding it.
	 */
	uint32_t alloc_seq, *alloc_of;
	uint64_t *ahead_bits;
	uint32_t ahead_nbits;
	uint64_t ahead_marked, ahead_taken, ahead_dropped;
	int trace_has_comm;		/* a free named its task (simulate mode reads tasks) */
	uint64_t kswapd_frees_deferred, kswapd_deferred_overflow;
	uint64_t reclaimed_then_freed;
	uint64_t node_reclaims, node_reclaimed, node_reclaim_full, node_reclaim_locked;
	/* PGDAT_RECLAIM_LOCKED: a node reclaim runs on the node until then, from that CPU */
	uint64_t node_reclaim_until[PS_MAX_NODES];
	int node_reclaim_cpu[PS_MAX_NODES];
	long mapped[PS_MAX_NODES];		/* the recorded nr_mapped per node */
	long min_unmapped[PS_MAX_NODES];	/* pgdat->min_unmapped_pages */
	uint64_t highatomic_reserved, highatomic_unreserved;
	/* the traced machine's address space (same as the model's unless cross) */
	int cross;
	const struct ps_machine *tm;
	int nr_tz;
	struct tzone {
		uint64_t base;		/* first pfn of the arrays (1024-aligned) */
		uint32_t nr_pages;
		int node;
		uint64_t gbase;		/* global traced index of base */
	} *tz;
	uint8_t **ttouch;		/* cross: pass-1 first touch per traced page */
	uint64_t traced_pages;
	int16_t cpu_to_cpu[PS_MAX_CPUS];	/* traced CPU -> model CPU */
	int node_to_node[PS_MAX_NODES];		/* traced node -> model node */
	uint64_t cross_preused_pages, cross_unplaced_pages;
	struct ps_lock *lock;
	struct ps_lock_follow *lockf;
	int lock_finished;
	uint64_t *last_pcp_pages;		/* per zone, as last told to the lock model */
	uint64_t pcp_changed;			/* zones (below 64) whose nr_pcp_pages changed in this event */
	uint64_t now_ns;			/* time of the event being replayed */
	int nr_awake;				/* kswapd threads awake */
	int node_zone[PS_MAX_NODES][PS_ZONE_NR];	/* zone index of (node, type), -1 none */
	int node_order[PS_MAX_NODES][PS_MAX_NODES];
	int nr_node_order[PS_MAX_NODES];
	int8_t nofrag_node[2][PS_MAX_NODES][PS_ZONE_NR];	/* build_nofrag_node() */
	struct ps_dirty dirty;			/* simulate: page cache and dirty pages per zone */
};

/*
 * Simulate mode's map entries besides a model page (global index + 1):
 * MAP_RECLAIMED, the model's kswapd reclaimed the block the trace still
 * holds; MAP_PCP(cpu, mt), a traced page the trace's own refill or order-0
 * free put on a CPU's order-0 list and nothing has taken since (the bulk
 * allocator takes from there with no mm_page_alloc).  The model's pages
 * stay below MAP_PCP_LOW.
 */
#define MAP_RECLAIMED UINT32_MAX
#define MAP_PCP_LOW (MAP_RECLAIMED - (uint32_t)PS_MAX_CPUS * PS_MT_PCPTYPES)
#define MAP_PCP(cpu, mt) (MAP_PCP_LOW + (uint32_t)(cpu) * PS_MT_PCPTYPES + (uint32_t)(mt))
#define MAP_IS_MODEL(g) ((g) && (g) < MAP_PCP_LOW)
#define MAP_IS_PCP(g) ((g) >= MAP_PCP_LOW && (g) != MAP_RECLAIMED)

/* Zone and index of a pfn, or NULL. */
static inline struct ps_zone *zone_of(struct ps_replay *r, uint64_t pfn, uint32_t *idx)
{
	int zi = ps_zone_table_lookup(&r->zt, pfn);

	if (zi < 0 || pfn == PS_PFN_NONE)
		return NULL;
	*idx = pfn - r->zones[zi].start_pfn;
	return &r->zones[zi];
}

/* Traced zone index and index within it of a traced pfn, or -1. */
static inline int tzone_of(struct ps_replay *r, uint64_t pfn, uint32_t *tidx)
{
	int zi = pfn == PS_PFN_NONE ? -1 : ps_zone_table_lookup(&r->tzt, pfn);

	if (zi < 0)
		return -1;
	*tidx = pfn - r->tz[zi].base;
	return zi;
}

/* The model CPU whose per-CPU state serves @cpu (an out-of-range CPU folds onto the machine's). */
static inline int cpu_slot(const struct ps_replay *r, int cpu)
{
	return cpu < 0 ? 0 : cpu % r->nr_cpus;
}

static inline struct ps_pcp *pcp_of(struct ps_replay *r, const struct ps_zone *z, int cpu)
{
	return &r->pcps[(size_t)z->index * r->nr_cpus + cpu_slot(r, cpu)];
}

/* The model kswapd's (and node reclaim's) speed, pages per ms. */
static inline long reclaim_rate(const struct ps_replay *r)
{
	return r->o.policy.kswapd_rate != PS_UNSET ? r->o.policy.kswapd_rate : PS_KSWAPD_RATE_DEFAULT;
}

/* NR_ALLOC_BATCH when full (setup_per_zone_wmarks, reset_alloc_batches): high - low. */
static inline long alloc_batch_full(const struct ps_zone *z)
{
	return z->wmark_high - z->wmark_low;
}

/* kswapd.ahead: whether allocation @seq's block was freed by the recorded kswapd. */
static inline int ahead_marked(const struct ps_replay *r, uint32_t seq)
{
	return seq && seq < r->ahead_nbits && (r->ahead_bits[seq / 64] >> (seq % 64)) & 1;
}

/*
 * What reclaim can take back without swap: page cache brought in by reads.
 * Readahead asks with the mapping's user mask (__GFP_HARDWALL) plus
 * __GFP_NORETRY | __GFP_NOWARN; anonymous memory is zeroed or has no swap
 * to go to, tmpfs is swap-backed, and kernel allocations are not on an LRU.
 */
static inline int lru_page(uint32_t gfp)
{
	const uint32_t ra = PS_GFP_HARDWALL | PS_GFP_NORETRY | PS_GFP_NOWARN;

	return (gfp & (ra | PS_GFP_ZERO)) == ra;
}

/* Model zone and index within it of model global page index @gi. */
static inline struct ps_zone *zone_of_global(struct ps_replay *r, uint64_t gi, uint32_t *idx)
{
	int zi;

	for (zi = r->nr_zones - 1; zi > 0 && r->gbase[zi] > gi; zi--)
		;
	*idx = gi - r->gbase[zi];
	return &r->zones[zi];
}

/* replay.c */
int rp_pcp_allowed(const struct ps_replay *r, int order);

/* replay_follow.c */
void rp_defect(struct ps_replay *r, int kind, const struct ps_event *ev, const char *what);
int rp_reshape_alloc(struct ps_zone *z, uint32_t idx, int order);
int *rp_shadow_seed(struct ps_replay *r, const struct ps_zone *z, int cpu);
void rp_shadow_drain(struct ps_replay *r, struct ps_zone *z, int cpu, int n, int li);
void rp_follow_event(struct ps_replay *r, const struct ps_event *ev);

/* replay_vmstat.c */
void rp_vmstat_touch(struct ps_replay *r, int zi, int cpu);
void rp_vmstat_tick(struct ps_replay *r, uint64_t now);

/* replay_reclaim.c */
int rp_gfp_zone(uint32_t gfp);
int rp_zone_ok(const struct ps_zone *z, int order, int pass, int classzone, uint32_t gfp, int harder);
void rp_wake_kswapd(struct ps_replay *r, int node, int classzone, int order, uint64_t now);
void rp_lru_add(struct ps_replay *r, int node, uint32_t tg);
uint32_t rp_take_hidden(struct ps_zone *z);
void rp_reclaim_block(struct ps_replay *r, int node, struct ps_zone *z, uint32_t idx, int order, uint64_t now,
		      int cpu);
void rp_ahead_add(struct ps_replay *r, int node, uint32_t tg, uint32_t seq);
void rp_defer_kswapd_free(struct ps_replay *r, struct ps_zone *z, uint32_t idx);
void rp_run_kswapd(struct ps_replay *r, uint64_t now);
int rp_node_reclaim(struct ps_replay *r, struct ps_zone *z, int cpu, int order, int classzone, uint32_t gfp);

/* replay_simulate.c */
uint32_t rp_take(struct ps_replay *r, struct ps_zone *z, int cpu, int order, int mt, int highatomic);
struct ps_zone *rp_walk(struct ps_replay *r, int cpu, int node, int thisnode, int high, int order, int mt,
			uint32_t gfp, uint32_t *idx);
void rp_trace_pcp_event(struct ps_replay *r, const struct ps_event *ev);
__attribute__((noinline)) void rp_simulate_alloc_free(struct ps_replay *r, const struct ps_event *ev);
void rp_untraced_use(struct ps_replay *r, uint64_t now);
void rp_migration_target(struct ps_replay *r, struct ps_zone *z);

#endif
