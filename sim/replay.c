// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay.c - follow and simulate modes over the zones of one machine.
 *
 * Notes (what this simplifies):
 *  - Initial state (ps_replay_start): a page whose first event is a free was
 *    allocated at the start; a page first taken by mm_page_alloc_zone_locked
 *    was free in the buddy; a page first handed out by mm_page_alloc without
 *    a zone_locked event, or first drained, was on a per-CPU list.  Free
 *    blocks of the before/ snapshot (pagetypeinfo per order and type, else
 *    buddyinfo) that the trace does not account for are placed in pages the
 *    trace never touches, highest order first, from the top of the zone's
 *    memory down (its first `present` pages, or up to the highest page the
 *    trace touches: holes are not recorded).  Pageblock types come from the first zone_locked/drain event in a
 *    block (before any extfrag event there), then from pagetypeinfo's block
 *    counts: missing UNMOVABLE and RECLAIMABLE blocks go to the lowest
 *    blocks without evidence, the rest are MOVABLE.  See docs/replay.md.
 *  - In follow mode a block on a per-CPU list is a state, not a list
 *    position: the trace says when pages enter and leave the lists.  In
 *    simulate mode the lists are modelled (pcp.c).
 *  - The zone walk in simulate mode tries zones in zonelist order (own node
 *    first, then by distance; zones from gfp_zone() down) against WMARK_LOW
 *    plus boost, then WMARK_MIN, then without watermarks (standing in for
 *    reclaim); kswapd and lowmem_reserve are the multi-node issue's.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcp.h"
#include "replay.h"
#include "watermark.h"
#include "zonelist.h"
#include "../trace/kver.h"
#include "dirty.h"

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

static const char *const defect_names[PS_DEF_NR] = {
	[PS_DEF_ALLOC_NOT_FREE] = "replay_defects_alloc_not_free",
	[PS_DEF_FREE_NOT_ALLOC] = "replay_defects_free_not_allocated",
	[PS_DEF_DRAIN_NOT_PCP] = "replay_defects_drain_not_pcp",
	[PS_DEF_SHAPE] = "replay_defects_block_shape",
};

/* Zone and index of a pfn, or NULL. */
static struct ps_zone *zone_of(struct ps_replay *r, uint64_t pfn, uint32_t *idx)
{
	int zi = ps_zone_table_lookup(&r->zt, pfn);

	if (zi < 0 || pfn == PS_PFN_NONE)
		return NULL;
	*idx = pfn - r->zones[zi].start_pfn;
	return &r->zones[zi];
}

/* Traced zone index and index within it of a traced pfn, or -1. */
static int tzone_of(struct ps_replay *r, uint64_t pfn, uint32_t *tidx)
{
	int zi = pfn == PS_PFN_NONE ? -1 : ps_zone_table_lookup(&r->tzt, pfn);

	if (zi < 0)
		return -1;
	*tidx = pfn - r->tz[zi].base;
	return zi;
}

static void model_extfrag(void *ctx, const struct ps_event *ev)
{
	struct ps_replay *r = ctx;

	ps_counters_event(&r->cnt, ev);
}

int ps_replay_parse_cpu_map(const char *text, int16_t *map)
{
	const char *p = text;

	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b, node;

		if (end == p || a < 0 || a >= PS_MAX_CPUS)
			return -1;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= PS_MAX_CPUS)
				return -1;
			p = end;
		}
		if (*p != ':')
			return -1;
		node = strtol(p + 1, &end, 10);
		if (end == p + 1 || node < 0 || node >= PS_MAX_NODES)
			return -1;
		p = end;
		for (long c = a; c <= b; c++)
			map[c] = node;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return 0;
}

/*
 * Traced CPUs onto the model machine.  Same machine: identity.  Another
 * machine: traced CPU c of traced node n goes to model node n modulo the
 * model's nodes (or the node --cpu-map names), as that node's k-th CPU
 * (modulo its CPU count), k being c's rank among n's CPUs.  A traced node
 * maps to the model node of its first CPU.
 */
static void build_cpu_map(struct ps_replay *r, const struct ps_replay_opts *o)
{
	const struct ps_machine *m = r->m, *tm = r->tm;
	int rank[PS_MAX_NODES] = { 0 };

	for (int n = 0; n < PS_MAX_NODES; n++)
		r->node_to_node[n] = m->nr_nodes ? n % m->nr_nodes : 0;
	for (int c = 0; c < PS_MAX_CPUS; c++)
		r->cpu_to_cpu[c] = c;
	if (!r->cross)
		return;
	for (int c = 0; c < PS_MAX_CPUS; c++) {
		int tn = c < tm->nr_cpus ? tm->cpu_node[c] : -1, mn, k, cnt = 0;

		mn = o->cpu_node_map[c] >= 0 ? o->cpu_node_map[c] : (tn >= 0 ? tn % (m->nr_nodes ? m->nr_nodes : 1) : 0);
		k = tn >= 0 ? rank[tn]++ : c;
		for (int mc = 0; mc < m->nr_cpus; mc++)
			cnt += m->cpu_node[mc] == mn;
		r->cpu_to_cpu[c] = m->nr_cpus ? c % m->nr_cpus : 0;
		if (cnt) {
			k %= cnt;
			for (int mc = 0; mc < m->nr_cpus; mc++)
				if (m->cpu_node[mc] == mn && k-- == 0) {
					r->cpu_to_cpu[c] = mc;
					break;
				}
		}
		if (tn >= 0 && rank[tn] == 1)
			r->node_to_node[tn] = mn;
	}
}

/*
 * ALLOC_NOFRAGMENT (5.1+, alloc_flags_nofragment): the fast path sets it when
 * the walk starts at a Normal zone and the machine has one node or that
 * zone's node has a populated DMA32 zone.  Per (__GFP_THISNODE, preferred
 * node, class zone): the node of that first zone, or -1 for no flag.
 */
static void build_nofrag_node(struct ps_replay *r)
{
	for (int thisnode = 0; thisnode < 2; thisnode++)
		for (int node = 0; node < PS_MAX_NODES; node++)
			for (int high = 0; high < PS_ZONE_NR; high++) {
				int nr = thisnode ? 1 : r->nr_node_order[node], fn = -1, ft = -1;

				/* the first zone of the walk */
				for (int ni = 0; ni < nr && fn < 0; ni++) {
					int n = thisnode ? node : r->node_order[node][ni];

					for (int t = high; t >= 0 && n < PS_MAX_NODES && fn < 0; t--)
						if (r->node_zone[n][t] >= 0)
							fn = n, ft = t;
				}
				r->nofrag_node[thisnode][node][high] =
					(int8_t)(ft == PS_ZONE_NORMAL && r->o.profile->nofragment &&
						 (r->m->nr_nodes == 1 || r->node_zone[fn][PS_ZONE_DMA32] >= 0) ? fn : -1);
			}
}

/* Node order of each node's ZONELIST_FALLBACK, by the profile's kernel rules (zonelist.c). */
static void build_node_order(struct ps_replay *r)
{
	const struct ps_machine *m = r->m;
	struct ps_zonelists *zl = malloc(sizeof(*zl));

	if (zl && ps_zonelists_build(zl, m, r->o.profile->kver_min, PS_ZONELIST_ORDER_NODE) == 0) {
		for (int n = 0; n < m->nr_nodes && n < PS_MAX_NODES; n++) {
			r->nr_node_order[n] = zl->nr_node_order[n];
			for (int i = 0; i < zl->nr_node_order[n]; i++)
				r->node_order[n][i] = zl->node_order[n][i];
		}
		free(zl);
		return;
	}
	free(zl);
	/* fallback: own node first, then by distance, ties by node id */
	for (int n = 0; n < m->nr_nodes; n++) {
		int cnt = 0;

		if (!(m->node_online & (1ull << n)))
			continue;
		for (int d = 0; d <= 255 && cnt < m->nr_nodes; d++)
			for (int k = 0; k < m->nr_nodes; k++) {
				int dist = k == n ? 0 : m->distance[n][k];

				if (!(m->node_online & (1ull << k)) || dist != d)
					continue;
				r->node_order[n][cnt++] = k;
			}
		r->nr_node_order[n] = cnt;
	}
}

/*
 * Watermarks under the policy.  The recorded zoneinfo holds the kernel's own
 * values under the recorded tunables and kernel; they are kept unless the
 * policy changes vm.min_free_kbytes or vm.watermark_scale_factor, or picks a
 * profile whose watermark rule differs (before 4.6: low = min + min/4,
 * high = min + min/2), in which case every zone's watermarks and
 * lowmem_reserve are recomputed by the profile's kernel rules (watermark.c).
 */
static void apply_policy(struct ps_replay *r)
{
	const struct ps_policy *p = &r->o.policy, *rec = &r->o.recorded;
	int old_rule = r->o.profile->kver_max < PS_KVER(4, 6, 0) || p->wmark_legacy == 1;
	int rec_old_rule = r->m->kver && r->m->kver < PS_KVER(4, 6, 0);
	int changed = old_rule != rec_old_rule;
	struct ps_wmark_tunables t;
	struct ps_wmarks *w;

	if (p->min_free_kbytes != PS_UNSET && p->min_free_kbytes != rec->min_free_kbytes)
		changed = 1;
	if (p->watermark_scale_factor != PS_UNSET && p->watermark_scale_factor != rec->watermark_scale_factor)
		changed = 1;
	for (int i = 0; i < r->nr_zones; i++)
		r->zones[i].boost_factor = p->watermark_boost_factor != PS_UNSET ? p->watermark_boost_factor : 15000;
	if (!changed)
		return;
	ps_wmark_tunables_default(&t, old_rule ? PS_KVER(4, 5, 255) : r->o.profile->kver_max);
	if (p->min_free_kbytes != PS_UNSET)
		t.min_free_kbytes = p->min_free_kbytes;
	if (p->watermark_scale_factor != PS_UNSET)
		t.watermark_scale_factor = p->watermark_scale_factor;
	w = malloc(sizeof(*w));
	if (!w || ps_wmark_setup(w, r->m, &t) < 0) {
		free(w);
		return;		/* no managed counts (an assumed layout): keep the recorded values */
	}
	for (int i = 0; i < r->nr_zones; i++) {
		struct ps_zone *z = &r->zones[i];
		const struct ps_wmark_zone *wz = &w->zone[z->node][z->type];

		z->wmark_min = wz->mark[PS_WMARK_MIN];
		z->wmark_low = wz->mark[PS_WMARK_LOW];
		z->wmark_high = wz->mark[PS_WMARK_HIGH];
		memcpy(z->lowmem_reserve, wz->lowmem_reserve, sizeof(z->lowmem_reserve));
	}
	free(w);
}

