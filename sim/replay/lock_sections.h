/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lock_sections.h - follow mode's zone-lock sections: which runs of a
 * trace's events the kernel ran under zone->lock, fed to a ps_lock
 * (sim/mm/lock.h).
 */
#ifndef PS_LOCK_SECTIONS_H
#define PS_LOCK_SECTIONS_H

#include <stdint.h>

#include "lib/event.h"
#include "lib/machine.h"
#include "sim/mm/lock.h"
#include "sim/mm/profile.h"

struct ps_lock_follow;

/*
 * A grouper feeding @lk; @m gives the zone of a pfn and the CPUs, @prof
 * which orders go through the pcp (direct frees are the others).
 * NULL on ENOMEM.  @lk and @m must outlive it.
 */
struct ps_lock_follow *ps_lock_follow_create(struct ps_lock *lk, const struct ps_machine *m,
					     const struct ps_profile *prof, int pageblock_order);
void ps_lock_follow_destroy(struct ps_lock_follow *f);

/*
 * One trace event, in trace order.  Groups as the kernel takes the lock:
 * a run of zone_locked events with percpu_refill=1 on one CPU for one zone
 * (with the extfrag events inside it) is one refill, ended by that CPU's
 * next other event (normally its mm_page_alloc); a run of pcpu_drain events
 * on one CPU for one zone is one drain; a zone_locked event with
 * percpu_refill=0 is one direct allocation; an mm_page_free of an order
 * the profile does not put on pcp lists is one direct free.  A section
 * holding an extfrag event counts as a fallback.  A run with no event for
 * 1 ms stops holding the model's clock back; when it ends it is submitted
 * late (its arrival clamped to the clock, counted as zone_lock_late).
 */
void ps_lock_follow_event(struct ps_lock_follow *f, const struct ps_event *ev);

/* ps_lock_follow_event() on each of @evs in turn. */
void ps_lock_follow_events(struct ps_lock_follow *f, const struct ps_event *evs, int n);

/*
 * @on: every event takes the plain path, the lock model advanced once per
 * event (no short path, no deferred clock): the reference the tests hold
 * the fast one to.  Call before the first event.
 */
void ps_lock_follow_set_plain(struct ps_lock_follow *f, int on);

/* Closes the runs still open (end of trace) and calls ps_lock_finish. */
void ps_lock_follow_finish(struct ps_lock_follow *f);

/* What the grouper saw: sections per cause, events it could not place. */
struct ps_lock_follow_stats {
	uint64_t sections[PS_LOCK_NR_CAUSES];
	uint64_t outside_zones;		/* events whose pfn lies in no zone */
	uint64_t trace_span_ns;		/* sum over multi-block sections of last - first event time */
	uint64_t trace_span_blocks;	/* sum of (blocks - 1) over those sections */
};
void ps_lock_follow_stats(const struct ps_lock_follow *f, struct ps_lock_follow_stats *out);

#endif
