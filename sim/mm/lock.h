/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lock.h - the zone->lock and struct zone cache-line model.
 *
 * Four parts, one prefix and one file each:
 *
 *  ps_zone_layout  which fields of struct zone share a cache line: the
 *                  built-in 3.17 and 4.0 layouts, or `key = value` files
 *                  (zone_layout.h).
 *  ps_cl           the cache lines of every zone: last writer and the CPUs
 *                  holding a valid copy; counts transfers (cacheline.h).
 *  ps_lock         the discrete-event lock queue (this header): zone-lock
 *                  sections (refill, drain, direct alloc/free, fallback)
 *                  with a duration, served FIFO per zone; waits, holds and
 *                  the accesses each section makes to the zone's lines.
 *  ps_lock_follow  groups a trace's events into the sections the kernel ran
 *                  under zone->lock (follow mode) and feeds them to a ps_lock
 *                  (sim/replay/lock_sections.h: trace analysis).
 *
 * Event order (what makes runs reproducible bit for bit): sections are
 * served in order of arrival time at the lock, ties by submission order;
 * cache-line accesses run in time order, ties by the order they were made.
 * Times are integer nanoseconds.  The model's assumptions are listed at the
 * top of lock.c and in docs/lock-model.md.
 */
#ifndef PS_LOCK_H
#define PS_LOCK_H

#include <stdint.h>

#include "lib/error.h"
#include "lib/kvfile.h"
#include "sim/mm/cacheline.h"
#include "lib/machine.h"

enum ps_lock_cause {
	PS_LOCK_REFILL,		/* rmqueue_bulk */
	PS_LOCK_DRAIN,		/* free_pcppages_bulk */
	PS_LOCK_DIRECT_ALLOC,	/* rmqueue / rmqueue_buddy without the pcp */
	PS_LOCK_DIRECT_FREE,	/* free_one_page without the pcp */
	PS_LOCK_FALLBACK,	/* a refill or direct alloc that fell back to another migratetype */
	PS_LOCK_NR_CAUSES
};

extern const char *const ps_lock_cause_names[PS_LOCK_NR_CAUSES];

/*
 * Defaults (docs/lock-model.md gives the sources): 50 ns to take and drop an
 * uncontended, cache-hot zone->lock; 60 ns per block moved between the
 * buddy and a per-CPU list (about 180 cycles at 3 GHz, inside the 100-400
 * cycle order-0 fast-path cost).
 */
#define PS_LOCK_ACQUIRE_NS 50
#define PS_LOCK_PAGE_NS 60

struct ps_lock_params {
	uint64_t acquire_ns;	/* lock.acquire_ns */
	uint64_t page_ns;	/* lock.page_ns: per block moved */
	int carry;		/* lock.carry: a wait delays the CPU's later sections (1) or not (0) */
	struct ps_zone_layout layout;
	/*
	 * The bounded queues' sizes, 0 for the defaults (tests and fuzzing
	 * make them small to reach what a full queue does): accesses in
	 * flight (at least 8; default 65536 + 64 per CPU), sections a CPU may
	 * have waiting (1 to 256, the default).
	 */
	int queue_cap, ring_cap;
};

/* Defaults, layout 4.0. */
void ps_lock_params_init(struct ps_lock_params *p);

/*
 * One `--set` key: lock.acquire_ns, lock.page_ns, lock.carry, or a layout
 * key (ps_zone_layout_set).  Returns 0, 1 if @key is none of these, -1 on a
 * bad value (message in @err naming @where).
 */
int ps_lock_params_set(struct ps_lock_params *p, const char *key, const char *value, const char *where,
		       struct ps_error *err);

/* One zone-lock section, as the replay engine or the follow grouper sees it. */
struct ps_lock_sect {
	uint64_t t_ns;		/* when the CPU reaches the lock (trace time) */
	uint64_t t_last_ns;	/* trace time of its last event (follow mode; else = t_ns) */
	int zone;		/* index in the machine's zone array */
	int cpu;
	int nr;			/* blocks moved (list operations on free_area) */
	int order;		/* order of those blocks */
	int mt;			/* their migratetype (free list), v4.4+ numbering */
	int cause;		/* enum ps_lock_cause */
};

struct ps_lock;

/* A model for @nr_zones zones and @nr_cpus CPUs; NULL with @err on failure.  Free with ps_lock_destroy. */
struct ps_lock *ps_lock_create(const struct ps_lock_params *p, int nr_zones, int nr_cpus, struct ps_error *err);
void ps_lock_destroy(struct ps_lock *lk);

/*
 * Submits a section.  Sections must come in non-decreasing t_ns (trace
 * order) unless the caller uses ps_lock_advance; the model may serve them
 * later (a CPU delayed by earlier waits).  No allocation, no string work.
 * Out-of-range zone, cpu or cause: counted (zone_lock_ignored), ignored.
 */
