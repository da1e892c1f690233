// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lock.c - zone->lock sections as a discrete-event queue: FIFO per zone,
 * with the waits and holds of each section and the accesses it makes to
 * the zone's cache lines (cacheline.c, at the offsets of zone_layout.c).
 *
 * Notes (what this model assumes and simplifies; docs/lock-model.md has the
 * reasons and the sources of the default costs):
 *  - A section lasts lock.acquire_ns + lock.page_ns x blocks moved, whatever
 *    the CPU, the order or the buddy work (splits, merges) behind a block.
 *    The model does not slow a holder by the cache misses it suffers: it
 *    counts transfers, it does not feed them back into hold times.
 *  - A CPU reaches the lock at the trace time of the section's first event,
 *    plus the waits it had before (lock.carry=1), and never before its own
 *    previous section ended.  The lock is a FIFO ticket lock (x86 until
 *    4.1): waiters are served in order of arrival, ties in trace order.
 *  - Only zone->lock is modelled: the pcp fast path, pcp->lock (6.0+),
 *    lru_lock and the node's locks take no time here.
 *  - Cache lines (MESI without the E/S distinction that moves no data): an
 *    access transfers a line when another CPU wrote it last and the
 *    accessing CPU has no valid copy since.  A holder's store to a line
 *    others only read (an invalidation, no data) is not counted.
 *  - Accesses of a section: at arrival, allocations read the watermark line
 *    and vm_stat (zone_watermark_ok); the CPU writes the lock word (takes a
 *    ticket) and, if the lock is held, spins reading it, re-reading it after
 *    every store to that line by another CPU; under the lock, per block,
 *    it writes free_area[order].free_list[mt] (the head) and
 *    free_area[order].nr_free; at the end it writes vm_stat[NR_FREE_PAGES]
 *    once (the per-CPU diff folded) and the lock word (unlock).  zone->flags
 *    is placed but never accessed.  A list head straddling two lines counts
 *    on the line of its first byte.
 *  - Bounded queues (no allocation per event): a CPU more than
 *    PS_LOCK_RING sections behind the trace, or more than the access queue
 *    holds in flight, is served early; both are counted (zone_lock_forced).
 */
#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mm/lock.h"
#include "lib/event.h"

const char *const ps_lock_cause_names[PS_LOCK_NR_CAUSES] = {
	[PS_LOCK_REFILL] = "refill",
	[PS_LOCK_DRAIN] = "drain",
	[PS_LOCK_DIRECT_ALLOC] = "direct_alloc",
	[PS_LOCK_DIRECT_FREE] = "direct_free",
	[PS_LOCK_FALLBACK] = "fallback",
};

/* ---- the lock model ---- */

#define PS_LOCK_RING 256	/* sections a CPU may have waiting to be served */

enum { A_WM_READ, A_TICKET, A_TICKET_SPIN, A_SPIN_END, A_PAGE, A_STAT, A_UNLOCK };

/*
 * One access waiting to run, in whole words (written and read a word at a
 * time, so a copy never waits on narrower stores).  who: zone, cpu, kind,
 * tag, order and migratetype; ni: a page run's blocks and its next block.
 */
struct access {
	uint64_t t, seq, who, ni;
};

static inline uint64_t acc_who(int zone, int cpu, int kind, int tag, int order, int mt)
{
	return (uint64_t)(uint16_t)zone | (uint64_t)(uint16_t)cpu << 16 | (uint64_t)(uint8_t)kind << 32 |
	       (uint64_t)(uint8_t)tag << 40 | (uint64_t)(uint8_t)order << 48 | (uint64_t)(uint8_t)mt << 56;
}

#define acc_zone(a) ((int)(uint16_t)(a)->who)
#define acc_cpu(a) ((int)(uint16_t)((a)->who >> 16))
#define acc_kind(a) ((int)(uint8_t)((a)->who >> 32))
#define acc_tag(a) ((int)(uint8_t)((a)->who >> 40))
#define acc_order(a) ((int)(uint8_t)((a)->who >> 48))
#define acc_mt(a) ((int)(uint8_t)((a)->who >> 56))

static inline uint64_t acc_ni(int32_t n, int32_t i)
{
	return (uint64_t)(uint32_t)n | (uint64_t)(uint32_t)i << 32;
}

#define acc_n(a) ((int32_t)(uint32_t)(a)->ni)
#define acc_i(a) ((int32_t)(uint32_t)((a)->ni >> 32))

