// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_buddy.c - the buddy model (sim/mm/buddy.c): random allocation/free
 * sequences checked after every step against a naive per-page reference
 * allocator; deterministic split, merge and list-placement cases; and one
 * scenario per kernel profile reproducing that version's fallback decision
 * (docs/kernel-rules.md: Taking a block from the buddy, Freeing and merging, Fallbacks).
 *
 * Zones are 8192 pages from pfn 0x1000 with pageblock order 9 unless a case
 * says otherwise; index 0 of the model's arrays is pfn 0x1000.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/bytescan.h"
#include "sim/mm/buddy.h"
#include "sim/mm/profile.h"
#include "check.h"

#define PB 9
#define PBN (1u << PB)
#define U PS_MT_UNMOVABLE
#define M PS_MT_MOVABLE
#define R PS_MT_RECLAIMABLE
#define MAXO (PS_NR_PAGE_ORDERS - 1)

/* ---- helpers ---- */

/* extfrag events the model emitted during one call */
struct rec {
	const struct ps_zone *z;
	int n;
	struct ps_event ev[4];
	int nofrag[4];		/* z->nofragment when the event fired */
};

static void rec_fn(void *ctx, const struct ps_event *ev)
{
	struct rec *r = ctx;

	if (r->n < 4) {
		r->ev[r->n] = *ev;
		r->nofrag[r->n] = r->z->nofragment;
	}
	r->n++;
}

/* A zone of @spanned pages from @start, all pages allocated, every pageblock MOVABLE. */
static int zone_new(struct ps_zone *z, struct rec *r, const char *prof, uint64_t start,
		    uint64_t spanned)
{
	const struct ps_profile *p = ps_profile_by_name(prof);
	struct ps_zone_desc d;

	memset(&d, 0, sizeof(d));
	d.start_pfn = start;
	d.spanned = d.present = d.managed = spanned;
	d.wmark_high = 64;	/* small: a boost is one pageblock */
	if (!p || ps_zone_create(z, &d, 0, p, PB)) {
		fprintf(stderr, "cannot create a zone for profile %s\n", prof);
		exit(1);
	}
	memset(r, 0, sizeof(*r));
	r->z = z;
	z->extfrag = rec_fn;
	z->extfrag_ctx = r;
	return 0;
}

static void setup(struct ps_zone *z, struct rec *r, const char *prof)
{
	zone_new(z, r, prof, 0x1000, 8192);
}

static int zone_ok(const struct ps_zone *z)
{
	char msg[256];

	if (!ps_zone_check(z, msg, sizeof(msg)))
		return 1;
	fprintf(stderr, "ps_zone_check: %s\n", msg);
	return 0;
}

/* Is @idx the head of a free block of @order on list @mt? (ps_zone_check ties states to lists.) */
static int free_at(const struct ps_zone *z, uint32_t idx, int order, int mt)
{
	return z->state[idx] == PG_STATE(PG_FREE, 1, order) && z->mt[idx] == mt;
}

static int alloc_at(const struct ps_zone *z, uint32_t idx, int order, int mt)
{
	return z->state[idx] == PG_STATE(PG_ALLOC, 1, order) && z->mt[idx] == mt;
}

static void put(struct ps_zone *z, uint32_t idx, int order, int mt)
{
	ps_add_free(z, idx, order, mt, 0);
}

static void set_pb(struct ps_zone *z, uint32_t pb, int mt)
{
	ps_set_pageblock_mt(z, pb << PB, mt);
}

static int pb_mt(const struct ps_zone *z, uint32_t pb)
{
	return z->pb_mt[pb];
}

/* The blocks on list (@order, @mt), head first; returns how many (at most @max stored). */
static int list_get(const struct ps_zone *z, int order, int mt, uint32_t *out, int max)
{
	int n = 0;

	for (uint32_t i = z->free_area[order].free_list[mt].head; i != PS_NIL; i = z->next[i]) {
		if (n < max)
			out[n] = i;
		n++;
	}
	return n;
}

