/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline.h - what a run shows besides its totals: a timeline (columns
 * read at the end of every interval of trace time), the events a filter
 * selects (only they count), what each event counted (for breakdowns), and
 * where fallbacks stole from or claimed pageblocks.
 *
 * A column is a counter or a level.  A counter's row holds its change over
 * the interval (a delta of a cumulative value), so a counter's rows sum to
 * its total; a level's row holds its value at the interval's end, so its
 * last row is its value at the end of the run.  Each column names the
 * printed counters it sums or ends at (ps_tl_col.total).
 *
 * Intervals start at the first event's time: [t0 + k I, t0 + (k + 1) I).
 * stat drives a struct ps_timeline itself (ps_tl_start, ps_tl_emit before
 * each event at or after the row's end, ps_tl_finish); a replay does it
 * from its timer queue (ps_replay_set_view).  Nothing here allocates or
 * formats per event.
 */
#ifndef PS_TIMELINE_H
#define PS_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

#include "lib/event.h"
#include "lib/kvfile.h"
#include "sim/mm/vmstat.h"

enum ps_tl_kind { PS_TL_DELTA, PS_TL_LEVEL };

struct ps_tl_col {
	char name[80];
	/*
	 * The printed counters the column sums to (a counter) or ends at (a
	 * level), '+'-joined; "stat:" before a name: stat's counter of the
	 * same trace; empty: none
	 */
	char total[176];
	uint8_t kind;		/* enum ps_tl_kind */
	uint8_t get;		/* how the value is read (timeline.c) */
	int16_t arg;
	const void *p, *p2;
};

struct ps_timeline;

/* One row: [@start_ns, @end_ns) of trace time, one value per column. */
typedef void (*ps_tl_row_fn)(void *ctx, const struct ps_timeline *t, uint64_t start_ns, uint64_t end_ns,
			     const int64_t *row);

/* Rows a timeline emits at most: after them it stops (overflow), for a trace with a gap of years. */
#define PS_TL_MAX_ROWS 10000000ull

struct ps_timeline {
	uint64_t interval_ns;
	int nr, cap;
	struct ps_tl_col *col;
	int64_t *last;		/* each column's cumulative value at the row's start */
	int64_t *row;
	uint64_t t0, start;	/* the first event's time; the row's start */
	int started, overflow;
	uint64_t rows;
	ps_tl_row_fn fn;
	void *ctx;
};

int ps_tl_init(struct ps_timeline *t, uint64_t interval_ns, ps_tl_row_fn fn, void *ctx);
void ps_tl_free(struct ps_timeline *t);

/*
 * The counters of @c as columns, named and in the order
 * ps_counters_to_kv() prints them, with @prefix before each name ("" or
 * "trace."); @fold (may be NULL) is added to the rows it folds into at the
 * end (ps_replay_counters' invisible allocations).  @total_prefix goes
 * before each name in the column's total ("" or "stat:"); a total ending in
 * '?' is printed only when the trace has page-cache, LRU or reclaim events
 * (the column is 0 otherwise).  0 or -1 (ENOMEM).
 */
int ps_tl_add_counters(struct ps_timeline *t, const struct ps_counters *c, const struct ps_counters *fold,
		       const char *prefix, const char *total_prefix);

/* Sets the first row's start (the first event's time) and every column's starting value. */
void ps_tl_start(struct ps_timeline *t, uint64_t t0);

/* The row's end: ps_tl_emit() is due before an event at or after it. */
static inline uint64_t ps_tl_row_end(const struct ps_timeline *t)
{
	return t->start + t->interval_ns;
}

/*
 * Emits the row [start, start + interval) and starts the next; returns 0, or
 * -1 once PS_TL_MAX_ROWS rows were emitted (t->overflow; no more rows).
 */
int ps_tl_emit(struct ps_timeline *t);

/*
 * Emits the rows ending at or before @ts (call before each event at @ts);
 * 0, or -1 when they would pass PS_TL_MAX_ROWS (t->overflow, none emitted).
 */
int ps_tl_advance(struct ps_timeline *t, uint64_t ts);

/* Emits the last row, if it saw anything since the row before. */
void ps_tl_finish(struct ps_timeline *t);

/*
 * The count fields of a struct ps_counters, copied before an event so that
 * what the event counted can be read off (ps_counted_delta) or undone
 * (ps_cnt_snap_restore: an event the filter does not select).
 */
struct ps_cnt_snap {
	uint64_t head[6 + PS_ZONE_NR + 2];	/* numa_hit .. pgfree_batched_pages */
	uint64_t tail[PS_XF_NR + PS_EV_NR + 4];	/* extfrag .. bad_order */
	uint64_t reclaim[7];			/* pgsteal_kswapd .. zone_reclaim_failed */
	struct ps_numa_node node[PS_MAX_NODES];
	int nr_nodes;
};

void ps_cnt_snap_take(struct ps_cnt_snap *s, const struct ps_counters *c);
void ps_cnt_snap_restore(const struct ps_cnt_snap *s, struct ps_counters *c);

/* What one event counted: an allocation or a free, where, and its NUMA outcome. */
struct ps_counted {
	uint64_t allocs, alloc_pages, frees, free_pages, failed;
	uint64_t numa_hit, numa_miss, numa_local, numa_other;
	int node, zone_type;	/* the zone of the allocation or the free; -1 unknown */
	int cpu;		/* the CPU it was counted on */
};

/* @d: what @c counted since @before (node and zone_type of an allocation; -1 else). */
void ps_counted_delta(struct ps_counted *d, const struct ps_counters *c, const struct ps_cnt_snap *before);

/*
 * What a replay shows besides its totals (set after ps_replay_start(), before
 * pass 2).  interval_ns: a timeline of the model's counters and levels and the
 * trace's own counters beside them, rows to @row; select: only the events it
 * returns 1 for count in the kernel's counters (every event still runs
 * through the model); counted: called after each selected allocation or free
 * with what it counted (the model's choice); fallback_marks: keep where
 * fallbacks stole or claimed, for ps_replay_write_pageblocks().
 */
struct ps_replay_view {
	uint64_t interval_ns;		/* 0: no timeline */
	ps_tl_row_fn row;
	int (*select)(void *ctx, const struct ps_event *ev);
	void (*counted)(void *ctx, const struct ps_event *ev, const struct ps_counted *d);
	void *ctx;
	int fallback_marks;
};

struct ps_replay;

/* 0, or -1 with a message in @err. */
int ps_replay_set_view(struct ps_replay *r, const struct ps_replay_view *v, char *err, int len);

/* The timeline's columns (NULL without one). */
const struct ps_timeline *ps_replay_timeline(const struct ps_replay *r);

/* After the last event, before ps_replay_counters(): the last row. */
void ps_replay_view_finish(struct ps_replay *r);

/*
 * The totals of the timeline's columns that ps_replay_counters() does not
 * print (the recorded kswapd's frees per node), appended to @kv.
 */
int ps_replay_view_counters(const struct ps_replay *r, struct ps_kv *kv);

/*
 * Each zone's pageblocks, one character each from the zone's first pfn, by
 * migratetype as the kernel's show_migration_types() letters them, and
 * where fallbacks stole from or claimed them (with fallback_marks).
 */
void ps_replay_write_pageblocks(const struct ps_replay *r, FILE *f);

#endif