struct cpu_state {
	struct ps_lock_sect ring[PS_LOCK_RING];
	int head, len;
	uint64_t shift, busy_until, arrival, seq;	/* arrival and seq of the head */
};

struct zone_state {
	uint64_t free_at;
	struct ps_lock_zone_stats st;
	struct ps_pcp_held pcp;	/* pages held on per-CPU lists */
	/* lines of this zone's fields, from the layout */
};

struct ps_lock {
	struct ps_lock_params p;
	int nr_zones, nr_cpus, ring_cap;
	struct cpu_state *cpus;
	struct zone_state *zones;
	struct ps_cl *cl;
	int line_lock, line_wm, line_stat;
	int line_list[PS_NR_PAGE_ORDERS][8], line_nr_free[PS_NR_PAGE_ORDERS];
	/* CPUs with a head section waiting, a min-heap on (arrival, seq) */
	int *cheap, nr_cheap;
	/* accesses waiting to run, a min-heap on (t, seq) */
	struct access *aheap;
	int nr_aheap, cap_aheap;
	uint64_t seq, now;	/* now: no section will be submitted with an earlier t_ns */
	uint64_t due;		/* after advance(): nothing is due before this (arrival or access time) */
	int manual;		/* now is set by ps_lock_advance only */
	uint64_t forced, ignored, late;
	uint64_t alone;		/* sections whose accesses ran at once (serve_one) */
	int plain;		/* ps_lock_set_plain() */
	struct ps_lock_served *rec;
	int rec_len, *rec_count;
};

void ps_lock_params_init(struct ps_lock_params *p)
{
	memset(p, 0, sizeof(*p));
	p->acquire_ns = PS_LOCK_ACQUIRE_NS;
	p->page_ns = PS_LOCK_PAGE_NS;
	p->carry = 1;
	ps_zone_layout_builtin(&p->layout, "4.0");
}

int ps_lock_params_set(struct ps_lock_params *p, const char *key, const char *value, const char *where,
		       struct ps_error *err)
{
	char *end;
	unsigned long long v;

	if (!strcmp(key, "lock.acquire_ns") || !strcmp(key, "lock.page_ns") || !strcmp(key, "lock.carry")) {
		v = strtoull(value, &end, 10);
		if (end == value || *end || value[0] == '-' || v > 1000000000ull ||
		    (!strcmp(key, "lock.carry") && v > 1))
			return ps_err(err, "%s: %s must be %s, not '%s'", where, key,
				      !strcmp(key, "lock.carry") ? "0 or 1" : "a number of ns in 0..1000000000", value);
		if (!strcmp(key, "lock.acquire_ns"))
			p->acquire_ns = v;
		else if (!strcmp(key, "lock.page_ns"))
			p->page_ns = v;
		else
			p->carry = (int)v;
		return 0;
	}
	if (!strncmp(key, "layout.", 7))
		key += 7;
	return ps_zone_layout_set(&p->layout, key, value, where, err);
}

struct ps_lock *ps_lock_create(const struct ps_lock_params *p, int nr_zones, int nr_cpus, struct ps_error *err)
{
	struct ps_lock *lk;

	if (nr_zones <= 0 || nr_cpus <= 0 || nr_cpus > PS_MAX_CPUS || nr_zones > PS_MAX_ZONES) {
		ps_err(err, "lock model: %d zones and %d CPUs are out of range", nr_zones, nr_cpus);
		return NULL;
	}
	if (ps_zone_layout_check(&p->layout, err) < 0)
		return NULL;
	lk = calloc(1, sizeof(*lk));
	if (!lk)
		goto nomem;
	lk->p = *p;
	lk->nr_zones = nr_zones;
	lk->nr_cpus = nr_cpus;
	lk->cpus = calloc(nr_cpus, sizeof(*lk->cpus));
	lk->zones = calloc(nr_zones, sizeof(*lk->zones));
	lk->cheap = calloc(nr_cpus, sizeof(int));
	lk->cap_aheap = p->queue_cap > 0 ? (p->queue_cap > 8 ? p->queue_cap : 8) : 65536 + 64 * nr_cpus;
	lk->ring_cap = p->ring_cap > 0 && p->ring_cap < PS_LOCK_RING ? p->ring_cap : PS_LOCK_RING;
	lk->aheap = malloc(lk->cap_aheap * sizeof(*lk->aheap));
	lk->cl = ps_cl_create(nr_zones, nr_cpus);
	if (!lk->cpus || !lk->zones || !lk->cheap || !lk->aheap || !lk->cl)
		goto nomem;
	lk->line_lock = ps_zone_layout_line(&p->layout, PS_ZF_LOCK, 0, 0);
	lk->line_wm = ps_zone_layout_line(&p->layout, PS_ZF_WATERMARK, 0, 0);
	lk->line_stat = ps_zone_layout_line(&p->layout, PS_ZF_VM_STAT, 0, 0);
	for (int o = 0; o < PS_NR_PAGE_ORDERS; o++) {
		lk->line_nr_free[o] = ps_zone_layout_line(&p->layout, PS_ZF_NR_FREE, o, 0);
		for (int mt = 0; mt < 8; mt++)
			lk->line_list[o][mt] = ps_zone_layout_line(&p->layout, PS_ZF_FREE_LIST, o, mt);
	}
	return lk;
nomem:
	ps_lock_destroy(lk);
	ps_err(err, "lock model: out of memory for %d zones and %d CPUs", nr_zones, nr_cpus);
	return NULL;
}