void ps_lock_submit(struct ps_lock *lk, const struct ps_lock_sect *s);

/*
 * For callers that submit sections late (the follow grouper): promises that
 * no later submission has t_ns < @floor, and serves what that allows.  Once
 * called, submissions no longer advance the model's clock themselves.
 */
void ps_lock_advance(struct ps_lock *lk, uint64_t floor);

/*
 * The earliest time a ps_lock_advance() can have work at: until the clock
 * reaches it, an advance only moves the clock.  Changes with each
 * ps_lock_submit() and each advance that works.
 */
uint64_t ps_lock_next_due(const struct ps_lock *lk);

/* The same for order-0 MOVABLE blocks: what the simulate-mode hooks call. */
void ps_lock_section(struct ps_lock *lk, int zone, int cpu, uint64_t t_ns, int pages, int cause);

/*
 * Pages held on the per-CPU lists of @zone (all CPUs) from @t_ns on: the
 * model keeps their time-weighted mean and maximum.  Call after every
 * change (simulate mode: the model's zone->nr_pcp_pages).
 */
void ps_lock_pcp_pages(struct ps_lock *lk, int zone, uint64_t t_ns, uint64_t pages);

/* Pages held on a zone's per-CPU lists over time: time-weighted mean and peak. */
__extension__ typedef unsigned __int128 ps_pcp_area_t;	/* page-ns, exact */

struct ps_pcp_held {
	uint64_t first_t, last_t, cur, max;
	ps_pcp_area_t area;
	int seen;
};

/* @h holds @pages from @t_ns on (an earlier @t_ns counts as the latest one's). */
static inline void ps_pcp_held_set(struct ps_pcp_held *h, uint64_t t_ns, uint64_t pages)
{
	if (__builtin_expect(!h->seen, 0)) {
		h->seen = 1;
		h->first_t = h->last_t = t_ns;
	} else if (t_ns > h->last_t) {
		h->area += (ps_pcp_area_t)h->cur * (t_ns - h->last_t);
		h->last_t = t_ns;
	}
	h->cur = pages;
	if (pages > h->max)
		h->max = pages;
}

/* The record ps_lock_pcp_pages() keeps for @zone (0 <= @zone < the lock's zones), to update in place. */
struct ps_pcp_held *ps_lock_pcp_held(struct ps_lock *lk, int zone);

/* Serves every pending section and runs every pending access.  Call once, at the end. */
void ps_lock_finish(struct ps_lock *lk);

/*
 * Appends the counters: totals, then per zone as <name>.node<N>.<Zone>:
 * zone_lock_acquisitions, zone_lock_contended, zone_lock_wait_ns,
 * zone_lock_hold_ns, zone_cacheline_transfers, each also _<cause>;
 * pcp_pages_held_avg, pcp_pages_held_max.  @m names the zones (may be NULL:
 * <name>.zone<i>).  Returns 0 or -1 (ENOMEM).
 */
int ps_lock_counters(const struct ps_lock *lk, const struct ps_machine *m, struct ps_kv *kv);

/* Counters read by tests and drivers. */
struct ps_lock_zone_stats {
	uint64_t acquisitions[PS_LOCK_NR_CAUSES], contended[PS_LOCK_NR_CAUSES];
	uint64_t wait_ns[PS_LOCK_NR_CAUSES], hold_ns[PS_LOCK_NR_CAUSES];
	uint64_t transfers[PS_LOCK_NR_CAUSES];
	uint64_t blocks;
};

/* Sums over causes (and zones when @zone < 0) of one zone's stats. */
void ps_lock_stats(const struct ps_lock *lk, int zone, struct ps_lock_zone_stats *out);
uint64_t ps_lock_total(const uint64_t v[PS_LOCK_NR_CAUSES]);

/* Serve order and timing of the sections, for tests: start time of the n-th served section. */
struct ps_lock_served {
	uint64_t arrival, start, end;
	int cpu, zone;
};
/* Records served sections into @buf (up to @len); NULL stops recording. */
void ps_lock_record(struct ps_lock *lk, struct ps_lock_served *buf, int len, int *count);

/*
 * @on: every access goes through the heap, a section alone in time too:
 * the reference the tests hold the shortcut to.  Call before the first
 * section.  ps_lock_alone(): the sections that took the shortcut.
 */
void ps_lock_set_plain(struct ps_lock *lk, int on);
uint64_t ps_lock_alone(const struct ps_lock *lk);

/* The zones and CPUs @lk was made for. */
int ps_lock_nr_zones(const struct ps_lock *lk);
int ps_lock_nr_cpus(const struct ps_lock *lk);

#endif