/* The extfrag event @r holds is exactly these fields. */
static int ev_is(const struct ps_zone *z, const struct rec *r, uint32_t idx, int order, int fo,
		 int start, int fb, int co)
{
	const struct ps_event *e = &r->ev[0];

	if (r->n != 1) {
		fprintf(stderr, "  %d extfrag events, expected 1\n", r->n);
		return 0;
	}
	if (e->type == PS_EV_EXTFRAG && e->pfn == z->start_pfn + idx && e->alloc_order == order &&
	    e->order == order && e->fallback_order == fo && e->alloc_migratetype == start &&
	    e->fallback_migratetype == fb && e->change_ownership == co)
		return 1;
	fprintf(stderr, "  extfrag pfn %#llx alloc_order %d fallback_order %d alloc_mt %d "
		"fallback_mt %d change_ownership %d; expected pfn %#llx %d %d %d %d %d\n",
		(unsigned long long)e->pfn, e->alloc_order, e->fallback_order, e->alloc_migratetype,
		e->fallback_migratetype, e->change_ownership,
		(unsigned long long)(z->start_pfn + idx), order, fo, start, fb, co);
	return 0;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint32_t below(uint64_t *s, uint32_t n)
{
	return (uint32_t)((rnd(s) >> 11) % n);
}

/* ---- random sequences against a reference ---- */

struct live {
	uint32_t idx;
	int order;
};

struct run {
	const char *prof;
	uint64_t seed;
	int step;
	struct ps_zone z;
	struct rec r;
	uint8_t *ref;		/* reference: 1 = free, 0 = allocated (or outside the span) */
	struct live *live;
	int nlive;
	uint64_t rng;
	long allocs, fails, events, frees, claims_seen;
};

static int run_fail(struct run *u, const char *what)
{
	fprintf(stderr, "%s seed %llu step %d: %s\n", u->prof, (unsigned long long)u->seed, u->step,
		what);
	return 0;
}

/* An aligned run of 2^order pages free in the reference. */
static int ref_has_range(const struct run *u, int order)
{
	uint32_t n = 1u << order;

	for (uint32_t b = 0; b + n <= u->z.nr_pages; b += n) {
		uint32_t i = 0;

		while (i < n && u->ref[b + i])
			i++;
		if (i == n)
			return 1;
	}
	return 0;
}

/*
 * Everything the model and the reference must agree on after a step: the
 * model's own invariants, every page free in exactly one of the two or in
 * neither, NR_FREE_PAGES, the merge invariant and (6.10+) free-list hygiene.
 */
static int full_check(struct run *u)
{
	const struct ps_zone *z = &u->z;
	int hygiene = z->prof->merge == PS_MERGE_RETYPE;
	uint64_t nfree = 0;
	char msg[300];

	if (ps_zone_check(z, msg, sizeof(msg)))
		return run_fail(u, msg);
	for (uint32_t i = 0; i < z->nr_pages; i++) {
		int k = PG_KIND(z->state[i]);

		if (k != PG_FREE && k != PG_ALLOC) {
			snprintf(msg, sizeof(msg), "page %u is of kind %d", i, k);
			return run_fail(u, msg);
		}
		if ((k == PG_FREE) != u->ref[i]) {
			snprintf(msg, sizeof(msg), "page %u: model %s, reference %s", i,
				 k == PG_FREE ? "free" : "allocated",
				 u->ref[i] ? "free" : "allocated");
			return run_fail(u, msg);
		}
		if (k == PG_FREE && (i < z->span_start || i >= z->span_end)) {
			snprintf(msg, sizeof(msg), "page %u outside the zone's span is free", i);
			return run_fail(u, msg);
		}
		nfree += k == PG_FREE;
	}
	if (nfree != z->nr_free_pages) {
		snprintf(msg, sizeof(msg), "nr_free_pages %llu, %llu pages free",
			 (unsigned long long)z->nr_free_pages, (unsigned long long)nfree);
		return run_fail(u, msg);
	}
	for (uint32_t i = 0; i < z->nr_pages; i += 1u << PG_ORDER(z->state[i])) {
		uint8_t s = z->state[i];
		int o = PG_ORDER(s);

		if (PG_KIND(s) != PG_FREE)
			continue;
		/*
		 * Merge invariant.  Below pageblock order it holds in every version;
		 * these runs have only UNMOVABLE/MOVABLE/RECLAIMABLE blocks (no
		 * isolation, HIGHATOMIC or CMA), which every version also merges at
		 * and above pageblock order.
		 */
		if (o < MAXO && z->state[i ^ (1u << o)] == PG_STATE(PG_FREE, 1, o)) {
			snprintf(msg, sizeof(msg), "free buddies %u and %u of order %d not merged",
				 i, i ^ (1u << o), o);
			return run_fail(u, msg);
		}
		/* 6.10+ hygiene: a free block sits on its pageblocks' type's list */
		for (uint32_t b = i; hygiene && b < i + (1u << o); b += PBN)
			if (ps_pageblock_mt(z, b) != z->mt[i]) {
				snprintf(msg, sizeof(msg),
					 "free block %u order %d on list %d in a block of type %d",
					 i, o, z->mt[i], ps_pageblock_mt(z, b));
				return run_fail(u, msg);
			}
	}
	return 1;
}

/* One allocation as replay does it (NOFRAGMENT first try, then without); checks the outcome. */
static int alloc_one(struct run *u, int order, int mt, int *mode, int nofrag)
{
	struct ps_zone *z = &u->z;
	int mode_before = mode ? *mode : 0;
	enum ps_fallback_style style = z->prof->fallback;
	char msg[300];
	uint32_t idx;

	u->r.n = 0;
	z->nofragment = nofrag;
	idx = ps_rmqueue(z, order, mt, mode);
	z->nofragment = 0;
	if (idx == PS_NIL && nofrag)
		idx = ps_rmqueue(z, order, mt, mode);
	u->allocs++;
	u->events += u->r.n;
	if (u->r.n > 1)
		return run_fail(u, "more than one extfrag event for one allocation");
	if (idx == PS_NIL) {
		u->fails++;
		if (u->r.n)
			return run_fail(u, "extfrag event for a failed allocation");
		/* a single call (or a batch's first) fails only if nothing that big is free */
		if (mode_before == 0 && ref_has_range(u, order)) {
			snprintf(msg, sizeof(msg), "order-%d type %d failed with memory free",
				 order, mt);
			return run_fail(u, msg);
		}
		return 1;
	}
	if ((idx & ((1u << order) - 1)) || idx < z->span_start ||
	    idx + (1u << order) > z->span_end || !alloc_at(z, idx, order, mt)) {
		snprintf(msg, sizeof(msg), "allocated block %u order %d type %d: state %#x mt %d",
			 idx, order, mt, z->state[idx], z->mt[idx]);
		return run_fail(u, msg);
	}
	for (uint32_t i = idx; i < idx + (1u << order); i++) {
		if (!u->ref[i]) {
			snprintf(msg, sizeof(msg), "page %u handed out twice", i);
			return run_fail(u, msg);
		}
		u->ref[i] = 0;
	}
	u->live[u->nlive].idx = idx;
	u->live[u->nlive++].order = order;
	if (u->r.n) {
		const struct ps_event *e = &u->r.ev[0];
		uint32_t eidx = (uint32_t)(e->pfn - z->start_pfn);
		int fo = e->fallback_order;
		uint32_t span = 1u << (fo > PB ? fo : PB);

		if (e->type != PS_EV_EXTFRAG || e->alloc_order != order ||
		    e->alloc_migratetype != mt || e->fallback_migratetype < 0 ||
		    e->fallback_migratetype >= PS_MIGRATE_PCPTYPES || e->fallback_migratetype == mt ||
		    fo < order || fo > MAXO)
			return run_fail(u, "extfrag fields do not describe this allocation");
		if (e->change_ownership != (ps_pageblock_mt(z, eidx) == mt))
			return run_fail(u, "extfrag change_ownership is not the pageblock's type");
		if (u->r.nofrag[0] && fo < PB)
			return run_fail(u, "fragmenting fallback under ALLOC_NOFRAGMENT");
		/* which page the event names (docs/kernel-rules.md, Tracepoints) */
		if (style == PS_FB_MOVE_RETRY) {
			if ((eidx & ((1u << fo) - 1)) ||
			    (eidx & ~(span - 1)) != (idx & ~(span - 1)))
				return run_fail(u, "extfrag pfn: not a block by the allocation");
		} else if (eidx != idx) {
			return run_fail(u, "extfrag pfn is not the allocated page");
		}
		if (mode && *mode != 0 && !mode_before && e->change_ownership)
			return run_fail(u, "a claim left the batch mode sticky");
		u->claims_seen += e->change_ownership;
	} else if (mode && *mode != 0) {
		return run_fail(u, "steal mode without a steal event");
	}
	return 1;
}

static int free_one(struct run *u)
{
	struct ps_zone *z = &u->z;
	int j = (int)below(&u->rng, (uint32_t)u->nlive);
	struct live l = u->live[j];

	if (!alloc_at(z, l.idx, l.order, z->mt[l.idx]))
		return run_fail(u, "a live block is not an allocated block head");
	ps_free_block(z, l.idx, l.order);
	for (uint32_t i = l.idx; i < l.idx + (1u << l.order); i++)
		u->ref[i] = 1;
	u->live[j] = u->live[--u->nlive];
	u->frees++;
	return 1;
}

/*
 * @steps random allocations (order 0..4, type 0..2; NOFRAGMENT on half of
 * them where the profile has it; 6.15+: some rmqueue_bulk-style batches
 * sharing one mode) and frees of random live blocks, in phases that fill
 * the zone until an allocation fails and then drain it, from a zone whose
 * pageblocks have random types and whose span was freed page by page in
 * random order.
 */
static void random_run(const char *prof, uint64_t seed, uint64_t start, uint64_t spanned, int steps)
{
	struct run u;
	struct ps_zone *z = &u.z;
	uint32_t *perm, nspan;
	int ok = 1, filling = 1, drain_until = 0;

	memset(&u, 0, sizeof(u));
	u.prof = prof;
	u.seed = seed;
	u.rng = seed * 0x9e3779b97f4a7c15ull + 1;
	zone_new(z, &u.r, prof, start, spanned);
	u.ref = calloc(z->nr_pages, 1);
	u.live = calloc(z->nr_pages, sizeof(*u.live));
	nspan = z->span_end - z->span_start;
	perm = malloc(nspan * sizeof(*perm));
	if (!u.ref || !u.live || !perm) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (uint32_t b = 0; b < z->nr_pageblocks; b++)
		set_pb(z, b, (int)below(&u.rng, 3));
	for (uint32_t i = 0; i < nspan; i++)
		perm[i] = z->span_start + i;
	for (uint32_t i = nspan - 1; i > 0; i--) {
		uint32_t j = below(&u.rng, i + 1), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (uint32_t i = 0; i < nspan; i++) {
		ps_free_one_page(z, perm[i], 0, ps_pageblock_mt(z, perm[i]), 0);
		u.ref[perm[i]] = 1;
	}
	free(perm);
	ok = full_check(&u);
	for (u.step = 0; ok && u.step < steps; u.step++) {
		int order = (int)below(&u.rng, 5), mt = (int)below(&u.rng, 3);
		long fails = u.fails;

		/* fill until an allocation fails, then drain for 300 steps */
		if (!filling && u.step >= drain_until)
			filling = 1;
		if (u.nlive && below(&u.rng, 100) >= (filling ? 95u : 20u)) {
			ok = free_one(&u);
		} else if (z->prof->bulk_sticky && below(&u.rng, 8) == 0) {
			int mode = 0;	/* RMQUEUE_NORMAL: a new batch */

			for (int k = 0; ok && k < 8; k++) {
				int before = u.nlive;

				ok = alloc_one(&u, 0, mt, &mode, 0);
				if (u.nlive == before)
					break;
			}
		} else {
			int nofrag = z->prof->nofragment && below(&u.rng, 2);

			ok = alloc_one(&u, order, mt, NULL, nofrag);
		}
		if (filling && u.fails > fails) {
			filling = 0;
			drain_until = u.step + 300;
		}
		if (ok)
			ok = full_check(&u);
	}
	CHECK(ok);
	CHECK_EQ(z->fallbacks, u.events);
	/* the sequences must reach the cases they are meant to check */
	CHECK(u.fails > 0);
	CHECK(u.events > 20);
	CHECK(u.claims_seen > 0);
	CHECK(u.frees > steps / 10);
	if (!ok || getenv("TEST_BUDDY_VERBOSE"))
		fprintf(stderr, "%s seed %llu: %ld allocations (%ld failed), %ld frees, "
			"%ld extfrag (%ld change_ownership)\n", prof, (unsigned long long)seed,
			u.allocs, u.fails, u.frees, u.events, u.claims_seen);
	free(u.ref);
	free(u.live);
	ps_zone_destroy(z);
}

/* ---- deterministic split, merge and placement ---- */

static void test_merge_up(const char *prof)
{
	struct ps_zone z;
	struct rec r;
	uint32_t heads[16];

	/* order-0 frees in ascending pfn order merge into order-10 blocks */
	setup(&z, &r, prof);
	for (uint32_t i = 0; i < 8192; i++)
		ps_free_one_page(&z, i, 0, M, 0);
	CHECK(zone_ok(&z));
	for (int o = 0; o < MAXO; o++)
		CHECK_EQ(z.free_area[o].nr_free, 0);
	CHECK_EQ(z.free_area[MAXO].nr_free, 8);
	CHECK_EQ(list_get(&z, MAXO, M, heads, 16), 8);
	for (int k = 0; k < 8; k++)
		CHECK_EQ(heads[k] % 1024, 0);
	CHECK_EQ(z.nr_free_pages, 8192);
	ps_zone_destroy(&z);

	/* [512, 1024) becomes one order-9 block, then [0, 512) completes order 10 */
	setup(&z, &r, prof);
	for (uint32_t i = 1023; i >= 512; i--)
		ps_free_one_page(&z, i, 0, M, 0);
	CHECK(free_at(&z, 512, 9, M));
	CHECK_EQ(z.free_area[9].nr_free, 1);
	CHECK_EQ(z.nr_free_pages, 512);
	for (uint32_t i = 0; i < 512; i++)
		ps_free_one_page(&z, i, 0, M, 0);
	CHECK(free_at(&z, 0, 10, M));
	CHECK_EQ(z.free_area[9].nr_free, 0);
	CHECK_EQ(z.free_area[10].nr_free, 1);
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);
}

static void test_expand(void)
{
	struct ps_zone z;
	struct rec r;
	uint32_t idx;

	/* order 0 from an order-3 block: the lowest page; 9 (o0), 10 (o1), 12 (o2) stay free */
	setup(&z, &r, "6.18");
	put(&z, 8, 3, M);
	idx = ps_rmqueue(&z, 0, M, NULL);
	CHECK_EQ(idx, 8);
	CHECK(alloc_at(&z, 8, 0, M));
	CHECK(free_at(&z, 9, 0, M));
	CHECK(free_at(&z, 10, 1, M));
	CHECK(free_at(&z, 12, 2, M));
	CHECK_EQ(z.free_area[3].nr_free, 0);
	CHECK_EQ(z.nr_free_pages, 7);
	CHECK_EQ(r.n, 0);
	/* the next order-1 request takes the order-1 remainder, not a split of the order-2 one */
	CHECK_EQ(ps_rmqueue(&z, 1, M, NULL), 10);
	CHECK_EQ(ps_rmqueue(&z, 2, M, NULL), 12);
	CHECK_EQ(ps_rmqueue(&z, 0, M, NULL), 9);
	CHECK_EQ(ps_rmqueue(&z, 0, M, NULL), PS_NIL);
	CHECK_EQ(z.nr_free_pages, 0);
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);
}

