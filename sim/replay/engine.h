/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.h - what the engine's files share: struct ps_replay (the engine's
 * own state; the model's is in its struct ps_mm), the simulate-mode map
 * encoding, and the functions one file calls in another.  Not for use
 * outside sim/replay/.
 *
 *   replay.c    create, destroy, the event loop's entry (ps_replay_event)
 *   setup.c     the model built from the machine and the policy
 *   cross.c     another machine: CPU and node mapping, its initial state
 *   prepass.c   pass 1 over the trace
 *   initial.c   the initial state on the recorded machine
 *   follow.c    follow mode (the trace decides; checks and shadows)
 *   simulate.c  simulate mode (the model decides; the trace's requests)
 *   reclaim.c   the trace's reclaim and the model's: what is absorbed
 *   timer.c     the timer queue
 *   timeline.c  what a replay shows besides its totals (timeline.h): the
 *               sampling tick, filters, breakdowns, fallback marks
 *   results.c   counters and the /proc-style outputs
 */
#ifndef PS_ENGINE_H
#define PS_ENGINE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kver.h"
#include "sim/mm/mm.h"
#include "sim/mm/pcp.h"
#include "sim/replay/lock_sections.h"
#include "sim/replay/replay.h"
#include "sim/replay/summary.h"
#include "sim/replay/timer.h"

enum touch {
	T_NONE,
	T_FREED,	/* first event frees it: allocated at the start */
	T_PCP_ALLOC,	/* first event hands it out with no zone_locked: on a pcp list */
	T_BUDDY,	/* first event takes it from the buddy: free in the buddy */
	T_DRAIN,	/* first event drains it: on a pcp list */
};
#define T_CLASS(t) ((t) & 7)
#define PRE_BY_FREE 0x80000000u
#define T_HEAD 0x80
#define T_ORDER_SHIFT 3
#define T_ORDER(t) (((t) >> T_ORDER_SHIFT) & 0xf)

/* replay --ensemble's perturbations (replay.h): kswapd's wake jitter, in us */
#define PS_ENSEMBLE_WAKE_JITTER_US 500

struct ps_replay {
	struct ps_replay_opts o;
	struct ps_rng rng;		/* an ensemble member's: the vmstat drift, the order of same-time events */
	/*
	 * An ensemble member's last event of a batch, held for the next
	 * batch's first (their order may be swapped too): a batch ends where
	 * the reader's does, which a perturbation must not depend on
	 */
	struct ps_event held;
	int have_held;
	const struct ps_machine *m;
	struct ps_mm mm;		/* the model */
	struct ps_timers timers;
	uint64_t now_ns;		/* the engine's clock: the time of the event being replayed */
	uint64_t vm_burst_now;		/* the vmstat ticks run before the event at this time */
	int vm_burst;
	/* pass 1 */
	uint8_t **touch;		/* first event per model page */
	uint8_t **pb_evidence;		/* first type seen per pageblock, 0xff none */
	uint8_t **pb_changed;		/* an extfrag event touched the block */
	uint32_t *map;			/* simulate: traced global index -> model global index + 1, or MAP_* */
	struct ps_zone_table zt, tzt;	/* pfn -> zone of the model's and the traced machine */
	struct ps_counters cnt;
	struct ps_counters inv;		/* invisible (bulk) allocations, as if traced */
	uint64_t defects[PS_DEF_NR];
	uint64_t invisible_pages, invisible_frees;
	uint64_t invisible_replayed;		/* simulate: bulk allocations replayed */
	uint64_t untraced_buddy_allocs, pcp_resyncs, isolated_pages;
	uint64_t sim_alloc_failed, sim_skipped_failed;
	uint64_t capped_blocks, placed_blocks, placed_pages, unplaced_blocks;
	uint64_t pcp_seeded;		/* snapshot pcp pages put on the model's lists (simulate) */
	uint64_t pcp_capped;		/* pages the trace shows listed at the start past their CPU's count */
	int verbose_left;
	int *shadow;			/* follow: [zone][cpu][list] blocks the kernel's rules would hold */
	int *shadow_seed;		/* follow: [zone][cpu] pages on the lists at the start, lists unknown */
	/* memory the kernel used with no event (replay.h, opts.after) */
	int64_t *net_pages;			/* [zone] prepass: pages the trace frees less those it allocates */
	int64_t *untraced_target, *untraced_taken;	/* [zone] */
	int64_t *mig_expected;			/* [zone] prepass: kcompactd's order-0 frees */
	uint64_t mig_total;			/* prepass: the same on any zone */
	uint64_t untraced_returned;		/* given back for the trace's frees of hidden pages */
	uint64_t first_ns, last_ns;
	int untraced_on;
	uint64_t seed_pages, seed_used;
	uint8_t *section;		/* follow: per CPU, the zone-lock section in progress */
	uint64_t trace_refills, trace_drains;
	/* follow: time of the recorded kswapdN's latest event, per node, once seen */
	uint64_t kswapd_seen_ns[PS_MAX_NODES];
	uint8_t kswapd_seen[PS_MAX_NODES];
	/* follow, 6.7+: boosts tracked; a recorded kswapdN run holds those it started with (follow.c) */
	int follow_boosts;
	uint8_t boost_run[PS_MAX_NODES];
	/*
	 * Simulate mode's reclaim (reclaim.c): the traced block each model
	 * page holds (owner: traced global index + 1, 0 none), the traced
	 * pages the kernel's own reclaim took off the page cache (their free
	 * is absorbed: the model's reclaim decides), the direct and node
	 * reclaim windows the trace shows open per CPU, and whether the trace
	 * has the page-cache and LRU events (pass 1) or the LRU comes from gfp
	 * flags.
	 */
	uint32_t *owner;
	uint64_t *kreclaimed;
	uint8_t in_reclaim[PS_MAX_CPUS];
	int lru_events;
	/*
	 * Pass 1: the pages from before the trace that the kernel's reclaim
	 * took, in the order it took them (model global index; PRE_BY_FREE:
	 * seen only as a reclaimer's free, for a trace without page-cache
	 * events), and the reclaim windows open per CPU as pass 1 reads.
	 */
	uint32_t *lru_pre;
	uint32_t nr_lru_pre, lru_pre_cap;
	uint64_t lru_pre_placed;
	uint8_t pre_in_reclaim[PS_MAX_CPUS];
	/*
	 * Pass 1, simulate: the blocks the trace first shows on a per-CPU list
	 * (T_PCP_ALLOC and T_DRAIN heads), in trace order, with the CPU of
	 * that first event (pcp.snapshot_lists=1 puts them back on its lists;
	 * noted whatever the key, since replays sharing pass 1 may differ in it)
	 */
	struct rp_pcp_start {
		uint32_t zone, idx;
		uint16_t cpu;
		uint8_t order;
	} *pcp_start;
	uint32_t nr_pcp_start, pcp_start_cap;
	int trace_has_comm;		/* a free named its task (simulate mode reads tasks) */
	struct ps_kswapd_speed kswapd_speed;	/* pass 1: the recorded kswapd's reclaim speed */
	struct ps_node_reclaim_speed node_reclaim_speed;	/* pass 1: the recorded node reclaims' speed */
	long trace_node_reclaim_rate;	/* their pages per ms, 0 none (ps_replay_start) */
	long trace_kswapd_rate;		/* its pages per ms, 0 none (ps_replay_start) */
	uint64_t reclaimed_then_freed, kernel_reclaim_absorbed, refaults, stand_ins_reclaimed;
	uint64_t trace_reclaimed_zone[PS_MAX_ZONES];	/* the kernel's reclaim's page-cache deletions per traced zone */
	uint64_t trace_boost_wakeups[PS_MAX_NODES];	/* mm_vmscan_wakeup_kswapd with gfp_flags 0: rmqueue's boosted-watermark wakes */
	uint64_t trace_lru_skipped;	/* mm_vmscan_lru_isolate's nr_skipped: the kernel's pgskip_* summed */
	uint64_t trace_fallbacks_zone[PS_MAX_ZONES];	/* the trace's mm_page_alloc_extfrag per traced zone */
	uint64_t trace_vmscan_events;	/* the trace's vmscan events: whether it shows reclaim at all */
	/* the traced machine's address space (same as the model's unless cross) */
	int cross;
	const struct ps_machine *tm;
	const struct ps_profile *trace_profile;	/* the recorded kernel's (the model's if unknown) */
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
	struct rp_view *view;			/* timeline, filter, breakdown (timeline.c); NULL: none */
	int view_each;				/* the view works on each event (a filter or a breakdown) */
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
#define MAP_PCP_LOW (MAP_RECLAIMED - (uint32_t)PS_MAX_CPUS * PS_MIGRATE_PCPTYPES)
#define MAP_PCP(cpu, mt) (MAP_PCP_LOW + (uint32_t)(cpu) * PS_MIGRATE_PCPTYPES + (uint32_t)(mt))
#define MAP_IS_MODEL(g) ((g) && (g) < MAP_PCP_LOW)
#define MAP_IS_PCP(g) ((g) >= MAP_PCP_LOW && (g) != MAP_RECLAIMED)

/* Zone and index of a pfn, or NULL. */
static inline struct ps_zone *zone_of(struct ps_replay *r, uint64_t pfn, uint32_t *idx)
{
	int zi = ps_zone_table_lookup(&r->zt, pfn);

	if (zi < 0 || pfn == PS_PFN_NONE)
		return NULL;
	*idx = pfn - r->mm.zones[zi].start_pfn;
	return &r->mm.zones[zi];
}

/*
 * Whether mm_page_alloc_extfrag is the only event of the block it names
 * leaving the buddy.  Up to 6.9 every fallback moves blocks to the
 * requested type's lists and __rmqueue_smallest() then takes the page
 * (mm_page_alloc_zone_locked).  From 6.10 (c0cd6f557b90, "mm: page_alloc:
 * fix freelist movement during block conversion", and the 6.15
 * __rmqueue_steal()/__rmqueue_claim() that keep it) only a claim below
 * pageblock order goes through __rmqueue_smallest(); a steal without a
 * claim and a claim of a whole pageblock or more split the found block
 * themselves, and the extfrag event names the page they return.
 */
static inline int rp_extfrag_takes(const struct ps_profile *p, const struct ps_event *ev, int pageblock_order)
{
	if (ev->type != PS_EV_EXTFRAG || (p->fallback != PS_FB_HYGIENE && p->fallback != PS_FB_CLAIM_STEAL))
		return 0;
	return !ev->change_ownership || ev->fallback_order >= pageblock_order;
}

/* A direct or node reclaim window opening or closing on @ev's CPU, in @win (a byte per CPU). */
static inline void rp_reclaim_window(uint8_t *win, const struct ps_event *ev)
{
	if (ev->cpu < PS_MAX_CPUS)
		win[ev->cpu] = ev->type == PS_EV_DIRECT_BEGIN || ev->type == PS_EV_NODE_RECLAIM_BEGIN;
}

/* Whether @ev is the kernel reclaiming: a kswapd thread's, or inside a window of @win. */
static inline int rp_reclaim_context(const uint8_t *win, const struct ps_event *ev)
{
	return ev->task == PS_TASK_KSWAPD || (ev->cpu < PS_MAX_CPUS && win[ev->cpu]);
}

/*
 * kswapd.traced_cpu=1: kswapdN frees what it reclaims on the CPU it runs
 * on, which the scheduler chose; each of the thread's events gives it,
 * mapped to the model's CPUs, when that CPU is on the model's node N.
 */
static inline void rp_kswapd_cpu(struct ps_replay *r, const struct ps_event *ev)
{
	int node, cpu;

	if (ev->task_node < 0 || ev->task_node >= PS_MAX_NODES || ev->cpu >= PS_MAX_CPUS)
		return;
	node = r->node_to_node[ev->task_node];
	cpu = r->cpu_to_cpu[ev->cpu];
	if (node >= 0 && node < PS_MAX_NODES && ps_machine_cpu_node(r->m, cpu) == node)
		r->mm.node[node].kswapd.cpu = cpu;
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

/* The kernel's fallback (mm_page_alloc_extfrag) @ev, counted against the traced zone of its page. */
static inline void rp_trace_fallback(struct ps_replay *r, const struct ps_event *ev)
{
	uint32_t tidx;
	int ti = tzone_of(r, ev->pfn, &tidx);

	if (ti >= 0 && ti < PS_MAX_ZONES)
		r->trace_fallbacks_zone[ti]++;
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

/* replay.c: runs the timers due by @now */
void rp_run_timers(struct ps_replay *r, uint64_t now);

/* The clock to @ev's time, and the timers due by then. */
static inline void rp_clock(struct ps_replay *r, const struct ps_event *ev)
{
	r->now_ns = ev->ts_ns;
	if (ps_timer_due(&r->timers, ev->ts_ns)) {
		r->mm.now_ns = ev->ts_ns;
		rp_run_timers(r, ev->ts_ns);
	}
}

/* results.c */
__attribute__((cold)) void rp_defect(struct ps_replay *r, int kind, const struct ps_event *ev, const char *what);

/* setup.c */
int rp_setup_model(struct ps_replay *r, char *err, int len);

/* cross.c */
void rp_build_cpu_map(struct ps_replay *r);
void rp_build_cross(struct ps_replay *r);

/* prepass.c */
void rp_free_pass1(struct ps_replay *r);

/* initial.c */
void rp_build_zone(struct ps_replay *r, int zi);
/*
 * Whether simulate mode starts the per-CPU lists as the snapshot counts
 * them: pcp.snapshot_lists when given; by default when the recorded kernel
 * auto-tunes its lists' high (6.7+), whose lists then hold thousands of
 * pages, not the tens of earlier kernels.  Never for another machine's trace.
 */
int rp_pcp_snapshot_lists(const struct ps_replay *r);
void rp_seed_pcp_lists(struct ps_replay *r);
int64_t rp_snapshot_free(const struct ps_machine *m, const struct ps_zone_desc *d);

/* follow.c; the caller counts the event (ps_counters_event) and gives it to the lock model */
void rp_follow_event(struct ps_replay *r, const struct ps_event *ev);
/* rp_clock() and rp_follow_event() for each of @evs. */
void rp_follow_events(struct ps_replay *r, const struct ps_event *evs, int n);
void rp_follow_vmstat_drain(void *ctx, struct ps_zone *z, int cpu, int n, uint64_t now);

/* simulate.c */
void rp_trace_pcp_event(struct ps_replay *r, const struct ps_event *ev);
__attribute__((noinline)) void rp_simulate_alloc_free(struct ps_replay *r, const struct ps_event *ev);
void rp_untraced_use(struct ps_replay *r, uint64_t now);
void rp_sim_vmstat_drain(void *ctx, struct ps_zone *z, int cpu, int n, uint64_t now);

/* reclaim.c */
void rp_reclaimed(void *ctx, struct ps_zone *z, uint32_t idx, int order);
int rp_reclaim_create(struct ps_replay *r);
void rp_reclaim_event(struct ps_replay *r, const struct ps_event *ev);
int rp_kernel_reclaimed(struct ps_replay *r, uint64_t tg, int order);
void rp_lru_from_gfp(struct ps_replay *r, struct ps_zone *z, uint32_t idx, int order, uint32_t gfp);
void rp_lru_forget(struct ps_replay *r, struct ps_zone *z, uint32_t idx, int order);
void rp_lru_start(struct ps_replay *r);

/*
 * timeline.c: the view's work around each event (when r->view_each), or on
 * the run of events from @i to the next tick (rp_view_run, after event @i;
 * returns where the run ends), its tick, the model's fallbacks
 */
void rp_view_before(struct ps_replay *r, const struct ps_event *ev);
void rp_view_after(struct ps_replay *r, const struct ps_event *ev);
int rp_view_run(struct ps_replay *r, const struct ps_event *evs, int i, int n);
void rp_view_tick(struct ps_replay *r);
void rp_view_extfrag(struct ps_replay *r, const struct ps_event *ev);
void rp_view_destroy(struct ps_replay *r);

#endif
