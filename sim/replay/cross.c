// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cross.c - replaying on another machine (--machine, --cpu-map, simulate
 * mode only): the traced CPUs and nodes mapped onto the model's, and the
 * model's initial state there.
 *
 * Simplifies: the recorded machine's used memory is carried over as an
 * amount per node, not as what it was made of; traced nodes map to model
 * nodes by number unless --cpu-map says otherwise.
 */
#include "sim/replay/engine.h"

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
void rp_build_cpu_map(struct ps_replay *r)
{
	const struct ps_replay_opts *o = &r->o;
	const struct ps_machine *m = r->m, *tm = r->tm;
	int rank[PS_MAX_NODES] = { 0 };

	for (int n = 0; n < PS_MAX_NODES; n++)
		r->node_to_node[n] = m->nr_nodes ? n % m->nr_nodes : 0;
	for (int c = 0; c < PS_MAX_CPUS; c++)
		r->cpu_to_cpu[c] = c;
	if (!r->cross)
		return;
	for (int c = 0; c < PS_MAX_CPUS; c++) {
		int tn = c < tm->nr_cpus ? tm->cpu_node[c] : -1, mn, k, cnt;

		mn = o->cpu_node_map[c] >= 0 ? o->cpu_node_map[c] : (tn >= 0 ? tn % (m->nr_nodes ? m->nr_nodes : 1) : 0);
		k = tn >= 0 ? rank[tn]++ : c;
		cnt = ps_machine_node_cpus(m, mn);
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

/* A block of @order on @node's zones (highest zone first); the zone, or NULL. */
static struct ps_zone *alloc_on_node(struct ps_replay *r, int node, int order, int mt, uint32_t *idx)
{
	for (int t = PS_ZONE_NR - 1; t >= 0; t--)
		for (int zi = 0; zi < r->mm.nr_zones; zi++) {
			struct ps_zone *z = &r->mm.zones[zi];

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
void rp_build_cross(struct ps_replay *r)
{
	uint64_t used[PS_MAX_NODES] = { 0 }, placed[PS_MAX_NODES] = { 0 };

	for (int zi = 0; zi < r->mm.nr_zones; zi++) {
		struct ps_zone *z = &r->mm.zones[zi];

		z->extfrag = NULL;	/* no events while setting up */
		for (uint32_t p = z->span_start; p < z->present_end;) {
			int o = PS_NR_PAGE_ORDERS - 1;

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
			for (uint32_t k = 0; k < (1u << o) && i + k < r->tz[ti].nr_pages; k++) {
				uint64_t g = r->mm.gbase[z->index] + idx + k;

				r->map[r->tz[ti].gbase + i + k] = (uint32_t)(g + 1);
				r->owner[g] = (uint32_t)(r->tz[ti].gbase + i + k + 1);	/* as rp_reclaimed reads it */
			}
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

		for (int o = PS_NR_PAGE_ORDERS - 1; o >= 0 && want; o--)
			while (want >= (1ull << o)) {
				uint32_t idx;

				if (!alloc_on_node(r, n, o, PS_MT_MOVABLE, &idx))
					break;
				want -= 1ull << o;
				r->cross_preused_pages += 1ull << o;
			}
		r->cross_unplaced_pages += want;
	}
	for (int zi = 0; zi < r->mm.nr_zones; zi++) {
		struct ps_zone *z = &r->mm.zones[zi];

		z->extfrag = model_extfrag;
		z->fallbacks = z->fallbacks_fragmenting = z->claims = z->boosts = 0;
		z->watermark_boost = 0;
	}
}
