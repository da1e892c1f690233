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

static inline void prepass_event(struct ps_replay *r, const struct ps_event *ev)
{
	struct ps_zone *z;
	uint32_t idx, n;
	int cls, zi, order = ev->order, mig;

	if (!r->first_ns)
		r->first_ns = ev->ts_ns ? ev->ts_ns : 1;
	r->last_ns = ev->ts_ns;
	if (!ps_event_is_kmem(ev->type)) {
		/* the page-cache and LRU events: the LRU comes from them, not from gfp flags */
		r->lru_events |= ev->type == PS_EV_PC_ADD || ev->type == PS_EV_LRU_ADD;
		if (r->o.mode == PS_REPLAY_SIMULATE)
			prepass_reclaim_event(r, ev);
		return;
	}
	if (ev->pfn == PS_PFN_NONE || ev->type == PS_EV_FREE_BATCHED)
		return;
	mig = ev->type == PS_EV_FREE && order == 0 && ev->task == PS_TASK_KCOMPACTD;
	r->mig_total += mig;
	if (r->cross) {
		/* another machine: only which traced blocks were allocated at the start matters */
		int ti = tzone_of(r, ev->pfn, &idx);
		uint8_t *t;

		if (ti < 0 || ev->type == PS_EV_EXTFRAG)
			return;
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
	if ((ev->type == PS_EV_ALLOC || ev->type == PS_EV_FREE) && order < PS_NR_PAGE_ORDERS)
		r->net_pages[zi] += ev->type == PS_EV_FREE ? (int64_t)1 << order : -((int64_t)1 << order);
	r->trace_has_comm |= ev->comm != NULL;	/* simulate mode reads task names in pass 1 too */
	r->mig_expected[zi] += mig;
	if (ev->type == PS_EV_EXTFRAG) {
		uint32_t pbs = 1u << (ev->fallback_order > z->pageblock_order ? ev->fallback_order - z->pageblock_order : 0);

		for (uint32_t b = 0; b < pbs && (idx >> z->pageblock_order) + b < z->nr_pageblocks; b++)
			r->pb_changed[zi][(idx >> z->pageblock_order) + b] = 1;
		/* follow mode: a page the fallback took from the buddy with no zone_locked */
		if (r->o.mode != PS_REPLAY_FOLLOW || !rp_extfrag_takes(r->o.profile, ev, z->pageblock_order))
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

int ps_replay_opts_share_prepass(const struct ps_replay_opts *a, const struct ps_replay_opts *b)
{
	/* prepass_event reads the mode and, in follow mode, the profile's extfrag rule */
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
		uint32_t *p = malloc(src->nr_lru_pre * sizeof(*p));

		if (!p)
			return -1;
		memcpy(p, src->lru_pre, src->nr_lru_pre * sizeof(*p));
		free(dst->lru_pre);
		dst->lru_pre = p;
		dst->nr_lru_pre = dst->lru_pre_cap = src->nr_lru_pre;
	}
	memcpy(dst->pre_in_reclaim, src->pre_in_reclaim, sizeof(dst->pre_in_reclaim));
	dst->mig_total = src->mig_total;
	dst->first_ns = src->first_ns;
	dst->last_ns = src->last_ns;
	dst->lru_events = src->lru_events;
	dst->trace_has_comm = src->trace_has_comm;
	return 0;
}