/*
 * Follow mode's moves: the kernel took a block out of the middle of a free
 * one (ps_zone_take_free, ps_zone_take_free_at), and frees a range of an
 * allocated block of another shape (ps_zone_reshape_alloc).
 */
static void test_take_free(void)
{
	struct ps_zone z;
	struct rec r;
	uint32_t h;
	int k;

	/* page 13 of the free order-3 block at 8: 8 (o2) and 14 (o1) and 12 (o0) stay free, on its list */
	setup(&z, &r, "6.1");
	put(&z, 8, 3, R);
	CHECK_EQ(ps_zone_take_free(&z, 13, 0), 0);
	CHECK(alloc_at(&z, 13, 0, R));
	CHECK(free_at(&z, 8, 2, R));
	CHECK(free_at(&z, 14, 1, R));
	CHECK(free_at(&z, 12, 0, R));
	CHECK_EQ(z.free_area[3].nr_free, 0);
	CHECK_EQ(z.nr_free_pages, 7);
	CHECK(zone_ok(&z));
	/* a page that is not free, and a block larger than the free one holding it: refused, nothing changed */
	CHECK_EQ(ps_zone_take_free(&z, 13, 0), -1);
	CHECK_EQ(ps_zone_take_free(&z, 8, 3), -1);
	CHECK_EQ(z.nr_free_pages, 7);
	/* _at leaves the taken pages' marking to the caller and returns the list type */
	CHECK_EQ(ps_zone_block_of(&z, 10, &h, &k), PG_FREE);
	CHECK_EQ(h, 8);
	CHECK_EQ(k, 2);
	CHECK_EQ(ps_zone_take_free_at(&z, 10, 1, h, k), R);
	ps_zone_mark(&z, 10, 1, PG_PCP, M);
	CHECK(free_at(&z, 8, 1, R));
	CHECK_EQ(z.state[10], PG_STATE(PG_PCP, 1, 1));
	CHECK_EQ(z.nr_free_pages, 5);
	ps_zone_mark(&z, 10, 1, PG_ALLOC, M);
	/* frees of another shape: order 0 of an order-1 block cuts it; order 0 of an order-0 page is as it was */
	CHECK_EQ(ps_zone_reshape_alloc(&z, 11, 0), 0);
	CHECK(alloc_at(&z, 10, 0, M));
	CHECK(alloc_at(&z, 11, 0, M));
	CHECK_EQ(ps_zone_reshape_alloc(&z, 13, 0), 0);
	CHECK(alloc_at(&z, 13, 0, R));
	/* two order-0 pages as one order-1 block; a range holding a free page is refused */
	CHECK_EQ(ps_zone_reshape_alloc(&z, 10, 1), 0);
	CHECK(alloc_at(&z, 10, 1, M));
	CHECK_EQ(ps_zone_reshape_alloc(&z, 12, 1), -1);
	CHECK(free_at(&z, 12, 0, R));
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);
}

