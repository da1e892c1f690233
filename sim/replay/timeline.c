// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timeline.c - timelines (timeline.h), the counter snapshots that filters
 * and breakdowns read, and a replay's view: its sampling tick, the events
 * its filter selects, what each event counted, the trace's own counters
 * beside the model's, and the pageblocks fallbacks stole from or claimed.
 *
 * The model's state is read here only, through the accessors below (the
 * reclaim model's fields may move: adapt them here).
 */
#include <stdarg.h>
#include <stddef.h>

#include "sim/replay/engine.h"
#include "sim/replay/timeline.h"

/* How a column's value is read. */
enum {
	G_U64,		/* *p (+ *p2) */
	G_LONG,		/* *p (+ *p2) */
	G_PGFREE,	/* p: struct ps_counters, pgfree as ps_counters_to_kv() prints it */
	G_KSWAPD_AWAKE,	/* p: struct ps_mm, arg: node */
	G_KSWAPD_WAKEUPS,
	G_KSWAPD_RECLAIMED,
	G_PAGEOUTRUN,	/* p: struct ps_mm: balance_pgdat runs on every node */
};

/* The model's kswapd on node @n: awake (woken, not yet gone back to sleep), wakeups, pages reclaimed. */
static int64_t kswapd_awake(const struct ps_mm *mm, int n)
{
	return mm->node[n].kswapd.awake != 0;
}

static int64_t kswapd_wakeups(const struct ps_mm *mm, int n)
{
	return (int64_t)mm->node[n].kswapd.wakeups;
}

static int64_t kswapd_reclaimed(const struct ps_mm *mm, int n)
{
	return (int64_t)mm->node[n].kswapd.reclaimed;
}

static int64_t kswapd_runs(const struct ps_mm *mm)
{
	int64_t runs = 0;

	for (int n = 0; n < PS_MAX_NODES; n++)
		runs += (int64_t)mm->node[n].kswapd.runs;
	return runs;
}

static int64_t col_value(const struct ps_tl_col *c)
{
	switch (c->get) {
	case G_U64:
		return (int64_t)(*(const uint64_t *)c->p + (c->p2 ? *(const uint64_t *)c->p2 : 0));
	case G_LONG:
		return *(const long *)c->p + (c->p2 ? *(const long *)c->p2 : 0);
	case G_PGFREE: {
		const struct ps_counters *k = c->p;

		return (int64_t)(!k->events[PS_EV_FREE] && k->events[PS_EV_FREE_BATCHED] ? k->pgfree_batched_pages :
			       k->pgfree);
	}
	case G_KSWAPD_AWAKE:
		return kswapd_awake(c->p, c->arg);
	case G_KSWAPD_WAKEUPS:
		return kswapd_wakeups(c->p, c->arg);
	case G_KSWAPD_RECLAIMED:
		return kswapd_reclaimed(c->p, c->arg);
	case G_PAGEOUTRUN:
		return kswapd_runs(c->p);
	}
	return 0;
}

int ps_tl_init(struct ps_timeline *t, uint64_t interval_ns, ps_tl_row_fn fn, void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->interval_ns = interval_ns;
	t->fn = fn;
	t->ctx = ctx;
	return 0;
}

void ps_tl_free(struct ps_timeline *t)
{
	free(t->col);
	free(t->last);
	free(t->row);
	memset(t, 0, sizeof(*t));
}

static struct ps_tl_col *add_col(struct ps_timeline *t, int kind, int get, const void *p, const void *p2, int arg,
				 const char *total, const char *fmt, ...) __attribute__((format(printf, 8, 9)));

static struct ps_tl_col *add_col(struct ps_timeline *t, int kind, int get, const void *p, const void *p2, int arg,
				 const char *total, const char *fmt, ...)
{
	struct ps_tl_col *c;
	va_list ap;

	if (t->nr == t->cap) {
		int cap = t->cap ? 2 * t->cap : 256;
		struct ps_tl_col *n = realloc(t->col, cap * sizeof(*n));
		int64_t *l, *r;

		if (!n)
			return NULL;
		t->col = n;
		l = realloc(t->last, cap * sizeof(*l));
		if (!l)
			return NULL;
		t->last = l;
		r = realloc(t->row, cap * sizeof(*r));
		if (!r)
			return NULL;
		t->row = r;
		t->cap = cap;
	}
	c = &t->col[t->nr++];
	memset(c, 0, sizeof(*c));
	c->kind = (uint8_t)kind;
	c->get = (uint8_t)get;
	c->p = p;
	c->p2 = p2;
	c->arg = (int16_t)arg;
	va_start(ap, fmt);
	vsnprintf(c->name, sizeof(c->name), fmt, ap);
	va_end(ap);
	snprintf(c->total, sizeof(c->total), "%s", total);
	return c;
}