struct ps_replay *ps_replay_create(const struct ps_machine *m, const struct ps_replay_opts *o, char *err, int len)
{
	struct ps_replay *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	r->o = *o;
	r->m = m;
	r->nr_zones = m->nr_zones;
	r->zones = calloc(m->nr_zones, sizeof(*r->zones));
	r->gbase = calloc(m->nr_zones, sizeof(*r->gbase));
	r->touch = calloc(m->nr_zones, sizeof(*r->touch));
	r->pb_evidence = calloc(m->nr_zones, sizeof(*r->pb_evidence));
	r->pb_changed = calloc(m->nr_zones, sizeof(*r->pb_changed));
	r->verbose_left = 100;
	if (!r->zones || !r->gbase || !r->touch || !r->pb_evidence || !r->pb_changed)
		goto nomem;
	for (int i = 0; i < m->nr_zones; i++) {
		struct ps_zone *z = &r->zones[i];

		if (ps_zone_create(z, &m->zones[i], i, o->profile, m->pageblock_order) < 0) {
			snprintf(err, len, "cannot model zone %s of node %d (%llu pages): out of memory or too large",
				 ps_zone_names[m->zones[i].type], m->zones[i].node,
				 (unsigned long long)m->zones[i].spanned);
			ps_replay_destroy(r);
			return NULL;
		}
		z->extfrag = model_extfrag;
		z->extfrag_ctx = r;
		if (m->nr_zones <= 64) {
			z->pcp_changed = &r->pcp_changed;
			z->pcp_changed_bit = 1ull << i;
		}
		r->gbase[i] = r->total_pages;
		r->total_pages += z->nr_pages;
		r->touch[i] = calloc(z->nr_pages, 1);
		r->pb_evidence[i] = malloc(z->nr_pageblocks);
		r->pb_changed[i] = calloc(z->nr_pageblocks, 1);
		if (!r->touch[i] || !r->pb_evidence[i] || !r->pb_changed[i])
			goto nomem;
		memset(r->pb_evidence[i], 0xff, z->nr_pageblocks);
	}
	/* the traced machine's address space */
	for (int n = 0; n < PS_MAX_NODES; n++) {
		r->kswapd[n].req_zoneidx = -1;
		r->kswapd[n].zoneidx = PS_ZONE_NORMAL;
	}
	r->tm = o->traced ? o->traced : m;
	r->cross = o->traced && o->traced != m;
	ps_zone_table_init(&r->zt, m);
	ps_zone_table_init(&r->tzt, r->tm);
	if (r->cross && o->mode != PS_REPLAY_SIMULATE) {
		snprintf(err, len, "follow mode replays a trace on the machine it was recorded on; use --mode simulate with --machine");
		ps_replay_destroy(r);
		return NULL;
	}
	r->nr_tz = r->tm->nr_zones;
	r->tz = calloc(r->nr_tz ? r->nr_tz : 1, sizeof(*r->tz));
	if (!r->tz)
		goto nomem;
	for (int i = 0; i < r->nr_tz; i++) {
		const struct ps_zone_desc *d = &r->tm->zones[i];
		uint64_t base = d->start_pfn & ~1023ull, end = (d->start_pfn + d->spanned + 1023) & ~1023ull;

		r->tz[i].base = base;
		r->tz[i].nr_pages = end - base;
		r->tz[i].node = d->node;
		r->tz[i].gbase = r->traced_pages;
		r->traced_pages += end - base;
	}
	if (r->cross) {
		r->ttouch = calloc(r->nr_tz, sizeof(*r->ttouch));
		if (!r->ttouch)
			goto nomem;
		for (int i = 0; i < r->nr_tz; i++)
			if (!(r->ttouch[i] = calloc(r->tz[i].nr_pages, 1)))
				goto nomem;
	}
	r->kswapd_takeover = o->policy.kswapd_takeover != PS_UNSET ? (int)o->policy.kswapd_takeover : 1;
	r->kswapd_ahead = r->kswapd_takeover && o->mode == PS_REPLAY_SIMULATE &&
			  o->policy.kswapd_ahead == 1;
	if (o->mode == PS_REPLAY_SIMULATE) {
		if (r->total_pages >= MAP_PCP_LOW - 1 || r->traced_pages >= PS_NIL) {
			snprintf(err, len, "%s is too large for the simulate-mode table (%llu pages)%s",
				 r->traced_pages < PS_NIL ? "the machine" : "the recorded machine's address space",
				 (unsigned long long)(r->traced_pages < PS_NIL ? r->total_pages : r->traced_pages),
				 r->tm->assumed ? ": its layout is assumed; give --sysroot" : "");
			ps_replay_destroy(r);
			return NULL;
		}
		r->map = calloc(r->traced_pages, sizeof(*r->map));
		if (!r->map)
			goto nomem;
		if (r->kswapd_ahead && !(r->alloc_of = calloc(r->traced_pages, sizeof(*r->alloc_of))))
			goto nomem;
		for (int n = 0; n < m->nr_nodes && n < PS_MAX_NODES; n++) {
			uint64_t pages = 0;

			for (int i = 0; i < m->nr_zones; i++)
				if (m->zones[i].node == n)
					pages += r->zones[i].nr_pages;
			/*
			 * A quarter slot per page for the list kswapd reclaims from:
			 * the deferred list under kswapd.takeover (its oldest block is
			 * freed when it is full), else the page-cache ring (its oldest
			 * entries drop out); under the takeover the ring serves only a
			 * node the recorded kswapd has not yet reclaimed on, or a trace
			 * that does not name its tasks, and gets an eighth.
			 */
			r->kswapd[n].cap = (uint32_t)(pages / (r->kswapd_takeover ? 8 : 4) + 1);
			r->kswapd[n].ring = malloc(sizeof(uint32_t) * r->kswapd[n].cap);
			if (r->kswapd_takeover) {
				r->kswapd[n].dcap = (uint32_t)(pages / 4 + 1);
				r->kswapd[n].deferred = malloc(sizeof(uint32_t) * r->kswapd[n].dcap);
			}
			if (!r->kswapd[n].ring || (r->kswapd_takeover && !r->kswapd[n].deferred))
				goto nomem;
		}
	}
	/* per-CPU lists: real ones in simulate mode, counts only in follow mode */
	r->nr_cpus = m->nr_cpus > 0 ? m->nr_cpus : 1;
	if (r->nr_cpus > PS_MAX_CPUS)
		r->nr_cpus = PS_MAX_CPUS;
	r->pcps = calloc((size_t)m->nr_zones * r->nr_cpus, sizeof(*r->pcps));
	r->shadow = calloc((size_t)m->nr_zones * r->nr_cpus * PS_NR_PCP_LISTS, sizeof(*r->shadow));
	r->shadow_seed = calloc((size_t)m->nr_zones * r->nr_cpus, sizeof(*r->shadow_seed));
	r->vm_expire = calloc((size_t)m->nr_zones * r->nr_cpus, 1);
	r->vm_touched = calloc((size_t)m->nr_zones * r->nr_cpus, 1);
	r->vm_queued = calloc(r->nr_cpus, 1);
	r->net_pages = calloc((size_t)m->nr_zones, sizeof(*r->net_pages));
	r->untraced_target = calloc((size_t)m->nr_zones, sizeof(*r->untraced_target));
	r->untraced_taken = calloc((size_t)m->nr_zones, sizeof(*r->untraced_taken));
	r->mig_expected = calloc((size_t)m->nr_zones, sizeof(*r->mig_expected));
	r->section = calloc(r->nr_cpus, 1);
	if (!r->pcps || !r->shadow || !r->shadow_seed || !r->section || !r->vm_expire || !r->vm_touched || !r->vm_queued ||
	    !r->net_pages || !r->untraced_target || !r->untraced_taken || !r->mig_expected)
		goto nomem;
	for (int i = 0; i < m->nr_zones; i++) {
		const struct ps_zone_desc *d = &m->zones[i];
		int batch = d->pcp_batch > 0 ? d->pcp_batch : 63;
		int high = d->pcp_high >= 0 ? d->pcp_high : 6 * batch;

		if (o->policy.pcp_batch != PS_UNSET)
			batch = o->policy.pcp_batch;
		if (o->policy.pcp_high != PS_UNSET)
			high = o->policy.pcp_high;

		for (int c = 0; c < r->nr_cpus; c++) {
			ps_pcp_init(&r->pcps[(size_t)i * r->nr_cpus + c], high, batch);
			if (o->policy.pcp_batch_scale_max != PS_UNSET)
				r->pcps[(size_t)i * r->nr_cpus + c].scale_max = (int)o->policy.pcp_batch_scale_max;
			if (o->policy.pcp_high == PS_UNSET)
				ps_pcp_set_adaptive(&r->pcps[(size_t)i * r->nr_cpus + c], d->pcp_high_min, d->pcp_high_max);
		}
	}
	/* follow: the pages the recorded lists held at the start (zoneinfo), lists unknown */
	for (int s = 0; o->mode == PS_REPLAY_FOLLOW && s < m->nr_pcp_seed; s++) {
		const struct ps_pcp_seed *sd = &m->pcp_seed[s];

		for (int i = 0; i < m->nr_zones && sd->cpu < r->nr_cpus; i++)
			if (m->zones[i].node == sd->node && m->zones[i].type == sd->type) {
				struct ps_pcp *pcp = &r->pcps[(size_t)i * r->nr_cpus + sd->cpu];

				r->shadow_seed[(size_t)i * r->nr_cpus + sd->cpu] += sd->count;
				pcp->count += sd->count;
				r->seed_pages += (uint64_t)sd->count;
				/* 6.7+: the CPU's own auto-tuned high, within its bounds */
				if (pcp->high_max && sd->high >= pcp->high_min && sd->high <= pcp->high_max)
					pcp->high = sd->high;
			}
	}
	apply_policy(r);
	{
		struct ps_error lerr;

		r->lock = ps_lock_create(&o->lock, m->nr_zones, r->nr_cpus, &lerr);
		if (!r->lock) {
			snprintf(err, len, "%s", lerr.msg);
			ps_replay_destroy(r);
			return NULL;
		}
		if (o->mode == PS_REPLAY_FOLLOW) {
			r->lockf = ps_lock_follow_create(r->lock, m, o->profile, m->pageblock_order);
			if (!r->lockf)
				goto nomem;
		} else {
			for (int i = 0; i < r->nr_zones; i++)
				r->zones[i].lock = r->lock;
		}
	}
	ps_counters_init(&r->cnt, m, m->pageblock_order);
	ps_counters_init(&r->inv, m, m->pageblock_order);
	build_node_order(r);
	build_cpu_map(r, o);
	for (int n = 0; n < PS_MAX_NODES; n++)
		for (int t = 0; t < PS_ZONE_NR; t++)
			r->node_zone[n][t] = -1;
	for (int i = 0; i < r->nr_zones; i++)
		if (r->zones[i].node < PS_MAX_NODES)
			r->node_zone[r->zones[i].node][r->zones[i].type] = i;
	build_nofrag_node(r);
	if (o->mode == PS_REPLAY_SIMULATE) {
		const struct ps_policy *pol = &r->o.policy;

		/* the dirty limits: node_dirty_ok from 4.8, zone_dirty_ok before */
		if (ps_dirty_init(&r->dirty, r->zones, r->nr_zones, r->total_pages,
				  r->o.profile->kver_min >= PS_KVER(4, 8, 0),
				  pol->dirty_ratio != PS_UNSET ? pol->dirty_ratio : 20,
				  pol->dirty_bytes != PS_UNSET ? pol->dirty_bytes : 0) < 0)
			goto nomem;
		/* the page cache at the start, as recorded (the model's own machine only) */
		for (int i = 0; i < r->nr_zones && !r->cross; i++) {
			ps_dirty_start(&r->dirty, i, m->zones[i].nr_file, m->zones[i].nr_dirty);
			if (m->zones[i].node < PS_MAX_NODES)
				r->mapped[m->zones[i].node] += m->zones[i].nr_mapped;
		}
		/* node reclaim's floor: vm.min_unmapped_ratio percent of each zone's managed pages */
		for (int i = 0; i < r->nr_zones; i++)
			if (r->zones[i].node < PS_MAX_NODES)
				r->min_unmapped[r->zones[i].node] += (long)r->zones[i].managed *
					(pol->min_unmapped_ratio != PS_UNSET ? pol->min_unmapped_ratio : 1) / 100;
	}
	r->last_pcp_pages = calloc(r->nr_zones > 0 ? (size_t)r->nr_zones : 1, sizeof(*r->last_pcp_pages));
	if (!r->last_pcp_pages)
		goto nomem;
	for (int i = 0; i < r->nr_zones; i++)
		r->last_pcp_pages[i] = UINT64_MAX;	/* every zone reports at the first event */
	r->pcp_changed = ~0ull;
	return r;
nomem:
	snprintf(err, len, "out of memory building the model");
	ps_replay_destroy(r);
	return NULL;
}

static void free_pass1(struct ps_replay *r)
{
	for (int i = 0; i < r->nr_zones; i++) {
		if (r->touch)
			free(r->touch[i]);
		if (r->pb_evidence)
			free(r->pb_evidence[i]);
		if (r->pb_changed)
			free(r->pb_changed[i]);
	}
	free(r->touch);
	free(r->pb_evidence);
	free(r->pb_changed);
	r->touch = NULL;
	r->pb_evidence = r->pb_changed = NULL;
}

void ps_replay_destroy(struct ps_replay *r)
{
	if (!r)
		return;
	free_pass1(r);
	for (int i = 0; r->zones && i < r->nr_zones; i++)
		ps_zone_destroy(&r->zones[i]);
	free(r->zones);
	free(r->gbase);
	ps_dirty_free(&r->dirty);
	if (r->lockf)
		ps_lock_follow_destroy(r->lockf);
	if (r->lock)
		ps_lock_destroy(r->lock);
	free(r->last_pcp_pages);
	free(r->map);
	free(r->pcps);
	free(r->shadow);
	free(r->shadow_seed);
	free(r->vm_expire);
	free(r->vm_touched);
	free(r->vm_queued);
	free(r->net_pages);
	free(r->alloc_of);
	free(r->ahead_bits);
	free(r->hidden);
	free(r->hidden_top);
	free(r->mig_expected);
	free(r->untraced_target);
	free(r->untraced_taken);
	free(r->section);
	for (int i = 0; r->ttouch && i < r->nr_tz; i++)
		free(r->ttouch[i]);
	free(r->ttouch);
	free(r->tz);
	for (int n = 0; n < PS_MAX_NODES; n++) {
		free(r->kswapd[n].ring);
		free(r->kswapd[n].deferred);
		free(r->kswapd[n].ahead);
	}
	free(r);
}

/* The model CPU whose per-CPU state serves @cpu (an out-of-range CPU folds onto the machine's). */
static int cpu_slot(const struct ps_replay *r, int cpu)
{
	return cpu < 0 ? 0 : cpu % r->nr_cpus;
}

static struct ps_pcp *pcp_of(struct ps_replay *r, const struct ps_zone *z, int cpu)
{
	return &r->pcps[(size_t)z->index * r->nr_cpus + cpu_slot(r, cpu)];
}

/* The model kswapd's (and node reclaim's) speed, pages per ms. */
static long reclaim_rate(const struct ps_replay *r)
{
	return r->o.policy.kswapd_rate != PS_UNSET ? r->o.policy.kswapd_rate : PS_KSWAPD_RATE_DEFAULT;
}

/* ---- pass 1 ---- */

/* Task names, on every free: the first byte turns nearly all of them away without a call. */
static inline int is_kswapd(const char *comm)
{
	return comm && comm[0] == 'k' && !strncmp(comm, "kswapd", 6);
}

static inline int is_kcompactd(const char *comm)
{
	return comm && comm[0] == 'k' && !strncmp(comm, "kcompactd", 9);
}

/*
 * kswapd.ahead, pass 1: numbers the allocations and marks those whose block
 * the recorded kswapd freed.  Off for good when a number would wrap or the
 * bitmap cannot grow (the replay then runs as with kswapd.ahead = 0).
 */