static void test_merge_likely(const char *prof)
{
	struct ps_zone z;
	struct rec r;
	uint32_t l[4];
	int fpi = ps_profile_by_name(prof)->fpi_tail;

	setup(&z, &r, prof);
	put(&z, 64, 0, M);		/* something already on the order-0 list */
	put(&z, 2, 1, M);		/* the parent's buddy: [0,2)'s buddy at order 1 */
	ps_free_one_page(&z, 0, 0, M, 0);	/* buddy 1 allocated: stays order 0, merge likely */
	CHECK_EQ(list_get(&z, 0, M, l, 4), 2);
	CHECK_EQ(l[0], 64);
	CHECK_EQ(l[1], 0);
	ps_free_one_page(&z, 128, 0, M, 0);	/* no free parent's buddy: head */
	CHECK_EQ(list_get(&z, 0, M, l, 4), 3);
	CHECK_EQ(l[0], 128);
	CHECK_EQ(l[2], 0);
	/* page 1 completes [0,2), which merges with [2,4) */
	ps_free_one_page(&z, 1, 0, M, 0);
	CHECK(free_at(&z, 0, 2, M));
	CHECK_EQ(z.free_area[1].nr_free, 0);
	CHECK_EQ(list_get(&z, 0, M, l, 4), 2);
	/* FPI_TO_TAIL (5.10+) */
	ps_free_one_page(&z, 256, 0, M, 1);
	CHECK_EQ(list_get(&z, 0, M, l, 4), 3);
	CHECK_EQ(fpi ? l[2] : l[0], 256);
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);

	/* the heuristic runs only below order MAX-2: order 8 goes to the tail, 9 to the head */
	setup(&z, &r, prof);
	put(&z, 512, 9, M);		/* parent's buddy at order 9 for [0,256)+[256,512) */
	put(&z, 4096 + 256, 8, M);	/* something on the order-8 list */
	ps_free_one_page(&z, 0, 8, M, 0);
	CHECK_EQ(list_get(&z, 8, M, l, 4), 2);
	CHECK_EQ(l[1], 0);
	put(&z, 2048 + 1024, 10, M);	/* parent's buddy at order 10 for [2048,2560)+[2560,3072) */
	ps_free_one_page(&z, 2048, 9, M, 0);
	CHECK_EQ(list_get(&z, 9, M, l, 4), 2);
	CHECK_EQ(l[0], 2048);
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);
}

