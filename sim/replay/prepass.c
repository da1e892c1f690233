// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * prepass.c - pass 1 over the trace: what the initial state needs (the
 * first event of every page and pageblock), what simulate mode's reclaim
 * needs (kcompactd's frees; whether the trace has the page-cache and LRU
 * events), and each zone's net use for --untraced-use.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/replay/engine.h"
#include "lib/le.h"
#include "sim/replay/summary.h"

void rp_free_pass1(struct ps_replay *r)
{
	for (int i = 0; i < r->mm.nr_zones; i++) {
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

/* Notes a page from before the trace that the kernel's reclaim took (see engine.h). */
static void lru_pre_note(struct ps_replay *r, uint32_t g)
{
	if (r->nr_lru_pre == r->lru_pre_cap) {
		uint32_t cap = r->lru_pre_cap ? 2 * r->lru_pre_cap : 4096;
		uint32_t *p = realloc(r->lru_pre, cap * sizeof(*p));

		if (!p)
			return;		/* the page then stands among the snapshot's counts */
		r->lru_pre = p;
		r->lru_pre_cap = cap;
	}
	r->lru_pre[r->nr_lru_pre++] = g;
}

/* Notes a block the trace first shows on @cpu's per-CPU list (see engine.h). */
static void pcp_start_note(struct ps_replay *r, int zi, uint32_t idx, int order, int cpu)
{
	if (r->nr_pcp_start == r->pcp_start_cap) {
		uint32_t cap = r->pcp_start_cap ? 2 * r->pcp_start_cap : 1024;
		struct rp_pcp_start *p = realloc(r->pcp_start, cap * sizeof(*p));

		if (!p)
			return;		/* the block then stays in the buddy, as by default */
		r->pcp_start = p;
		r->pcp_start_cap = cap;
	}
	r->pcp_start[r->nr_pcp_start++] = (struct rp_pcp_start){
		.zone = (uint32_t)zi, .idx = idx, .cpu = (uint16_t)cpu, .order = (uint8_t)order };
}

/*
 * The page-cache and reclaim events in pass 1: a page the trace first shows
 * deleted from the page cache by the kernel's reclaim was on the LRU at the
 * start (the snapshot counts it, the trace says where it was and when the
 * kernel took it).
 */
static void prepass_reclaim_event(struct ps_replay *r, const struct ps_event *ev)
{
	struct ps_zone *z;
	uint32_t idx;

	switch (ev->type) {
	case PS_EV_DIRECT_BEGIN:
	case PS_EV_NODE_RECLAIM_BEGIN:
	case PS_EV_DIRECT_END:
	case PS_EV_NODE_RECLAIM_END:
		rp_reclaim_window(r->pre_in_reclaim, ev);
		return;
	case PS_EV_PC_DEL:
		if (r->cross || ev->pfn == PS_PFN_NONE || ev->order != 0 ||
		    !rp_reclaim_context(r->pre_in_reclaim, ev))
			return;
		if (!(z = zone_of(r, ev->pfn, &idx)) || r->touch[z->index][idx])
			return;
		r->touch[z->index][idx] = T_FREED | T_HEAD;
		lru_pre_note(r, (uint32_t)(r->mm.gbase[z->index] + idx));
		return;
	default:
		return;
	}
}

/*
 * Whether @ev, an extfrag event, took its page from the buddy with no
 * zone_locked (6.10+), so the page was free there at the start.  Follow
 * mode reads the trace by its profile's rules, as it replays the take;
 * simulate mode's start (on this machine or another) by the recorded
 * kernel's.
 */
static inline int extfrag_took_free(const struct ps_replay *r, const struct ps_event *ev, int pageblock_order)
{
	return rp_extfrag_takes(r->o.mode == PS_REPLAY_FOLLOW ? r->o.profile : r->trace_profile, ev, pageblock_order);
}

/*
 * One event of pass 1.  @agg (a constant): also the sums over every event
 * (first and last time, net use and kcompactd's frees per zone, whether the
 * trace names tasks, whether it has LRU events), which a pass-1 summary
 * carries as sums; without it, only what the summary's events decide.
 */
static inline void prepass_one(struct ps_replay *r, const struct ps_event *ev, const int agg)
{
	struct ps_zone *z;
	uint32_t idx, n;
	int cls, zi, order = ev->order, mig;

	if (agg) {
		if (!r->first_ns)
			r->first_ns = ev->ts_ns ? ev->ts_ns : 1;
		r->last_ns = ev->ts_ns;
	}
	if (!ps_event_is_kmem(ev->type)) {
		/* the page-cache and LRU events: the LRU comes from them, not from gfp flags */
		if (agg) {
			r->lru_events |= ev->type == PS_EV_PC_ADD || ev->type == PS_EV_LRU_ADD;
			ps_kswapd_speed_event(&r->kswapd_speed, ev);
			ps_node_reclaim_speed_event(&r->node_reclaim_speed, ev);
		}
		if (r->o.mode == PS_REPLAY_SIMULATE)
			prepass_reclaim_event(r, ev);
		return;
	}
	if (ev->pfn == PS_PFN_NONE || ev->type == PS_EV_FREE_BATCHED)
		return;
	mig = ev->type == PS_EV_FREE && order == 0 && ev->task == PS_TASK_KCOMPACTD;
	if (agg)
		r->mig_total += mig;
	if (r->cross) {
		/* another machine: only which traced blocks were allocated at the start matters */
		int ti = tzone_of(r, ev->pfn, &idx);
		uint8_t *t;

		if (ti < 0)
			return;
		if (ev->type == PS_EV_EXTFRAG) {
			if (!extfrag_took_free(r, ev, r->tm->pageblock_order))
				return;
			order = ev->alloc_order;
		}
		t = r->ttouch[ti];
		if (order >= PS_NR_PAGE_ORDERS || (idx & ((1u << order) - 1)))
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
	if (agg) {
		if ((ev->type == PS_EV_ALLOC || ev->type == PS_EV_FREE) && order < PS_NR_PAGE_ORDERS)
			r->net_pages[zi] += ev->type == PS_EV_FREE ? (int64_t)1 << order : -((int64_t)1 << order);
		r->trace_has_comm |= ev->comm != NULL;	/* simulate mode reads task names in pass 1 too */
		r->mig_expected[zi] += mig;
	}
	if (ev->type == PS_EV_EXTFRAG) {
		uint32_t pbs = 1u << (ev->fallback_order > z->pageblock_order ? ev->fallback_order - z->pageblock_order : 0);

		for (uint32_t b = 0; b < pbs && (idx >> z->pageblock_order) + b < z->nr_pageblocks; b++)
			r->pb_changed[zi][(idx >> z->pageblock_order) + b] = 1;
		if (!extfrag_took_free(r, ev, z->pageblock_order))
			return;
		order = ev->alloc_order;
	}
	switch (ev->type) {
	case PS_EV_EXTFRAG: cls = T_BUDDY; break;
	case PS_EV_FREE: cls = T_FREED; break;
	case PS_EV_ALLOC: cls = T_PCP_ALLOC; break;
	case PS_EV_ZONE_LOCKED: cls = T_BUDDY; break;
	case PS_EV_PCPU_DRAIN: cls = T_DRAIN; break;
	default: return;
	}
	if ((ev->type == PS_EV_ZONE_LOCKED || ev->type == PS_EV_PCPU_DRAIN) && ev->migratetype >= 0 &&
	    ev->migratetype < PS_MIGRATE_PCPTYPES) {
		uint32_t pb = idx >> z->pageblock_order;

		if (!r->pb_changed[zi][pb] && r->pb_evidence[zi][pb] == 0xff)
			r->pb_evidence[zi][pb] = ev->migratetype;
	}
	if (order >= PS_NR_PAGE_ORDERS || (idx & ((1u << order) - 1)))
		order = 0;
	n = 1u << order;
	if (idx + n > z->nr_pages)
		n = z->nr_pages - idx;
	if (idx + n > z->present_end && idx + n <= z->span_end)
		z->present_end = idx + n;	/* the trace shows memory there */
	/*
	 * a page from before the trace first seen freed by kswapd: page cache
	 * the kernel's reclaim took, for a trace without page-cache events (a
	 * task's free cannot be told from the workload's own)
	 */
	if (cls == T_FREED && order == 0 && !r->touch[zi][idx] && r->o.mode == PS_REPLAY_SIMULATE &&
	    ev->task == PS_TASK_KSWAPD)
		lru_pre_note(r, (uint32_t)(r->mm.gbase[zi] + idx) | PRE_BY_FREE);
	/* a block first seen whole keeps its order (a pcp block at the start) */
	if (!r->touch[zi][idx]) {
		r->touch[zi][idx] = cls | T_HEAD | order << T_ORDER_SHIFT;
		if ((cls == T_PCP_ALLOC || cls == T_DRAIN) && r->o.mode == PS_REPLAY_SIMULATE && !r->cross)
			pcp_start_note(r, zi, idx, order, ev->cpu);
	}
	for (uint32_t i = 1; i < n; i++)
		if (!r->touch[zi][idx + i])
			r->touch[zi][idx + i] = cls;
}

void ps_replay_prepass(struct ps_replay *r, const struct ps_event *evs, int n)
{
	for (int i = 0; i < n; i++)
		prepass_one(r, &evs[i], 1);
}

int ps_replay_opts_share_prepass(const struct ps_replay_opts *a, const struct ps_replay_opts *b)
{
	/*
	 * prepass_one() reads the mode and the extfrag rule: in follow mode
	 * the profile's, in simulate mode the recorded kernel's (of traced)
	 */
	return a->mode == b->mode && a->profile == b->profile && a->traced == b->traced;
}

int ps_replay_prepass_shares(const struct ps_replay *a, const struct ps_replay *b)
{
	if (a->m != b->m || a->tm != b->tm || a->cross != b->cross || !ps_replay_opts_share_prepass(&a->o, &b->o) ||
	    a->mm.nr_zones != b->mm.nr_zones || a->nr_tz != b->nr_tz ||
	    !a->touch || !b->touch || !a->ttouch != !b->ttouch)
		return 0;
	for (int zi = 0; zi < a->mm.nr_zones; zi++)
		if (a->mm.zones[zi].nr_pages != b->mm.zones[zi].nr_pages ||
		    a->mm.zones[zi].nr_pageblocks != b->mm.zones[zi].nr_pageblocks)
			return 0;
	return 1;
}

/* A copy of @n elements of @size bytes at @src; NULL out of memory. */
static void *dup_array(const void *src, size_t n, size_t size)
{
	void *p = malloc(n * size);

	if (p)
		memcpy(p, src, n * size);
	return p;
}

int ps_replay_prepass_copy(struct ps_replay *dst, const struct ps_replay *src)
{
	for (int zi = 0; zi < src->mm.nr_zones; zi++) {
		const struct ps_zone *sz = &src->mm.zones[zi];
		struct ps_zone *dz = &dst->mm.zones[zi];

		dz->present_end = sz->present_end;
		dst->net_pages[zi] = src->net_pages[zi];
		dst->mig_expected[zi] = src->mig_expected[zi];
		memcpy(dst->touch[zi], src->touch[zi], sz->nr_pages);
		memcpy(dst->pb_evidence[zi], src->pb_evidence[zi], sz->nr_pageblocks);
		memcpy(dst->pb_changed[zi], src->pb_changed[zi], sz->nr_pageblocks);
	}
	for (int ti = 0; dst->ttouch && ti < src->nr_tz; ti++)
		memcpy(dst->ttouch[ti], src->ttouch[ti], src->tz[ti].nr_pages);
	if (src->nr_lru_pre) {
		uint32_t *p = dup_array(src->lru_pre, src->nr_lru_pre, sizeof(*p));

		if (!p)
			return -1;
		free(dst->lru_pre);
		dst->lru_pre = p;
		dst->nr_lru_pre = dst->lru_pre_cap = src->nr_lru_pre;
	}
	if (src->nr_pcp_start) {
		struct rp_pcp_start *p = dup_array(src->pcp_start, src->nr_pcp_start, sizeof(*p));

		if (!p)
			return -1;
		free(dst->pcp_start);
		dst->pcp_start = p;
		dst->nr_pcp_start = dst->pcp_start_cap = src->nr_pcp_start;
	}
	memcpy(dst->pre_in_reclaim, src->pre_in_reclaim, sizeof(dst->pre_in_reclaim));
	dst->mig_total = src->mig_total;
	dst->first_ns = src->first_ns;
	dst->last_ns = src->last_ns;
	dst->lru_events = src->lru_events;
	dst->trace_has_comm = src->trace_has_comm;
	dst->kswapd_speed = src->kswapd_speed;
	dst->node_reclaim_speed = src->node_reclaim_speed;
	return 0;
}

static int mt_known(uint8_t b)
{
	return (int8_t)b >= PS_MT_UNKNOWN && (int8_t)b < PS_MIGRATETYPE_NAMES;
}

int ps_replay_prepass_summary(struct ps_replay *r, const void *blob, size_t len, int with_comm,
			      int (*task_of)(void *ctx, int32_t pid, const char **comm), void *ctx, uint64_t *events)
{
	const uint8_t *b = blob, *p, *pids, *evs;
	uint32_t nz, nr_pids;
	uint64_t nr_ev;
	size_t pidrec;

	if (len < 8 || memcmp(b, PS_PASS1_MAGIC, 4))
		return -1;
	if (ps_le_get32(b + 4) != PS_PASS1_VERSION)
		return 0;	/* another version's: read the trace */
	if (len < PS_PASS1_HDR)
		return -1;
	nz = ps_le_get32(b + 36);
	nr_pids = ps_le_get32(b + 40);
	if (!nz || nz > PS_MAX_ZONES || len < PS_PASS1_HDR + (size_t)nz * PS_PASS1_ZONE)
		return -1;
	pidrec = 16 + 8 * (size_t)nz;
	pids = b + PS_PASS1_HDR + (size_t)nz * PS_PASS1_ZONE;
	if ((size_t)(b + len - pids) / pidrec < nr_pids || (size_t)(b + len - pids) - nr_pids * pidrec < 8)
		return -1;
	p = pids + nr_pids * pidrec;
	nr_ev = ps_le_get64(p);
	evs = p + 8;
	if ((size_t)(b + len - evs) / PS_PASS1_REC != nr_ev || (size_t)(b + len - evs) % PS_PASS1_REC)
		return -1;
	/* what the readers never yield is damage: an unknown type, orders past MAX_ORDER, migratetypes unknown */
	for (uint64_t i = 0; i < nr_ev; i++) {
		const uint8_t *e = evs + i * PS_PASS1_REC;

		if (e[14] >= PS_EV_NR || e[15] > PS_MAX_PAGE_ORDER || e[17] > PS_MAX_PAGE_ORDER ||
		    e[18] > PS_MAX_PAGE_ORDER)
			return -1;
		if (!mt_known(e[16]) || !mt_known(e[19]) || !mt_known(e[20]))
			return -1;
	}
	/* the zones it was built on must be this replay's: the traced ones, and the model's on the same machine */
	if ((uint32_t)r->nr_tz != nz || (!r->cross && (uint32_t)r->mm.nr_zones != nz))
		return 0;
	for (uint32_t i = 0; i < nz; i++) {
		const uint8_t *zp = b + PS_PASS1_HDR + (size_t)i * PS_PASS1_ZONE;
		uint64_t base = ps_le_get64(zp), n = ps_le_get64(zp + 8);

		if (r->tz[i].base != base || r->tz[i].nr_pages != n)
			return 0;
		if (!r->cross && (r->mm.zones[i].start_pfn != base || r->mm.zones[i].nr_pages != n ||
				  r->mm.zones[i].pageblock_order != (int)ps_le_get32(zp + 16)))
			return 0;
	}

	r->first_ns = ps_le_get64(b + 16);
	r->last_ns = ps_le_get64(b + 24);
	r->lru_events = ps_le_get32(b + 32) != 0;
	memset(&r->kswapd_speed, 0, sizeof(r->kswapd_speed));
	r->kswapd_speed.pages = ps_le_get64(b + 48);
	r->kswapd_speed.busy_ns = ps_le_get64(b + 56);
	memset(&r->node_reclaim_speed, 0, sizeof(r->node_reclaim_speed));
	r->node_reclaim_speed.calls = ps_le_get64(b + 64);
	r->node_reclaim_speed.pages = ps_le_get64(b + 72);
	r->node_reclaim_speed.busy_ns = ps_le_get64(b + 80);
	for (int i = 0; i < PS_NODE_RECLAIM_BINS; i++)
		r->node_reclaim_speed.ns_per_page[i] = ps_le_get32(b + 88 + 4 * i);
	for (uint32_t i = 0; !r->cross && i < nz; i++)
		r->net_pages[i] = (int64_t)ps_le_get64(b + PS_PASS1_HDR + (size_t)i * PS_PASS1_ZONE + 24);
	/* the sums that turn on a task's name: pass 1 names tasks only when its reader did */
	for (uint32_t i = 0; with_comm && i < nr_pids; i++) {
		const uint8_t *pp = pids + i * pidrec;
		const char *comm = NULL;
		int task = task_of(ctx, (int32_t)ps_le_get32(pp), &comm);

		if (!r->cross && ps_le_get32(pp + 4) && comm)
			r->trace_has_comm = 1;
		if (task != PS_TASK_KCOMPACTD)
			continue;
		r->mig_total += ps_le_get64(pp + 8);
		for (uint32_t zi = 0; !r->cross && zi < nz; zi++)
			r->mig_expected[zi] += (int64_t)ps_le_get64(pp + 16 + 8 * zi);
	}
	for (uint64_t i = 0; i < nr_ev; i++) {
		const uint8_t *e = evs + i * PS_PASS1_REC;
		struct ps_event ev = { 0 };

		ev.pfn = ps_le_get64(e);
		ev.pid = (int32_t)ps_le_get32(e + 8);
		ev.cpu = (uint16_t)(e[12] | e[13] << 8);
		ev.type = e[14];
		ev.order = e[15];
		ev.migratetype = (int8_t)e[16];
		ev.alloc_order = e[17];
		ev.fallback_order = e[18];
		ev.alloc_migratetype = (int8_t)e[19];
		ev.fallback_migratetype = (int8_t)e[20];
		ev.change_ownership = e[21];
		ev.task = PS_TASK_OTHER;
		if (with_comm)
			ev.task = (uint8_t)task_of(ctx, ev.pid, &ev.comm);
		prepass_one(r, &ev, 0);
	}
	*events = ps_le_get64(b + 8);
	return 1;
}