/* A counter of @c (and @fold's, when it folds) named @name; its total @tp @name. */
static int counter(struct ps_timeline *t, const struct ps_counters *c, const struct ps_counters *fold, int folds,
		   const char *prefix, const char *tp, const uint64_t *field, const char *name)
{
	char total[176];
	const uint64_t *f2 = folds && fold ? (const uint64_t *)((const char *)fold + ((const char *)field - (const char *)c)) : NULL;

	snprintf(total, sizeof(total), "%s%s", tp, name);
	return add_col(t, PS_TL_DELTA, G_U64, field, f2, 0, total, "%s%s", prefix, name) ? 0 : -1;
}

/*
 * ps_tl_add_counters(); with @mm, the reclaim rows are the model's (simulate
 * mode prints them from the model, always), else the counters' own, printed
 * only when the trace has reclaim events (their totals end in '?').
 */
static int add_counters(struct ps_timeline *t, const struct ps_counters *c, const struct ps_counters *fold,
			const char *prefix, const char *tp, const struct ps_mm *mm)
{
	static const char *const pgalloc_names[PS_ZONE_NR] = {
		"pgalloc_dma", "pgalloc_dma32", "pgalloc_normal", "pgalloc_high", "pgalloc_movable", "pgalloc_device",
	};
	static const char *const reclaim_names[] = {
		"pgsteal_kswapd", "pgsteal_direct", "pgscan_kswapd", "pgscan_direct", "pageoutrun", "zone_reclaim_failed",
		"node_reclaim_calls",
	};
	/* the reclaim rows' fields: the counters' own, the model's (pageoutrun: G_PAGEOUTRUN) */
	const uint64_t *own[] = { &c->pgsteal_kswapd, &c->pgsteal_direct, &c->pgscan_kswapd, &c->pgscan_direct,
				  &c->pageoutrun, &c->zone_reclaim_failed, &c->node_reclaim_calls };
	const uint64_t *model[] = { mm ? &mm->pgsteal_kswapd : NULL, mm ? &mm->pgsteal_direct : NULL,
				    mm ? &mm->pgscan_kswapd : NULL, mm ? &mm->pgscan_direct : NULL, NULL,
				    mm ? &mm->zone_reclaim_failed : NULL, mm ? &mm->node_reclaims : NULL };
	const struct ps_machine *m = c->m;
	char name[96], total[176];
	int highmem = 0;

	_Static_assert(sizeof(own) / sizeof(own[0]) == sizeof(reclaim_names) / sizeof(reclaim_names[0]), "reclaim rows");

	for (int i = 0; i < m->nr_zones; i++)
		highmem |= m->zones[i].type == PS_ZONE_HIGHMEM;
	/* in ps_counters_to_kv()'s order and names */
#define C(field, folds, n) \
	do { if (counter(t, c, fold, folds, prefix, tp, &c->field, n) < 0) return -1; } while (0)
	C(numa_hit, 1, "numa_hit");
	C(numa_miss, 1, "numa_miss");
	C(numa_foreign, 1, "numa_foreign");
	C(numa_interleave, 0, "numa_interleave");
	C(numa_local, 1, "numa_local");
	C(numa_other, 1, "numa_other");
	for (int z = 0; z < PS_ZONE_NR; z++)
		if ((z != PS_ZONE_HIGHMEM || highmem) && z != PS_ZONE_DEVICE)
			C(pgalloc[z], 1, pgalloc_names[z]);
	snprintf(total, sizeof(total), "%spgfree", tp);
	if (!add_col(t, PS_TL_DELTA, G_PGFREE, c, NULL, 0, total, "%spgfree", prefix))
		return -1;
	for (int n = 0; n < m->nr_nodes && n < PS_MAX_NODES; n++) {
		if (!(m->node_online & (1ull << n)))
			continue;
#define N(field, folds) \
	do { snprintf(name, sizeof(name), "node%d." #field, n); C(node[n].field, folds, name); } while (0)
		N(numa_hit, 1);
		N(numa_miss, 1);
		N(numa_foreign, 1);
		N(interleave_hit, 0);
		N(local_node, 1);
		N(other_node, 1);
#undef N
	}
	for (int i = 0; i < PS_XF_NR; i++)
		C(extfrag[i], 0, ps_extfrag_names[i]);
	for (int e = 0; e < PS_EV_NR; e++) {
		/* the page-cache, LRU and reclaim events are printed when the trace has any */
		snprintf(name, sizeof(name), "events_%s", ps_event_names[e]);
		snprintf(total, sizeof(total), "%s%s%s", tp, name, ps_event_is_kmem(e) ? "" : "?");
		if (!add_col(t, PS_TL_DELTA, G_U64, &c->events[e], NULL, 0, total, "%s%s", prefix, name))
			return -1;
	}
	/* the reclaim rows, in ps_counters_to_kv()'s order */
	for (size_t i = 0; i < sizeof(reclaim_names) / sizeof(reclaim_names[0]); i++) {
		struct ps_tl_col *col;

		snprintf(total, sizeof(total), "%s%s%s", tp, reclaim_names[i], mm ? "" : "?");
		if (mm && own[i] == &c->pageoutrun)	/* the model's kswapd runs, summed over the nodes */
			col = add_col(t, PS_TL_DELTA, G_PAGEOUTRUN, mm, NULL, 0, total, "%s%s", prefix, reclaim_names[i]);
		else
			col = add_col(t, PS_TL_DELTA, G_U64, mm ? model[i] : own[i], NULL, 0, total, "%s%s", prefix,
				      reclaim_names[i]);
		if (!col)
			return -1;
	}
	C(alloc_failed, 0, "alloc_failed");
	C(pfn_outside_zones, 0, "pfn_outside_zones");
	C(cpu_without_node, 0, "cpu_without_node");
#undef C
	return 0;
}

int ps_tl_add_counters(struct ps_timeline *t, const struct ps_counters *c, const struct ps_counters *fold,
		       const char *prefix, const char *tp)
{
	return add_counters(t, c, fold, prefix, tp, NULL);
}

void ps_tl_start(struct ps_timeline *t, uint64_t t0)
{
	t->t0 = t->start = t0;
	t->started = 1;
	for (int i = 0; i < t->nr; i++)
		t->last[i] = t->col[i].kind == PS_TL_DELTA ? col_value(&t->col[i]) : 0;
}

int ps_tl_emit(struct ps_timeline *t)
{
	if (t->rows >= PS_TL_MAX_ROWS) {
		t->overflow = 1;
		return -1;
	}
	for (int i = 0; i < t->nr; i++) {
		const struct ps_tl_col *c = &t->col[i];
		int64_t v = col_value(c);

		if (c->kind == PS_TL_DELTA) {
			t->row[i] = v - t->last[i];
			t->last[i] = v;
		} else {
			t->row[i] = v;
		}
	}
	if (t->fn)
		t->fn(t->ctx, t, t->start, t->start + t->interval_ns, t->row);
	t->rows++;
	t->start += t->interval_ns;
	return 0;
}

int ps_tl_advance(struct ps_timeline *t, uint64_t ts)
{
	if (t->overflow)
		return -1;
	if (ts < ps_tl_row_end(t))
		return 0;
	if ((ts - t->start) / t->interval_ns + t->rows > PS_TL_MAX_ROWS) {
		t->overflow = 1;
		return -1;
	}
	while (ts >= ps_tl_row_end(t))
		if (ps_tl_emit(t) < 0)
			return -1;
	return 0;
}

void ps_tl_finish(struct ps_timeline *t)
{
	if (t->started && !t->overflow)
		(void)ps_tl_emit(t);
	t->started = 0;
}

/* The counts of struct ps_counters: [numa_hit, node) and [extfrag, first_outside_pfn). */
#define HEAD_OFF offsetof(struct ps_counters, numa_hit)
#define HEAD_LEN (offsetof(struct ps_counters, node) - HEAD_OFF)
#define TAIL_OFF offsetof(struct ps_counters, extfrag)
#define TAIL_LEN (offsetof(struct ps_counters, first_outside_pfn) - TAIL_OFF)
#define RECLAIM_OFF offsetof(struct ps_counters, pgsteal_kswapd)
#define RECLAIM_LEN (offsetof(struct ps_counters, zone_reclaim_failed) + sizeof(uint64_t) - RECLAIM_OFF)
_Static_assert(HEAD_LEN == sizeof(((struct ps_cnt_snap *)0)->head), "ps_cnt_snap head");
_Static_assert(TAIL_LEN == sizeof(((struct ps_cnt_snap *)0)->tail), "ps_cnt_snap tail");
_Static_assert(RECLAIM_LEN == sizeof(((struct ps_cnt_snap *)0)->reclaim), "ps_cnt_snap reclaim");

void ps_cnt_snap_take(struct ps_cnt_snap *s, const struct ps_counters *c)
{
	s->nr_nodes = c->m && c->m->nr_nodes < PS_MAX_NODES ? c->m->nr_nodes : PS_MAX_NODES;
	memcpy(s->head, (const char *)c + HEAD_OFF, HEAD_LEN);
	memcpy(s->tail, (const char *)c + TAIL_OFF, TAIL_LEN);
	memcpy(s->reclaim, (const char *)c + RECLAIM_OFF, RECLAIM_LEN);
	memcpy(s->node, c->node, s->nr_nodes * sizeof(s->node[0]));
}

void ps_cnt_snap_restore(const struct ps_cnt_snap *s, struct ps_counters *c)
{
	memcpy((char *)c + HEAD_OFF, s->head, HEAD_LEN);
	memcpy((char *)c + TAIL_OFF, s->tail, TAIL_LEN);
	memcpy((char *)c + RECLAIM_OFF, s->reclaim, RECLAIM_LEN);
	memcpy(c->node, s->node, s->nr_nodes * sizeof(s->node[0]));
}

/* Indices of ps_cnt_snap's arrays (the fields' order in struct ps_counters). */
#define H_NUMA_HIT 0
#define H_NUMA_MISS 1
#define H_NUMA_LOCAL 4
#define H_NUMA_OTHER 5
#define H_PGALLOC 6
#define H_PGFREE (6 + PS_ZONE_NR)
#define T_EVENTS PS_XF_NR
#define T_ALLOC_FAILED (PS_XF_NR + PS_EV_NR)
_Static_assert(offsetof(struct ps_counters, numa_local) - HEAD_OFF == H_NUMA_LOCAL * 8, "numa_local");
_Static_assert(offsetof(struct ps_counters, pgfree) - HEAD_OFF == H_PGFREE * 8, "pgfree");
_Static_assert(offsetof(struct ps_counters, alloc_failed) - TAIL_OFF == T_ALLOC_FAILED * 8, "alloc_failed");

void ps_counted_delta(struct ps_counted *d, const struct ps_counters *c, const struct ps_cnt_snap *b)
{
	memset(d, 0, sizeof(*d));
	d->node = d->zone_type = d->cpu = -1;
	d->numa_hit = c->numa_hit - b->head[H_NUMA_HIT];
	d->numa_miss = c->numa_miss - b->head[H_NUMA_MISS];
	d->numa_local = c->numa_local - b->head[H_NUMA_LOCAL];
	d->numa_other = c->numa_other - b->head[H_NUMA_OTHER];
	d->allocs = d->numa_hit + d->numa_miss;
	for (int z = 0; z < PS_ZONE_NR; z++) {
		uint64_t p = c->pgalloc[z] - b->head[H_PGALLOC + z];

		d->alloc_pages += p;
		if (p && d->zone_type < 0)
			d->zone_type = z;
	}
	d->free_pages = c->pgfree - b->head[H_PGFREE];
	d->frees = d->free_pages ? c->events[PS_EV_FREE] - b->tail[T_EVENTS + PS_EV_FREE] : 0;
	d->failed = c->alloc_failed - b->tail[T_ALLOC_FAILED];
	for (int n = 0; d->allocs && n < b->nr_nodes; n++)
		if (c->node[n].numa_hit != b->node[n].numa_hit || c->node[n].numa_miss != b->node[n].numa_miss) {
			d->node = n;
			break;
		}
}

/* A replay's view (struct ps_replay_view), behind r->view. */
#define MARK_STOLE 1	/* a fallback took pages from the block, which kept its type */
#define MARK_CLAIMED 2	/* a fallback claimed the block (change_ownership) */

struct rp_view {
	struct ps_replay_view v;
	struct ps_timeline tl;
	struct ps_counters *trace;	/* the trace's own counters (simulate mode; follow: r->cnt) */
	uint64_t kswapd_freed[PS_MAX_NODES];	/* pages the recorded kswapdN freed */
	int sel, each;
	struct ps_cnt_snap s_cnt, s_inv;
	uint64_t s_failed;
	int free_node, free_type;
	uint8_t **marks;		/* [zone][pageblock] MARK_* */
};

static int view_columns(struct ps_replay *r, struct rp_view *v)
{
	struct ps_timeline *t = &v->tl;
	const struct ps_machine *tm = r->tm ? r->tm : r->m;
	int sim = r->o.mode == PS_REPLAY_SIMULATE, fold = sim || r->o.fold_invisible;
	char total[176], base[64];

	/* simulate mode prints the model's own reclaim under the kernel's names */
	if (add_counters(t, &r->cnt, fold ? &r->inv : NULL, "", "", sim ? &r->mm : NULL) < 0)
		return -1;
	for (int zi = 0; zi < r->mm.nr_zones; zi++) {
		struct ps_zone *z = &r->mm.zones[zi];
		static const int shown[] = { PS_MT_UNMOVABLE, PS_MT_MOVABLE, PS_MT_RECLAIMABLE, PS_MT_HIGHATOMIC,
					     PS_MT_ISOLATE };
		const char *zn = ps_zone_names[z->type];

		snprintf(base, sizeof(base), "node%d.%s", z->node, zn);
#define ZCOL(kind, get, p, p2, tot, suffix)                                                        \
	do {                                                                                       \
		if (!add_col(t, kind, get, p, p2, 0, tot, "%s.%s", base, suffix))                  \
			return -1;                                                                 \
	} while (0)
		snprintf(total, sizeof(total), "model_nr_free_pages.node%d.%s", z->node, zn);
		ZCOL(PS_TL_LEVEL, G_U64, &z->nr_free_pages, NULL, total, "free");
#define WM(field, name)                                                                                  \
	do {                                                                                             \
		snprintf(total, sizeof(total), "model_" #field ".node%d.%s+model_watermark_boost.node%d.%s", \
			 z->node, zn, z->node, zn);                                                      \
		ZCOL(PS_TL_LEVEL, G_LONG, &z->field, &z->watermark_boost, total, name);                  \
	} while (0)
		WM(wmark_min, "wmark_min");
		WM(wmark_low, "wmark_low");
		WM(wmark_high, "wmark_high");
#undef WM
		snprintf(total, sizeof(total), "model_watermark_boost.node%d.%s", z->node, zn);
		ZCOL(PS_TL_LEVEL, G_LONG, &z->watermark_boost, NULL, total, "watermark_boost");
		ZCOL(PS_TL_LEVEL, G_U64, &z->nr_pcp_pages, NULL, "zones:model_pcp_pages", "pcp");
		ZCOL(PS_TL_DELTA, G_U64, &z->lock_acquisitions, NULL, "zones:model_zone_lock_acquisitions",
		     "lock_acquisitions");
		ZCOL(PS_TL_DELTA, G_U64, &z->fallbacks, NULL, "zones:model_fallbacks", "fallbacks");
		ZCOL(PS_TL_DELTA, G_U64, &z->claims, NULL, "zones:model_pageblock_claims", "pageblock_claims");
		for (int o = 0; o < PS_NR_PAGE_ORDERS; o++)
			for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
				char suffix[64];

				snprintf(total, sizeof(total), "pagetypeinfo:%d:%s:%s:%d", z->node, zn,
					 ps_migratetype_names[shown[i]], o);
				snprintf(suffix, sizeof(suffix), "free.order%d.%s", o, ps_migratetype_names[shown[i]]);
				ZCOL(PS_TL_LEVEL, G_U64, &z->free_area[o].nr_free_mt[shown[i]], NULL, total, suffix);
			}
#undef ZCOL
	}
	for (int n = 0; sim && n < r->m->nr_nodes && n < PS_MAX_NODES; n++) {
		if (!(r->m->node_online & (1ull << n)))
			continue;
		snprintf(total, sizeof(total), "model_kswapd_awake.node%d", n);
		if (!add_col(t, PS_TL_LEVEL, G_KSWAPD_AWAKE, &r->mm, NULL, n, total, "node%d.kswapd_awake", n))
			return -1;
		snprintf(total, sizeof(total), "model_kswapd_wakeups.node%d", n);
		if (!add_col(t, PS_TL_DELTA, G_KSWAPD_WAKEUPS, &r->mm, NULL, n, total, "node%d.kswapd_wakeups", n))
			return -1;
		snprintf(total, sizeof(total), "model_kswapd_reclaimed_pages.node%d", n);
		if (!add_col(t, PS_TL_DELTA, G_KSWAPD_RECLAIMED, &r->mm, NULL, n, total, "node%d.kswapd_reclaimed", n))
			return -1;
	}
	/* node_reclaim_calls is among the reclaim rows */
	if (sim && !add_col(t, PS_TL_DELTA, G_U64, &r->mm.node_reclaimed, NULL, 0, "model_node_reclaimed_pages",
			    "node_reclaimed_pages"))
		return -1;
	/* the trace's own, beside the model's */
	if (ps_tl_add_counters(t, v->trace, NULL, "trace.", "stat:") < 0)
		return -1;
	for (int n = 0; n < tm->nr_nodes && n < PS_MAX_NODES; n++) {
		if (!(tm->node_online & (1ull << n)))
			continue;
		snprintf(total, sizeof(total), "trace_kswapd_freed_pages.node%d", n);
		if (!add_col(t, PS_TL_DELTA, G_U64, &v->kswapd_freed[n], NULL, 0, total, "trace.node%d.kswapd_freed", n))
			return -1;
	}
	return 0;
}

static void view_free(struct ps_replay *r, struct rp_view *v)
{
	ps_tl_free(&v->tl);
	if (v->trace != &r->cnt)
		free(v->trace);
	for (int zi = 0; v->marks && zi < r->mm.nr_zones; zi++)
		free(v->marks[zi]);
	free(v->marks);
	free(v);
}

void rp_view_destroy(struct ps_replay *r)
{
	if (r->view)
		view_free(r, r->view);
	r->view = NULL;
}

int ps_replay_set_view(struct ps_replay *r, const struct ps_replay_view *in, char *err, int len)
{
	struct rp_view *v = calloc(1, sizeof(*v));

	if (!v)
		goto nomem;
	v->v = *in;
	v->free_node = v->free_type = -1;
	if (r->o.mode == PS_REPLAY_FOLLOW) {
		v->trace = &r->cnt;	/* follow mode counts the trace's events as they are */
	} else {
		v->trace = malloc(sizeof(*v->trace));
		if (!v->trace)
			goto nomem;
		ps_counters_init(v->trace, r->tm ? r->tm : r->m, r->m->pageblock_order);
		v->trace->numa_rule = r->cnt.numa_rule;
	}
	if (in->interval_ns && r->last_ns > r->first_ns &&
	    (r->last_ns - r->first_ns) / in->interval_ns >= PS_TL_MAX_ROWS) {
		snprintf(err, len, "--timeline: the trace spans %.9g s: more than %llu rows of %.9g s; give a longer --interval",
			 (r->last_ns - r->first_ns) / 1e9, PS_TL_MAX_ROWS, in->interval_ns / 1e9);
		view_free(r, v);
		return -1;
	}
	if (in->interval_ns) {
		ps_tl_init(&v->tl, in->interval_ns, in->row, in->ctx);
		if (view_columns(r, v) < 0)
			goto nomem;
	}
	v->each = in->select || in->counted;
	if (in->fallback_marks) {
		v->marks = calloc(r->mm.nr_zones ? r->mm.nr_zones : 1, sizeof(*v->marks));
		if (!v->marks)
			goto nomem;
		for (int zi = 0; zi < r->mm.nr_zones; zi++)
			if (!(v->marks[zi] = calloc(r->mm.zones[zi].nr_pageblocks + 1, 1)))
				goto nomem;
	}
	rp_view_destroy(r);
	r->view = v;
	r->view_each = v->each;
	if (in->interval_ns && r->first_ns) {
		/* pass 1 saw the first event's time */
		ps_tl_start(&v->tl, r->first_ns);
		ps_timer_arm(&r->timers, PS_TIMER_SAMPLE, 0, ps_tl_row_end(&v->tl));
	}
	return 0;
nomem:
	if (v)
		view_free(r, v);
	snprintf(err, len, "out of memory");
	return -1;
}

const struct ps_timeline *ps_replay_timeline(const struct ps_replay *r)
{
	return r->view && r->view->v.interval_ns ? &r->view->tl : NULL;
}

/* A fallback at model pfn @ev->pfn: the pageblock stolen from or claimed. */
static void mark(struct ps_replay *r, const struct ps_event *ev)
{
	uint32_t idx;
	struct ps_zone *z = zone_of(r, ev->pfn, &idx);

	if (z)
		r->view->marks[z->index][idx >> z->pageblock_order] |= ev->change_ownership ? MARK_CLAIMED : MARK_STOLE;
}

void rp_view_extfrag(struct ps_replay *r, const struct ps_event *ev)
{
	if (r->view->marks)
		mark(r, ev);
}

/* The model's zone holding the block the trace's free @ev frees (before the free). */
static void free_zone(struct ps_replay *r, struct rp_view *v, const struct ps_event *ev)
{
	const struct ps_zone *z = NULL;
	uint32_t idx;

	if (r->o.mode == PS_REPLAY_FOLLOW) {
		z = zone_of(r, ev->pfn, &idx);
	} else {
		int ti = tzone_of(r, ev->pfn, &idx);
		uint32_t g = ti < 0 ? 0 : r->map[r->tz[ti].gbase + idx];

		if (MAP_IS_MODEL(g))
			z = ps_mm_zone_of_global(&r->mm, g - 1, &idx);
	}
	v->free_node = z ? z->node : -1;
	v->free_type = z ? z->type : -1;
}

/* The trace's own, of a selected event: its counters (simulate mode), the recorded kswapd's frees. */
static inline void trace_own(struct ps_replay *r, struct rp_view *v, const struct ps_event *ev)
{
	if (ev->type == PS_EV_FREE && ev->task == PS_TASK_KSWAPD && ev->task_node >= 0 && ev->order < PS_NR_PAGE_ORDERS)
		v->kswapd_freed[ev->task_node] += 1ull << ev->order;
	if (v->marks && ev->type == PS_EV_EXTFRAG && r->o.mode == PS_REPLAY_FOLLOW)
		mark(r, ev);	/* follow mode applies the kernel's own fallbacks */
}

void rp_view_before(struct ps_replay *r, const struct ps_event *ev)
{
	struct rp_view *v = r->view;

	v->sel = !v->v.select || v->v.select(v->v.ctx, ev);
	if (!v->sel) {
		ps_cnt_snap_take(&v->s_cnt, &r->cnt);
		ps_cnt_snap_take(&v->s_inv, &r->inv);
		if (v->marks && ev->type == PS_EV_EXTFRAG && r->o.mode == PS_REPLAY_FOLLOW)
			mark(r, ev);
		return;
	}
	if (v->v.counted) {
		ps_cnt_snap_take(&v->s_cnt, &r->cnt);
		ps_cnt_snap_take(&v->s_inv, &r->inv);
		v->s_failed = r->sim_alloc_failed;
		if (ev->type == PS_EV_FREE)
			free_zone(r, v, ev);
	}
	if (v->v.interval_ns && v->trace != &r->cnt)
		ps_counters_event(v->trace, ev);
	trace_own(r, v, ev);
}

/*
 * Without a filter or a breakdown, the trace's own counters are counted a
 * run at a time: event @i is replayed (the ticks due before it run, with the
 * counters holding the events before it), then the events from @i up to the
 * next tick are counted here and replayed.  As counting each in turn.
 */
int rp_view_run(struct ps_replay *r, const struct ps_event *evs, int i, int n)
{
	struct rp_view *v = r->view;
	uint64_t end = v->v.interval_ns && !v->tl.overflow ? ps_tl_row_end(&v->tl) : UINT64_MAX;
	int j = i + 1;

	while (j < n && evs[j].ts_ns < end)
		j++;
	if (v->v.interval_ns && v->trace != &r->cnt)
		ps_counters_batch(v->trace, evs + i, j - i);
	for (int k = i; k < j; k++)
		trace_own(r, v, &evs[k]);
	return j;
}

void rp_view_after(struct ps_replay *r, const struct ps_event *ev)
{
	struct rp_view *v = r->view;
	struct ps_counted d;

	if (!v->sel) {
		/* every event runs through the model; only the selected ones count */
		ps_cnt_snap_restore(&v->s_cnt, &r->cnt);
		ps_cnt_snap_restore(&v->s_inv, &r->inv);
		return;
	}
	if (!v->v.counted || (ev->type != PS_EV_ALLOC && ev->type != PS_EV_FREE))
		return;
	ps_counted_delta(&d, &r->cnt, &v->s_cnt);
	d.failed += r->sim_alloc_failed - v->s_failed;
	if (ev->type == PS_EV_FREE) {
		d.node = d.free_pages ? v->free_node : -1;
		d.zone_type = d.free_pages ? v->free_type : -1;
		if (d.free_pages && d.node < 0) {
			/* a page the bulk allocator handed out: replayed as its allocation, then freed */
			struct ps_counted inv;

			ps_counted_delta(&inv, &r->inv, &v->s_inv);
			d.node = inv.node;
			d.zone_type = inv.zone_type;
		}
	}
	d.cpu = ev->cpu < PS_MAX_CPUS && r->o.mode == PS_REPLAY_SIMULATE ? r->cpu_to_cpu[ev->cpu] : ev->cpu;
	v->v.counted(v->v.ctx, ev, &d);
}

void rp_view_tick(struct ps_replay *r)
{
	struct rp_view *v = r->view;

	if (ps_tl_emit(&v->tl) == 0)
		ps_timer_arm(&r->timers, PS_TIMER_SAMPLE, 0, ps_tl_row_end(&v->tl));
}

void ps_replay_view_finish(struct ps_replay *r)
{
	if (!r->view || !r->view->v.interval_ns)
		return;
	ps_timer_cancel(&r->timers, PS_TIMER_SAMPLE, 0);
	ps_tl_finish(&r->view->tl);
}

int ps_replay_view_counters(const struct ps_replay *r, struct ps_kv *kv)
{
	const struct rp_view *v = r->view;
	const struct ps_machine *tm = r->tm ? r->tm : r->m;
	char name[96];

	if (!v || !v->v.interval_ns)
		return 0;
	for (int n = 0; r->o.mode == PS_REPLAY_SIMULATE && n < r->m->nr_nodes && n < PS_MAX_NODES; n++) {
		if (!(r->m->node_online & (1ull << n)))
			continue;
		snprintf(name, sizeof(name), "model_kswapd_awake.node%d", n);
		PS_KV_SET(name, kswapd_awake(&r->mm, n));
	}
	for (int n = 0; n < tm->nr_nodes && n < PS_MAX_NODES; n++) {
		if (!(tm->node_online & (1ull << n)))
			continue;
		snprintf(name, sizeof(name), "trace_kswapd_freed_pages.node%d", n);
		PS_KV_SET(name, v->kswapd_freed[n]);
	}
	return 0;
}

/* show_migration_types()' letters, by PS_MT_* */
static const char mt_letter[PS_MIGRATE_TYPES] = { 'U', 'M', 'E', 'H', 'C', 'I' };

void ps_replay_write_pageblocks(const struct ps_replay *r, FILE *f)
{
	int pb = r->m->pageblock_order;
	const uint8_t *const *marks = r->view ? (const uint8_t *const *)r->view->marks : NULL;

	fprintf(f, "Page block order: %d\nPages per block:  %d\n\n", pb, 1 << pb);
	fprintf(f, "# types: one letter per pageblock, 64 to a line from the pfn given, up to the zone's\n"
		   "# present pages: U Unmovable, M Movable, E Reclaimable, H HighAtomic, C CMA, I Isolate;\n"
		   "# fallbacks%s: s stolen from (pages taken, the block kept its type), c claimed\n"
		   "# (change_ownership), b both, . none\n",
		marks ? "" : " (not kept)");
	for (int zi = 0; zi < r->mm.nr_zones; zi++) {
		const struct ps_zone *z = &r->mm.zones[zi];
		/* the model holds a zone's present pages from its span's start: the pageblocks up to there */
		uint32_t end = z->present_end < z->span_end ? z->present_end : z->span_end, b0, b1;

		if (end <= z->span_start)
			continue;
		b0 = z->span_start >> z->pageblock_order;
		b1 = ((end - 1) >> z->pageblock_order) + 1;
		fprintf(f, "Node %d, zone %8s\n", z->node, ps_zone_names[z->type]);
		for (int pass = 0; pass < (marks ? 2 : 1); pass++)
			for (uint32_t b = b0; b < b1; b += 64) {
				char line[65];
				int n = 0;

				for (uint32_t i = b; i < b1 && i < b + 64; i++) {
					if (pass)
						line[n++] = ".scb"[marks[zi][i] & 3];
					else
						line[n++] = z->pb_mt[i] < PS_MIGRATE_TYPES ? mt_letter[z->pb_mt[i]] : '?';
				}
				line[n] = 0;
				fprintf(f, "%-9s 0x%llx %s\n", pass ? "fallbacks" : "types",
					(unsigned long long)(z->start_pfn + ((uint64_t)b << z->pageblock_order)), line);
			}
	}
}