/* start_pfn 0x1001: the arrays start at 0x1000; page 0 and pages past the span stay allocated */
static void test_unaligned(void)
{
	struct ps_zone z;
	struct rec r;
	uint64_t s = 7;
	uint32_t order[8193];

	zone_new(&z, &r, "6.18", 0x1001, 8192);
	CHECK_EQ(z.start_pfn, 0x1000);
	CHECK_EQ(z.span_start, 1);
	CHECK_EQ(z.span_end, 8193);
	CHECK_EQ(z.nr_pages, 9216);
	for (uint32_t i = 0; i < 8192; i++)
		order[i] = i + 1;
	for (uint32_t i = 8191; i > 0; i--) {
		uint32_t j = below(&s, i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (uint32_t i = 0; i < 8192; i++)
		ps_free_block(&z, order[i], 0);
	CHECK(zone_ok(&z));
	CHECK_EQ(z.nr_free_pages, 8192);
	CHECK(alloc_at(&z, 0, 0, 0xff));
	for (uint32_t i = 8193; i < 9216; i++)
		CHECK(z.state[i] == PG_STATE(PG_ALLOC, 1, 0));
	/* [1, 1024): one block of each order 0..9; [1024, 8192): seven of order 10; 8192 alone */
	for (int o = 0; o < MAXO; o++)
		CHECK(free_at(&z, o ? 1u << o : 1, o, M));
	CHECK_EQ(z.free_area[0].nr_free, 2);
	CHECK(free_at(&z, 8192, 0, M));
	for (int o = 1; o < MAXO; o++)
		CHECK_EQ(z.free_area[o].nr_free, 1);
	CHECK_EQ(z.free_area[MAXO].nr_free, 7);
	/* taking everything never hands out a page outside the span */
	for (int o = MAXO; o >= 0; o--) {
		uint32_t idx;

		while ((idx = ps_rmqueue(&z, o, M, NULL)) != PS_NIL)
			CHECK(idx >= 1 && idx + (1u << o) <= 8193);
	}
	CHECK_EQ(z.nr_free_pages, 0);
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);
}

/* Merging at and above pageblock order and large frees (docs/kernel-rules.md, Freeing and merging). */
static void test_merge_rules(void)
{
	static const char *const profs[] = { "4.4", "5.10", "6.10" };
	struct ps_zone z;
	struct rec r;

	for (int i = 0; i < 3; i++) {
		int v = i;	/* 0: 4.4 merges all but isolated; 1: 5.18-6.9 rule; 2: + re-type */

		/* HIGHATOMIC next to MOVABLE: merged only before ~5.18 */
		setup(&z, &r, profs[i]);
		set_pb(&z, 0, PS_MT_HIGHATOMIC);
		put(&z, 0, 9, PS_MT_HIGHATOMIC);
		ps_free_one_page(&z, 512, 9, M, 0);
		if (v == 0) {
			CHECK(free_at(&z, 0, 10, M));
		} else {
			CHECK(free_at(&z, 0, 9, PS_MT_HIGHATOMIC));
			CHECK(free_at(&z, 512, 9, M));
		}
		CHECK(zone_ok(&z));
		ps_zone_destroy(&z);

		/* UNMOVABLE next to MOVABLE: merged; 6.10+ re-types the buddy's block */
		setup(&z, &r, profs[i]);
		set_pb(&z, 0, U);
		put(&z, 0, 9, U);
		ps_free_one_page(&z, 512, 9, M, 0);
		CHECK(free_at(&z, 0, 10, M));
		CHECK_EQ(pb_mt(&z, 0), v == 2 ? M : U);
		CHECK(zone_ok(&z));
		ps_zone_destroy(&z);

		/* an order-10 free over an UNMOVABLE and a MOVABLE block */
		setup(&z, &r, profs[i]);
		set_pb(&z, 0, U);
		ps_zone_mark(&z, 0, 10, PG_ALLOC, U);
		ps_free_block(&z, 0, 10);
		if (v == 2) {
			/* split per pageblock, each with its type; the re-merge re-types block 0 */
			CHECK(free_at(&z, 0, 10, M));
			CHECK_EQ(pb_mt(&z, 0), M);
		} else {
			/* the head block's type for the whole block */
			CHECK(free_at(&z, 0, 10, U));
			CHECK_EQ(pb_mt(&z, 0), U);
			CHECK_EQ(pb_mt(&z, 1), M);
		}
		CHECK(zone_ok(&z));
		ps_zone_destroy(&z);
	}

	/* 4.0-4.5: an ISOLATE free stops at pageblock order; 4.6+ stops only next to isolation */
	setup(&z, &r, "4.0");
	set_pb(&z, 0, PS_MT_ISOLATE);
	put(&z, 512, 9, M);
	ps_free_one_page(&z, 0, 9, PS_MT_ISOLATE, 0);
	CHECK(free_at(&z, 0, 9, PS_MT_ISOLATE));
	CHECK(free_at(&z, 512, 9, M));
	ps_zone_destroy(&z);
	setup(&z, &r, "4.4");
	set_pb(&z, 0, PS_MT_ISOLATE);
	put(&z, 512, 9, M);
	ps_free_one_page(&z, 0, 9, PS_MT_ISOLATE, 0);
	CHECK(free_at(&z, 0, 9, PS_MT_ISOLATE));
	set_pb(&z, 2, U);
	put(&z, 1024, 9, U);
	ps_free_one_page(&z, 1536, 9, M, 0);	/* isolated blocks exist, but neither side is one */
	CHECK(free_at(&z, 1024, 10, M));
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);
}

/* ---- per-profile fallback decisions ---- */

/*
 * 4.0-4.11: largest first; move the block if can steal; claim iff >= 256
 * moved; the found page is returned.
 */
static void test_steal_return(const char *prof)
{
	struct ps_zone z;
	struct rec r;

	/* claimed: the order-8 block and an order-2 block = 260 free pages in pageblock 1 */
	setup(&z, &r, prof);
	put(&z, 1000, 2, M);
	put(&z, 512, 8, M);
	set_pb(&z, 4, R);
	put(&z, 2048, 4, R);	/* RECLAIMABLE comes first in UNMOVABLE's table, but is smaller */
	CHECK_EQ(ps_rmqueue(&z, 0, U, NULL), 512);
	CHECK(alloc_at(&z, 512, 0, U));
	CHECK_EQ(pb_mt(&z, 1), U);
	for (int o = 0; o < 8; o++)
		CHECK(free_at(&z, 512 + (1u << o), o, U));
	CHECK(free_at(&z, 1000, 2, U));
	CHECK(free_at(&z, 2048, 4, R));
	CHECK(ev_is(&z, &r, 512, 0, 8, U, M, 1));
	CHECK_EQ(z.watermark_boost, 0);
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);

	/* 132 free pages: moved to UNMOVABLE's lists all the same, but the block stays MOVABLE */
	setup(&z, &r, prof);
	put(&z, 1000, 2, M);
	put(&z, 512, 7, M);
	CHECK_EQ(ps_rmqueue(&z, 0, U, NULL), 512);
	CHECK_EQ(pb_mt(&z, 1), M);
	for (int o = 0; o < 7; o++)
		CHECK(free_at(&z, 512 + (1u << o), o, U));
	CHECK(free_at(&z, 1000, 2, U));
	CHECK(ev_is(&z, &r, 512, 0, 7, U, M, 0));
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);

	/* MOVABLE request, fallback blocks of order <= 3 (cannot steal): largest, nothing moved */
	setup(&z, &r, prof);
	set_pb(&z, 2, U);
	put(&z, 1100, 1, U);
	put(&z, 1024, 3, U);
	CHECK_EQ(ps_rmqueue(&z, 0, M, NULL), 1024);
	CHECK(free_at(&z, 1025, 0, M));
	CHECK(free_at(&z, 1026, 1, M));
	CHECK(free_at(&z, 1028, 2, M));
	CHECK(free_at(&z, 1100, 1, U));
	CHECK_EQ(pb_mt(&z, 2), U);
	CHECK(ev_is(&z, &r, 1024, 0, 3, M, U, 0));
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);

	/*
	 * Zone end: a pageblock whose last page lies outside the zone moves
	 * nothing (move_freepages_block returns 0, 4.0-6.9), so 400 free pages
	 * in the block's in-zone part do not get it claimed.
	 */
	zone_new(&z, &r, prof, 0x1000, 8192 + 400);
	put(&z, 8576, 4, M);
	put(&z, 8448, 7, M);
	put(&z, 8192, 8, M);
	CHECK_EQ(ps_rmqueue(&z, 0, U, NULL), 8192);
	CHECK_EQ(pb_mt(&z, 16), M);
	CHECK(free_at(&z, 8448, 7, M));
	CHECK(free_at(&z, 8576, 4, M));
	CHECK(free_at(&z, 8193, 0, U));
	CHECK(ev_is(&z, &r, 8192, 0, 8, U, M, 0));
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);

	/*
	 * Zone start: a pageblock whose first page lies outside the zone is
	 * scanned from the found page on; the 255 free pages below it stay.
	 */
	zone_new(&z, &r, prof, 0x1001, 8192);
	set_pb(&z, 0, U);
	for (int o = 0; o < 8; o++)
		put(&z, o ? 1u << o : 1, o, U);
	put(&z, 256, 7, U);
	CHECK_EQ(ps_rmqueue(&z, 0, R, NULL), 256);
	CHECK_EQ(pb_mt(&z, 0), U);
	CHECK(free_at(&z, 1, 0, U));
	CHECK(free_at(&z, 128, 7, U));
	CHECK(free_at(&z, 257, 0, R));
	CHECK(ev_is(&z, &r, 256, 0, 7, R, U, 0));
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);
}

