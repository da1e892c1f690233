// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lock_sections.c - which runs of a trace's events are one zone-lock
 * section (follow mode), fed to the lock model (sim/mm/lock.c).
 *
 * Trace analysis, not kernel model: the kernel runs rmqueue_bulk and
 * free_pcppages_bulk under zone->lock and emits one event per block moved;
 * the runs of those events per CPU are taken as the sections.  Simplifies:
 * a section starts at its first event and never spans a gap the trace
 * does not show; back-to-back sections of one kind on one CPU and zone with
 * no other event between are one.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/replay/lock_sections.h"

enum { RUN_NONE, RUN_REFILL, RUN_DRAIN };

struct run {
	int kind;		/* RUN_NONE, RUN_REFILL or RUN_DRAIN */
	int zone, nr, order, mt, fallback;
	uint64_t t0, t1;
	/* an extfrag seen outside a run: belongs to the next zone_locked of this CPU */
	int pending_xf, xf_zone;
	uint64_t xf_t;
};

/*
 * A run with no event for this long no longer holds the model's clock back
 * (a CPU that goes idle after a refill may show no event for seconds; the
 * run ends only at its next event).  When it is submitted at last it is
 * late: the model clamps its arrival to the clock (zone_lock_late).  Runs
 * are never split: inside one section the traced QEMU guests show stalls of
 * several ms (a vCPU preempted by the host while it holds the lock).
 */
#define FOLLOW_MAX_GAP_NS 1000000

struct ps_lock_follow {
	struct ps_lock *lk;
	const struct ps_machine *m;
	struct ps_zone_table zt;	/* pfn -> zone of @m */
	const struct ps_profile *prof;
	int pageblock_order, nr_cpus, nr_zones, nr_words;	/* nr_words: of the CPU masks */
	struct run *runs;
	uint64_t open[PS_MAX_CPUS / 64];	/* CPUs with a run open or an extfrag pending */
	uint64_t stale[PS_MAX_CPUS / 64];	/* of those, whose run and extfrag hold back no clock from max_ts on */
	uint64_t max_ts;		/* the latest event time seen */
	uint32_t pcp_orders;		/* bit o: order o goes through the per-CPU lists */
	int64_t *pcp;		/* [zone][cpu] estimate of pages on per-CPU lists */
	uint64_t *pcp_zone;	/* [zone] */
	struct ps_pcp_held **held;	/* [zone]: the lock model's record of pcp_zone */
	/*
	 * The lock model's clock, as a ps_lock_advance() per event would set
	 * it; handed on only when the model has work due (ps_lock_next_due)
	 * or before a submission, which is the same to the model.
	 */
	uint64_t now, due;
	int now_pending;
	/*
	 * The floor of the latest event is not worked out yet (lazy_ts: its
	 * time): it changed no run and came before the model's next due time,
	 * in time order.  Over such events the floor never falls, so the last
	 * one's is the one that counts; it is worked out before a run changes
	 * or the clock is needed.
	 */
	int lazy;
	uint64_t lazy_ts;
	int plain;		/* ps_lock_follow_set_plain() */
	struct ps_lock_follow_stats st;
};

static int pcp_order(const struct ps_lock_follow *f, int order);

struct ps_lock_follow *ps_lock_follow_create(struct ps_lock *lk, const struct ps_machine *m,
					     const struct ps_profile *prof, int pageblock_order)
{
	struct ps_lock_follow *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->lk = lk;
	f->m = m;
	ps_zone_table_init(&f->zt, m);
	f->prof = prof;
	f->pageblock_order = pageblock_order;
	f->nr_cpus = ps_lock_nr_cpus(lk);
	f->nr_zones = ps_lock_nr_zones(lk);
	f->nr_words = (f->nr_cpus + 63) / 64;
	f->runs = calloc(f->nr_cpus, sizeof(*f->runs));
	f->pcp = calloc((size_t)f->nr_zones * f->nr_cpus, sizeof(int64_t));
	f->pcp_zone = calloc(f->nr_zones, sizeof(uint64_t));
	f->held = calloc(f->nr_zones, sizeof(*f->held));
	if (!f->runs || !f->pcp || !f->pcp_zone || !f->held) {
		ps_lock_follow_destroy(f);
		return NULL;
	}
	for (int z = 0; z < f->nr_zones; z++)
		f->held[z] = ps_lock_pcp_held(lk, z);
	for (int o = 0; o < 32; o++)
		if (pcp_order(f, o))
			f->pcp_orders |= 1u << o;
	return f;
}

