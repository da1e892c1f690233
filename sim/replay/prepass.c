// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * prepass.c - pass 1 over the trace: what the initial state needs (the
 * first event of every page and pageblock), what simulate mode's reclaim
 * needs (kcompactd's frees; whether the trace has the page-cache and LRU
 * events), and each zone's net use for --untraced-use.
 */
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