/* 4.12+: claim iff free + alike >= 256; the block moves either way; retry takes the smallest. */
static void test_alike(void)
{
	struct ps_zone z;
	struct rec r;

	for (int movable = 200; movable >= 100; movable -= 100) {
		int claimed = movable == 200;	/* 100 free + 200 alike >= 256; 100 + 100 is not */

		setup(&z, &r, "4.12");
		set_pb(&z, 1, U);
		put(&z, 608, 2, U);
		put(&z, 576, 5, U);
		put(&z, 512, 6, U);
		for (uint32_t i = 700; i < 700u + movable; i++)
			ps_zone_mark(&z, i, 0, PG_ALLOC, M);
		CHECK_EQ(ps_rmqueue(&z, 0, M, NULL), 608);
		CHECK_EQ(pb_mt(&z, 1), claimed ? M : U);
		CHECK(free_at(&z, 512, 6, M));
		CHECK(free_at(&z, 576, 5, M));
		CHECK(free_at(&z, 609, 0, M));
		CHECK(free_at(&z, 610, 1, M));
		/* the event names the found block, not the allocated one */
		CHECK(ev_is(&z, &r, 512, 0, 6, M, U, claimed));
		CHECK(zone_ok(&z));
		ps_zone_destroy(&z);
	}

	/* 4.4 with 200 movable pages: only free pages count; the found page itself is returned */
	setup(&z, &r, "4.4");
	set_pb(&z, 1, U);
	put(&z, 608, 2, U);
	put(&z, 576, 5, U);
	put(&z, 512, 6, U);
	for (uint32_t i = 700; i < 900; i++)
		ps_zone_mark(&z, i, 0, PG_ALLOC, M);
	CHECK_EQ(ps_rmqueue(&z, 0, M, NULL), 512);
	CHECK_EQ(pb_mt(&z, 1), U);
	CHECK(ev_is(&z, &r, 512, 0, 6, M, U, 0));
	ps_zone_destroy(&z);

	/* UNMOVABLE into a MOVABLE block: alike = 512 - free - movable */
	for (int movable = 300; movable >= 100; movable -= 200) {
		/* 100 + (512-100-300) = 212; 100 + (512-100-100) = 412 */
		int claimed = movable == 100;

		setup(&z, &r, "4.12");
		put(&z, 608, 2, M);
		put(&z, 576, 5, M);
		put(&z, 512, 6, M);
		for (uint32_t i = 640; i < 640u + movable; i++)
			ps_zone_mark(&z, i, 0, PG_ALLOC, M);
		CHECK_EQ(ps_rmqueue(&z, 0, U, NULL), 608);
		CHECK_EQ(pb_mt(&z, 1), claimed ? U : M);
		CHECK(free_at(&z, 512, 6, U));
		CHECK(ev_is(&z, &r, 512, 0, 6, U, M, claimed));
		CHECK(zone_ok(&z));
		ps_zone_destroy(&z);
	}

	/* 4.12 zone start: scan from the found page: 128 free < 256, no claim, lower blocks stay */
	zone_new(&z, &r, "4.12", 0x1001, 8192);
	set_pb(&z, 0, U);
	for (int o = 0; o < 8; o++)
		put(&z, o ? 1u << o : 1, o, U);
	put(&z, 256, 7, U);
	CHECK_EQ(ps_rmqueue(&z, 0, R, NULL), 256);
	CHECK_EQ(pb_mt(&z, 0), U);
	CHECK(free_at(&z, 1, 0, U));
	CHECK(free_at(&z, 128, 7, U));
	CHECK(free_at(&z, 257, 0, R));
	CHECK(ev_is(&z, &r, 256, 0, 7, R, U, 0));
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);
}

/* 4.13+: a MOVABLE request with only order <= 3 fallback blocks takes the smallest. */
static void test_movable_smallest(void)
{
	struct ps_zone z;
	struct rec r;

	setup(&z, &r, "4.13");
	set_pb(&z, 2, U);
	put(&z, 1024, 3, U);
	put(&z, 1100, 1, U);
	CHECK_EQ(ps_rmqueue(&z, 0, M, NULL), 1100);
	CHECK(free_at(&z, 1101, 0, M));
	CHECK(free_at(&z, 1024, 3, U));
	CHECK_EQ(pb_mt(&z, 2), U);
	CHECK(ev_is(&z, &r, 1100, 0, 1, M, U, 0));
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);

	/* 4.12 has no such rule: the order-3 block */
	setup(&z, &r, "4.12");
	set_pb(&z, 2, U);
	put(&z, 1024, 3, U);
	put(&z, 1100, 1, U);
	CHECK_EQ(ps_rmqueue(&z, 0, M, NULL), 1024);
	CHECK(free_at(&z, 1025, 0, M));
	CHECK(free_at(&z, 1028, 2, M));
	CHECK(free_at(&z, 1100, 1, U));
	CHECK(ev_is(&z, &r, 1024, 0, 3, M, U, 0));
	ps_zone_destroy(&z);

	/* with an order-4 block anywhere, 4.13 goes largest first and moves its pageblock */
	setup(&z, &r, "4.13");
	set_pb(&z, 2, U);
	set_pb(&z, 3, U);
	put(&z, 1024, 3, U);
	put(&z, 1100, 1, U);
	put(&z, 1600, 2, U);
	put(&z, 1536, 4, U);
	CHECK_EQ(ps_rmqueue(&z, 0, M, NULL), 1600);	/* smallest after the move of block 3 */
	CHECK(free_at(&z, 1536, 4, M));
	CHECK(free_at(&z, 1100, 1, U));
	CHECK(free_at(&z, 1024, 3, U));
	CHECK_EQ(pb_mt(&z, 3), U);
	CHECK(ev_is(&z, &r, 1536, 0, 4, M, U, 0));
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);
}