void ps_lock_follow_destroy(struct ps_lock_follow *f)
{
	if (!f)
		return;
	free(f->runs);
	free(f->pcp);
	free(f->pcp_zone);
	free(f->held);
	free(f);
}

static int pcp_order(const struct ps_lock_follow *f, int order)
{
	if (!f->prof->pcp_high_orders)
		return order == 0;
	return order <= 3 || order == f->pageblock_order;
}

static inline void clock_lazy(struct ps_lock_follow *f);

/* Hands the model the clock it would have had from a ps_lock_advance() per event. */
static inline void clock_flush(struct ps_lock_follow *f)
{
	clock_lazy(f);
	if (f->now_pending) {
		f->now_pending = 0;
		ps_lock_advance(f->lk, f->now);
	}
}

/* The per-event ps_lock_advance(@floor), deferred while it would only move the clock. */
static inline void clock_advance(struct ps_lock_follow *f, uint64_t floor)
{
	if (floor > f->now || !f->due) {
		if (floor > f->now)
			f->now = floor;
		f->now_pending = 1;
	}
	if (f->now_pending && f->now >= f->due) {
		f->now_pending = 0;
		ps_lock_advance(f->lk, f->now);
		f->due = ps_lock_next_due(f->lk);
	}
}

static void emit(struct ps_lock_follow *f, int cpu, int cause, int zone, int nr, int order, int mt, uint64_t t0,
		 uint64_t t1)
{
	struct ps_lock_sect s = { .t_ns = t0, .t_last_ns = t1, .zone = zone, .cpu = cpu, .nr = nr,
				  .order = order, .mt = mt, .cause = cause };

	f->st.sections[cause]++;
	if (nr > 1 && t1 > t0) {
		f->st.trace_span_ns += t1 - t0;
		f->st.trace_span_blocks += nr - 1;
	}
	clock_flush(f);
	ps_lock_submit(f->lk, &s);
	f->due = ps_lock_next_due(f->lk);
}

static void close_run(struct ps_lock_follow *f, int cpu)
{
	struct run *r = &f->runs[cpu];
	int cause = r->kind == RUN_REFILL ? PS_LOCK_REFILL : PS_LOCK_DRAIN;

	if (!r->kind)
		return;
	if (r->fallback)
		cause = PS_LOCK_FALLBACK;
	emit(f, cpu, cause, r->zone, r->nr, r->order, r->mt, r->t0, r->t1);
	r->kind = RUN_NONE;
}

/* Pages on the per-CPU lists of @zone held by @cpu change by @delta (never below 0). */
static inline void pcp_add(struct ps_lock_follow *f, int zone, int cpu, int64_t delta, uint64_t t)
{
	int64_t *p = &f->pcp[(size_t)zone * f->nr_cpus + cpu];
	int64_t old = *p, v = old + delta > 0 ? old + delta : 0;
	uint64_t sum = f->pcp_zone[zone] + (uint64_t)(v - old);

	*p = v;
	f->pcp_zone[zone] = sum;
	ps_pcp_held_set(f->held[zone], t, sum);	/* as ps_lock_pcp_pages() */
}

/* Opens a run of @kind in @zone at @ev's block; @fallback: it began with an extfrag event at @t0. */
static inline void run_start(struct run *r, int kind, int zone, const struct ps_event *ev, int fallback, uint64_t t0)
{
	r->kind = kind;
	r->zone = zone;
	r->nr = 1;
	r->order = ev->order;
	r->mt = ev->migratetype;
	r->fallback = fallback;
	r->t0 = t0;
	r->t1 = ev->ts_ns;
}