static void prepass_ahead(struct ps_replay *r, const struct ps_event *ev)
{
	uint32_t tidx, n;
	uint64_t tg;
	int ti;

	if (ev->type == PS_EV_ALLOC && ++r->alloc_seq == UINT32_MAX)
		r->kswapd_ahead = 0;
	if (ev->pfn == PS_PFN_NONE || (ev->type != PS_EV_ALLOC && ev->type != PS_EV_FREE) ||
	    ev->order >= PS_NR_ORDERS || (ti = tzone_of(r, ev->pfn, &tidx)) < 0)
		return;
	tg = r->tz[ti].gbase + tidx;
	n = 1u << ev->order;
	if (tidx + n > r->tz[ti].nr_pages)
		n = r->tz[ti].nr_pages - tidx;
	if (ev->type == PS_EV_FREE) {
		uint32_t seq = r->alloc_of[tg];

		if (seq && is_kswapd(ev->comm)) {
			if (seq >= r->ahead_nbits) {
				uint32_t nb = r->ahead_nbits ? r->ahead_nbits : 1u << 16;
				uint64_t *b;

				while (nb <= seq && nb < (1u << 31))
					nb *= 2;
				if (nb <= seq || !(b = realloc(r->ahead_bits, nb / 8))) {
					r->kswapd_ahead = 0;
					return;
				}
				memset((char *)b + r->ahead_nbits / 8, 0, (nb - r->ahead_nbits) / 8);
				r->ahead_bits = b;
				r->ahead_nbits = nb;
			}
			if (!(r->ahead_bits[seq / 64] & (1ull << (seq % 64))))
				r->ahead_marked++;
			r->ahead_bits[seq / 64] |= 1ull << (seq % 64);
		}
		memset(&r->alloc_of[tg], 0, n * sizeof(*r->alloc_of));
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		r->alloc_of[tg + i] = r->alloc_seq;
}

/* kswapd.ahead: whether allocation @seq's block was freed by the recorded kswapd. */
static inline int ahead_marked(const struct ps_replay *r, uint32_t seq)
{
	return seq && seq < r->ahead_nbits && (r->ahead_bits[seq / 64] >> (seq % 64)) & 1;
}

static inline void prepass_event(struct ps_replay *r, const struct ps_event *ev)
{
	struct ps_zone *z;
	uint32_t idx, n;
	int cls, zi, order = ev->order, mig;

	if (!r->first_ns)
		r->first_ns = ev->ts_ns ? ev->ts_ns : 1;
	r->last_ns = ev->ts_ns;
	if (r->kswapd_ahead)
		prepass_ahead(r, ev);
	if (ev->pfn == PS_PFN_NONE || ev->type == PS_EV_FREE_BATCHED)
		return;
	mig = ev->type == PS_EV_FREE && order == 0 && is_kcompactd(ev->comm);
	r->mig_total += mig;
	if (r->cross) {
		/* another machine: only which traced blocks were allocated at the start matters */
		int ti = tzone_of(r, ev->pfn, &idx);
		uint8_t *t;

		if (ti < 0 || ev->type == PS_EV_EXTFRAG)
			return;
		t = r->ttouch[ti];
		if (order >= PS_NR_ORDERS || (idx & ((1u << order) - 1)))
			order = 0;
		cls = ev->type == PS_EV_FREE ? T_FREED : T_BUDDY;
		n = 1u << order;
		if (idx + n > r->tz[ti].nr_pages)
			n = r->tz[ti].nr_pages - idx;
		if (!t[idx])
			t[idx] = cls | T_HEAD | order << T_ORDER_SHIFT;
		for (uint32_t i = 1; i < n; i++)
			if (!t[idx + i])
				t[idx + i] = cls;
		return;
	}
	z = zone_of(r, ev->pfn, &idx);
	if (!z)
		return;
	zi = z->index;
	if ((ev->type == PS_EV_ALLOC || ev->type == PS_EV_FREE) && order < PS_NR_ORDERS)
		r->net_pages[zi] += ev->type == PS_EV_FREE ? (int64_t)1 << order : -((int64_t)1 << order);
	r->trace_has_comm |= ev->comm != NULL;	/* simulate mode reads task names in pass 1 too */
	if (ev->type == PS_EV_FREE && is_kswapd(ev->comm))
		r->kswapd[z->node].last_recorded_ns = ev->ts_ns;
	r->mig_expected[zi] += mig;
	if (ev->type == PS_EV_EXTFRAG) {
		uint32_t pbs = 1u << (ev->fallback_order > z->pageblock_order ? ev->fallback_order - z->pageblock_order : 0);

		for (uint32_t b = 0; b < pbs && (idx >> z->pageblock_order) + b < z->nr_pageblocks; b++)
			r->pb_changed[zi][(idx >> z->pageblock_order) + b] = 1;
		return;
	}
	switch (ev->type) {
	case PS_EV_FREE: cls = T_FREED; break;
	case PS_EV_ALLOC: cls = T_PCP_ALLOC; break;
	case PS_EV_ZONE_LOCKED: cls = T_BUDDY; break;
	case PS_EV_PCPU_DRAIN: cls = T_DRAIN; break;
	default: return;
	}
	if ((ev->type == PS_EV_ZONE_LOCKED || ev->type == PS_EV_PCPU_DRAIN) && ev->migratetype >= 0 &&
	    ev->migratetype < PS_MT_PCPTYPES) {
		uint32_t pb = idx >> z->pageblock_order;

		if (!r->pb_changed[zi][pb] && r->pb_evidence[zi][pb] == 0xff)
			r->pb_evidence[zi][pb] = ev->migratetype;
	}
	if (order >= PS_NR_ORDERS || (idx & ((1u << order) - 1)))
		order = 0;
	n = 1u << order;
	if (idx + n > z->nr_pages)
		n = z->nr_pages - idx;
	if (idx + n > z->present_end && idx + n <= z->span_end)
		z->present_end = idx + n;	/* the trace shows memory there */
	/* a block first seen whole keeps its order (a pcp block at the start) */
	if (!r->touch[zi][idx])
		r->touch[zi][idx] = cls | T_HEAD | order << T_ORDER_SHIFT;
	for (uint32_t i = 1; i < n; i++)
		if (!r->touch[zi][idx + i])
			r->touch[zi][idx + i] = cls;
}

void ps_replay_prepass(struct ps_replay *r, const struct ps_event *evs, int n)
{
	for (int i = 0; i < n; i++)
		prepass_event(r, &evs[i]);
}

/* ---- initial state ---- */

static void assign_pageblocks(struct ps_replay *r, int zi)
{
	struct ps_zone *z = &r->zones[zi];
	const struct ps_zone_desc *d = &r->m->zones[zi];
	uint64_t have[PS_MT_TYPES] = { 0 };
	uint32_t first = z->span_start >> z->pageblock_order;
	uint32_t last = (z->span_end - 1) >> z->pageblock_order;

	for (uint32_t b = first; b <= last; b++) {
		int e = r->pb_evidence[zi][b];

		if (e != 0xff) {
			z->pb_mt[b] = e;
			have[e]++;
		} else {
			z->pb_mt[b] = 0xfe;	/* to assign */
		}
	}
	if (d->have_pagetypeinfo) {
		static const int order_of_fill[] = { PS_MT_UNMOVABLE, PS_MT_RECLAIMABLE, PS_MT_HIGHATOMIC };

		for (size_t i = 0; i < sizeof(order_of_fill) / sizeof(order_of_fill[0]); i++) {
			int mt = order_of_fill[i];
			uint64_t want = d->nr_blocks[mt];

			for (uint32_t b = first; b <= last && have[mt] < want; b++)
				if (z->pb_mt[b] == 0xfe) {
					z->pb_mt[b] = mt;
					have[mt]++;
				}
		}
	}
	for (uint32_t b = first; b <= last; b++)
		if (z->pb_mt[b] == 0xfe)
			z->pb_mt[b] = PS_MT_MOVABLE;
	for (uint32_t b = 0; b < z->nr_pageblocks; b++)
		if (z->pb_mt[b] == PS_MT_ISOLATE)
			z->nr_isolate_pageblock++;
}

static int pcp_allowed(const struct ps_replay *r, int order)
{
	const struct ps_zone *z = &r->zones[0];

	if (!r->o.profile->pcp_high_orders)
		return order == 0;
	return order <= 3 || order == z->pageblock_order;
}

/* Places @need free blocks of (order, mt) in untouched pages, top of the zone down. */
static uint64_t place_blocks(struct ps_replay *r, int zi, int order, int mt, uint64_t need)
{
	struct ps_zone *z = &r->zones[zi];
	uint32_t n = 1u << order, placed = 0;
	uint8_t *t = r->touch[zi];

	if (!need)
		return 0;
	for (int64_t b = (int64_t)((z->present_end - n) & ~(n - 1)); b >= (int64_t)z->span_start && placed < need;
	     b -= n) {
		uint32_t i, buddy;

		if (b < (int64_t)z->span_start || b + n > z->present_end)
			continue;
		if (order < z->pageblock_order && ps_pageblock_mt(z, b) != mt)
			continue;
		for (i = 0; i < n; i++)
			if (T_CLASS(t[b + i]) != T_NONE || z->state[b + i] != PG_STATE(PG_ALLOC, 1, 0))
				break;
		if (i < n)
			continue;
		buddy = b ^ n;
		if (order < PS_NR_ORDERS - 1 && buddy < z->nr_pages && z->state[buddy] == PG_STATE(PG_FREE, 1, order))
			continue;	/* would have merged */
		if (order >= z->pageblock_order)
			for (uint32_t p = b; p < b + n; p += 1u << z->pageblock_order)
				ps_set_pageblock_mt(z, p, mt);
		ps_add_free(z, b, order, mt, 1);
		for (i = 0; i < n; i++)
			t[b + i] = T_BUDDY;	/* taken */
		placed++;
	}
	return placed;
}

/* The pages a machine's zone @d held free at its snapshot: buddy and per-CPU lists. */
static int64_t snapshot_free(const struct ps_machine *m, const struct ps_zone_desc *d)
{
	int64_t n = (int64_t)d->free_pages;

	for (int s = 0; s < m->nr_pcp_seed; s++)
		if (m->pcp_seed[s].node == d->node && m->pcp_seed[s].type == d->type)
			n += m->pcp_seed[s].count;
	return n;
}

static void build_zone(struct ps_replay *r, int zi)
{
	struct ps_zone *z = &r->zones[zi];
	const struct ps_zone_desc *d = &r->m->zones[zi];
	uint8_t *t = r->touch[zi];
	int simulate = r->o.mode == PS_REPLAY_SIMULATE;
	int64_t budget;

	assign_pageblocks(r, zi);
	/* every page allocated at first, typed like its block */
	for (uint32_t i = z->span_start; i < z->span_end; i++)
		z->mt[i] = ps_pageblock_mt(z, i);
	/* pages the trace shows free at the start */
	for (uint32_t i = z->span_start; i < z->span_end; i++) {
		int c = T_CLASS(t[i]), on_pcp = !simulate && (c == T_PCP_ALLOC || c == T_DRAIN);

		if (c == T_BUDDY || (simulate && (c == T_PCP_ALLOC || c == T_DRAIN))) {
			ps_free_one_page(z, i, 0, ps_pageblock_mt(z, i), 0);
		} else if (on_pcp && (t[i] & T_HEAD)) {
			int o = T_ORDER(t[i]);

			if (i + (1u << o) > z->span_end)
				o = 0;
			ps_zone_mark(z, i, o, PG_PCP, ps_pageblock_mt(z, i));
			z->next[i] = PS_NIL;
			ps_zone_pcp_add(z, 1u << o);
			i += (1u << o) - 1;
		} else if (on_pcp) {
			/* a tail first seen alone */
			ps_zone_mark(z, i, 0, PG_PCP, ps_pageblock_mt(z, i));
			z->next[i] = PS_NIL;
			ps_zone_pcp_add(z, 1);
		}
	}
	/*
	 * The snapshot's free blocks the trace does not account for, largest
	 * first, up to the zone's free pages in the snapshot (buddy and
	 * per-CPU lists): the pages the trace shows free at the start were
	 * mostly parts of the snapshot's larger blocks, which its requests
	 * take page by page, so placing every block besides them would start
	 * the zone with more free memory than the kernel had (numa2-frag's
	 * node 1 by 1,800 pages).  What does not fit is counted
	 * (replay_initial_capped_blocks).
	 */
	budget = snapshot_free(r->m, d) - (int64_t)z->nr_free_pages - (int64_t)z->nr_pcp_pages;
	if (!d->free_pages)
		budget = INT64_MAX;	/* no free count in the snapshot: its blocks alone */
	for (int o = PS_NR_ORDERS - 1; o >= 0; o--) {
		for (int mt = 0; mt < PS_MT_TYPES; mt++) {
			uint64_t want, have = z->free_area[o].nr_free_mt[mt], got;

			if (d->have_pagetypeinfo)
				want = d->nr_free[o][mt];
			else if (d->have_buddyinfo && mt == PS_MT_MOVABLE)
				want = d->buddy[o];
			else
				continue;
			if (want <= have)
				continue;
			if (budget < (int64_t)((want - have) << o)) {
				uint64_t fit = budget > 0 ? (uint64_t)budget >> o : 0;

				r->capped_blocks += want - have - fit;
				want = have + fit;
				if (!fit)
					continue;
			}
			got = place_blocks(r, zi, o, mt, want - have);
			budget -= (int64_t)(got << o);
			r->placed_blocks += got;
			r->placed_pages += got << o;
			r->unplaced_blocks += want - have - got;
		}
	}
}

/* A block of @order on @node's zones (highest zone first); the zone, or NULL. */
static struct ps_zone *alloc_on_node(struct ps_replay *r, int node, int order, int mt, uint32_t *idx)
{
	for (int t = PS_ZONE_NR - 1; t >= 0; t--)
		for (int zi = 0; zi < r->nr_zones; zi++) {
			struct ps_zone *z = &r->zones[zi];

			if (z->node != node || z->type != t)
				continue;
			*idx = ps_rmqueue(z, order, mt, NULL);
			if (*idx != PS_NIL)
				return z;
		}
	return NULL;
}

/*
 * The initial state on another machine: every page of the model free (in
 * the largest aligned blocks, pageblocks MOVABLE, as after boot), then the
 * traced blocks allocated at the start of the trace (those it frees before
 * allocating) allocated on the mapped node, then as many more pages per
 * mapped node as the recorded machine had in use on the traced node
 * (managed - free in the before/ snapshot), as MOVABLE blocks.  What the
 * recorded machine's used memory was made of is not carried over.
 */
static void build_cross(struct ps_replay *r)
{
	uint64_t used[PS_MAX_NODES] = { 0 }, placed[PS_MAX_NODES] = { 0 };

	for (int zi = 0; zi < r->nr_zones; zi++) {
		struct ps_zone *z = &r->zones[zi];

		z->extfrag = NULL;	/* no events while setting up */
		for (uint32_t p = z->span_start; p < z->present_end;) {
			int o = PS_NR_ORDERS - 1;

			while (o > 0 && ((p & ((1u << o) - 1)) || p + (1u << o) > z->present_end))
				o--;
			ps_zone_mark(z, p, o, PG_ALLOC, PS_MT_MOVABLE);
			ps_free_one_page(z, p, o, PS_MT_MOVABLE, 0);
			p += 1u << o;
		}
	}
	for (int ti = 0; ti < r->nr_tz; ti++) {
		const uint8_t *t = r->ttouch[ti];
		int mn = r->node_to_node[r->tz[ti].node];

		for (uint32_t i = 0; i < r->tz[ti].nr_pages; i++) {
			uint32_t idx;
			struct ps_zone *z;
			int o;

			if (T_CLASS(t[i]) != T_FREED || !(t[i] & T_HEAD))
				continue;
			o = T_ORDER(t[i]);
			z = alloc_on_node(r, mn, o, PS_MT_MOVABLE, &idx);
			if (!z) {
				r->cross_unplaced_pages += 1u << o;
				continue;
			}
			for (uint32_t k = 0; k < (1u << o) && i + k < r->tz[ti].nr_pages; k++)
				r->map[r->tz[ti].gbase + i + k] = (uint32_t)(r->gbase[z->index] + idx + k + 1);
			placed[mn] += 1u << o;
		}
	}
	for (int i = 0; i < r->tm->nr_zones; i++) {
		const struct ps_zone_desc *d = &r->tm->zones[i];

		if (d->managed > d->free_pages)
			used[r->node_to_node[d->node]] += d->managed - d->free_pages;
	}
	for (int n = 0; n < r->m->nr_nodes && n < PS_MAX_NODES; n++) {
		uint64_t want = used[n] > placed[n] ? used[n] - placed[n] : 0;

		for (int o = PS_NR_ORDERS - 1; o >= 0 && want; o--)
			while (want >= (1ull << o)) {
				uint32_t idx;

				if (!alloc_on_node(r, n, o, PS_MT_MOVABLE, &idx))
					break;
				want -= 1ull << o;
				r->cross_preused_pages += 1ull << o;
			}
		r->cross_unplaced_pages += want;
	}
	for (int zi = 0; zi < r->nr_zones; zi++) {
		struct ps_zone *z = &r->zones[zi];

		z->extfrag = model_extfrag;
		z->fallbacks = z->fallbacks_fragmenting = z->claims = z->boosts = 0;
		z->watermark_boost = 0;
	}
}

/*
 * opts.after: per zone, the model's free pages at the start plus what the
 * trace frees less what it allocates there, less what the kernel held free
 * at the end, less kcompactd's migrations (migration_target()): what is
 * left the kernel used with no event.
 */
static void untraced_targets(struct ps_replay *r)
{
	const struct ps_machine *a = r->o.after;

	r->untraced_next_ns = r->first_ns;
	if (!a || r->o.mode != PS_REPLAY_SIMULATE || r->last_ns <= r->first_ns)
		return;
	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];
		int64_t end = (int64_t)z->nr_free_pages + (int64_t)z->nr_pcp_pages + r->net_pages[zi] -
			      r->mig_expected[zi], kernel;

		for (int i = 0; i < a->nr_zones; i++) {
			if (a->zones[i].node != z->node || a->zones[i].type != z->type)
				continue;
			kernel = snapshot_free(a, &a->zones[i]);
			if (end > kernel) {
				r->untraced_target[zi] = end - kernel;
				r->untraced_on = 1;
			}
		}
	}
}

/* The pool of hidden pages: room for every untraced page and migration target. */
static int hidden_pool(struct ps_replay *r, char *err, int len)
{
	uint64_t cap = r->mig_total;

	for (int zi = 0; zi < r->nr_zones; zi++)
		cap += (uint64_t)r->untraced_target[zi];
	if (!cap || r->o.mode != PS_REPLAY_SIMULATE)
		return 0;
	if (cap >= PS_NIL) {
		snprintf(err, len, "too many pages held with no event (%llu)", (unsigned long long)cap);
		return -1;
	}
	r->hidden = malloc(cap * sizeof(*r->hidden));
	r->hidden_top = malloc((size_t)r->nr_zones * sizeof(*r->hidden_top));
	if (!r->hidden || !r->hidden_top) {
		snprintf(err, len, "out of memory for the pages held with no event");
		return -1;
	}
	for (uint32_t i = 0; i < cap; i++)
		r->hidden[i].next = i + 1 < cap ? i + 1 : PS_NIL;
	for (int zi = 0; zi < r->nr_zones; zi++)
		r->hidden_top[zi] = PS_NIL;
	r->hidden_free = 0;
	r->hidden_on = 1;
	return 0;
}

/*
 * kswapd.ahead: a list per model node with room for every marked allocation,
 * up to the node's pages (a full list is first cleared of blocks no longer
 * held); the numbering starts again for pass 2.
 */
static int ahead_lists(struct ps_replay *r, char *err, int len)
{
	if (!r->kswapd_ahead || !r->ahead_marked) {
		r->kswapd_ahead = 0;
		free(r->alloc_of);
		free(r->ahead_bits);
		r->alloc_of = NULL;
		r->ahead_bits = NULL;
		r->ahead_nbits = 0;
		return 0;
	}
	for (int n = 0; n < r->m->nr_nodes && n < PS_MAX_NODES; n++) {
		uint64_t pages = 0;

		for (int i = 0; i < r->nr_zones; i++)
			if (r->zones[i].node == n)
				pages += r->zones[i].nr_pages;
		r->kswapd[n].acap = (uint32_t)((r->ahead_marked < pages ? r->ahead_marked : pages) + 1);
		r->kswapd[n].ahead = malloc(r->kswapd[n].acap * sizeof(*r->kswapd[n].ahead));
		if (!r->kswapd[n].ahead) {
			snprintf(err, len, "out of memory for kswapd's lists");
			return -1;
		}
	}
	memset(r->alloc_of, 0, r->traced_pages * sizeof(*r->alloc_of));
	r->alloc_seq = 0;
	return 0;
}

int ps_replay_start(struct ps_replay *r, char *err, int len)
{
	if (ahead_lists(r, err, len) < 0)
		return -1;
	if (r->cross) {
		build_cross(r);
		free_pass1(r);
		for (int zi = 0; zi < r->nr_zones; zi++)
			if (ps_zone_check(&r->zones[zi], err, len) < 0)
				return -1;
		return hidden_pool(r, err, len);
	}
	for (int zi = 0; zi < r->nr_zones; zi++)
		build_zone(r, zi);
	untraced_targets(r);
	if (hidden_pool(r, err, len) < 0)
		return -1;
	if (r->map) {
		/* pages allocated at the start map to themselves */
		for (int zi = 0; zi < r->nr_zones; zi++)
			for (uint32_t i = 0; i < r->zones[zi].nr_pages; i++)
				if (T_CLASS(r->touch[zi][i]) == T_FREED)
					r->map[r->gbase[zi] + i] = (uint32_t)(r->gbase[zi] + i + 1);
	}
	free_pass1(r);
	for (int zi = 0; zi < r->nr_zones; zi++)
		if (ps_zone_check(&r->zones[zi], err, len) < 0)
			return -1;
	return 0;
}

/* ---- pass 2: follow ---- */

static void defect(struct ps_replay *r, int kind, const struct ps_event *ev, const char *what)
{
	r->defects[kind]++;
	if (r->o.verbose && r->verbose_left > 0) {
		r->verbose_left--;
		fprintf(stderr, "pagesim: defect: %s: %s pfn %#llx order %d cpu %d at %llu.%09llu\n", what,
			ps_event_names[ev->type], (unsigned long long)ev->pfn, ev->order, ev->cpu,
			(unsigned long long)(ev->ts_ns / 1000000000ull),
			(unsigned long long)(ev->ts_ns % 1000000000ull));
	}
}

/* Makes [idx, 2^order) one allocated block, splitting or joining allocated blocks. */
static int reshape_alloc(struct ps_zone *z, uint32_t idx, int order)
{
	uint32_t h, end = idx + (1u << order);
	int k, mt = z->mt[idx];

	if (end > z->nr_pages)
		return -1;
	for (uint32_t p = idx; p < end;) {
		if (ps_zone_block_of(z, p, &h, &k) != PG_ALLOC)
			return -1;
		if (h < idx || h + (1u << k) > end) {
			/* a larger allocated block (split_page): cut it into order-0 pages */
			for (uint32_t i = h; i < h + (1u << k); i++)
				z->state[i] = PG_STATE(PG_ALLOC, 1, 0);
			continue;
		}
		p = h + (1u << k);
	}
	ps_zone_mark(z, idx, order, PG_ALLOC, mt);
	return 0;
}