/* 5.0+: a fragmenting fallback raises the boost by one pageblock, up to max(512, high * 1.5). */
static void test_boost(void)
{
	struct ps_zone z;
	struct rec r;
	static const long want[] = { 512, 1024, 1500, 1500 };

	setup(&z, &r, "5.0");
	z.wmark_high = 1000;
	for (uint32_t b = 1; b <= 4; b++)
		put(&z, b * PBN, 3, M);
	for (int k = 0; k < 4; k++) {
		r.n = 0;
		CHECK(ps_rmqueue(&z, 3, U, NULL) != PS_NIL);
		CHECK_EQ(r.n, 1);
		CHECK_EQ(z.watermark_boost, want[k]);
	}
	CHECK_EQ(z.boosts, 4);
	CHECK_EQ(z.fallbacks_fragmenting, 4);
	ps_zone_destroy(&z);

	/* a small high watermark (64 * 1.5 = 96): bounded by one pageblock */
	setup(&z, &r, "5.0");
	put(&z, PBN, 3, M);
	put(&z, 2 * PBN, 3, M);
	ps_rmqueue(&z, 3, U, NULL);
	ps_rmqueue(&z, 3, U, NULL);
	CHECK_EQ(z.watermark_boost, 512);
	CHECK_EQ(z.boosts, 2);
	ps_zone_destroy(&z);

	/*
	 * high watermark 0 (not yet set up): boost_watermark's !max_boost exit,
	 * so no boost and no ZONE_BOOSTED_WATERMARK
	 */
	setup(&z, &r, "5.0");
	z.wmark_high = 0;
	put(&z, PBN, 3, M);
	ps_rmqueue(&z, 3, U, NULL);
	CHECK_EQ(r.n, 1);
	CHECK_EQ(z.watermark_boost, 0);
	CHECK_EQ(z.boosts, 0);
	ps_zone_destroy(&z);

	/* a whole free pageblock is claimed: not fragmenting, no boost */
	setup(&z, &r, "5.0");
	put(&z, 2048, 9, M);
	CHECK_EQ(ps_rmqueue(&z, 0, U, NULL), 2048);
	CHECK_EQ(pb_mt(&z, 4), U);
	CHECK(ev_is(&z, &r, 2048, 0, 9, U, M, 1));
	CHECK_EQ(z.watermark_boost, 0);
	ps_zone_destroy(&z);

	/* vm.watermark_boost_factor = 0 disables boosting */
	setup(&z, &r, "5.0");
	z.boost_factor = 0;
	put(&z, PBN, 3, M);
	ps_rmqueue(&z, 3, U, NULL);
	CHECK_EQ(r.n, 1);
	CHECK_EQ(z.watermark_boost, 0);
	ps_zone_destroy(&z);

	/* no boost before 5.0, nor from 5.7 in a zone of fewer than 4 pageblocks of managed pages */
	setup(&z, &r, "4.13");
	put(&z, PBN, 3, M);
	ps_rmqueue(&z, 3, U, NULL);
	CHECK_EQ(r.n, 1);
	CHECK_EQ(z.watermark_boost, 0);
	ps_zone_destroy(&z);
	setup(&z, &r, "5.10");
	z.managed = 4 * PBN - 1;
	put(&z, PBN, 3, M);
	ps_rmqueue(&z, 3, U, NULL);
	CHECK_EQ(r.n, 1);
	CHECK_EQ(z.watermark_boost, 0);
	ps_zone_destroy(&z);
	setup(&z, &r, "5.0");
	z.managed = 4 * PBN - 1;
	put(&z, PBN, 3, M);
	ps_rmqueue(&z, 3, U, NULL);
	CHECK_EQ(r.n, 1);
	CHECK_EQ(z.watermark_boost, 512);
	ps_zone_destroy(&z);
}

/* Pageblock 0 UNMOVABLE: 8 (o3), 100 (o2), 306 (o1), 301 (o0) on UNMOVABLE's lists: 15 pages. */
static void small_unmovable_block(struct ps_zone *z)
{
	set_pb(z, 0, U);
	put(z, 301, 0, U);
	put(z, 306, 1, U);
	put(z, 100, 2, U);
	put(z, 8, 3, U);
}

/* 6.10-6.14: claim and take the smallest, or take the found page keeping fb's lists. */
/*
 * ps_zone_check skips runs of allocated order-0 pages a word at a time:
 * a damaged page anywhere in such a run, or just past it, is still found.
 * And ps_bytes_skip against a byte-by-byte scan, from every alignment.
 */
static void test_check_runs(void)
{
	static const uint32_t at[] = { 0, 1, 7, 8, 9, 63, 64, 4095, 4096, 8190, 8191 };
	uint8_t a[64];
	struct ps_zone z;
	struct rec r;
	char msg[200];

	setup(&z, &r, "6.18");
	CHECK_EQ(ps_zone_check(&z, msg, sizeof(msg)), 0);
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		uint8_t keep = z.state[at[i]];

		z.state[at[i]] = PG_STATE(PG_ALLOC, 0, 0);	/* a tail with no head */
		CHECK_EQ(ps_zone_check(&z, msg, sizeof(msg)), -1);
		z.state[at[i]] = PG_STATE(PG_FREE, 1, 0);	/* free, on no list */
		CHECK_EQ(ps_zone_check(&z, msg, sizeof(msg)), -1);
		z.state[at[i]] = keep;
	}
	CHECK_EQ(ps_zone_check(&z, msg, sizeof(msg)), 0);
	ps_zone_destroy(&z);

	for (int from = 0; from < 16; from++)
		for (int stop = from; stop <= 64; stop++)
			for (int odd = from; odd <= stop; odd++) {
				int want = odd;

				memset(a, 0x20, sizeof(a));
				if (odd < 64)
					a[odd] = 0x21;
				if (want > stop)
					want = stop;
				CHECK_EQ(ps_bytes_skip(a, from, stop, 0x20), want);
			}
}

static void test_hygiene(void)
{
	struct ps_zone z;
	struct rec r;
	uint32_t l[4];

	/* RECLAIMABLE into an UNMOVABLE block with 15 free pages: single-page steal */
	setup(&z, &r, "6.10");
	small_unmovable_block(&z);
	CHECK_EQ(ps_rmqueue(&z, 0, R, NULL), 8);
	CHECK(alloc_at(&z, 8, 0, R));
	CHECK_EQ(pb_mt(&z, 0), U);
	/* remainders at the head of UNMOVABLE's lists; nothing else moved */
	CHECK_EQ(list_get(&z, 2, U, l, 4), 2);
	CHECK(l[0] == 12 && l[1] == 100);
	CHECK_EQ(list_get(&z, 1, U, l, 4), 2);
	CHECK(l[0] == 10 && l[1] == 306);
	CHECK_EQ(list_get(&z, 0, U, l, 4), 2);
	CHECK(l[0] == 9 && l[1] == 301);
	for (int o = 0; o < PS_NR_PAGE_ORDERS; o++)
		CHECK_EQ(z.free_area[o].nr_free_mt[R], 0);
	CHECK(ev_is(&z, &r, 8, 0, 3, R, U, 0));
	CHECK_EQ(z.watermark_boost, 512);
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);

	/* the same under 5.10: the whole block's free pages move, the retry takes the smallest */
	setup(&z, &r, "5.10");
	small_unmovable_block(&z);
	CHECK_EQ(ps_rmqueue(&z, 0, R, NULL), 301);
	CHECK_EQ(pb_mt(&z, 0), U);
	CHECK(free_at(&z, 8, 3, R));
	CHECK(free_at(&z, 100, 2, R));
	CHECK(free_at(&z, 306, 1, R));
	CHECK(ev_is(&z, &r, 8, 0, 3, R, U, 0));
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);

	/* UNMOVABLE into a MOVABLE block (alike 502): claim, move to the tail, take the smallest */
	setup(&z, &r, "6.10");
	put(&z, 520, 1, M);
	put(&z, 512, 3, M);
	CHECK_EQ(ps_rmqueue(&z, 0, U, NULL), 520);
	CHECK_EQ(pb_mt(&z, 1), U);
	CHECK(free_at(&z, 512, 3, U));
	CHECK(free_at(&z, 521, 0, U));
	CHECK(ev_is(&z, &r, 520, 0, 3, U, M, 1));	/* 6.10+: the allocated page */
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);

	/* a pageblock straddling the zone start is never claimed in 6.10+ */
	zone_new(&z, &r, "6.10", 0x1001, 8192);
	put(&z, 256, 8, M);
	CHECK_EQ(ps_rmqueue(&z, 0, U, NULL), 256);
	CHECK_EQ(pb_mt(&z, 0), M);
	for (int o = 0; o < 8; o++)
		CHECK(free_at(&z, 256 + (1u << o), o, M));
	CHECK(ev_is(&z, &r, 256, 0, 8, U, M, 0));
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);
}