static void follow_event(struct ps_lock_follow *f, const struct ps_event *ev)
{
	struct run *r;
	int cpu = ev->cpu, zone = -1;

	if (cpu >= f->nr_cpus || ev->type == PS_EV_FREE_BATCHED)
		return;
	r = &f->runs[cpu];
	if (ev->pfn != PS_PFN_NONE) {
		zone = ps_zone_table_lookup(&f->zt, ev->pfn);
		if (zone < 0 || zone >= f->nr_zones) {
			f->st.outside_zones++;
			zone = -1;
		}
	}
	switch (ev->type) {
	case PS_EV_ZONE_LOCKED:
		if (zone < 0 && r->kind == RUN_REFILL)
			zone = r->zone;		/* a failed __rmqueue inside a refill (<= 5.9: page NULL) */
		if (zone < 0)
			return;
		if (ev->percpu_refill) {
			if (r->kind == RUN_REFILL && r->zone == zone) {
				r->nr++;
				r->t1 = ev->ts_ns;
			} else {
				int fb;

				close_run(f, cpu);
				fb = r->pending_xf && r->xf_zone == zone;
				run_start(r, RUN_REFILL, zone, ev, fb, fb ? r->xf_t : ev->ts_ns);
			}
			r->pending_xf = 0;
			if (ev->pfn != PS_PFN_NONE)
				pcp_add(f, zone, cpu, (int64_t)1 << ev->order, ev->ts_ns);
			return;
		}
		close_run(f, cpu);
		{
			int fb = r->pending_xf && r->xf_zone == zone;

			emit(f, cpu, fb ? PS_LOCK_FALLBACK : PS_LOCK_DIRECT_ALLOC, zone, 1, ev->order, ev->migratetype,
			     fb ? r->xf_t : ev->ts_ns, ev->ts_ns);
			r->pending_xf = 0;
		}
		return;
	case PS_EV_EXTFRAG:
		if (zone < 0)
			return;
		if (r->kind == RUN_REFILL && r->zone == zone) {
			r->fallback = 1;
			return;
		}
		close_run(f, cpu);
		r->pending_xf = 1;
		r->xf_zone = zone;
		r->xf_t = ev->ts_ns;
		return;
	case PS_EV_PCPU_DRAIN:
		if (zone < 0)
			return;
		if (r->kind == RUN_DRAIN && r->zone == zone) {
			r->nr++;
			r->t1 = ev->ts_ns;
		} else {
			close_run(f, cpu);
			run_start(r, RUN_DRAIN, zone, ev, 0, ev->ts_ns);
		}
		r->pending_xf = 0;
		pcp_add(f, zone, cpu, -((int64_t)1 << ev->order), ev->ts_ns);
		return;
	case PS_EV_ALLOC:
		close_run(f, cpu);
		r->pending_xf = 0;
		if (zone >= 0 && pcp_order(f, ev->order))
			pcp_add(f, zone, cpu, -((int64_t)1 << ev->order), ev->ts_ns);
		return;
	case PS_EV_FREE:
		close_run(f, cpu);
		r->pending_xf = 0;
		if (zone < 0)
			return;
		if (pcp_order(f, ev->order))
			pcp_add(f, zone, cpu, (int64_t)1 << ev->order, ev->ts_ns);
		else
			emit(f, cpu, PS_LOCK_DIRECT_FREE, zone, 1, ev->order, PS_MT_MOVABLE, ev->ts_ns, ev->ts_ns);
		return;
	}
}

/*
 * mm_page_alloc or mm_page_free on a CPU with no run open and no extfrag
 * pending: follow_event() less the run to close.
 */
