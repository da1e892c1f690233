// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * victims.c - what simulate mode's reclaim may take, as the trace shows it
 * (struct ps_mm_ops for sim/mm/vmscan.c): with kswapd.takeover (the
 * default when the trace names its tasks), the blocks whose trace free was
 * the recorded kswapd's, in the recorded order and no sooner than the
 * recorded kswapd freed them, so the model moves the recorded reclaim in
 * time but does not invent more of it; with kswapd.ahead, the blocks the
 * recorded kswapd will free later, oldest allocation first; without, the
 * oldest page-cache blocks allocated during the trace.  The trace's own
 * later frees of blocks the model reclaimed are absorbed
 * (replay_reclaimed_then_freed_pages).
 */
#include "sim/mm/vmscan.h"
#include "sim/replay/engine.h"

void rp_lru_add(struct ps_replay *r, int node, uint32_t tg)
{
	struct ps_trace_node *k = &r->tnode[node];

	if (!k->ring)
		return;
	if (k->count == k->cap) {	/* full: the oldest entry drops out */
		k->head = (k->head + 1) % k->cap;
		k->count--;
	}
	k->ring[(k->head + k->count) % k->cap] = tg;
	k->count++;
}

/* The oldest deferred block of @node, off its list; NULL if none. */
static struct ps_zone *victim_deferred(struct ps_replay *r, int node, uint32_t *idx, int *order)
{
	struct ps_trace_node *k = &r->tnode[node];

	while (k->dcount) {
		uint32_t g = k->deferred[k->dhead], h;
		struct ps_zone *z = ps_mm_zone_of_global(&r->mm, g, idx);

		k->dhead = (k->dhead + 1) % k->dcap;
		k->dcount--;
		if (ps_zone_block_of(z, *idx, &h, order) != PG_ALLOC || h != *idx)
			continue;	/* cannot happen: nothing else frees a deferred block */
		return z;
	}
	return NULL;
}

/*
 * The model block traced block @tg stands for, if the model still holds it
 * whole on @node; the trace's later free of it is then absorbed
 * (MAP_RECLAIMED).  NULL if not.
 */
static struct ps_zone *victim_traced(struct ps_replay *r, int node, uint32_t tg, uint32_t *idx, int *order)
{
	uint32_t g = r->map[tg], h;
	struct ps_zone *z;

	if (!MAP_IS_MODEL(g))
		return NULL;	/* freed by the trace since */
	z = ps_mm_zone_of_global(&r->mm, g - 1, idx);
	if (z->node != node || ps_zone_block_of(z, *idx, &h, order) != PG_ALLOC || h != *idx)
		return NULL;
	for (uint32_t i = 0; i < (1u << *order) && tg + i < r->traced_pages; i++)
		r->map[tg + i] = MAP_RECLAIMED;
	return z;
}

/*
 * kswapd.ahead: the oldest block of @node's list that the model still holds
 * as that allocation; the trace's later free of it by the recorded kswapd
 * is absorbed.  NULL if none.
 */
static struct ps_zone *victim_ahead(struct ps_replay *r, int node, uint32_t *idx, int *order)
{
	struct ps_trace_node *k = &r->tnode[node];

	while (k->ahead_count) {
		struct ahead_ent e = k->ahead[k->ahead_head];
		struct ps_zone *z;

		k->ahead_head = (k->ahead_head + 1) % k->acap;
		k->ahead_count--;
		if (r->alloc_of[e.tg] != e.seq || !(z = victim_traced(r, node, e.tg, idx, order)))
			continue;	/* freed by the trace since, or held otherwise */
		r->alloc_of[e.tg] = 0;
		r->ahead_taken += 1u << *order;
		return z;
	}
	return NULL;
}