static void account_invisible(struct ps_replay *r, struct ps_zone *z, uint32_t h, int k, const struct ps_event *ev)
{
	struct ps_event a = *ev;
	uint32_t cpu = z->next[h];

	a.type = PS_EV_ALLOC;
	a.pfn = z->start_pfn + h;
	a.order = 0;
	a.gfp = 0;
	a.cpu = cpu != PS_NIL ? cpu : ev->cpu;
	/* the bulk allocator counts numa events per page */
	for (int i = 0; i < (1 << k); i++) {
		a.pfn = z->start_pfn + h + i;
		ps_counters_event(&r->inv, &a);
	}
	r->invisible_pages += 1u << k;
	ps_zone_pcp_add(z, -(int64_t)(1u << k));
	ps_zone_mark(z, h, k, PG_ALLOC, z->mt[h]);
}

/*
 * The per-CPU list counts the kernel's rules would keep in follow mode (a
 * shadow of the trace): refills when a list is empty, drains when the count
 * reaches high; compared with the refill and drain sections the trace shows.
 */
/* The shadow's per-list block counts of @cpu's lists of @z, indexed by ps_pcp_index(). */
static int *shadow_lists(struct ps_replay *r, const struct ps_zone *z, int cpu)
{
	return &r->shadow[((size_t)z->index * r->nr_cpus + cpu_slot(r, cpu)) * PS_NR_PCP_LISTS];
}

static int *shadow_list(struct ps_replay *r, const struct ps_zone *z, int cpu, int order, int mt)
{
	return shadow_lists(r, z, cpu) + ps_pcp_index(z, order, mt);
}

static int *shadow_seed(struct ps_replay *r, const struct ps_zone *z, int cpu)
{
	return &r->shadow_seed[(size_t)z->index * r->nr_cpus + cpu_slot(r, cpu)];
}

/*
 * The recorded lists' contents at the start: zoneinfo gives each CPU's
 * count per zone, not which lists hold it.  An allocation from a list the
 * shadow holds empty takes one of those pages if the trace served it with
 * no refill of its own (@refilled: the CPU's previous event was a refill),
 * until they run out; drains take them after the known lists.
 */
static int shadow_seed_take(struct ps_replay *r, struct ps_pcp *pcp, int *seed, int pages, int refilled)
{
	if (refilled || *seed < pages)
		return 0;
	*seed -= pages;
	pcp->count -= pages;
	r->seed_used += (uint64_t)pages;
	return 1;
}

static void shadow_alloc(struct ps_replay *r, struct ps_zone *z, int cpu, int order, int mt, int refilled)
{
	struct ps_pcp *pcp = pcp_of(r, z, cpu);
	int *cnt = shadow_list(r, z, cpu, order, mt);

	if (*cnt <= 0 && shadow_seed_take(r, pcp, shadow_seed(r, z, cpu), 1 << order, refilled)) {
		ps_pcp_note_alloc(pcp);
		return;
	}
	if (*cnt <= 0) {
		int n = ps_pcp_refill_blocks(pcp, order);

		pcp->refills++;
		*cnt += n;
		pcp->count += n << order;
	}
	(*cnt)--;
	pcp->count -= 1 << order;
	ps_pcp_note_alloc(pcp);
}

/* free_pcppages_bulk on the shadow: @n pages from list @li on, then the start pages. */
static void shadow_drain(struct ps_replay *r, struct ps_zone *z, int cpu, int n, int li)
{
	struct ps_pcp *pcp = pcp_of(r, z, cpu);
	int *base = shadow_lists(r, z, cpu), nl = ps_pcp_nr_lists(r->o.profile);

	if (n <= 0 || pcp->count <= 0)
		return;
	pcp->drains++;
	for (int k = 0; k < nl && n > 0; k++) {
		int l = (li + k) % nl, o = l < 12 ? l / PS_MT_PCPTYPES : z->pageblock_order;

		if (!r->o.profile->pcp_high_orders)
			o = 0;
		while (base[l] > 0 && n > 0) {
			base[l]--;
			pcp->count -= 1 << o;
			n -= 1 << o;
		}
	}
	if (n > 0) {
		int *seed = shadow_seed(r, z, cpu), t = n < *seed ? n : *seed;

		*seed -= t;
		pcp->count -= t;
		r->seed_used += (uint64_t)t;
	}
}

static void shadow_free(struct ps_replay *r, struct ps_zone *z, int cpu, int order, int mt, int reclaim_active)
{
	struct ps_pcp *pcp = pcp_of(r, z, cpu);

	(*shadow_list(r, z, cpu, order, mt))++;
	pcp->count += 1 << order;
	shadow_drain(r, z, cpu, ps_pcp_drain_pages(pcp, r->o.profile, order, reclaim_active),
		     ps_pcp_index(z, order, mt));
}

/*
 * vmstat_update (refresh_cpu_vm_stats), run by each CPU about once a second
 * (sysctl_stat_interval; here on whole seconds of trace time) while it has
 * something to fold: a stat of a zone changed on the CPU since its last run
 * (here: any event of that zone on the CPU) sets the CPU's expire for the
 * zone to 3; a run that finds pages on a remote zone's list counts expire
 * down and at 0 drains one batch of them (drain_zone_pages; the drain
 * touches the zone's stats again, so the next batch goes 3 runs later).
 * Local lists are never drained.  6.7+ first decays high by an eighth (not
 * under count - batch << scale_max nor high_min) and drains what is over it.
 */
#define VMSTAT_INTERVAL_NS 1000000000ull

static void vmstat_touch(struct ps_replay *r, int zi, int cpu)
{
	cpu = cpu_slot(r, cpu);
	r->vm_touched[(size_t)zi * r->nr_cpus + cpu] = 1;
	r->vm_queued[cpu] = 1;
}

static void vmstat_drain(struct ps_replay *r, struct ps_zone *z, int cpu, int n, uint64_t now)
{
	if (r->o.mode == PS_REPLAY_FOLLOW) {
		shadow_drain(r, z, cpu, n, 0);
		return;
	}
	z->now_ns = now;
	z->now_cpu = cpu;
	ps_pcp_drain(z, pcp_of(r, z, cpu), n, 0);
}

static void vmstat_refresh(struct ps_replay *r, int cpu, uint64_t now)
{
	for (int zi = 0; zi < r->nr_zones; zi++) {
		size_t k = (size_t)zi * r->nr_cpus + cpu;
		struct ps_zone *z = &r->zones[zi];
		struct ps_pcp *pcp = &r->pcps[k];
		int changed = 0, drained = 0;

		if (r->vm_touched[k]) {
			r->vm_touched[k] = 0;
			r->vm_expire[k] = 3;
		}
		if (pcp->high_max && pcp->high_min != pcp->high_max) {
			int n = ps_pcp_decay_high(pcp, &changed);

			if (n > 0) {
				vmstat_drain(r, z, cpu, n, now);
				r->decay_drains++;
				changed = drained = 1;
			}
		}
		if (r->vm_expire[k] && pcp->count > 0) {
			if (z->node == ps_machine_cpu_node(r->m, cpu)) {
				r->vm_expire[k] = 0;
			} else if (--r->vm_expire[k]) {
				changed |= pcp->high_max != 0;	/* 6.7+ counts the countdown as a change */
			} else {
				vmstat_drain(r, z, cpu, pcp->count < pcp->batch ? pcp->count : pcp->batch, now);
				r->remote_drains++;
				changed = drained = 1;
			}
		}
		if (drained)
			r->vm_touched[k] = 1;
		if (changed)
			r->vm_queued[cpu] = 1;
	}
}

static void vmstat_tick(struct ps_replay *r, uint64_t now)
{
	if (!r->vm_next_ns) {
		r->vm_next_ns = now - now % VMSTAT_INTERVAL_NS + VMSTAT_INTERVAL_NS;
		return;
	}
	for (int i = 0; now >= r->vm_next_ns; i++) {
		uint64_t t = r->vm_next_ns;

		if (i == 8) {
			/* a long quiet gap: what was still queued has run by now */
			r->vm_next_ns = now - now % VMSTAT_INTERVAL_NS + VMSTAT_INTERVAL_NS;
			break;
		}
		r->vm_next_ns += VMSTAT_INTERVAL_NS;
		for (int c = 0; c < r->nr_cpus; c++)
			if (r->vm_queued[c]) {
				r->vm_queued[c] = 0;
				vmstat_refresh(r, c, t);
			}
	}
}

/*
 * ZONE_RECLAIM_ACTIVE in follow mode.  balance_pgdat leaves no event of its
 * own: node N's zones count as under reclaim for the recorded kswapdN's own
 * frees, and for others' frees until FOLLOW_KSWAPD_GAP_NS after kswapdN's
 * latest event.  Measured on numa2-zrm1 (DMA32, batch 3, high 59): of the
 * drains by other tasks sized for the capped high (9 pages), 236 came
 * within 5 ms of kswapd0's latest event and 34 later; of those sized for
 * the normal one (12, 24 pages), 45 within 5 ms and 599 later.
 */
#define FOLLOW_KSWAPD_GAP_NS 5000000ull

/* The node whose kswapd @ev is, or -1; notes the time. */
static int follow_kswapd(struct ps_replay *r, const struct ps_event *ev)
{
	int node = 0;
	const char *p;

	if (!ev->comm || ev->comm[0] != 'k' || strncmp(ev->comm, "kswapd", 6) || !isdigit((unsigned char)ev->comm[6]))
		return -1;
	for (p = ev->comm + 6; isdigit((unsigned char)*p) && node < PS_MAX_NODES; p++)
		node = node * 10 + (*p - '0');
	if (node >= PS_MAX_NODES)
		return -1;
	r->kswapd_seen_ns[node] = ev->ts_ns;
	r->kswapd_seen[node] = 1;
	return node;
}

static int follow_reclaim_active(const struct ps_replay *r, int node, int kswapd_node, uint64_t now)
{
	return node == kswapd_node ||
	       (r->kswapd_seen[node] && now >= r->kswapd_seen_ns[node] && now - r->kswapd_seen_ns[node] < FOLLOW_KSWAPD_GAP_NS);
}

/* Tracks the CPU's refill and drain sections; returns the section @ev follows (1: a refill, 2: a drain). */
static int follow_sections(struct ps_replay *r, const struct ps_event *ev)
{
	uint8_t *sec;
	int prev;

	if (ev->cpu >= r->nr_cpus)
		return 0;
	sec = &r->section[ev->cpu];
	prev = *sec;
	if (ev->type == PS_EV_ZONE_LOCKED && ev->percpu_refill) {
		if (*sec != 1)
			r->trace_refills++;
		*sec = 1;
	} else if (ev->type == PS_EV_PCPU_DRAIN) {
		if (*sec != 2)
			r->trace_drains++;
		*sec = 2;
	} else if (ev->type != PS_EV_EXTFRAG) {
		*sec = 0;
	}
	return prev;
}

static void follow_event(struct ps_replay *r, const struct ps_event *ev)
{
	const struct ps_profile *p = r->o.profile;
	struct ps_zone *z;
	uint32_t idx, h;
	int k, kind, kswapd_node, after;

	if (ev->ts_ns >= r->vm_next_ns)
		vmstat_tick(r, ev->ts_ns);
	ps_counters_event(&r->cnt, ev);
	after = follow_sections(r, ev);
	kswapd_node = follow_kswapd(r, ev);
	if (ev->pfn == PS_PFN_NONE || ev->type == PS_EV_FREE_BATCHED)
		return;
	z = zone_of(r, ev->pfn, &idx);
	if (!z)
		return;		/* counted by the counters as pfn_outside_zones */
	if (ev->order >= PS_NR_ORDERS || (idx & ((1u << ev->order) - 1)) || idx + (1u << ev->order) > z->nr_pages) {
		defect(r, PS_DEF_SHAPE, ev, "order out of range or misaligned");
		return;
	}
	kind = ps_zone_block_of(z, idx, &h, &k);
	vmstat_touch(r, z->index, ev->cpu);
	if (ps_pcp_allowed(p, ev->order, z->pageblock_order)) {
		if (ev->type == PS_EV_ALLOC)
			shadow_alloc(r, z, ev->cpu, ev->order, ev->migratetype, after == 1);
		else if (ev->type == PS_EV_FREE && ps_pageblock_mt(z, idx) != PS_MT_ISOLATE)
			shadow_free(r, z, ev->cpu, ev->order, ps_pageblock_mt(z, idx), follow_reclaim_active(r, z->node, kswapd_node, ev->ts_ns));
	}
	switch (ev->type) {
	case PS_EV_ZONE_LOCKED:
		z->lock_acquisitions++;
		if (kind == PG_FREE && k >= ev->order) {
			ps_zone_take_free(z, idx, ev->order);
		} else if (kind == PG_PCP && h == idx && k == ev->order) {
			/* freed straight to the buddy (pcp trylock failed) without our knowing */
			r->pcp_resyncs++;
			ps_zone_pcp_add(z, -(int64_t)(1u << k));
		} else if (kind == PG_PCP && k > ev->order) {
			/* a larger pcp block freed straight to the buddy: put it there, then take */
			r->pcp_resyncs++;
			ps_zone_pcp_add(z, -(int64_t)(1u << k));
			ps_zone_mark(z, h, k, PG_ALLOC, z->mt[h]);
			ps_free_one_page(z, h, k, ps_pageblock_mt(z, h), 0);
			ps_zone_take_free(z, idx, ev->order);
		} else {
			defect(r, PS_DEF_ALLOC_NOT_FREE, ev, "zone_locked takes a block the model does not hold as free");
			if (kind == PG_PCP)
				ps_zone_pcp_add(z, -(int64_t)(1u << k));
			if (kind != PG_ALLOC || reshape_alloc(z, idx, ev->order) < 0)
				return;
		}
		ps_zone_mark(z, idx, ev->order, PG_PCP, ev->migratetype >= 0 ? ev->migratetype : ps_pageblock_mt(z, idx));
		z->next[idx] = ev->cpu;
		ps_zone_pcp_add(z, 1u << ev->order);
		break;
	case PS_EV_ALLOC:
		if (kind == PG_PCP && h == idx && k == ev->order) {
			ps_zone_pcp_add(z, -(int64_t)(1u << k));
		} else if (kind == PG_FREE && k >= ev->order) {
			ps_zone_take_free(z, idx, ev->order);
			r->untraced_buddy_allocs++;
		} else if (kind == PG_PCP) {
			/* pcp blocks of another shape: take the pages one by one */
			uint32_t end = idx + (1u << ev->order);

			for (uint32_t q = idx; q < end;) {
				if (ps_zone_block_of(z, q, &h, &k) != PG_PCP) {
					defect(r, PS_DEF_SHAPE, ev, "allocation spans pcp and other blocks");
					return;
				}
				ps_zone_pcp_add(z, -(int64_t)(1u << k));
				ps_zone_mark(z, h, k, PG_ALLOC, z->mt[h]);
				q = h + (1u << k);
			}
			if (reshape_alloc(z, idx, ev->order) < 0) {
				defect(r, PS_DEF_SHAPE, ev, "allocation of a block of another shape");
				return;
			}
		} else {
			defect(r, PS_DEF_ALLOC_NOT_FREE, ev, "allocation of a block the model holds as allocated");
			if (kind != PG_ALLOC || reshape_alloc(z, idx, ev->order) < 0)
				return;
		}
		ps_zone_mark(z, idx, ev->order, PG_ALLOC, ev->migratetype >= 0 ? ev->migratetype : ps_pageblock_mt(z, idx));
		break;
	case PS_EV_FREE:
		if (kind == PG_PCP) {
			/* handed out with no mm_page_alloc: the bulk allocator */
			uint32_t end = idx + (1u << ev->order);

			for (uint32_t q = idx; q < end;) {
				if (ps_zone_block_of(z, q, &h, &k) != PG_PCP)
					break;
				account_invisible(r, z, h, k, ev);
				q = h + (1u << k);
			}
			kind = ps_zone_block_of(z, idx, &h, &k);
		}
		if (kind == PG_FREE && k >= ev->order) {
			/*
			 * Compaction's free scanner (and page reporting) take free pages
			 * out of the buddy with no event; what they do not use comes back
			 * through mm_page_free.  Take the block out, then free it.
			 */
			ps_zone_take_free(z, idx, ev->order);
			r->isolated_pages += 1u << ev->order;
			kind = PG_ALLOC;
		}
		if (kind == PG_FREE) {
			defect(r, PS_DEF_FREE_NOT_ALLOC, ev, "free of a block the model holds as free");
			return;
		}
		if (reshape_alloc(z, idx, ev->order) < 0) {
			defect(r, PS_DEF_SHAPE, ev, "free of a range that is not wholly allocated");
			return;
		}
		if (pcp_allowed(r, ev->order) && ps_pageblock_mt(z, idx) != PS_MT_ISOLATE) {
			ps_zone_mark(z, idx, ev->order, PG_PCP, ps_pageblock_mt(z, idx));
			z->next[idx] = ev->cpu;
			ps_zone_pcp_add(z, 1u << ev->order);
		} else {
			z->lock_acquisitions++;
			ps_free_block(z, idx, ev->order);
		}
		break;
	case PS_EV_PCPU_DRAIN:
		if (kind == PG_PCP && h == idx && k == ev->order) {
			ps_zone_pcp_add(z, -(int64_t)(1u << k));
		} else {
			defect(r, PS_DEF_DRAIN_NOT_PCP, ev, "drain of a block not on a per-CPU list");
			if (kind != PG_ALLOC || reshape_alloc(z, idx, ev->order) < 0)
				return;
		}
		ps_zone_mark(z, idx, ev->order, PG_ALLOC, z->mt[idx]);
		ps_free_one_page(z, idx, ev->order,
				 p->pcp_mt_cache && ev->migratetype >= 0 ? ev->migratetype : ps_pageblock_mt(z, idx), 0);
		break;
	case PS_EV_EXTFRAG: {
		int start = ev->alloc_migratetype, pb = z->pageblock_order;

		if (start < 0 || start >= PS_MT_PCPTYPES)
			break;
		if (ev->change_ownership) {
			uint32_t n = 1u << (ev->fallback_order > pb ? ev->fallback_order : pb);
			uint32_t b0 = idx & ~(n - 1);

			for (uint32_t b = b0; b < b0 + n && b < z->nr_pages; b += 1u << pb)
				ps_set_pageblock_mt(z, b, start);
			if (ev->fallback_order < pb)
				ps_move_freepages_block(z, idx, start, NULL);
		} else if (p->fallback == PS_FB_MOVE_RETRY || p->fallback == PS_FB_STEAL_RETURN) {
			if (ev->fallback_order < pb && (ev->fallback_order >= pb / 2 || start != PS_MT_MOVABLE))
				ps_move_freepages_block(z, idx, start, NULL);
		}
		break;
	}
	}
}