void ps_lock_destroy(struct ps_lock *lk)
{
	if (!lk)
		return;
	free(lk->cpus);
	free(lk->zones);
	free(lk->cheap);
	free(lk->aheap);
	ps_cl_destroy(lk->cl);
	free(lk);
}

void ps_lock_record(struct ps_lock *lk, struct ps_lock_served *buf, int len, int *count)
{
	lk->rec = buf;
	lk->rec_len = len;
	lk->rec_count = count;
	if (count)
		*count = 0;
}

/* -- the CPU heap -- */

static int cpu_before(const struct ps_lock *lk, int a, int b)
{
	const struct cpu_state *x = &lk->cpus[a], *y = &lk->cpus[b];

	return x->arrival < y->arrival || (x->arrival == y->arrival && x->seq < y->seq);
}

static void cheap_push(struct ps_lock *lk, int cpu)
{
	int i = lk->nr_cheap++;

	while (i > 0 && cpu_before(lk, cpu, lk->cheap[(i - 1) / 2])) {
		lk->cheap[i] = lk->cheap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	lk->cheap[i] = cpu;
}

static int cheap_pop(struct ps_lock *lk)
{
	int top = lk->cheap[0], last = lk->cheap[--lk->nr_cheap], i = 0;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= lk->nr_cheap)
			break;
		if (c + 1 < lk->nr_cheap && cpu_before(lk, lk->cheap[c + 1], lk->cheap[c]))
			c++;
		if (!cpu_before(lk, lk->cheap[c], last))
			break;
		lk->cheap[i] = lk->cheap[c];
		i = c;
	}
	if (lk->nr_cheap)
		lk->cheap[i] = last;
	return top;
}

/* -- the access heap -- */

static int acc_before(const struct access *a, const struct access *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static struct access acc_pop(struct ps_lock *lk)
{
	struct access top = lk->aheap[0], last = lk->aheap[--lk->nr_aheap];
	int i = 0;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= lk->nr_aheap)
			break;
		if (c + 1 < lk->nr_aheap && acc_before(&lk->aheap[c + 1], &lk->aheap[c]))
			c++;
		if (!acc_before(&lk->aheap[c], &last))
			break;
		lk->aheap[i] = lk->aheap[c];
		i = c;
	}
	if (lk->nr_aheap)
		lk->aheap[i] = last;
	return top;
}

static void run_access(struct ps_lock *lk, struct access *a, int chain, uint64_t horizon);