/* 6.15+: claim (orders 10..4 for MOVABLE, 10..order otherwise), then steal the smallest. */
static void test_claim_steal(const char *prof)
{
	struct ps_zone z;
	struct rec r;
	int mode;

	/* 32 order-3 blocks = 256 free pages in UNMOVABLE pageblock 2 */
	for (int start = M; start <= R; start++) {
		setup(&z, &r, prof);
		set_pb(&z, 2, U);
		for (uint32_t k = 0; k < 32; k++)
			put(&z, 1024 + 16 * k, 3, U);
		mode = 0;
		if (start == M) {
			/* MOVABLE stops the claim scan below order 4: a steal, no boost, no move */
			CHECK_EQ(ps_rmqueue(&z, 0, M, &mode), 1520);
			CHECK_EQ(pb_mt(&z, 2), U);
			CHECK(free_at(&z, 1521, 0, U));
			CHECK(free_at(&z, 1522, 1, U));
			CHECK(free_at(&z, 1524, 2, U));
			CHECK(free_at(&z, 1024, 3, U));
			CHECK_EQ(z.watermark_boost, 0);
			CHECK(ev_is(&z, &r, 1520, 0, 3, M, U, 0));
			CHECK(mode != 0);
		} else {
			/* RECLAIMABLE tries order 3: claimed, moved to the tail, lowest taken */
			CHECK_EQ(ps_rmqueue(&z, 0, R, &mode), 1024);
			CHECK_EQ(pb_mt(&z, 2), R);
			CHECK(free_at(&z, 1520, 3, R));
			CHECK(free_at(&z, 1025, 0, R));
			CHECK_EQ(z.free_area[3].nr_free_mt[U], 0);
			CHECK_EQ(z.watermark_boost, 512);
			CHECK(ev_is(&z, &r, 1024, 0, 3, R, U, 1));
			CHECK_EQ(mode, 0);
		}
		CHECK(zone_ok(&z));
		ps_zone_destroy(&z);
	}

	/* failed claims (one boost per attempt) fall through to stealing the smallest block */
	setup(&z, &r, prof);
	z.wmark_high = 10000;
	set_pb(&z, 0, U);
	put(&z, 300, 1, U);
	put(&z, 32, 5, U);
	mode = 0;
	CHECK_EQ(ps_rmqueue(&z, 0, R, &mode), 300);
	CHECK(free_at(&z, 301, 0, U));
	CHECK(free_at(&z, 32, 5, U));
	CHECK_EQ(pb_mt(&z, 0), U);
	CHECK_EQ(z.watermark_boost, 1024);
	CHECK(ev_is(&z, &r, 300, 0, 1, R, U, 0));
	CHECK(mode != 0);
	/* sticky: the batch goes on stealing although RECLAIMABLE's own list now has a page */
	set_pb(&z, 4, R);
	put(&z, 2048, 0, R);
	r.n = 0;
	CHECK_EQ(ps_rmqueue(&z, 0, R, &mode), 301);
	CHECK(ev_is(&z, &r, 301, 0, 0, R, U, 0));
	CHECK(free_at(&z, 2048, 0, R));
	CHECK(mode != 0);
	/* a single allocation (or a new batch) takes its own list first */
	r.n = 0;
	CHECK_EQ(ps_rmqueue(&z, 0, R, NULL), 2048);
	CHECK_EQ(r.n, 0);
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);

	/* 6.10-6.14 on the same lists: largest first, the order-5 block split onto UNMOVABLE's */
	setup(&z, &r, "6.10");
	z.wmark_high = 10000;
	set_pb(&z, 0, U);
	put(&z, 300, 1, U);
	put(&z, 32, 5, U);
	CHECK_EQ(ps_rmqueue(&z, 0, R, NULL), 32);
	CHECK(free_at(&z, 48, 4, U));
	CHECK(free_at(&z, 300, 1, U));
	CHECK_EQ(z.watermark_boost, 512);
	CHECK(ev_is(&z, &r, 32, 0, 5, R, U, 0));
	ps_zone_destroy(&z);

	/* ALLOC_NOFRAGMENT: no claim below pageblock order, no steal; a whole block is claimed */
	setup(&z, &r, prof);
	put(&z, 512, 3, M);
	z.nofragment = 1;
	CHECK_EQ(ps_rmqueue(&z, 0, U, NULL), PS_NIL);
	CHECK_EQ(r.n, 0);
	CHECK(free_at(&z, 512, 3, M));
	CHECK_EQ(z.watermark_boost, 0);
	put(&z, 1024, 9, M);
	CHECK_EQ(ps_rmqueue(&z, 0, U, NULL), 1024);
	CHECK_EQ(pb_mt(&z, 2), U);
	CHECK(free_at(&z, 1280, 8, U));
	CHECK(ev_is(&z, &r, 1024, 0, 9, U, M, 1));
	z.nofragment = 0;
	CHECK(zone_ok(&z));
	ps_zone_destroy(&z);
}

int main(void)
{
	static const char *const profs[] = { "4.4", "4.12", "5.10", "6.10", "6.18" };
	static const char *const all[] = {
		"4.0", "4.4", "4.12", "4.13", "5.0", "5.10", "6.10", "6.15", "6.18",
	};

	for (int i = 0; i < 5; i++)
		for (uint64_t seed = 1; seed <= 2; seed++)
			random_run(profs[i], seed, 0x1000, 8192, 3000);
	random_run("4.12", 3, 0x1001, 8192, 3000);
	random_run("6.18", 3, 0x1001, 8192, 3000);

	for (int i = 0; i < 9; i++) {
		test_merge_up(all[i]);
		test_merge_likely(all[i]);
	}
	test_expand();
	test_take_free();
	test_unaligned();
	test_merge_rules();
	test_steal_return("4.0");
	test_steal_return("4.4");
	test_alike();
	test_movable_smallest();
	test_boost();
	test_hygiene();
	test_check_runs();
	test_claim_steal("6.15");
	test_claim_steal("6.18");
	CHECK_DONE();
}