/* ---- pass 2: simulate ---- */

static int gfp_zone(uint32_t gfp)
{
	if (gfp & PS_GFP_DMA)
		return PS_ZONE_DMA;
	if (gfp & PS_GFP_DMA32)
		return PS_ZONE_DMA32;
	if ((gfp & PS_GFP_MOVABLE) && (gfp & PS_GFP_HIGHMEM))
		return PS_ZONE_MOVABLE;
	return PS_ZONE_NORMAL;
}

/* __zone_watermark_ok, simplified: free pages above @mark plus lowmem_reserve of the class zone */
static int wmark_ok(const struct ps_zone *z, int order, long mark, int classzone, int harder)
{
	long free = (long)z->nr_free_pages - (1L << order) + 1;

	mark += classzone >= 0 && classzone < PS_ZONE_NR ? z->lowmem_reserve[classzone] : 0;
	/* 4.4+: the high-atomic reserves (whole blocks) are unusable but to ALLOC_HARDER */
	if (!z->prof->old_mt && !harder)
		free -= z->nr_reserved_highatomic;
	if (free <= mark)
		return 0;
	if (!order)
		return 1;
	if (z->prof->old_mt) {
		/* <= 4.3: subtract the free pages of each lower order, halving the mark */
		for (int o = 0; o < order; o++) {
			free -= (long)(z->free_area[o].nr_free << o);
			mark >>= 1;
			if (free <= mark)
				return 0;
		}
		return 1;
	}
	/* 4.4+: a free block of at least the order on a list the request may use */
	for (int o = order; o < PS_NR_ORDERS; o++)
		for (int mt = 0; mt < PS_MT_PCPTYPES; mt++)
			if (z->free_area[o].free_list[mt].head != PS_NIL)
				return 1;
	return 0;
}

/* zone_watermark_ok in the zone walk: WMARK_LOW plus boost (pass 0), WMARK_MIN (1), none (2) */
static int zone_ok(const struct ps_zone *z, int order, int pass, int classzone, int harder)
{
	if (pass == 2)
		return 1;
	return wmark_ok(z, order, pass == 0 ? z->wmark_low + (long)z->watermark_boost : z->wmark_min, classzone, harder);
}

/*
 * pgdat_balanced: some zone of the node up to the class zone passes
 * zone_watermark_ok_safe at WMARK_HIGH plus boost, at @order (a free block
 * of that order on a list, 4.4+); a node with no such zone needs no
 * balancing.
 */
static int node_balanced(struct ps_replay *r, int node, int classzone, int order)
{
	int eligible = 0;

	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];

		if (z->node != node || !z->managed || z->type > classzone)
			continue;
		eligible = 1;
		if (wmark_ok(z, order, z->wmark_high + (long)z->watermark_boost, classzone, 0))
			return 1;
	}
	return !eligible;
}

/* The node's boosts summed; non-zero: pgdat_watermark_boosted (5.0+). */
static long node_boost(const struct ps_replay *r, int node)
{
	long sum = 0;

	for (int zi = 0; zi < r->nr_zones; zi++)
		if (r->zones[zi].node == node)
			sum += (long)r->zones[zi].watermark_boost;
	return sum;
}

/* ZONE_RECLAIM_ACTIVE on (or off) for the node's zones up to @zoneidx: pcp high capped (pcp.h). */
static void set_reclaim_active(struct ps_replay *r, int node, int zoneidx, int on)
{
	for (int zi = 0; zi < r->nr_zones; zi++) {
		struct ps_zone *z = &r->zones[zi];

		if (z->node == node)
			z->reclaim_active = on && z->type <= zoneidx;
	}
}

/* balance_pgdat starts: the boost to reclaim is snapshot, rounds start afresh. */
static void kswapd_run_start(struct ps_replay *r, int node, uint64_t now)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[node];

	k->napping = 0;
	k->runs++;
	if (k->req_zoneidx >= 0)
		k->zoneidx = k->req_zoneidx;
	k->req_zoneidx = -1;
	k->order = k->req_order;
	k->req_order = 0;
	k->woken_at = now;
	k->last_run = now;
	k->budget_milli = 0;
	k->round_left = 0;
	k->pass_got = 0;
	k->run_got = 0;
	k->priority = PS_DEF_PRIORITY;
	k->raise = -1;		/* no pass yet */
	k->done = 0;
	set_reclaim_active(r, node, k->zoneidx, 1);
	/* nr_boost_reclaim: the boosts of the zones up to the class zone, kept per zone */
	k->boost_left = 0;
	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];

		if (z->node != node || z->type >= PS_ZONE_NR)
			continue;
		k->zboost[z->type] = z->type <= k->zoneidx ? z->watermark_boost : 0;
		k->boost_left += (long)k->zboost[z->type];
	}
}

/*
 * wakeup_kswapd: not for a node that is balanced and not boosted; a wake
 * during kswapd's short sleep starts it again at once (the kernel's
 * kswapd_low_wmark_hit_quickly).
 */
static void wake_kswapd(struct ps_replay *r, int node, int classzone, int order, uint64_t now)
{
	typeof(r->kswapd[0]) *k;

	if (node < 0 || node >= PS_MAX_NODES)
		return;
	k = &r->kswapd[node];
	/* kswapd_highest_zoneidx and kswapd_order: the highest asked for since kswapd last looked */
	if (k->req_zoneidx < classzone)
		k->req_zoneidx = classzone;
	if (k->req_order < order)
		k->req_order = order;
	if ((k->awake && !k->napping) || k->failures >= PS_MAX_RECLAIM_RETRIES ||
	    (node_balanced(r, node, classzone, order) && !node_boost(r, node)))
		return;
	if (k->napping) {
		k->hit_quickly_low++;
	} else {
		k->awake = 1;
		r->nr_awake++;
		k->wakeups++;
	}
	kswapd_run_start(r, node, now);
}

/* kswapd_shrink_node's nr_to_reclaim: the sum over the node's zones up to reclaim_idx of max(HIGH + boost, 32). */
static long round_pages(const struct ps_replay *r, int node, int reclaim_idx)
{
	long sum = 0;

	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];
		long high = z->wmark_high + (long)z->watermark_boost;

		if (z->node == node && z->managed && z->type <= reclaim_idx)
			sum += high > 32 ? high : 32;
	}
	return sum;
}

/* What shrink_node scans at a priority: the node's pages in use stand in for its LRU lists. */
static long lru_scan(const struct ps_replay *r, int node, int priority)
{
	long used = 0;

	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];

		if (z->node == node && z->managed > z->nr_free_pages)
			used += (long)(z->managed - z->nr_free_pages);
	}
	used >>= priority;
	return used > 0 ? used : 1;
}

/*
 * One turn of balance_pgdat's loop between shrink_node passes: account the
 * pass just done, then stop (returns 0, k->done set) or start the next pass.
 */
static int kswapd_next_pass(struct ps_replay *r, int node)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[node];
	long want, scan;
	int balanced;

	if (k->raise >= 0) {		/* a pass ended */
		if (k->boost_left > 0 && !k->pass_got) {
			k->done = 1;	/* boosted reclaim that made no progress */
			return 0;
		}
		k->boost_left -= k->boost_left < k->pass_got ? k->boost_left : k->pass_got;
		/* kswapd_shrink_node: once compact_gap() is reclaimed, balance at order 0 */
		if (k->order && k->run_got >= (2L << k->order))
			k->order = 0;
		if (k->raise || !k->pass_got)
			k->priority--;
		if (k->priority < 1) {
			k->done = 1;
			return 0;
		}
	}
	balanced = node_balanced(r, node, k->zoneidx, k->order);
	if (!balanced && k->boost_left > 0) {
		/* imbalanced: boosting is ignored, reclaim restarts for the watermarks */
		k->boost_left = 0;
		k->priority = PS_DEF_PRIORITY;
	}
	if (k->boost_left <= 0 && balanced) {
		k->done = 1;
		return 0;
	}
	/* kswapd_shrink_node: nr_to_reclaim is the sum of max(high, 32); a pass stops there */
	want = round_pages(r, node, k->zoneidx);
	scan = lru_scan(r, node, k->priority);
	k->raise = !(scan >= want) && !(k->boost_left > 0 && k->priority == PS_DEF_PRIORITY - 2);
	k->round_left = scan < want ? scan : want;
	k->pass_got = 0;
	return 1;
}

/*
 * What reclaim can take back without swap: page cache brought in by reads.
 * Readahead asks with the mapping's user mask (__GFP_HARDWALL) plus
 * __GFP_NORETRY | __GFP_NOWARN; anonymous memory is zeroed or has no swap
 * to go to, tmpfs is swap-backed, and kernel allocations are not on an LRU.
 */
static int lru_page(uint32_t gfp)
{
	const uint32_t ra = PS_GFP_HARDWALL | PS_GFP_NORETRY | PS_GFP_NOWARN;

	return (gfp & (ra | PS_GFP_ZERO)) == ra;
}

static void lru_add(struct ps_replay *r, int node, uint32_t tg)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[node];

	if (!k->ring)
		return;
	if (k->count == k->cap) {	/* full: the oldest entry drops out */
		k->head = (k->head + 1) % k->cap;
		k->count--;
	}
	k->ring[(k->head + k->count) % k->cap] = tg;
	k->count++;
}

static struct ps_zone *zone_of_global(struct ps_replay *r, uint64_t gi, uint32_t *idx)
{
	int zi;

	for (zi = r->nr_zones - 1; zi > 0 && r->gbase[zi] > gi; zi--)
		;
	*idx = gi - r->gbase[zi];
	return &r->zones[zi];
}

/*
 * One free page of @z taken with no event, as compaction's free scanner does
 * (it isolates from movable blocks): from the smallest free block, movable
 * ones first, no fallback.  PS_NIL if the zone has nothing free.
 */
static uint32_t take_hidden(struct ps_zone *z)
{
	static const int mts[] = { PS_MT_MOVABLE, PS_MT_RECLAIMABLE, PS_MT_UNMOVABLE };
	uint32_t idx = PS_NIL;

	for (int o = 0; o < PS_NR_ORDERS && idx == PS_NIL; o++)
		for (size_t m = 0; m < sizeof(mts) / sizeof(mts[0]) && idx == PS_NIL; m++)
			idx = z->free_area[o].free_list[mts[m]].head;
	if (idx == PS_NIL || ps_zone_take_free(z, idx, 0) < 0)
		return PS_NIL;
	ps_zone_mark(z, idx, 0, PG_ALLOC, ps_pageblock_mt(z, idx));
	return idx;
}

/* Frees model block @idx of @z as reclaim on @node does: through @cpu's pcp lists (-1: the node's first CPU, for kswapd). */
static void reclaim_block(struct ps_replay *r, int node, struct ps_zone *z, uint32_t idx, int order,
			  uint64_t now, int cpu)
{
	for (int c = 0; cpu < 0 && c < r->m->nr_cpus; c++)
		if (r->m->cpu_node[c] == node)
			cpu = c;
	if (cpu < 0)
		cpu = 0;
	z->now_ns = now;
	z->now_cpu = cpu;
	ps_dirty_release(&r->dirty, r->gbase[z->index] + idx, z->index, order);
	if (ps_pcp_allowed(r->o.profile, order, z->pageblock_order)) {
		ps_pcp_free(z, pcp_of(r, z, cpu), idx, order);
	} else {
		z->lock_acquisitions++;
		ps_free_block(z, idx, order);
	}
}

/* Takes the oldest deferred block of @node off its list onto @cpu's lists (reclaim_block); returns its pages, or -1 if none. */
static int reclaim_deferred(struct ps_replay *r, int node, uint64_t now, int cpu)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[node];

	while (k->dcount) {
		uint32_t g = k->deferred[k->dhead], idx, h;
		struct ps_zone *z = zone_of_global(r, g, &idx);
		int order;

		k->dhead = (k->dhead + 1) % k->dcap;
		k->dcount--;
		if (ps_zone_block_of(z, idx, &h, &order) != PG_ALLOC || h != idx)
			continue;	/* cannot happen: nothing else frees a deferred block */
		reclaim_block(r, node, z, idx, order, now, cpu);
		return 1 << order;
	}
	return -1;
}

/*
 * kswapd.ahead: takes the oldest block of @node's list that the model still
 * holds as that allocation (reclaim_block); the trace's later free of it by
 * the recorded kswapd is absorbed.  Returns its pages, or -1 if none.
 */
static int reclaim_ahead(struct ps_replay *r, int node, uint64_t now, int cpu)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[node];

	while (k->ahead_count) {
		struct ahead_ent e = k->ahead[k->ahead_head];
		uint32_t g = r->map[e.tg], idx, h;
		struct ps_zone *z;
		int order;

		k->ahead_head = (k->ahead_head + 1) % k->acap;
		k->ahead_count--;
		if (r->alloc_of[e.tg] != e.seq || !MAP_IS_MODEL(g))
			continue;	/* freed by the trace since */
		z = zone_of_global(r, g - 1, &idx);
		if (z->node != node || ps_zone_block_of(z, idx, &h, &order) != PG_ALLOC || h != idx)
			continue;
		for (uint32_t i = 0; i < (1u << order) && e.tg + i < r->traced_pages; i++)
			r->map[e.tg + i] = MAP_RECLAIMED;
		r->alloc_of[e.tg] = 0;
		r->ahead_taken += 1u << order;
		reclaim_block(r, node, z, idx, order, now, cpu);
		return 1 << order;
	}
	return -1;
}

/* kswapd.ahead: queues traced block @tg, allocation @seq, held on @node. */
static void ahead_add(struct ps_replay *r, int node, uint32_t tg, uint32_t seq)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[node];

	if (!k->ahead)
		return;
	if (k->ahead_count == k->acap) {
		/* full: keep only the blocks still held as queued, in order */
		uint32_t n = 0;

		for (uint32_t i = 0; i < k->ahead_count; i++) {
			struct ahead_ent e = k->ahead[(k->ahead_head + i) % k->acap];

			if (r->alloc_of[e.tg] == e.seq && MAP_IS_MODEL(r->map[e.tg]))
				k->ahead[(k->ahead_head + n++) % k->acap] = e;
		}
		k->ahead_count = n;
		if (n == k->acap) {	/* cannot happen: a node holds fewer blocks than it has pages */
			k->ahead_head = (k->ahead_head + 1) % k->acap;
			k->ahead_count--;
			r->ahead_dropped++;
		}
	}
	k->ahead[(k->ahead_head + k->ahead_count) % k->acap] = (struct ahead_ent){ tg, seq };
	k->ahead_count++;
}

/*
 * Reclaims one block of @node at @now onto @cpu's lists (-1: the node's
 * kswapd's): first what the recorded kswapd freed and the model has not yet
 * (kswapd.takeover), then the oldest reclaimable block; returns pages
 * freed, -1 if there is nothing left to reclaim.
 */