static void acc_push(struct ps_lock *lk, uint64_t t, uint64_t who, uint64_t ni)
{
	struct access a;
	int i;

	/*
	 * Full: run the earliest accesses now, in time order (early only if an
	 * unseen access would precede them), until a slot is free.  A page run
	 * that must yield puts its next page back in the slot it came from, so
	 * the loop goes on; each turn runs at least one access of the finite
	 * number held, and the heap never grows past its capacity.
	 */
	while (lk->nr_aheap == lk->cap_aheap) {
		struct access e = acc_pop(lk);

		lk->forced++;
		run_access(lk, &e, 1, UINT64_MAX);
	}
	assert(lk->nr_aheap < lk->cap_aheap);
	a.t = t;
	a.seq = lk->seq++;
	a.who = who;
	a.ni = ni;
	i = lk->nr_aheap++;
	while (i > 0 && acc_before(&a, &lk->aheap[(i - 1) / 2])) {
		lk->aheap[i] = lk->aheap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	lk->aheap[i] = a;
}

/*
 * How many of page run @a's next blocks the chain in run_access() would run
 * before it yields: each is page_ns after the one before, and runs if it is
 * due by @horizon and before the heap's first access.
 */
static uint64_t page_skip(const struct ps_lock *lk, const struct access *a, uint64_t horizon)
{
	uint64_t left = (uint64_t)(acc_n(a) - 1 - acc_i(a)), limit = horizon, step = lk->p.page_ns;

	if (lk->nr_aheap) {
		if (lk->aheap[0].t == 0)
			return 0;
		if (lk->aheap[0].t - 1 < limit)
			limit = lk->aheap[0].t - 1;
	}
	if (!step)
		return a->t <= limit ? left : 0;
	if (limit < a->t || (limit - a->t) / step == 0)
		return 0;
	return (limit - a->t) / step < left ? (limit - a->t) / step : left;
}

/*
 * Runs @a.  With @chain, the page accesses of a section that would come
 * out of the heap next anyway (before its top, and by @horizon) run in a
 * loop instead of going through it: the same order, seq numbers included.
 */
static void run_access(struct ps_lock *lk, struct access *a, int chain, uint64_t horizon)
{
	struct ps_cl *cl = lk->cl;

	int zone = acc_zone(a), cpu = acc_cpu(a), tag = acc_tag(a);

	switch (acc_kind(a)) {
	case A_WM_READ:
		ps_cl_access(cl, zone, lk->line_wm, cpu, 0, tag);
		ps_cl_access(cl, zone, lk->line_stat, cpu, 0, tag);
		break;
	case A_TICKET:
	case A_TICKET_SPIN:
		ps_cl_access(cl, zone, lk->line_lock, cpu, 1, tag);
		if (acc_kind(a) == A_TICKET_SPIN)
			ps_cl_spin_begin(cl, zone, lk->line_lock, cpu, tag);
		break;
	case A_SPIN_END:
		ps_cl_spin_end(cl, zone, cpu);
		break;
	case A_PAGE: {
		struct access next = *a;
		int32_t i = acc_i(a), n = acc_n(a);
		int line_list = lk->line_list[acc_order(a)][acc_mt(a)], line_nr_free = lk->line_nr_free[acc_order(a)];

		for (;;) {
			ps_cl_access(cl, zone, line_list, cpu, 1, tag);
			ps_cl_access(cl, zone, line_nr_free, cpu, 1, tag);
			if (i + 1 >= n)
				break;
			if (chain && !ps_cl_spinners(cl, zone)) {
				/*
				 * The next blocks' writes, by the same CPU to the same
				 * two lines with nobody spinning, change nothing: skip
				 * those the loop would run before yielding.
				 */
				uint64_t m;

				next.ni = acc_ni(n, i);
				m = page_skip(lk, &next, horizon);
				i += (int32_t)m;
				next.t += m * lk->p.page_ns;
				lk->seq += m;
				if (i + 1 >= n)
					break;
			}
			i++;
			next.t += lk->p.page_ns;
			if (!chain || next.t > horizon || (lk->nr_aheap && next.t >= lk->aheap[0].t)) {
				acc_push(lk, next.t, next.who, acc_ni(n, i));
				break;
			}
			lk->seq++;	/* as acc_push() would number it */
		}
		break;
	}
	case A_STAT:
		ps_cl_access(cl, zone, lk->line_stat, cpu, 1, tag);
		break;
	case A_UNLOCK:
		ps_cl_access(cl, zone, lk->line_lock, cpu, 1, tag);
		break;
	}
}

static void run_accesses_until(struct ps_lock *lk, uint64_t horizon)
{
	while (lk->nr_aheap && lk->aheap[0].t <= horizon) {
		struct access a = acc_pop(lk);

		run_access(lk, &a, 1, horizon);
	}
}

static void set_head(struct ps_lock *lk, int cpu)
{
	struct cpu_state *c = &lk->cpus[cpu];
	const struct ps_lock_sect *s = &c->ring[c->head];
	uint64_t a = s->t_ns + (lk->p.carry ? c->shift : 0);

	c->arrival = a > c->busy_until ? a : c->busy_until;
	if (lk->p.carry)
		c->shift = c->arrival - s->t_ns;
	c->seq = lk->seq++;
	cheap_push(lk, cpu);
}

/* Serves the head section of the CPU first in the queue. */
static void serve_one(struct ps_lock *lk)
{
	int cpu = cheap_pop(lk);
	struct cpu_state *c = &lk->cpus[cpu];
	struct ps_lock_sect s = c->ring[c->head];
	struct zone_state *z = &lk->zones[s.zone];
	uint64_t a = c->arrival, start = a > z->free_at ? a : z->free_at;
	uint64_t wait = start - a, d = lk->p.acquire_ns + lk->p.page_ns * (uint64_t)s.nr, end = start + d;
	int ord = s.order < PS_NR_PAGE_ORDERS ? s.order : 0, mt = s.mt >= 0 && s.mt < 8 ? s.mt : PS_MT_MOVABLE;
	int wm = s.cause != PS_LOCK_DRAIN && s.cause != PS_LOCK_DIRECT_FREE;	/* zone_watermark_ok first */
	uint64_t who = acc_who(s.zone, cpu, 0, s.cause, ord, mt);

	z->free_at = end;
	z->st.acquisitions[s.cause]++;
	z->st.hold_ns[s.cause] += d;
	z->st.blocks += s.nr;
	if (wait) {
		z->st.contended[s.cause]++;
		z->st.wait_ns[s.cause] += wait;
		if (lk->p.carry)
			c->shift += wait;
	}
	c->busy_until = end;
	if (lk->rec && lk->rec_count && *lk->rec_count < lk->rec_len)
		lk->rec[(*lk->rec_count)++] = (struct ps_lock_served){ a, start, end, cpu, s.zone };

#define KIND(k) (who | (uint64_t)(k) << 32)
	if (!wait && !lk->nr_aheap && !lk->plain && lk->p.page_ns > 0 && end <= lk->now &&
	    (!lk->nr_cheap || lk->cpus[lk->cheap[0]].arrival >= end)) {
		/*
		 * Alone in time: nothing waits to run, the section ended by
		 * the clock, and the next one arrives after its end.  Its
		 * accesses would leave the heap next, in the order pushed
		 * (their times do not fall), before any other: run them now,
		 * numbered as the pushes would have.  With the heap empty every
		 * spinner's end has run, so nobody spins on the zone: the page
		 * run is run_access's chain, its first block's two writes and
		 * the rest skipped.
		 */
		struct ps_cl_use use[7];
		int nu = 0;

		lk->alone++;
		lk->seq += (uint64_t)(wm + 3 + (s.nr > 0));
		if (wm) {
			use[nu++] = (struct ps_cl_use){ lk->line_wm, 0 };
			use[nu++] = (struct ps_cl_use){ lk->line_stat, 0 };
		}
		use[nu++] = (struct ps_cl_use){ lk->line_lock, 1 };
		if (s.nr > 0) {
			use[nu++] = (struct ps_cl_use){ lk->line_list[ord][mt], 1 };
			use[nu++] = (struct ps_cl_use){ lk->line_nr_free[ord], 1 };
			lk->seq += (uint64_t)(s.nr - 1);
		}
		use[nu++] = (struct ps_cl_use){ lk->line_stat, 1 };
		use[nu++] = (struct ps_cl_use){ lk->line_lock, 1 };
		assert(!ps_cl_spinners(lk->cl, s.zone));
		ps_cl_access_quiet(lk->cl, s.zone, cpu, s.cause, use, nu);
	} else {
		if (wm)
			acc_push(lk, a, KIND(A_WM_READ), 0);
		acc_push(lk, a, KIND(wait ? A_TICKET_SPIN : A_TICKET), 0);
		if (wait)
			acc_push(lk, start, KIND(A_SPIN_END), 0);
		if (s.nr > 0)
			acc_push(lk, start + lk->p.acquire_ns, KIND(A_PAGE), acc_ni(s.nr, 0));
		acc_push(lk, end, KIND(A_STAT), 0);
		acc_push(lk, end, KIND(A_UNLOCK), 0);
	}
#undef KIND

	c->head = (c->head + 1) % PS_LOCK_RING;
	c->len--;
	if (c->len)
		set_head(lk, cpu);
}

/* Serves what can no longer be preceded by a later submission, then runs the accesses likewise. */
static void advance(struct ps_lock *lk)
{
	uint64_t horizon;

	while (lk->nr_cheap && lk->cpus[lk->cheap[0]].arrival <= lk->now)
		serve_one(lk);
	horizon = lk->now;
	if (lk->nr_cheap && lk->cpus[lk->cheap[0]].arrival < horizon)
		horizon = lk->cpus[lk->cheap[0]].arrival;
	run_accesses_until(lk, horizon);
	lk->due = UINT64_MAX;
	if (lk->nr_cheap)
		lk->due = lk->cpus[lk->cheap[0]].arrival;
	if (lk->nr_aheap && lk->aheap[0].t < lk->due)
		lk->due = lk->aheap[0].t;
}

void ps_lock_submit(struct ps_lock *lk, const struct ps_lock_sect *s)
{
	struct cpu_state *c;
	struct ps_lock_sect late;

	if (s->zone < 0 || s->zone >= lk->nr_zones || s->cpu < 0 || s->cpu >= lk->nr_cpus || s->cause < 0 ||
	    s->cause >= PS_LOCK_NR_CAUSES || s->nr < 0) {
		lk->ignored++;
		return;
	}
	c = &lk->cpus[s->cpu];
	if (!lk->manual && s->t_ns > lk->now)
		lk->now = s->t_ns;
	if (s->t_ns < lk->now) {
		/* earlier than promised: it arrives now (the queue has moved on) */
		late = *s;
		late.t_ns = lk->now;
		lk->late++;
		s = &late;
	}
	while (c->len == lk->ring_cap) {
		/* this CPU is ring_cap sections behind: serve the queue until it has room */
		lk->forced++;
		serve_one(lk);
	}
	c->ring[(c->head + c->len) % PS_LOCK_RING] = *s;
	if (!c->len++)
		set_head(lk, s->cpu);
	advance(lk);
}

void ps_lock_advance(struct ps_lock *lk, uint64_t floor)
{
	lk->manual = 1;
	/*
	 * Every change to the queues (ps_lock_submit) ends in advance(), which
	 * leaves nothing due at lk->now: with the clock where it was there is
	 * nothing to do.
	 */
	if (floor <= lk->now)
		return;
	lk->now = floor;
	/* nothing is due before lk->due (the queues change only in ps_lock_submit, which advances) */
	if (floor < lk->due)
		return;
	advance(lk);
}

void ps_lock_section(struct ps_lock *lk, int zone, int cpu, uint64_t t_ns, int pages, int cause)
{
	struct ps_lock_sect s = { .t_ns = t_ns, .t_last_ns = t_ns, .zone = zone, .cpu = cpu, .nr = pages,
				  .order = 0, .mt = PS_MT_MOVABLE, .cause = cause };

	ps_lock_submit(lk, &s);
}

void ps_lock_pcp_pages(struct ps_lock *lk, int zone, uint64_t t_ns, uint64_t pages)
{
	struct zone_state *z;

	if (zone < 0 || zone >= lk->nr_zones)
		return;
	z = &lk->zones[zone];
	ps_pcp_held_set(&z->pcp, t_ns, pages);
}

struct ps_pcp_held *ps_lock_pcp_held(struct ps_lock *lk, int zone)
{
	return &lk->zones[zone].pcp;
}

uint64_t ps_lock_next_due(const struct ps_lock *lk)
{
	return lk->due;
}

void ps_lock_finish(struct ps_lock *lk)
{
	while (lk->nr_cheap)
		serve_one(lk);
	run_accesses_until(lk, UINT64_MAX);
	for (int i = 0; i < lk->nr_zones; i++) {
		struct zone_state *z = &lk->zones[i];

		for (int t = 0; t < PS_LOCK_NR_CAUSES; t++)
			z->st.transfers[t] = ps_cl_transfers(lk->cl, i, t);
		if (z->pcp.seen)
			ps_pcp_held_set(&z->pcp, lk->now > z->pcp.last_t ? lk->now : z->pcp.last_t, z->pcp.cur);
	}
}

uint64_t ps_lock_total(const uint64_t v[PS_LOCK_NR_CAUSES])
{
	uint64_t s = 0;

	for (int i = 0; i < PS_LOCK_NR_CAUSES; i++)
		s += v[i];
	return s;
}

void ps_lock_stats(const struct ps_lock *lk, int zone, struct ps_lock_zone_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < lk->nr_zones; i++) {
		const struct ps_lock_zone_stats *s = &lk->zones[i].st;

		if (zone >= 0 && i != zone)
			continue;
		for (int t = 0; t < PS_LOCK_NR_CAUSES; t++) {
			out->acquisitions[t] += s->acquisitions[t];
			out->contended[t] += s->contended[t];
			out->wait_ns[t] += s->wait_ns[t];
			out->hold_ns[t] += s->hold_ns[t];
			out->transfers[t] += ps_cl_transfers(lk->cl, i, t);
		}
		out->blocks += s->blocks;
	}
}