/* kswapd.ahead: queues traced block @tg, allocation @seq, held on @node. */
void rp_ahead_add(struct ps_replay *r, int node, uint32_t tg, uint32_t seq)
{
	struct ps_trace_node *k = &r->tnode[node];

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
 * The block reclaim on @node by @cpu (-1: the node's kswapd) takes next:
 * first what the recorded kswapd freed and the model has not yet
 * (kswapd.takeover), then for kswapd what it will free (kswapd.ahead), then
 * the oldest page cache.
 */
static struct ps_zone *reclaim_victim(void *ctx, int node, int cpu, uint64_t now, uint32_t *idx, int *order)
{
	struct ps_replay *r = ctx;
	struct ps_trace_node *k = &r->tnode[node];
	struct ps_zone *z = victim_deferred(r, node, idx, order);

	if (!z && cpu < 0 && r->alloc_of)
		z = victim_ahead(r, node, idx, order);
	if (z)
		return z;
	/*
	 * What the recorded kswapd did not reclaim was not reclaimable, once
	 * it has reclaimed on this node at all; before that the trace holds
	 * no sign of it, and the node's oldest page cache goes, as with the
	 * takeover off.
	 */
	if (r->kswapd_takeover && r->trace_has_comm && k->handed)
		return NULL;
	/*
	 * Node reclaim when the recorded kernel ran it too: its reclaim is in
	 * the trace already, as the allocating tasks' own frees, replayed as
	 * they come; taking the oldest page cache besides would reclaim twice.
	 */
	if (cpu >= 0 && r->kswapd_takeover && r->trace_has_comm && r->o.recorded.zone_reclaim_mode != PS_UNSET &&
	    (r->o.recorded.zone_reclaim_mode & 1))
		return NULL;
	while (k->count) {
		uint32_t tg = k->ring[k->head];

		k->head = (k->head + 1) % k->cap;
		k->count--;
		if ((z = victim_traced(r, node, tg, idx, order)))
			return z;
	}
	return NULL;
}

/*
 * kswapd.takeover: the model's kswapd has taken over all the recorded
 * kswapd freed on node @n so far, but the trace shows it freeing there again
 * later (after the model's @last_run): the recorded kswapd was still at
 * work, so the model's waits for its next free.
 */
static int kswapd_waits(void *ctx, int n, uint64_t last_run)
{
	struct ps_replay *r = ctx;

	return r->kswapd_takeover && r->trace_has_comm && r->tnode[n].handed &&
	       last_run < r->tnode[n].last_recorded_ns;
}

const struct ps_mm_ops rp_victims = {
	.reclaim_victim = reclaim_victim,
	.kswapd_waits = kswapd_waits,
};

/*
 * kswapd.takeover: the trace's free of model block @idx of @z was the
 * recorded kswapd's.  The block stays allocated until the model's kswapd
 * (or node reclaim) reclaims it; when the list is full its oldest block is
 * freed now, as recorded.
 */
void rp_defer_kswapd_free(struct ps_replay *r, struct ps_zone *z, uint32_t idx)
{
	struct ps_trace_node *k = &r->tnode[z->node];

	if (k->dcount == k->dcap) {
		uint32_t vidx;
		int order;
		struct ps_zone *vz = victim_deferred(r, z->node, &vidx, &order);

		if (vz)
			ps_reclaim_block(&r->mm, z->node, vz, vidx, order, r->mm.now_ns, -1);
		r->kswapd_deferred_overflow++;
	}
	k->deferred[(k->dhead + k->dcount) % k->dcap] = (uint32_t)(r->mm.gbase[z->index] + idx);
	k->handed++;
	k->dcount++;
	r->kswapd_frees_deferred++;
}

int rp_victim_lists_create(struct ps_replay *r)
{
	for (int n = 0; n < r->m->nr_nodes && n < PS_MAX_NODES; n++) {
		struct ps_trace_node *k = &r->tnode[n];
		uint64_t pages = ps_mm_node_pages(&r->mm, n);

		/*
		 * A quarter slot per page for the list kswapd reclaims from:
		 * the deferred list under kswapd.takeover (its oldest block is
		 * freed when it is full), else the page-cache ring (its oldest
		 * entries drop out); under the takeover the ring serves only a
		 * node the recorded kswapd has not yet reclaimed on, or a trace
		 * that does not name its tasks, and gets an eighth.
		 */
		k->cap = (uint32_t)(pages / (r->kswapd_takeover ? 8 : 4) + 1);
		k->ring = malloc(sizeof(uint32_t) * k->cap);
		if (r->kswapd_takeover) {
			k->dcap = (uint32_t)(pages / 4 + 1);
			k->deferred = malloc(sizeof(uint32_t) * k->dcap);
		}
		if (!k->ring || (r->kswapd_takeover && !k->deferred))
			return -1;
	}
	return 0;
}

/*
 * kswapd.ahead: a list per model node with room for every marked allocation,
 * up to the node's pages (a full list is first cleared of blocks no longer
 * held); the numbering starts again for pass 2.
 */
int rp_victim_lists(struct ps_replay *r, char *err, int len)
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
		uint64_t pages = ps_mm_node_pages(&r->mm, n);

		r->tnode[n].acap = (uint32_t)((r->ahead_marked < pages ? r->ahead_marked : pages) + 1);
		r->tnode[n].ahead = malloc(r->tnode[n].acap * sizeof(*r->tnode[n].ahead));
		if (!r->tnode[n].ahead) {
			snprintf(err, len, "out of memory for kswapd's lists");
			return -1;
		}
	}
	memset(r->alloc_of, 0, r->traced_pages * sizeof(*r->alloc_of));
	r->alloc_seq = 0;
	return 0;
}