static int reclaim_one(struct ps_replay *r, int node, int cpu, uint64_t now)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[node];
	int got = reclaim_deferred(r, node, now, cpu);

	if (got <= 0 && cpu < 0)
		got = reclaim_ahead(r, node, now, cpu);
	if (got > 0)
		return got;
	/*
	 * What the recorded kswapd did not reclaim was not reclaimable, once
	 * it has reclaimed on this node at all; before that the trace holds
	 * no sign of it, and the node's oldest page cache goes, as with the
	 * takeover off.
	 */
	if (r->kswapd_takeover && r->trace_has_comm && k->handed)
		return -1;
	/*
	 * Node reclaim when the recorded kernel ran it too: its reclaim is in
	 * the trace already, as the allocating tasks' own frees, replayed as
	 * they come; taking the oldest page cache besides would reclaim twice.
	 */
	if (cpu >= 0 && r->kswapd_takeover && r->trace_has_comm && r->o.recorded.zone_reclaim_mode != PS_UNSET &&
	    (r->o.recorded.zone_reclaim_mode & 1))
		return -1;
	while (k->count) {
		uint32_t tg = k->ring[k->head], g, idx, h;
		struct ps_zone *z;
		int order;

		k->head = (k->head + 1) % k->cap;
		k->count--;
		g = r->map[tg];
		if (!MAP_IS_MODEL(g))
			continue;	/* freed by the trace since */
		z = zone_of_global(r, g - 1, &idx);
		if (z->node != node || ps_zone_block_of(z, idx, &h, &order) != PG_ALLOC || h != idx)
			continue;
		for (uint32_t i = 0; i < (1u << order) && tg + i < r->traced_pages; i++)
			r->map[tg + i] = MAP_RECLAIMED;
		reclaim_block(r, node, z, idx, order, now, cpu);
		return 1 << order;
	}
	return -1;
}

/*
 * kswapd.takeover: the trace's free of model block @idx of @z was the
 * recorded kswapd's.  The block stays allocated until the model's kswapd
 * (or node reclaim) reclaims it; when the list is full its oldest block is
 * freed now, as recorded.
 */
static void defer_kswapd_free(struct ps_replay *r, struct ps_zone *z, uint32_t idx)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[z->node];

	if (k->dcount == k->dcap) {
		reclaim_deferred(r, z->node, r->now_ns, -1);
		r->kswapd_deferred_overflow++;
	}
	k->deferred[(k->dhead + k->dcount) % k->dcap] = (uint32_t)(r->gbase[z->index] + idx);
	k->handed++;
	k->dcount++;
	r->kswapd_frees_deferred++;
}

/*
 * kswapd.takeover: the model's kswapd has taken over all the recorded
 * kswapd freed on node @n so far, but the trace shows it freeing there again
 * later: the recorded kswapd was still at work, so the model's waits for its
 * next free instead of giving up, unless the node is balanced and no boost
 * is left, when balance_pgdat stops anyway.
 */
static int kswapd_waits(struct ps_replay *r, int n)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[n];

	return r->kswapd_takeover && r->trace_has_comm && k->handed && k->last_run < k->last_recorded_ns &&
	       !(k->boost_left <= 0 && node_balanced(r, n, k->zoneidx, k->order));
}

/*
 * kswapd, a timed activity per node (mm/vmscan.c of 4.9+): woken by the slow
 * path and by a boosted watermark (wake_kswapd), it runs balance_pgdat at
 * kswapd.reclaim_pages_per_ms in shrink_node passes (kswapd_next_pass), and
 * between passes stops once the boost it was woken with is reclaimed and the
 * node is balanced, or at once when there is nothing left to reclaim (a
 * failure if the run reclaimed nothing; MAX_RECLAIM_RETRIES of them in a row
 * and the node is no longer woken) and the recorded kswapd has nothing more
 * to hand over (kswapd_waits).
 * Then the boosts it started with go and kswapd takes the HZ/10 short sleep of
 * kswapd_try_to_sleep: a wake during it starts a new run at once
 * (kswapd_low_wmark_hit_quickly), and at its end kswapd runs again if the
 * node is no longer balanced (kswapd_high_wmark_hit_quickly), or sleeps.
 *
 * What it reclaims: with kswapd.takeover (the default when the trace names
 * its tasks), the blocks whose trace free was the recorded kswapd's, in the
 * recorded order and no sooner than the recorded kswapd freed them: the model
 * moves the recorded reclaim in time but does not invent more of it.
 * Without, the oldest page-cache blocks allocated during the trace.  The
 * trace's own later frees of blocks the model reclaimed are absorbed
 * (replay_reclaimed_then_freed_pages).
 */
static void run_kswapd(struct ps_replay *r, uint64_t now)
{
	long rate = reclaim_rate(r);

	for (int n = 0; n < r->m->nr_nodes && n < PS_MAX_NODES; n++) {
		typeof(r->kswapd[0]) *k = &r->kswapd[n];

		if (!k->awake)
			continue;
		if (k->napping) {
			if (now < k->nap_end)
				continue;
			/* kswapd_try_to_sleep after HZ/10: sleep for good only if still balanced */
			if (k->req_zoneidx >= 0)
				k->zoneidx = k->req_zoneidx;
			if (node_balanced(r, n, k->zoneidx, k->order) && !node_boost(r, n)) {
				k->awake = 0;
				k->napping = 0;
				r->nr_awake--;
				continue;
			}
			k->hit_quickly_high++;
			kswapd_run_start(r, n, k->nap_end);
		}
		if (now > k->last_run) {
			k->budget_milli += (now - k->last_run) * rate / 1000;
			k->last_run = now;
		}
		/*
		 * balance_pgdat: passes of shrink_node at falling priority;
		 * between passes it stops once the node is balanced and the
		 * boost it was woken with is reclaimed
		 */
		while (k->budget_milli >= 1000 && !k->done) {
			int got;

			if (k->round_left <= 0 && !kswapd_next_pass(r, n))
				break;
			got = reclaim_one(r, n, -1, k->last_run);
			if (got > 0) {
				k->reclaimed += got;
				k->failures = 0;
			}
			if (got < 0 && kswapd_waits(r, n)) {
				k->budget_milli = 0;
				break;
			}
			if (got < 0) {
				/* no progress: balance_pgdat gives up; the boosts go all the same */
				k->round_left = 0;
				k->done = 1;
				break;
			}
			k->round_left -= got;
			k->pass_got += got;
			k->run_got += got;
			k->budget_milli -= got * 1000ull < k->budget_milli ? got * 1000ull : k->budget_milli;
		}
		if (!k->done)
			continue;
		if (!k->run_got)
			k->failures++;	/* at MAX_RECLAIM_RETRIES the node is left alone */
		/* done: the boosts it started with go, and kswapd takes its short sleep */
		set_reclaim_active(r, n, k->zoneidx, 0);
		k->awake_ns += now - k->woken_at;
		for (int zi = 0; zi < r->nr_zones; zi++) {
			struct ps_zone *z = &r->zones[zi];
			unsigned long b;

			if (z->node != n || z->type >= PS_ZONE_NR || !k->zboost[z->type])
				continue;
			b = k->zboost[z->type];
			z->watermark_boost -= z->watermark_boost < b ? z->watermark_boost : b;
			k->boost_resets++;
		}
		k->napping = 1;
		k->nap_end = now + 100000000ull;
	}
}

/*
 * node_pagecache_reclaimable without RECLAIM_UNMAP and RECLAIM_WRITE: the
 * node's page cache less its mapped pages (constant: the recorded nr_mapped)
 * and less its dirty pages (dirty.h).
 */
static long node_pagecache_reclaimable(const struct ps_replay *r, int node)
{
	long file, dirty, n;

	ps_dirty_node(&r->dirty, r->zones, node, &file, &dirty);
	n = file > r->mapped[node] ? file - r->mapped[node] : 0;
	if (!(r->o.policy.zone_reclaim_mode & 2))
		n -= dirty < n ? dirty : n;
	return n;
}

/*
 * vm.zone_reclaim_mode & 1: a zone below its watermark on the allocating
 * CPU's own node is reclaimed in place (node_reclaim: max(2^order, 32) pages
 * of its page cache) before the walk moves on; a remote node with CPUs is
 * never scanned, nor is anything for a request that may not block (no
 * __GFP_DIRECT_RECLAIM).  One reclaim at a time per node
 * (PGDAT_RECLAIM_LOCKED): it holds the node for the pages it reclaimed at
 * the model's reclaim speed (kswapd.reclaim_pages_per_ms), and another
 * CPU's request meanwhile does not scan (NODE_RECLAIM_NOSCAN) but moves on
 * down the zonelist.  The reclaimed pages go to the reclaiming CPU's lists,
 * so the zone's free count does not see them at once.  Returns whether the
 * zone now passes.
 */
static int node_reclaim(struct ps_replay *r, struct ps_zone *z, int cpu, int order, int classzone, uint32_t gfp)
{
	long want = 1L << order;
	int got = 0, node = z->node;

	if (r->o.policy.zone_reclaim_mode == PS_UNSET || !(r->o.policy.zone_reclaim_mode & 1))
		return 0;
	if (!(gfp & PS_GFP_DIRECT_RECLAIM))
		return 0;	/* the allocation may not block: NODE_RECLAIM_NOSCAN */
	if (node != ps_machine_cpu_node(r->m, cpu))
		return 0;
	if (node_pagecache_reclaimable(r, node) <= r->min_unmapped[node]) {
		r->node_reclaim_full++;	/* NODE_RECLAIM_FULL: too little unmapped page cache */
		return 0;
	}
	if (r->now_ns < r->node_reclaim_until[node] && r->node_reclaim_cpu[node] != cpu) {
		r->node_reclaim_locked++;	/* PGDAT_RECLAIM_LOCKED: NODE_RECLAIM_NOSCAN */
		return 0;
	}
	if (want < 32)
		want = 32;
	r->node_reclaims++;
	while (got < want) {
		int n = reclaim_one(r, node, cpu, r->now_ns);

		if (n < 0)
			break;
		got += n;
	}
	r->node_reclaimed += got;
	r->node_reclaim_until[node] = r->now_ns + (uint64_t)(got > want ? got : want) * 1000000ull / (uint64_t)reclaim_rate(r);
	r->node_reclaim_cpu[node] = cpu;
	return zone_ok(z, order, 0, classzone, 0);
}

/* ALLOC_HARDER: the slow path of an atomic request (__GFP_ATOMIC, or __GFP_HIGH without direct reclaim). */
static int alloc_harder(uint32_t gfp, int pass)
{
	if (pass == 0 || (gfp & PS_GFP_NOMEMALLOC))
		return 0;
	return (gfp & PS_GFP_ATOMIC) || (!(gfp & PS_GFP_DIRECT_RECLAIM) && (gfp & PS_GFP_HIGH));
}

/*
 * High-order atomic reserves (4.4+): a slow-path, non-blocking high-order
 * request (ALLOC_HARDER with __GFP_ATOMIC up to 6.2, ALLOC_HIGHATOMIC from
 * 6.3: no direct reclaim, __GFP_HIGH) tries the HIGHATOMIC lists first and,
 * once served, turns its pageblock into a reserve while the zone holds less
 * than 1% of its pages (plus one block) in reserves.
 */
static int highatomic_request(const struct ps_replay *r, uint32_t gfp, int order, int pass)
{
	return !r->o.profile->old_mt && order && alloc_harder(gfp, pass);
}

static void reserve_highatomic(struct ps_replay *r, struct ps_zone *z, uint32_t idx)
{
	long pbn = 1L << z->pageblock_order;
	int mt = ps_pageblock_mt(z, idx);

	if (z->nr_reserved_highatomic >= (long)(z->managed / 100) + pbn || mt >= PS_MT_PCPTYPES)
		return;
	ps_set_pageblock_mt(z, idx, PS_MT_HIGHATOMIC);
	ps_move_freepages_block(z, idx, PS_MT_HIGHATOMIC, NULL);
	z->nr_reserved_highatomic += pbn;
	r->highatomic_reserved++;
}

/* unreserve_highatomic_pageblock: before the last-resort pass, give one reserve back. */
static void unreserve_highatomic(struct ps_replay *r, struct ps_zone *z, int mt)
{
	long pbn = 1L << z->pageblock_order;

	if (z->nr_reserved_highatomic <= pbn)
		return;
	for (int o = 0; o < PS_NR_ORDERS; o++) {
		uint32_t idx = z->free_area[o].free_list[PS_MT_HIGHATOMIC].head;

		if (idx == PS_NIL)
			continue;
		if (ps_pageblock_mt(z, idx) == PS_MT_HIGHATOMIC) {
			z->nr_reserved_highatomic -= pbn;
			ps_set_pageblock_mt(z, idx, mt);
		}
		ps_move_freepages_block(z, idx, mt, NULL);
		r->highatomic_unreserved++;
		return;
	}
}

static uint32_t take(struct ps_replay *r, struct ps_zone *z, int cpu, int order, int mt, int highatomic)
{
	uint32_t idx = PS_NIL;

	if (ps_pcp_allowed(r->o.profile, order, z->pageblock_order)) {
		idx = ps_pcp_alloc(z, pcp_of(r, z, cpu), order, mt);
		if (idx != PS_NIL && highatomic)
			reserve_highatomic(r, z, idx);	/* get_page_from_freelist, after any success */
		if (idx != PS_NIL || !highatomic)
			return idx;
	}
	{
		uint64_t fallbacks = z->fallbacks;

		z->lock_acquisitions++;
		if (highatomic)
			idx = ps_rmqueue(z, order, PS_MT_HIGHATOMIC, NULL);
		if (idx == PS_NIL)
			idx = ps_rmqueue(z, order, mt, NULL);
		if (idx != PS_NIL) {
			ps_lock_section(z->lock, z->index, cpu, z->now_ns, 1,
					z->fallbacks != fallbacks ? PS_LOCK_FALLBACK : PS_LOCK_DIRECT_ALLOC);
			if (highatomic)
				reserve_highatomic(r, z, idx);
		}
		return idx;
	}
}

/* Tries the zonelist of @node for zone types <= @high; returns the zone or NULL. */
static struct ps_zone *walk(struct ps_replay *r, int cpu, int node, int thisnode, int high, int order, int mt,
			    uint32_t gfp, uint32_t *idx)
{
	int nr = thisnode ? 1 : r->nr_node_order[node];
	/* vm.defrag_mode (6.15+): no fragmenting fallback until reclaim has failed (pass 3) */
	int defrag = r->o.defrag_mode && r->o.profile->defrag_mode;
	int local = defrag || node < 0 || node >= PS_MAX_NODES || high < 0 || high >= PS_ZONE_NR ? -1 :
		    r->nofrag_node[thisnode][node][high];

	for (int pass = 0; pass < 3; pass++) {
		if (pass == 1) {
			/* the slow path wakes kswapd on every node of the zonelist (ALLOC_KSWAPD) */
			for (int ni = 0; ni < nr && (gfp & PS_GFP_KSWAPD_RECLAIM); ni++)
				wake_kswapd(r, thisnode ? node : r->node_order[node][ni], high, order, r->now_ns);
		}
		if (pass == 2 && !r->o.profile->old_mt) {
			/* before the last resort, the reserves go back */
			for (int ni = 0; ni < nr; ni++) {
				int n = thisnode ? node : r->node_order[node][ni];

				for (int t = high; t >= 0; t--)
					if (n < PS_MAX_NODES && r->node_zone[n][t] >= 0)
						unreserve_highatomic(r, &r->zones[r->node_zone[n][t]], mt);
			}
		}
		/*
		 * The fast path walks first with ALLOC_NOFRAGMENT, and starts
		 * again without it on reaching a remote node or the end of
		 * the zonelist (get_page_from_freelist's retry).
		 */
		for (int nofrag = pass == 0 && local >= 0; nofrag >= 0; nofrag--) {
			for (int ni = 0; ni < nr; ni++) {
				int n = thisnode ? node : r->node_order[node][ni];

				if (nofrag && n != local)
					break;
				for (int t = high; t >= 0; t--) {
					int zi = n < PS_MAX_NODES ? r->node_zone[n][t] : -1;
					struct ps_zone *z;
					uint64_t boosts;

					if (zi < 0)
						continue;
					z = &r->zones[zi];
					/* spread_dirty_pages: the fast path skips a node (zone) over its dirty limit */
					if (pass == 0 && (gfp & PS_GFP_WRITE) && !ps_dirty_ok(&r->dirty, r->zones, zi)) {
						r->dirty.skips++;
						continue;
					}
					if (!zone_ok(z, order, pass, high, alloc_harder(gfp, pass)) &&
					    !(pass == 0 && node_reclaim(r, z, cpu, order, high, gfp)))
						continue;
					z->now_ns = r->now_ns;
					z->now_cpu = cpu;
					z->nofragment = nofrag || (defrag && pass < 2);
					boosts = z->boosts;
					*idx = take(r, z, cpu, order, mt, highatomic_request(r, gfp, order, pass));
					z->nofragment = 0;
					if (z->boosts != boosts)	/* ZONE_BOOSTED_WATERMARK */
						wake_kswapd(r, z->node, z->type, 0, r->now_ns);
					if (*idx != PS_NIL) {
						if (pass == 2)
							r->sim_wmark_ignored++;
						return z;
					}
				}
			}
		}
	}
	return NULL;
}