static int put_rows(struct ps_kv *kv, const struct ps_lock_zone_stats *s, const char *suffix)
{
	static const char *const names[] = { "zone_lock_acquisitions", "zone_lock_contended", "zone_lock_wait_ns",
					     "zone_lock_hold_ns", "zone_cacheline_transfers" };
	const uint64_t *v[] = { s->acquisitions, s->contended, s->wait_ns, s->hold_ns, s->transfers };
	char name[160];

	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "%s%s", names[i], suffix);
		if (ps_kv_set(kv, name, (int64_t)ps_lock_total(v[i])) < 0)
			return -1;
		for (int t = 0; t < PS_LOCK_NR_CAUSES; t++) {
			snprintf(name, sizeof(name), "%s_%s%s", names[i], ps_lock_cause_names[t], suffix);
			if (ps_kv_set(kv, name, (int64_t)v[i][t]) < 0)
				return -1;
		}
	}
	return 0;
}

int ps_lock_counters(const struct ps_lock *lk, const struct ps_machine *m, struct ps_kv *kv)
{
	struct ps_lock_zone_stats s;
	char suffix[64], name[160];
	double avg_all = 0;
	uint64_t max_all = 0;

	ps_lock_stats(lk, -1, &s);
	if (put_rows(kv, &s, ""))
		return -1;
	for (int i = 0; i < lk->nr_zones; i++) {
		const struct zone_state *z = &lk->zones[i];
		uint64_t span = z->pcp.last_t - z->pcp.first_t;

		if (z->pcp.seen) {
			avg_all += span ? (double)z->pcp.area / (double)span : (double)z->pcp.cur;
			max_all += z->pcp.max;
		}
	}
	if (ps_kv_set(kv, "pcp_pages_held_avg", (int64_t)(avg_all + 0.5)) < 0 ||
	    ps_kv_set(kv, "pcp_pages_held_max_sum", (int64_t)max_all) < 0 ||
	    ps_kv_set(kv, "zone_lock_blocks_moved", (int64_t)s.blocks) < 0 ||
	    ps_kv_set(kv, "zone_lock_forced", (int64_t)lk->forced) < 0 ||
	    ps_kv_set(kv, "zone_lock_late", (int64_t)lk->late) < 0 ||
	    ps_kv_set(kv, "zone_lock_ignored", (int64_t)lk->ignored) < 0)
		return -1;
	for (int i = 0; i < lk->nr_zones; i++) {
		const struct zone_state *z = &lk->zones[i];
		uint64_t span = z->pcp.last_t - z->pcp.first_t;

		if (m && i < m->nr_zones)
			snprintf(suffix, sizeof(suffix), ".node%d.%s", m->zones[i].node, ps_zone_names[m->zones[i].type]);
		else
			snprintf(suffix, sizeof(suffix), ".zone%d", i);
		ps_lock_stats(lk, i, &s);
		if (put_rows(kv, &s, suffix))
			return -1;
		snprintf(name, sizeof(name), "pcp_pages_held_avg%s", suffix);
		if (ps_kv_set(kv, name, z->pcp.seen ? (int64_t)((span ? (double)z->pcp.area / (double)span
								      : (double)z->pcp.cur) + 0.5) : 0) < 0)
			return -1;
		snprintf(name, sizeof(name), "pcp_pages_held_max%s", suffix);
		if (ps_kv_set(kv, name, (int64_t)z->pcp.max) < 0)
			return -1;
	}
	return 0;
}

void ps_lock_set_plain(struct ps_lock *lk, int on)
{
	lk->plain = on;
}

uint64_t ps_lock_alone(const struct ps_lock *lk)
{
	return lk->alone;
}

int ps_lock_nr_zones(const struct ps_lock *lk)
{
	return lk->nr_zones;
}

int ps_lock_nr_cpus(const struct ps_lock *lk)
{
	return lk->nr_cpus;
}
