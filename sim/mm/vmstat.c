// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmstat.c - the kernel's counters (vmstat.h has their semantics), counted
 * from trace events or from the model's own decisions, and vmstat_update's
 * per-CPU work on the per-CPU lists.
 *
 * Simplifies: zone_statistics' preferred node is the allocating CPU's node
 * (or the page's for __GFP_THISNODE); no task mempolicy is known, so the
 * interleave counters stay 0.  Of the per-CPU stat diffs that vmstat_update
 * folds only NR_FREE_PAGES' is modelled, and only with vmstat.drift=1
 * (ps_vmstat_mod_free; no fold when a CPU goes idle): otherwise the
 * allocator reads the exact count.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "lib/kver.h"
#include "sim/mm/vmstat.h"

const char *const ps_extfrag_names[PS_XF_NR] = {
	[PS_XF_EVENTS] = "extfrag_events",
	[PS_XF_FRAGMENTING] = "extfrag_fragmenting",
	[PS_XF_FRAG_UNMOVABLE] = "extfrag_fragmenting_unmovable",
	[PS_XF_FRAG_UNMOVABLE_FROM_MOVABLE] = "extfrag_fragmenting_unmovable_from_movable",
	[PS_XF_FRAG_UNMOVABLE_FROM_RECLAIMABLE] = "extfrag_fragmenting_unmovable_from_reclaimable",
	[PS_XF_FRAG_RECLAIMABLE] = "extfrag_fragmenting_reclaimable",
	[PS_XF_FRAG_RECLAIMABLE_FROM_MOVABLE] = "extfrag_fragmenting_reclaimable_from_movable",
	[PS_XF_FRAG_RECLAIMABLE_FROM_UNMOVABLE] = "extfrag_fragmenting_reclaimable_from_unmovable",
	[PS_XF_FRAG_MOVABLE] = "extfrag_fragmenting_movable",
	[PS_XF_CHANGE_OWNERSHIP] = "extfrag_change_ownership",
};

static inline int zone_of(const struct ps_counters *c, uint64_t pfn)
{
	return ps_zone_table_lookup(&c->zt, pfn);
}

void ps_counters_init(struct ps_counters *c, const struct ps_machine *m, int pageblock_order)
{
	memset(c, 0, sizeof(*c));
	c->m = m;
	c->pageblock_order = pageblock_order;
	if (m) {
		ps_zone_table_init(&c->zt, m);
		c->numa_rule = ps_numa_stat_rule_for_kver(m->kver);
	}
}

int ps_numa_stat_rule_for_kver(int kver)
{
	if (kver == PS_KVER_UNKNOWN || kver >= PS_KVER(4, 10, 0))
		return PS_NUMA_STAT_PREF;
	return kver >= PS_KVER(4, 7, 0) ? PS_NUMA_STAT_LOCAL_BUG : PS_NUMA_STAT_PREF_OTHERNODE;
}

static void count_extfrag(struct ps_counters *c, const struct ps_event *ev)
{
	uint64_t *x = c->extfrag;

	x[PS_XF_EVENTS]++;
	if (ev->change_ownership)
		x[PS_XF_CHANGE_OWNERSHIP]++;
	if (ev->fallback_order >= c->pageblock_order)
		return;
	x[PS_XF_FRAGMENTING]++;
	switch (ev->alloc_migratetype) {
	case PS_MT_UNMOVABLE:
		x[PS_XF_FRAG_UNMOVABLE]++;
		if (ev->fallback_migratetype == PS_MT_MOVABLE)
			x[PS_XF_FRAG_UNMOVABLE_FROM_MOVABLE]++;
		else if (ev->fallback_migratetype == PS_MT_RECLAIMABLE)
			x[PS_XF_FRAG_UNMOVABLE_FROM_RECLAIMABLE]++;
		break;
	case PS_MT_RECLAIMABLE:
		x[PS_XF_FRAG_RECLAIMABLE]++;
		if (ev->fallback_migratetype == PS_MT_MOVABLE)
			x[PS_XF_FRAG_RECLAIMABLE_FROM_MOVABLE]++;
		else if (ev->fallback_migratetype == PS_MT_UNMOVABLE)
			x[PS_XF_FRAG_RECLAIMABLE_FROM_UNMOVABLE]++;
		break;
	case PS_MT_MOVABLE:
		x[PS_XF_FRAG_MOVABLE]++;
		break;
	}
}

static void outside(struct ps_counters *c, const struct ps_event *ev)
{
	if (!c->pfn_outside_zones++) {
		c->first_outside_pfn = ev->pfn;
		c->first_outside_type = ev->type;
	}
}

/*
 * An allocation served from zone @zd: pgalloc by zone type, and numastat
 * (zone_statistics), per call.  The preferred node is the allocating CPU's,
 * or the zone's own for __GFP_THISNODE.  PREF (4.10+): hit/miss against the
 * preferred node, local/other against the CPU's; PREF_OTHERNODE (<= 4.6):
 * the same, but __GFP_OTHER_NODE judges local/other against the preferred
 * node; LOCAL_BUG (4.7-4.9): hit/miss against the CPU's node (the preferred
 * with __GFP_OTHER_NODE), a hit counts local (other with __GFP_OTHER_NODE),
 * a miss neither.
 */
static inline void count_alloc(struct ps_counters *c, const struct ps_zone_desc *zd, const struct ps_event *ev)
{
	int cpu_node = ps_machine_cpu_node(c->m, ev->cpu), znode = zd->node, pref, local, other_node;

	if (__builtin_expect(cpu_node < 0, 0)) {
		c->cpu_without_node++;
		return;
	}
	c->pgalloc[zd->type] += 1ull << ev->order;
	pref = (ev->gfp & PS_GFP_THISNODE) ? znode : cpu_node;
	other_node = c->numa_rule != PS_NUMA_STAT_PREF && (ev->gfp & PS_GFP_OTHER_NODE);
	local = other_node ? pref : cpu_node;
	if (znode == (c->numa_rule == PS_NUMA_STAT_LOCAL_BUG ? local : pref)) {
		c->numa_hit++;
		c->node[znode].numa_hit++;
	} else {
		c->numa_miss++;
		c->node[znode].numa_miss++;
		c->numa_foreign++;
		c->node[pref].numa_foreign++;
		if (c->numa_rule == PS_NUMA_STAT_LOCAL_BUG)
			return;
	}
	if (znode == local && !(c->numa_rule == PS_NUMA_STAT_LOCAL_BUG && other_node)) {
		c->numa_local++;
		c->node[znode].local_node++;
	} else {
		c->numa_other++;
		c->node[znode].other_node++;
	}
}

/* Task @pid's direct or node reclaim, when it is inside one (trace); NULL else. */
static struct ps_reclaim_task *reclaim_task(struct ps_counters *c, int32_t pid)
{
	for (int i = 0; i < c->nr_reclaim_task; i++)
		if (c->reclaim_task[i].pid == pid)
			return &c->reclaim_task[i];
	return NULL;
}

void ps_counters_event(struct ps_counters *c, const struct ps_event *ev)
{
	const struct ps_machine *m = c->m;
	struct ps_reclaim_task *t;
	int zi;

	c->events[ev->type]++;
	if (ev->order >= PS_NR_PAGE_ORDERS && ps_event_is_kmem(ev->type) && ev->type != PS_EV_EXTFRAG) {
		c->bad_order++;		/* only a hand-made pagesim file can carry one */
		return;
	}
	switch (ev->type) {
	case PS_EV_ALLOC:
		if (ev->pfn == PS_PFN_NONE) {
			c->alloc_failed++;
			return;
		}
		zi = zone_of(c, ev->pfn);
		if (zi < 0) {
			outside(c, ev);
			return;
		}
		count_alloc(c, &m->zones[zi], ev);
		break;
	case PS_EV_FREE:
		if (zone_of(c, ev->pfn) < 0) {
			outside(c, ev);
			return;
		}
		c->pgfree += 1ull << ev->order;
		break;
	case PS_EV_FREE_BATCHED:
		c->pgfree_batched_pages += 1ull << ev->order;
		break;
	case PS_EV_EXTFRAG:
		count_extfrag(c, ev);
		break;
	case PS_EV_DIRECT_BEGIN:
	case PS_EV_NODE_RECLAIM_BEGIN:
		/*
		 * By task, not CPU: kswapd runs on a CPU while a task that
		 * entered reclaim there sleeps (5,000 of 59,000 pages of a
		 * zone-reclaim run), and a task may move CPUs inside it.
		 */
		t = reclaim_task(c, ev->pid);
		if (!t && c->nr_reclaim_task < PS_MAX_CPUS) {
			t = &c->reclaim_task[c->nr_reclaim_task++];
			t->pid = ev->pid;
		}
		if (t)
			t->order = ev->type == PS_EV_NODE_RECLAIM_BEGIN ? ev->order : -1;
		c->node_reclaim_calls += ev->type == PS_EV_NODE_RECLAIM_BEGIN;
		c->have_reclaim = c->have_reclaim_events = 1;
		break;
	case PS_EV_DIRECT_END:
	case PS_EV_NODE_RECLAIM_END:
		t = reclaim_task(c, ev->pid);
		if (t) {
			int o = t->order;

			/*
			 * node_reclaim counts a failure when __node_reclaim got
			 * fewer than the 2^order pages asked for (it tries for
			 * max(2^order, SWAP_CLUSTER_MAX), but succeeds with 2^order)
			 */
			if (ev->type == PS_EV_NODE_RECLAIM_END && o >= 0 &&
			    ev->x.rc.nr_reclaimed < 1u << (o < 31 ? o : 31))
				c->zone_reclaim_failed++;
			*t = c->reclaim_task[--c->nr_reclaim_task];
		}
		break;
	case PS_EV_SHRINK_INACTIVE:
	case PS_EV_LRU_ISOLATE: {
		int mglru = m && m->lru_gen_enabled > 0 && (m->lru_gen_enabled & 1);
		int direct = ev->comm ? ev->task != PS_TASK_KSWAPD : reclaim_task(c, ev->pid) != NULL;
		uint64_t scanned = ev->type == PS_EV_LRU_ISOLATE ? (mglru ? ev->x.rc.nr_taken : 0) :
				   (mglru ? 0 : ev->x.rc.nr_scanned);
		uint64_t stolen = ev->type == PS_EV_SHRINK_INACTIVE ? ev->x.rc.nr_reclaimed : 0;

		if (direct) {
			c->pgsteal_direct += stolen;
			c->pgscan_direct += scanned;
		} else {
			c->pgsteal_kswapd += stolen;
			c->pgscan_kswapd += scanned;
		}
		c->have_reclaim = c->have_reclaim_events = 1;
		break;
	}
	case PS_EV_KSWAPD_WAKE:
		c->pageoutrun++;
		if (ev->x.ks.nid >= 0 && ev->x.ks.nid < PS_MAX_NODES) {
			uint8_t *s = &c->kswapd_state[ev->x.ks.nid];

			c->kswapd_low_wmark_hit_quickly += *s == PS_KSWAPD_WOKEN;
			c->kswapd_high_wmark_hit_quickly += *s == PS_KSWAPD_RAN;
			*s = PS_KSWAPD_RAN;
		}
		c->have_reclaim = c->have_reclaim_events = 1;
		break;
	case PS_EV_KSWAPD_SLEEP:
	case PS_EV_WAKEUP_KSWAPD:
		if (ev->x.ks.nid >= 0 && ev->x.ks.nid < PS_MAX_NODES) {
			uint8_t *s = &c->kswapd_state[ev->x.ks.nid];

			*s = ev->type == PS_EV_KSWAPD_SLEEP ? PS_KSWAPD_ASLEEP : *s == PS_KSWAPD_RAN ? PS_KSWAPD_WOKEN : *s;
		}
		c->have_reclaim = c->have_reclaim_events = 1;
		break;
	default:
		if (!ps_event_is_kmem(ev->type))
			c->have_reclaim = c->have_reclaim_events = 1;
		break;
	}
}

/*
 * ps_counters_event() over a batch, in one pass: every event's zone is
 * looked up without a branch, and whether it needs ps_counters_event()
 * comes from a table by type and order (an order out of range, extfrag) and
 * its zone (a failed allocation or a free whose pfn is outside the zone
 * table or on a zone boundary).  The others are counted in place: events
 * per type, the pages of mm_page_free and mm_page_free_batched, an
 * allocation's zone and node rows.  The unusual events go, in trace order,
 * to ps_counters_event().  Nothing here costs per batch: a trace.dat of
 * several CPUs comes in batches of a few events where the CPUs interleave.
 * (Listing the allocations for a second pass, to spare the branch on the
 * type, measured no faster.)
 */
#define SLOW_ALWAYS 2	/* slow_by_key: always ps_counters_event() */
#define SLOW_NO_ZONE 1	/* slow_by_key: ps_counters_event() when the table has no zone */

static uint8_t slow_by_key[PS_EV_NR << 8];	/* by type << 8 | order */

static void init_slow_by_key(void)
{
	for (int t = 0; t < PS_EV_NR; t++)
		for (int o = 0; o < 256; o++)
			slow_by_key[t << 8 | o] = t == PS_EV_EXTFRAG || o >= PS_NR_PAGE_ORDERS || !ps_event_is_kmem(t) ? SLOW_ALWAYS :
						  t == PS_EV_ALLOC || t == PS_EV_FREE ? SLOW_NO_ZONE : 0;
}

static void count_batch(struct ps_counters *c, const struct ps_event *evs, int n)
{
	const struct ps_machine *m = c->m;
	const int16_t *zt = c->zt.zt;
	const uint64_t zt_last = c->zt.len - 1;
	const int zt_shift = c->zt.shift;

	for (int i = 0; i < n; i++) {
		const struct ps_event *ev = &evs[i];
		unsigned int type = ev->type, order = ev->order, key = type << 8 | order;
		uint64_t t = ev->pfn >> zt_shift;
		/* a pfn beyond the table: as a zone boundary, for ps_counters_event() */
		int z = t <= zt_last ? zt[t] : -2;

		if (__builtin_expect(slow_by_key[key] & (SLOW_ALWAYS | (unsigned int)(z < 0)), 0)) {
			ps_counters_event(c, ev);
			continue;
		}
		c->events[type]++;
		if (type == PS_EV_ALLOC)
			count_alloc(c, &m->zones[z], ev);
		else if (type == PS_EV_FREE)
			c->pgfree += 1ull << order;
		else if (type == PS_EV_FREE_BATCHED)
			c->pgfree_batched_pages += 1ull << order;
	}
}

void ps_counters_batch(struct ps_counters *c, const struct ps_event *evs, int n)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	if (!c->m) {
		for (int i = 0; i < n; i++)
			ps_counters_event(c, &evs[i]);
		return;
	}
	pthread_once(&once, init_slow_by_key);
	count_batch(c, evs, n);
}