static inline void follow_alloc_free(struct ps_lock_follow *f, const struct ps_event *ev)
{
	int zone;

	if (ev->pfn == PS_PFN_NONE)
		return;
	zone = ps_zone_table_lookup(&f->zt, ev->pfn);
	if (zone < 0 || zone >= f->nr_zones) {
		f->st.outside_zones++;
		return;
	}
	if (ev->order < 32 && ((f->pcp_orders >> ev->order) & 1))
		pcp_add(f, zone, ev->cpu, ev->type == PS_EV_ALLOC ? -((int64_t)1 << ev->order) : (int64_t)1 << ev->order,
			ev->ts_ns);
	else if (ev->type == PS_EV_FREE)
		emit(f, ev->cpu, PS_LOCK_DIRECT_FREE, zone, 1, ev->order, PS_MT_MOVABLE, ev->ts_ns, ev->ts_ns);
}

/* The run @ev's event belongs to: a zone_locked refill's, a pcpu_drain's, or none. */
static inline int run_kind(const struct ps_event *ev)
{
	if (ev->type == PS_EV_ZONE_LOCKED && ev->percpu_refill)
		return RUN_REFILL;
	return ev->type == PS_EV_PCPU_DRAIN ? RUN_DRAIN : RUN_NONE;
}

/* The block a refill put on, or a drain took off, @ev's CPU's lists of @zone. */
static inline void run_pcp_add(struct ps_lock_follow *f, int zone, const struct ps_event *ev, int kind)
{
	pcp_add(f, zone, ev->cpu, kind == RUN_REFILL ? (int64_t)1 << ev->order : -((int64_t)1 << ev->order),
		ev->ts_ns);
}

/*
 * follow_event() for a zone_locked refill or a pcpu_drain that extends its
 * CPU's open run of the same kind and zone while the run is live (not
 * stale, its last block within FOLLOW_MAX_GAP_NS): returns 1 if it did.
 */
static inline int run_extend(struct ps_lock_follow *f, const struct ps_event *ev)
{
	struct run *r = &f->runs[ev->cpu];
	int kind = run_kind(ev), zone;

	if (kind == RUN_NONE || r->kind != kind || ev->pfn == PS_PFN_NONE || r->t1 + FOLLOW_MAX_GAP_NS < ev->ts_ns ||
	    (f->stale[ev->cpu >> 6] >> (ev->cpu & 63)) & 1)
		return 0;
	zone = ps_zone_table_lookup(&f->zt, ev->pfn);
	if (zone != r->zone)
		return 0;
	r->nr++;
	r->t1 = ev->ts_ns;
	r->pending_xf = 0;
	run_pcp_add(f, zone, ev, kind);
	return 1;
}

/*
 * follow_event() for a zone_locked refill or a pcpu_drain on a CPU with no
 * run open and no extfrag pending, in a zone: opens its run and returns 1.
 */
static inline int run_open(struct ps_lock_follow *f, const struct ps_event *ev)
{
	struct run *r = &f->runs[ev->cpu];
	int kind = run_kind(ev), zone;

	if (kind == RUN_NONE || ev->pfn == PS_PFN_NONE)
		return 0;
	zone = ps_zone_table_lookup(&f->zt, ev->pfn);
	if (zone < 0 || zone >= f->nr_zones)
		return 0;
	run_start(r, kind, zone, ev, 0, ev->ts_ns);
	r->pending_xf = 0;
	run_pcp_add(f, zone, ev, kind);
	return 1;
}

static inline uint64_t clock_floor(struct ps_lock_follow *f, uint64_t ts, int mono);