/*
 * A traced allocation (counted in @c): the model places it by its zone walk
 * and maps the traced block to the model's.
 */
static void simulate_alloc(struct ps_replay *r, const struct ps_event *ev, struct ps_counters *c, uint32_t seq)
{
	struct ps_zone *z;
	struct ps_event a = *ev;
	uint32_t tidx, idx;
	int ti, cpu = ev->cpu < PS_MAX_CPUS ? r->cpu_to_cpu[ev->cpu] : ev->cpu;
	int node, thisnode = !!(ev->gfp & PS_GFP_THISNODE), mt = ev->migratetype, ra;
	uint64_t tg;

	if (ev->pfn == PS_PFN_NONE) {
		r->sim_skipped_failed++;
		ps_counters_event(c, ev);
		return;
	}
	ti = tzone_of(r, ev->pfn, &tidx);
	if (ti < 0) {
		ps_counters_event(c, ev);	/* counted as outside */
		return;
	}
	tg = r->tz[ti].gbase + tidx;
	node = thisnode ? r->node_to_node[r->tz[ti].node] : ps_machine_cpu_node(r->m, cpu);
	if (node < 0)
		node = r->node_to_node[r->tz[ti].node];
	if (mt < 0)
		mt = PS_MT_MOVABLE;
	z = walk(r, cpu, node, thisnode, gfp_zone(ev->gfp), ev->order, mt, ev->gfp, &idx);
	if (!z) {
		r->sim_alloc_failed++;
		return;
	}
	ps_zone_mark(z, idx, ev->order, PG_ALLOC, mt);
	vmstat_touch(r, z->index, cpu);
	for (uint32_t i = 0; i < (1u << ev->order) && tidx + i < r->tz[ti].nr_pages; i++)
		r->map[tg + i] = (uint32_t)(r->gbase[z->index] + idx + i + 1);
	ra = lru_page(ev->gfp);
	if (ra || (ev->gfp & PS_GFP_WRITE))
		ps_dirty_alloc(&r->dirty, r->gbase[z->index] + idx, z->index, ev->order,
			       !!(ev->gfp & PS_GFP_WRITE));
	if (ra)
		lru_add(r, z->node, (uint32_t)tg);
	if (r->alloc_of) {
		r->alloc_of[tg] = seq;
		if (ahead_marked(r, seq))
			ahead_add(r, z->node, (uint32_t)tg, seq);
	}
	a.pfn = z->start_pfn + idx;
	a.cpu = cpu;
	ps_counters_event(c, &a);
}

/*
 * The trace's own per-CPU list traffic (simulate mode): an order-0 refill
 * puts free traced pages on the refilling CPU's list, as an order-0 free
 * puts the page on the freeing CPU's (trace_pcp_put); a drain or a traced
 * allocation takes them off.  A free of a page still there was handed out by
 * the bulk allocator with no mm_page_alloc; simulate_invisible() replays it.
 */
static void trace_pcp_event(struct ps_replay *r, const struct ps_event *ev)
{
	uint32_t tidx, n = 1u << (ev->order < PS_NR_ORDERS ? ev->order : 0);
	int ti = tzone_of(r, ev->pfn, &tidx);
	uint64_t tg;

	if (ti < 0)
		return;
	tg = r->tz[ti].gbase + tidx;
	if (tidx + n > r->tz[ti].nr_pages)
		n = r->tz[ti].nr_pages - tidx;
	if (ev->type == PS_EV_ZONE_LOCKED) {
		if (ev->percpu_refill && ev->order == 0 && !r->map[tg] && ev->cpu < PS_MAX_CPUS &&
		    ev->migratetype >= 0 && ev->migratetype < PS_MT_PCPTYPES)
			r->map[tg] = MAP_PCP(ev->cpu, ev->migratetype);
		return;
	}
	for (uint32_t i = 0; i < n; i++)	/* PS_EV_PCPU_DRAIN */
		if (MAP_IS_PCP(r->map[tg + i]))
			r->map[tg + i] = 0;
}

/*
 * The trace's order-0 free @ev of traced page @tg put it on the freeing
 * CPU's list of migratetype @mt (the pageblock's; the model's block stands
 * for it), where the bulk allocator may take it with no event.
 */
static void trace_pcp_put(struct ps_replay *r, const struct ps_event *ev, uint64_t tg, int mt)
{
	if (ev->order || ev->cpu >= PS_MAX_CPUS)
		return;
	if (mt < 0 || mt >= PS_MT_PCPTYPES)
		mt = PS_MT_MOVABLE;	/* highatomic and CMA pages go on the movable list */
	r->map[tg] = MAP_PCP(ev->cpu, mt);
}

static void untraced_give_back(struct ps_replay *r, const struct ps_event *ev);
static void migration_target(struct ps_replay *r, struct ps_zone *z);
static struct ps_zone *hidden_zone(struct ps_replay *r, uint64_t pfn, int held);

/*
 * The order-0 page @ev frees came off the trace's list of a CPU with no
 * mm_page_alloc (the bulk allocator: vmalloc's pages, ...).  The request is
 * replayed as that CPU's order-0 GFP_KERNEL allocation of the list's
 * migratetype, now; it counts in the kernel's rows as the kernel counts
 * it, and apart (replay_invisible_*).  When it was made between the refill
 * and the free, the trace does not tell.
 */
static void simulate_invisible(struct ps_replay *r, const struct ps_event *ev, uint32_t g)
{
	struct ps_event a = *ev;
	uint32_t k = g - MAP_PCP_LOW;

	a.type = PS_EV_ALLOC;
	a.order = 0;
	a.cpu = (uint16_t)(k / PS_MT_PCPTYPES);
	a.migratetype = (int8_t)(k % PS_MT_PCPTYPES);
	a.gfp = PS_GFP_DIRECT_RECLAIM | PS_GFP_KSWAPD_RECLAIM | PS_GFP_IO | PS_GFP_FS;
	a.percpu_refill = 0;
	r->invisible_replayed++;
	r->invisible_pages++;
	simulate_alloc(r, &a, &r->inv, 0);
	untraced_give_back(r, ev);
}

/* An allocation or a free of the trace, in simulate mode. */
static __attribute__((noinline)) void simulate_alloc_free(struct ps_replay *r, const struct ps_event *ev)
{
	struct ps_zone *z;
	uint32_t tidx, idx;
	int ti, cpu = ev->cpu < PS_MAX_CPUS ? r->cpu_to_cpu[ev->cpu] : ev->cpu;
	uint32_t seq = ev->type == PS_EV_ALLOC && r->alloc_of ? ++r->alloc_seq : 0;	/* kswapd.ahead */

	if (ev->order >= PS_NR_ORDERS) {
		defect(r, PS_DEF_SHAPE, ev, "order above the maximum");
		ps_counters_event(&r->cnt, ev);
		return;
	}
	if (ev->type == PS_EV_ALLOC) {
		simulate_alloc(r, ev, &r->cnt, seq);
		return;
	}
	r->trace_has_comm |= ev->comm != NULL;
	ti = tzone_of(r, ev->pfn, &tidx);
	if (ti < 0) {
		ps_counters_event(&r->cnt, ev);
		return;
	}
	{
		uint64_t tg = r->tz[ti].gbase + tidx, g = r->map[tg];
		uint32_t n = 1u << ev->order;
		struct ps_event f = *ev;

		if (tidx + n > r->tz[ti].nr_pages)
			n = r->tz[ti].nr_pages - tidx;
		if (r->alloc_of)
			r->alloc_of[tg] = 0;	/* off kswapd.ahead's list */
		if (MAP_IS_PCP(g)) {
			if (ev->order == 0)
				simulate_invisible(r, ev, (uint32_t)g);
			/* a larger block over list pages, or a request the model failed */
			for (uint32_t i = 0; i < n; i++)
				if (MAP_IS_PCP(r->map[tg + i]))
					r->map[tg + i] = 0;
			g = r->map[tg];
		}
		if (g == MAP_RECLAIMED) {
			/* the model's kswapd reclaimed it already */
			memset(&r->map[tg], 0, n * sizeof(*r->map));
			trace_pcp_put(r, ev, tg, PS_MT_MOVABLE);
			r->reclaimed_then_freed += 1u << ev->order;
			if (r->kswapd_takeover && is_kswapd(ev->comm))
				r->kswapd[r->node_to_node[r->tz[ti].node]].handed++;	/* it has reclaimed here */
			r->cnt.events[PS_EV_FREE]++;
			return;
		}
		if (!g) {
			/*
			 * Never allocated in the trace nor at its start: compaction's
			 * free scanner isolated it (taken with no event, given back
			 * here), or the bulk allocator took it from a list the trace
			 * did not show being filled.
			 */
			trace_pcp_put(r, ev, tg, PS_MT_MOVABLE);
			untraced_give_back(r, ev);
			if (ev->order == 0 && r->hidden_on && is_kcompactd(ev->comm)) {
				/* a migration target migrated again */
				struct ps_zone *tz = hidden_zone(r, ev->pfn, 0);

				if (tz)
					migration_target(r, tz);
			}
			r->invisible_frees++;
			r->invisible_pages += 1u << ev->order;
			r->cnt.events[PS_EV_FREE]++;
			return;
		}
		z = zone_of_global(r, g - 1, &idx);
		if (n == 1)
			r->map[tg] = 0;
		else
			memset(&r->map[tg], 0, n * sizeof(*r->map));
		trace_pcp_put(r, ev, tg, z->mt[idx]);
		if ((idx & ((1u << ev->order) - 1)) || reshape_alloc(z, idx, ev->order) < 0) {
			defect(r, PS_DEF_SHAPE, ev, "free of a traced block the model did not allocate whole");
			return;
		}
		if (ev->order == 0 && r->hidden_on && is_kcompactd(ev->comm))
			migration_target(r, z);
		if (r->kswapd_takeover && is_kswapd(ev->comm) && r->kswapd[z->node].deferred) {
			defer_kswapd_free(r, z, idx);
			r->cnt.events[PS_EV_FREE]++;
			return;
		}
		z->now_ns = ev->ts_ns;
		z->now_cpu = cpu;
		vmstat_touch(r, z->index, cpu);
		ps_dirty_release(&r->dirty, r->gbase[z->index] + idx, z->index, ev->order);
		if (ps_pcp_allowed(r->o.profile, ev->order, z->pageblock_order)) {
			ps_pcp_free(z, pcp_of(r, z, cpu), idx, ev->order);
		} else {
			z->lock_acquisitions++;
			ps_lock_section(z->lock, z->index, cpu, ev->ts_ns, 1, PS_LOCK_DIRECT_FREE);
			ps_free_block(z, idx, ev->order);
		}
		f.pfn = z->start_pfn + idx;
		f.cpu = cpu;
		ps_counters_event(&r->cnt, &f);
	}
}

/*
 * The model zone that stands for traced page @pfn's zone among the pages held
 * with no event: its own zone on the recorded machine; on another machine
 * (--machine) a zone of the node the traced node maps to, the highest one
 * holding pages when @held (else any zone holding pages), the highest one
 * otherwise.
 */
static struct ps_zone *hidden_zone(struct ps_replay *r, uint64_t pfn, int held)
{
	uint32_t idx;
	int ti, node;

	if (!r->cross)
		return zone_of(r, pfn, &idx);
	ti = tzone_of(r, pfn, &idx);
	node = ti < 0 ? -1 : r->node_to_node[r->tz[ti].node];
	for (int zi = r->nr_zones - 1; zi >= 0; zi--)
		if (r->zones[zi].node == node && r->zones[zi].managed &&
		    (!held || r->hidden_top[zi] != PS_NIL))
			return &r->zones[zi];
	for (int zi = r->nr_zones - 1; held && zi >= 0; zi--)
		if (r->hidden_top[zi] != PS_NIL)
			return &r->zones[zi];
	return NULL;
}

/* Holds page @idx of zone @zi, taken with no event. */
static void hidden_push(struct ps_replay *r, int zi, uint32_t idx)
{
	uint32_t e = r->hidden_free;

	r->hidden_free = r->hidden[e].next;	/* the pool has room for every page held */
	r->hidden[e].idx = idx;
	r->hidden[e].next = r->hidden_top[zi];
	r->hidden_top[zi] = e;
}

/* The page of zone @zi held last, no longer held; PS_NIL if none is. */
static uint32_t hidden_pop(struct ps_replay *r, int zi)
{
	uint32_t e = r->hidden_top[zi];

	if (e == PS_NIL)
		return PS_NIL;
	r->hidden_top[zi] = r->hidden[e].next;
	r->hidden[e].next = r->hidden_free;
	r->hidden_free = e;
	return r->hidden[e].idx;
}

/*
 * Takes the untraced use due by @now (a share of each zone's target in
 * proportion to the trace's time gone): single pages from the smallest free
 * blocks, movable ones first (compaction's free scanner isolates from
 * movable blocks), with no fallback and no event.  Checked every 1 ms.
 */
static void untraced_use(struct ps_replay *r, uint64_t now)
{
	double f = (double)(now - r->first_ns) / (double)(r->last_ns - r->first_ns);

	r->untraced_next_ns = now + 1000000;
	if (f > 1)
		f = 1;
	for (int zi = 0; zi < r->nr_zones; zi++) {
		struct ps_zone *z = &r->zones[zi];
		int64_t due = (int64_t)(f * (double)r->untraced_target[zi]);

		while (r->untraced_taken[zi] < due) {
			uint32_t idx = take_hidden(z);

			if (idx == PS_NIL) {
				r->untraced_target[zi] = r->untraced_taken[zi];	/* the zone has nothing free */
				break;
			}
			hidden_push(r, zi, idx);
			r->untraced_taken[zi]++;
		}
	}
}

/*
 * kcompactd freed order-0 page @ev, a migration's source: its data went to
 * a free page of the same zone that the free scanner isolated with no
 * event.  The model takes that page from @z, where it holds the source,
 * and holds it until the trace frees a page it never showed taken.
 * Direct compaction's frees carry the allocating task's name and are not
 * told apart.
 */
static void migration_target(struct ps_replay *r, struct ps_zone *z)
{
	uint32_t idx = r->hidden_free == PS_NIL ? PS_NIL : take_hidden(z);

	if (idx == PS_NIL) {
		r->mig_failed++;
		return;
	}
	hidden_push(r, z->index, idx);
	r->mig_taken++;
}

/*
 * The trace freed order-0 page @ev that it never showed being taken: a
 * migration target freed, a page compaction's free scanner isolated and
 * did not use, or the bulk allocator's (replayed as its own request).  The
 * model's latest page held with no event in that zone goes back, as this
 * free; when none is held, the untraced use takes one fewer.
 */
static void untraced_give_back(struct ps_replay *r, const struct ps_event *ev)
{
	uint32_t idx;
	struct ps_zone *z = !r->hidden_on || ev->order ? NULL : hidden_zone(r, ev->pfn, 1);
	int zi, cpu = ev->cpu < PS_MAX_CPUS ? r->cpu_to_cpu[ev->cpu] : ev->cpu;

	if (!z)
		return;
	zi = z->index;
	idx = hidden_pop(r, zi);
	if (idx == PS_NIL) {
		if (r->untraced_target[zi] > r->untraced_taken[zi])
			r->untraced_target[zi]--;
		return;
	}
	r->untraced_returned++;
	reclaim_block(r, z->node, z, idx, 0, ev->ts_ns, cpu);	/* a plain free through the CPU's lists */
}

static inline void simulate_event(struct ps_replay *r, const struct ps_event *ev)
{
	r->now_ns = ev->ts_ns;
	if (r->untraced_on && ev->ts_ns >= r->untraced_next_ns)
		untraced_use(r, ev->ts_ns);
	if (ev->ts_ns >= r->vm_next_ns)
		vmstat_tick(r, ev->ts_ns);
	if (r->nr_awake)
		run_kswapd(r, ev->ts_ns);
	if (ev->type == PS_EV_ALLOC || ev->type == PS_EV_FREE)
		simulate_alloc_free(r, ev);
	else if (ev->type != PS_EV_EXTFRAG) {	/* the model makes its own */
		if (ev->type == PS_EV_ZONE_LOCKED || ev->type == PS_EV_PCPU_DRAIN)
			trace_pcp_event(r, ev);
		r->cnt.events[ev->type]++;
	}
}

/* Tells the lock model the pages zone @zi holds on pcp lists, when they changed. */
static inline void report_pcp_pages(struct ps_replay *r, int zi, uint64_t t_ns)
{
	if (r->zones[zi].nr_pcp_pages != r->last_pcp_pages[zi]) {
		r->last_pcp_pages[zi] = r->zones[zi].nr_pcp_pages;
		ps_lock_pcp_pages(r->lock, zi, t_ns, r->zones[zi].nr_pcp_pages);
	}
}