int ps_counters_to_kv(struct ps_counters *c, struct ps_kv *kv)
{
	static const char *const pgalloc_names[PS_ZONE_NR] = {
		"pgalloc_dma", "pgalloc_dma32", "pgalloc_normal", "pgalloc_high", "pgalloc_movable", "pgalloc_device",
	};
	uint64_t pgfree = c->pgfree;
	char name[96];

	if (!c->events[PS_EV_FREE] && c->events[PS_EV_FREE_BATCHED])
		pgfree = c->pgfree_batched_pages;
	PS_KV_SET("numa_hit", c->numa_hit);
	PS_KV_SET("numa_miss", c->numa_miss);
	PS_KV_SET("numa_foreign", c->numa_foreign);
	PS_KV_SET("numa_interleave", c->numa_interleave);
	PS_KV_SET("numa_local", c->numa_local);
	PS_KV_SET("numa_other", c->numa_other);
	for (int z = 0; z < PS_ZONE_NR; z++)
		if (z != PS_ZONE_HIGHMEM && z != PS_ZONE_DEVICE)
			PS_KV_SET(pgalloc_names[z], c->pgalloc[z]);
	if (c->pgalloc[PS_ZONE_HIGHMEM])
		PS_KV_SET(pgalloc_names[PS_ZONE_HIGHMEM], c->pgalloc[PS_ZONE_HIGHMEM]);
	PS_KV_SET("pgfree", pgfree);
	for (int n = 0; n < c->m->nr_nodes; n++) {
		const struct ps_numa_node *nn = &c->node[n];

		if (!(c->m->node_online & (1ull << n)))
			continue;
#define NODE(field)                                                   \
	do {                                                          \
		snprintf(name, sizeof(name), "node%d." #field, n);    \
		PS_KV_SET(name, nn->field);                           \
	} while (0)
		NODE(numa_hit);
		NODE(numa_miss);
		NODE(numa_foreign);
		NODE(interleave_hit);
		NODE(local_node);
		NODE(other_node);
#undef NODE
	}
	for (int i = 0; i < PS_XF_NR; i++)
		PS_KV_SET(ps_extfrag_names[i], c->extfrag[i]);
	for (int t = 0; t < PS_EV_NR; t++) {
		/* the page-cache, LRU and reclaim events when the trace has any */
		if (!ps_event_is_kmem(t) && !c->have_reclaim_events)
			continue;
		snprintf(name, sizeof(name), "events_%s", ps_event_names[t]);
		PS_KV_SET(name, c->events[t]);
	}
	if (c->have_reclaim) {
		PS_KV_SET("pgsteal_kswapd", c->pgsteal_kswapd);
		PS_KV_SET("pgsteal_direct", c->pgsteal_direct);
		PS_KV_SET("pgscan_kswapd", c->pgscan_kswapd);
		PS_KV_SET("pgscan_direct", c->pgscan_direct);
		PS_KV_SET("pageoutrun", c->pageoutrun);
		PS_KV_SET("kswapd_low_wmark_hit_quickly", c->kswapd_low_wmark_hit_quickly);
		PS_KV_SET("kswapd_high_wmark_hit_quickly", c->kswapd_high_wmark_hit_quickly);
		PS_KV_SET("zone_reclaim_failed", c->zone_reclaim_failed);
		PS_KV_SET("node_reclaim_calls", c->node_reclaim_calls);
	}
	PS_KV_SET("alloc_failed", c->alloc_failed);
	PS_KV_SET("pfn_outside_zones", c->pfn_outside_zones);
	PS_KV_SET("cpu_without_node", c->cpu_without_node);
	if (c->bad_order)
		PS_KV_SET("events_order_out_of_range", c->bad_order);
	if (!c->events[PS_EV_FREE] && c->events[PS_EV_FREE_BATCHED])
		PS_KV_SET("pgfree_from_batched", 1);
	return 0;
}

/*
 * vmstat_update (refresh_cpu_vm_stats), run by each CPU about once a second
 * (sysctl_stat_interval) while it has something to fold: a stat of a zone
 * changed on the CPU since its last run (here: any event of that zone on the
 * CPU) sets the CPU's expire for the zone to 3; a run that finds pages on a
 * remote zone's list counts expire down and at 0 drains one batch of them
 * (drain_zone_pages; the drain touches the zone's stats again, so the next
 * batch goes 3 runs later).  Local lists are never drained.  6.7+ first
 * decays high by an eighth (not under count - batch << scale_max nor
 * high_min) and drains what is over it.
 *
 * Simplifies: every CPU's work runs at the same tick (the kernel spreads
 * them and defers them on idle CPUs); a CPU's work is queued only when a
 * stat of one of its zones changed since the last tick.
 */
void ps_vmstat_touch(struct ps_mm *mm, int zi, int cpu)
{
	cpu = ps_mm_cpu(mm, cpu);
	mm->vm_touched[(size_t)zi * mm->nr_cpus + cpu] = 1;
	mm->vm_queued[cpu] = 1;
}

void ps_vmstat_refresh(struct ps_mm *mm, int cpu, uint64_t now, ps_vmstat_drain_fn drain, void *ctx)
{
	for (int zi = 0; zi < mm->nr_zones; zi++) {
		size_t k = (size_t)zi * mm->nr_cpus + cpu;
		struct ps_zone *z = &mm->zones[zi];
		struct ps_pcp *pcp = &mm->pcps[k];
		int changed = 0, drained = 0;

		if (mm->vm_touched[k]) {
			mm->vm_touched[k] = 0;
			mm->vm_expire[k] = 3;
		}
		if (pcp->high_max && pcp->high_min != pcp->high_max) {
			int n = ps_pcp_decay_high(pcp, &changed);

			if (n > 0) {
				drain(ctx, z, cpu, n, now);
				mm->decay_drains++;
				changed = drained = 1;
			}
		}
		if (mm->vm_expire[k] && pcp->count > 0) {
			if (z->node == ps_machine_cpu_node(mm->m, cpu)) {
				mm->vm_expire[k] = 0;
			} else if (--mm->vm_expire[k]) {
				changed |= pcp->high_max != 0;	/* 6.7+ counts the countdown as a change */
			} else {
				drain(ctx, z, cpu, pcp->count < pcp->batch ? pcp->count : pcp->batch, now);
				mm->remote_drains++;
				changed = drained = 1;
			}
		}
		if (drained)
			mm->vm_touched[k] = 1;
		if (changed)
			mm->vm_queued[cpu] = 1;
	}
}

/* fls(): the index of the highest bit set, from 1; 0 for 0 */
static int fls_ul(unsigned long v)
{
	int n = 0;

	for (; v; v >>= 1)
		n++;
	return n;
}

void ps_vmstat_thresholds(struct ps_mm *mm)
{
	int fcpu = fls_ul((unsigned long)mm->nr_cpus);

	for (int zi = 0; zi < mm->nr_zones; zi++) {
		struct ps_zone *z = &mm->zones[zi];
		long t = 2L * fcpu * (1 + fls_ul((unsigned long)(z->managed >> (27 - 12))));
		long distance = z->wmark_low - z->wmark_min, p = distance / mm->nr_cpus;

		z->stat_threshold = (int)(t < 125 ? t : 125);
		z->pressure_threshold = (int)(p < 1 ? 1 : p > 125 ? 125 : p);
		z->drift_mark = (long)mm->nr_cpus * z->stat_threshold > distance;
	}
}

void ps_vmstat_set_drift(const struct ps_mm *mm, struct ps_zone *z)
{
	z->free_drift = (mm->t.vmstat_drift ? z->free_global - z->free_accounted : 0) + z->drift_perturb;
}

void ps_vmstat_mod_free(struct ps_mm *mm, struct ps_zone *z, int cpu)
{
	long delta = (long)z->nr_free_pages - z->free_accounted, x, t;
	int16_t *diff;

	if (!delta)
		return;
	if (cpu < 0 || cpu >= mm->nr_cpus)
		cpu = 0;
	diff = &mm->vm_diff[(size_t)z->index * mm->nr_cpus + cpu];
	/* set_pgdat_percpu_threshold: the pressure threshold unless kswapd sleeps */
	t = z->drift_mark && z->node >= 0 && z->node < PS_MAX_NODES && mm->node[z->node].kswapd.awake ?
		    z->pressure_threshold : z->stat_threshold;
	x = *diff + delta;
	if (x > t || x < -t) {
		z->free_global += x;
		x = 0;
	}
	*diff = (int16_t)x;
	z->free_accounted = (long)z->nr_free_pages;
	ps_vmstat_set_drift(mm, z);
}

void ps_vmstat_fold_free(struct ps_mm *mm)
{
	for (int zi = 0; zi < mm->nr_zones; zi++) {
		struct ps_zone *z = &mm->zones[zi];

		for (int c = 0; c < mm->nr_cpus; c++)
			mm->vm_diff[(size_t)zi * mm->nr_cpus + c] = 0;
		z->free_global = z->free_accounted = (long)z->nr_free_pages;
		ps_vmstat_set_drift(mm, z);
	}
}