static inline __attribute__((always_inline)) void lock_follow_event(struct ps_lock_follow *f,
								     const struct ps_event *ev, const int plain)
{
	uint64_t ts = ev->ts_ns;
	int mono = ts >= f->max_ts, changed = 0;

	if (plain) {
		follow_event(f, ev);
		if (ev->cpu < f->nr_cpus) {
			const struct run *r = &f->runs[ev->cpu];
			uint64_t bit = 1ull << (ev->cpu & 63);

			if (r->kind || r->pending_xf)
				f->open[ev->cpu >> 6] |= bit;
			else
				f->open[ev->cpu >> 6] &= ~bit;
		}
		ps_lock_advance(f->lk, clock_floor(f, ts, 0));
		return;
	}
	if (!mono)
		clock_lazy(f);
	if (ev->cpu < f->nr_cpus) {
		uint64_t bit = 1ull << (ev->cpu & 63), *open = &f->open[ev->cpu >> 6];

		if ((ev->type == PS_EV_ALLOC || ev->type == PS_EV_FREE) && !(*open & bit)) {
			follow_alloc_free(f, ev);	/* nothing of this CPU's changes */
		} else if (mono && ts < f->due && ((*open & bit) ? run_extend(f, ev) : run_open(f, ev))) {
			/*
			 * The CPU's live run took one more block, or a CPU with no run
			 * open opened one: a lazy event.  Its floor is no lower than
			 * the pending lazy one's (a run extended was live at both
			 * times, one opened starts at this event, and the others'
			 * liveness only shrinks), and below the model's due time, so
			 * working it out later changes nothing.
			 */
			*open |= bit;
			f->stale[ev->cpu >> 6] &= ~bit;
			f->max_ts = ts;
			f->lazy = 1;
			f->lazy_ts = ts;
			return;
		} else if (ev->type != PS_EV_FREE_BATCHED) {
			const struct run *r = &f->runs[ev->cpu];

			clock_lazy(f);		/* with the runs as they were */
			changed = 1;
			follow_event(f, ev);
			/* only the event's CPU's run changed */
			if (r->kind || r->pending_xf)
				*open |= bit;
			else
				*open &= ~bit;
			f->stale[ev->cpu >> 6] &= ~bit;
		}
	}
	if (mono)
		f->max_ts = ts;
	if (mono && ts < f->due && !changed) {
		f->lazy = 1;
		f->lazy_ts = ts;
		return;
	}
	f->lazy = 0;	/* left only with the runs unchanged since: this floor is no lower */
	clock_advance(f, clock_floor(f, ts, mono));
}

/*
 * The floor at @ts: a run still open will be submitted with its first
 * event's time.  One that held back no clock at the latest time seen holds
 * back none later: skipped while time goes forward (@mono).
 */
static inline uint64_t clock_floor(struct ps_lock_follow *f, uint64_t ts, int mono)
{
	uint64_t floor = ts;

	for (int w = 0; w < f->nr_words; w++) {
		for (uint64_t m = f->open[w] & (mono ? ~f->stale[w] : ~0ull); m; m &= m - 1) {
			int c = w * 64 + __builtin_ctzll(m), live = 0;
			const struct run *r = &f->runs[c];

			if (r->kind && r->t1 + FOLLOW_MAX_GAP_NS >= ts) {
				live = 1;
				if (r->t0 < floor)
					floor = r->t0;
			}
			if (r->pending_xf && r->xf_t + FOLLOW_MAX_GAP_NS >= ts) {
				live = 1;
				if (r->xf_t < floor)
					floor = r->xf_t;
			}
			if (!live && mono)
				f->stale[w] |= 1ull << (c & 63);
		}
	}
	return floor;
}

static inline void clock_lazy(struct ps_lock_follow *f)
{
	if (f->lazy) {
		f->lazy = 0;
		clock_advance(f, clock_floor(f, f->lazy_ts, 1));
	}
}

void ps_lock_follow_set_plain(struct ps_lock_follow *f, int on)
{
	f->plain = on;
}

void ps_lock_follow_event(struct ps_lock_follow *f, const struct ps_event *ev)
{
	lock_follow_event(f, ev, f->plain);
}

void ps_lock_follow_events(struct ps_lock_follow *f, const struct ps_event *evs, int n)
{
	/* one loop per path, the choice made once a batch */
	if (__builtin_expect(f->plain, 0)) {
		for (int i = 0; i < n; i++)
			lock_follow_event(f, &evs[i], 1);
		return;
	}
	for (int i = 0; i < n; i++)
		lock_follow_event(f, &evs[i], 0);
}

void ps_lock_follow_finish(struct ps_lock_follow *f)
{
	for (int c = 0; c < f->nr_cpus; c++)
		close_run(f, c);
	clock_flush(f);
	ps_lock_finish(f->lk);
}

void ps_lock_follow_stats(const struct ps_lock_follow *f, struct ps_lock_follow_stats *out)
{
	*out = f->st;
}
