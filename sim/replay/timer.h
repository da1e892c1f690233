/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timer.h - the engine's timer queue: the model's timed activities (the
 * vmstat tick, kswapd's runs and naps, the release of a node-reclaim lock,
 * the untraced use, the flusher) and the timeline's sampling tick, each due at a time of
 * its own.
 *
 * Ordering contract, which makes a replay reproducible bit for bit:
 *  - timers run in order of due time, then of class (enum ps_timer_class,
 *    lowest first), then of insertion;
 *  - a timer due at T runs before the first trace event at or after T, with
 *    the engine's clock at that event's time (time advances with the trace);
 *  - each (class, arg) has at most one timer pending: arming it again moves
 *    it;
 *  - the sampling tick (PS_TIMER_SAMPLE) due at T ends the interval before
 *    T: it runs after every timer due before T and before any other timer
 *    due at T (it is the lowest class), so an interval's row holds the
 *    events and timed activities before its end and none at or after it.
 *    It changes nothing in the model, so a replay with a timeline is the
 *    replay without one.
 * The queue is a binary heap of fixed size (no allocation while replaying).
 */
#ifndef PS_TIMER_H
#define PS_TIMER_H

#include <stdint.h>

#include "lib/machine.h"

enum ps_timer_class {
	PS_TIMER_SAMPLE,	/* the timeline's row for the interval ending now (timeline.c) */
	PS_TIMER_RECLAIM_LOCK,	/* arg node: PGDAT_RECLAIM_LOCKED ends */
	PS_TIMER_UNTRACED,	/* the untraced use's next share */
	PS_TIMER_VMSTAT,	/* vmstat_update on every CPU with work queued */
	PS_TIMER_KSWAPD,	/* arg node: kswapd's next step */
	PS_TIMER_WRITEBACK,	/* the flusher (wb_workfn) */
	PS_TIMER_NR
};

#define PS_TIMER_ARGS PS_MAX_NODES
#define PS_TIMER_MAX (PS_TIMER_NR * PS_TIMER_ARGS)

struct ps_timer {
	uint64_t at;
	uint32_t seq;
	uint8_t cls;
	uint16_t arg;
};

struct ps_timers {
	uint32_t nr, seq;
	uint64_t next_at;	/* heap[0].at, UINT64_MAX when empty */
	struct ps_timer heap[PS_TIMER_MAX];
	int16_t pos[PS_TIMER_NR][PS_TIMER_ARGS];	/* heap slot of (class, arg), -1 none */
};

void ps_timers_init(struct ps_timers *t);

/* Arms (class @cls, @arg) at @at, replacing its pending timer if any. */
void ps_timer_arm(struct ps_timers *t, int cls, int arg, uint64_t at);

/* Disarms (class @cls, @arg). */
void ps_timer_cancel(struct ps_timers *t, int cls, int arg);

static inline int ps_timer_pending(const struct ps_timers *t, int cls, int arg)
{
	return t->pos[cls][arg] >= 0;
}

/* Whether a timer is due by @now. */
static inline int ps_timer_due(const struct ps_timers *t, uint64_t now)
{
	return t->next_at <= now && t->nr;	/* an empty queue is never due, even at UINT64_MAX */
}

/* Takes the earliest timer off the queue (call when ps_timer_due()). */
struct ps_timer ps_timer_pop(struct ps_timers *t);

#endif