int ps_replay_event(struct ps_replay *r, const struct ps_event *ev, char *err, int len)
{
	if (r->o.mode == PS_REPLAY_FOLLOW) {
		ps_lock_follow_event(r->lockf, ev);
		follow_event(r, ev);
	} else {
		simulate_event(r, ev);
		/*
		 * The pages held on pcp lists change only with the zones this
		 * event touched: those of pcp_changed (every zone beyond 64).
		 */
		uint64_t changed = r->nr_zones <= 64 ? r->pcp_changed : ~0ull;

		r->pcp_changed = 0;
		for (; changed; changed &= changed - 1) {
			int zi = __builtin_ctzll(changed);

			if (zi >= r->nr_zones)
				break;
			report_pcp_pages(r, zi, ev->ts_ns);
		}
		for (int zi = 64; zi < r->nr_zones; zi++)
			report_pcp_pages(r, zi, ev->ts_ns);
	}
	if (r->o.check) {
		for (int zi = 0; zi < r->nr_zones; zi++)
			if (ps_zone_check(&r->zones[zi], err, len) < 0)
				return -1;
	}
	return 0;
}

/* ---- results ---- */

uint64_t ps_replay_defects(const struct ps_replay *r)
{
	uint64_t n = 0;

	for (int i = 0; i < PS_DEF_NR; i++)
		n += r->defects[i];
	return n;
}

double ps_replay_bytes_per_page(const struct ps_replay *r)
{
	double b = r->nr_zones ? ps_zone_bytes_per_page(&r->zones[0]) : 0;
	uint64_t ring = 0;

	if (r->map)
		b += (double)r->traced_pages * sizeof(*r->map) / (r->total_pages ? r->total_pages : 1);
	for (int n = 0; n < PS_MAX_NODES; n++)
		ring += (r->kswapd[n].ring ? r->kswapd[n].cap : 0) + (r->kswapd[n].deferred ? r->kswapd[n].dcap : 0) +
			(r->kswapd[n].ahead ? 2 * r->kswapd[n].acap : 0);
	if (r->alloc_of)
		ring += r->traced_pages + r->ahead_nbits / 32;
	b += (double)ring * sizeof(uint32_t) / (r->total_pages ? r->total_pages : 1);
	if (r->dirty.file)	/* the page-cache and dirty bitmaps */
		b += 2.0 * (double)(r->total_pages / 64 + 1) * sizeof(uint64_t) / (r->total_pages ? r->total_pages : 1);
	return b;
}

#define SET(name, v)                                       \
	do {                                               \
		if (ps_kv_set(kv, name, (int64_t)(v)) < 0) \
			return -1;                         \
	} while (0)

int ps_replay_counters(struct ps_replay *r, struct ps_kv *kv)
{
	struct ps_kv inv;
	char name[128];
	uint64_t pcp = 0, lock = 0, fb = 0, fbf = 0, claims = 0, boosts = 0;

	if (r->o.fold_invisible || r->o.mode == PS_REPLAY_SIMULATE) {
		/*
		 * Bulk allocations count like traced ones in the kernel's rows;
		 * simulate mode made them, so it always does.
		 */
		r->cnt.numa_hit += r->inv.numa_hit;
		r->cnt.numa_miss += r->inv.numa_miss;
		r->cnt.numa_foreign += r->inv.numa_foreign;
		r->cnt.numa_local += r->inv.numa_local;
		r->cnt.numa_other += r->inv.numa_other;
		for (int z = 0; z < PS_ZONE_NR; z++)
			r->cnt.pgalloc[z] += r->inv.pgalloc[z];
		for (int n = 0; n < PS_MAX_NODES; n++) {
			r->cnt.node[n].numa_hit += r->inv.node[n].numa_hit;
			r->cnt.node[n].numa_miss += r->inv.node[n].numa_miss;
			r->cnt.node[n].numa_foreign += r->inv.node[n].numa_foreign;
			r->cnt.node[n].local_node += r->inv.node[n].local_node;
			r->cnt.node[n].other_node += r->inv.node[n].other_node;
		}
	}
	if (!r->lock_finished) {
		if (r->lockf)
			ps_lock_follow_finish(r->lockf);
		ps_lock_finish(r->lock);
		r->lock_finished = 1;
	}
	if (ps_counters_to_kv(&r->cnt, kv) < 0)
		return -1;
	SET("replay_defects", ps_replay_defects(r));
	for (int i = 0; i < PS_DEF_NR; i++)
		SET(defect_names[i], r->defects[i]);
	SET("replay_invisible_alloc_pages", r->invisible_pages);
	ps_kv_init(&inv);
	if (ps_counters_to_kv(&r->inv, &inv) < 0) {
		ps_kv_free(&inv);
		return -1;
	}
	for (int i = 0; i < inv.nr; i++) {
		const char *n = inv.items[i].name;

		if (strncmp(n, "numa_", 5) && strncmp(n, "pgalloc_", 8) && !strstr(n, ".numa_") &&
		    !strstr(n, "_node"))
			continue;
		snprintf(name, sizeof(name), "replay_invisible_%s", n);
		SET(name, inv.items[i].value);
	}
	ps_kv_free(&inv);
	if (r->o.mode == PS_REPLAY_FOLLOW) {
		SET("replay_alloc_from_buddy_without_zone_locked", r->untraced_buddy_allocs);
		SET("replay_pcp_resyncs", r->pcp_resyncs);
		SET("replay_untraced_isolated_pages", r->isolated_pages);
	} else {
		SET("replay_sim_invisible_replayed_pages", r->invisible_replayed);
		SET("replay_sim_alloc_failed", r->sim_alloc_failed);
		SET("replay_sim_skipped_failed_allocs", r->sim_skipped_failed);
		SET("replay_sim_watermarks_ignored", r->sim_wmark_ignored);
		if (r->cross) {
			SET("replay_cross_preused_pages", r->cross_preused_pages);
			SET("replay_cross_unplaced_pages", r->cross_unplaced_pages);
		}
		SET("replay_reclaimed_then_freed_pages", r->reclaimed_then_freed);
		{
			uint64_t u = 0;

			for (int zi = 0; zi < r->nr_zones; zi++)
				u += (uint64_t)r->untraced_taken[zi];
			SET("replay_untraced_use_pages", u);
			SET("replay_untraced_use_returned_pages", r->untraced_returned);
			SET("replay_compaction_targets_pages", r->mig_taken);
			SET("replay_compaction_targets_failed", r->mig_failed);
			for (int zi = 0; r->untraced_on && zi < r->nr_zones; zi++) {
				snprintf(name, sizeof(name), "replay_untraced_use_pages.node%d.%s", r->zones[zi].node,
					 ps_zone_names[r->zones[zi].type]);
				SET(name, r->untraced_taken[zi]);
			}
		}
		SET("replay_kswapd_frees_taken_over", r->kswapd_frees_deferred);
		SET("replay_kswapd_frees_forced", r->kswapd_deferred_overflow);
		SET("replay_kswapd_ahead_marked", r->ahead_marked);
		SET("replay_kswapd_ahead_pages", r->ahead_taken);
		SET("replay_kswapd_ahead_dropped", r->ahead_dropped);
		SET("model_node_reclaim_calls", r->node_reclaims);
		SET("model_node_reclaimed_pages", r->node_reclaimed);
		SET("model_node_reclaim_full", r->node_reclaim_full);
		SET("model_node_reclaim_locked", r->node_reclaim_locked);
		SET("model_highatomic_reserved_blocks", r->highatomic_reserved);
		SET("model_highatomic_unreserved_blocks", r->highatomic_unreserved);
		for (int n = 0; n < r->m->nr_nodes && n < PS_MAX_NODES; n++) {
			if (!(r->m->node_online & (1ull << n)))
				continue;
			snprintf(name, sizeof(name), "model_kswapd_wakeups.node%d", n);
			SET(name, r->kswapd[n].wakeups);
			snprintf(name, sizeof(name), "model_kswapd_boost_resets.node%d", n);
			SET(name, r->kswapd[n].boost_resets);
			snprintf(name, sizeof(name), "model_kswapd_awake_ms.node%d", n);
			SET(name, r->kswapd[n].awake_ns / 1000000);
			snprintf(name, sizeof(name), "model_kswapd_reclaimed_pages.node%d", n);
			SET(name, r->kswapd[n].reclaimed);
			snprintf(name, sizeof(name), "model_pageoutrun.node%d", n);
			SET(name, r->kswapd[n].runs);
			snprintf(name, sizeof(name), "model_kswapd_low_wmark_hit_quickly.node%d", n);
			SET(name, r->kswapd[n].hit_quickly_low);
			snprintf(name, sizeof(name), "model_kswapd_high_wmark_hit_quickly.node%d", n);
			SET(name, r->kswapd[n].hit_quickly_high);
		}
		/* page cache and dirty pages per node at the end (the kernel's nr_*_file, nr_dirty) */
		SET("model_dirty_limit_skips", r->dirty.skips);
		for (int n = 0; n < r->m->nr_nodes && n < PS_MAX_NODES && r->dirty.z; n++) {
			long file, dirty;

			if (!(r->m->node_online & (1ull << n)))
				continue;
			ps_dirty_node(&r->dirty, r->zones, n, &file, &dirty);
			snprintf(name, sizeof(name), "model_nr_file_pages.node%d", n);
			SET(name, (uint64_t)(file > 0 ? file : 0));
			snprintf(name, sizeof(name), "model_nr_dirty.node%d", n);
			SET(name, (uint64_t)(dirty > 0 ? dirty : 0));
		}
	}
	SET("replay_initial_placed_blocks", r->placed_blocks);
	SET("replay_initial_placed_pages", r->placed_pages);
	SET("replay_initial_unplaced_blocks", r->unplaced_blocks);
	SET("replay_initial_capped_blocks", r->capped_blocks);
	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];

		pcp += z->nr_pcp_pages;
		lock += z->lock_acquisitions;
		fb += z->fallbacks;
		fbf += z->fallbacks_fragmenting;
		claims += z->claims;
		boosts += z->boosts;
	}
	SET("model_pcp_pages", pcp);
	if (r->pcps) {
		uint64_t refills = 0, drains = 0;

		for (size_t i = 0; i < (size_t)r->nr_zones * r->nr_cpus; i++) {
			refills += r->pcps[i].refills;
			drains += r->pcps[i].drains;
		}
		SET("model_pcp_refills", refills);
		SET("model_pcp_drains", drains);
		SET("model_pcp_remote_drains", r->remote_drains);
		SET("model_pcp_decay_drains", r->decay_drains);
		if (r->o.mode == PS_REPLAY_FOLLOW) {
			SET("trace_pcp_refill_sections", r->trace_refills);
			SET("trace_pcp_drain_sections", r->trace_drains);
			SET("replay_pcp_start_pages", r->seed_pages);
			SET("replay_pcp_start_pages_used", r->seed_used);
			if (r->m->pcp_seed_dropped)	/* lists zoneinfo shows beyond PS_MAX_PCP_SEED */
				SET("replay_pcp_start_lists_unread", r->m->pcp_seed_dropped);
		}
	}
	SET("model_zone_lock_acquisitions", lock);
	SET("model_fallbacks", fb);
	SET("model_fallbacks_fragmenting", fbf);
	SET("model_pageblock_claims", claims);
	SET("model_watermark_boosts", boosts);
	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];

		snprintf(name, sizeof(name), "model_nr_free_pages.node%d.%s", z->node, ps_zone_names[z->type]);
		SET(name, z->nr_free_pages);
		snprintf(name, sizeof(name), "model_wmark_min.node%d.%s", z->node, ps_zone_names[z->type]);
		SET(name, z->wmark_min);
		snprintf(name, sizeof(name), "model_wmark_low.node%d.%s", z->node, ps_zone_names[z->type]);
		SET(name, z->wmark_low);
		snprintf(name, sizeof(name), "model_wmark_high.node%d.%s", z->node, ps_zone_names[z->type]);
		SET(name, z->wmark_high);
		snprintf(name, sizeof(name), "model_watermark_boost.node%d.%s", z->node, ps_zone_names[z->type]);
		SET(name, z->watermark_boost);
	}
	if (ps_lock_counters(r->lock, r->m, kv) < 0)
		return -1;
	return 0;
}

void ps_replay_write_buddyinfo(const struct ps_replay *r, FILE *f)
{
	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];

		fprintf(f, "Node %d, zone %8s ", z->node, ps_zone_names[z->type]);
		for (int o = 0; o < PS_NR_ORDERS; o++)
			fprintf(f, "%6llu ", (unsigned long long)z->free_area[o].nr_free);
		fputc('\n', f);
	}
}

void ps_replay_write_pagetypeinfo(const struct ps_replay *r, FILE *f)
{
	static const int shown[] = { PS_MT_UNMOVABLE, PS_MT_MOVABLE, PS_MT_RECLAIMABLE, PS_MT_HIGHATOMIC, PS_MT_ISOLATE };
	const int nshown = sizeof(shown) / sizeof(shown[0]);
	int pb = r->m->pageblock_order;

	fprintf(f, "Page block order: %d\nPages per block:  %d\n\n", pb, 1 << pb);
	fprintf(f, "Free pages count per migrate type at order ");
	for (int o = 0; o < PS_NR_ORDERS; o++)
		fprintf(f, "%6d ", o);
	fputc('\n', f);
	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];

		for (int i = 0; i < nshown; i++) {
			fprintf(f, "Node %4d, zone %8s, type %12s ", z->node, ps_zone_names[z->type],
				ps_migratetype_names[shown[i]]);
			for (int o = 0; o < PS_NR_ORDERS; o++)
				fprintf(f, "%6llu ", (unsigned long long)z->free_area[o].nr_free_mt[shown[i]]);
			fputc('\n', f);
		}
	}
	fprintf(f, "\nNumber of blocks type    ");
	for (int i = 0; i < nshown; i++)
		fprintf(f, " %12s", ps_migratetype_names[shown[i]]);
	fputc('\n', f);
	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];
		uint64_t n[PS_MT_TYPES] = { 0 };

		for (uint32_t b = z->span_start >> pb; b <= (z->span_end - 1) >> pb; b++)
			if (z->pb_mt[b] < PS_MT_TYPES)
				n[z->pb_mt[b]]++;
		fprintf(f, "Node %d, zone %8s ", z->node, ps_zone_names[z->type]);
		for (int i = 0; i < nshown; i++)
			fprintf(f, " %12llu", (unsigned long long)n[shown[i]]);
		fputc('\n', f);
	}
}

/* Free blocks of at least @order and the pages they hold. */
static void suitable(const struct ps_zone *z, int order, uint64_t *blocks, uint64_t *pages)
{
	*blocks = *pages = 0;
	for (int o = 0; o < PS_NR_ORDERS; o++) {
		*pages += z->free_area[o].nr_free << o;
		if (o >= order)
			*blocks += z->free_area[o].nr_free << (o - order);
	}
}

/* debugfs extfrag/unusable_index: free pages unusable for @order, in thousandths */
void ps_replay_write_unusable_index(const struct ps_replay *r, FILE *f)
{
	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];

		fprintf(f, "Node %d, zone %8s ", z->node, ps_zone_names[z->type]);
		for (int o = 0; o < PS_NR_ORDERS; o++) {
			uint64_t blocks, pages, idx;

			suitable(z, o, &blocks, &pages);
			idx = pages ? (pages - (blocks << o)) * 1000 / pages : 1000;
			fprintf(f, "%llu.%03llu ", (unsigned long long)(idx / 1000), (unsigned long long)(idx % 1000));
		}
		fputc('\n', f);
	}
}

/* debugfs extfrag/extfrag_index: -1.000 when a block of the order is free */
void ps_replay_write_extfrag_index(const struct ps_replay *r, FILE *f)
{
	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];

		fprintf(f, "Node %d, zone %8s ", z->node, ps_zone_names[z->type]);
		for (int o = 0; o < PS_NR_ORDERS; o++) {
			uint64_t suitable_blocks = 0, pages = 0, total_blocks = 0;
			long idx;

			for (int k = 0; k < PS_NR_ORDERS; k++) {
				total_blocks += z->free_area[k].nr_free;
				pages += z->free_area[k].nr_free << k;
				if (k >= o)
					suitable_blocks += z->free_area[k].nr_free << (k - o);
			}
			if (!total_blocks)
				idx = 0;
			else if (suitable_blocks)
				idx = -1000;
			else
				idx = 1000 - (long)((1000 + pages * 1000 / (1u << o)) / total_blocks);
			if (idx < 0 && idx != -1000)
				idx = 0;
			fprintf(f, "%s%ld.%03ld ", idx < 0 ? "-" : "", labs(idx) / 1000, labs(idx) % 1000);
		}
		fputc('\n', f);
	}
}
