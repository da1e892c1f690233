/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * summary.h - the pass-1 summary a pagesim file carries (summary.c builds
 * it, prepass.c reads it; docs/pagesim-format.md, "The pass-1 summary").
 */
#ifndef PS_REPLAY_SUMMARY_H
#define PS_REPLAY_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "lib/event.h"
#include "lib/machine.h"

#define PS_PASS1_BLOB "pass1"		/* the blob's name in a pagesim file */
#define PS_PASS1_MAGIC "PSP1"
#define PS_PASS1_VERSION 3
#define PS_PASS1_HDR (88 + 4 * PS_NODE_RECLAIM_BINS)	/* bytes before the zones */
#define PS_PASS1_ZONE 32		/* bytes per zone */
#define PS_PASS1_REC 24			/* bytes per kept event */

struct ps_pass1_summary;

/*
 * kswapd's reclaim speed as the trace shows it: per node, a run from the
 * kswapd thread's mm_vmscan_kswapd_wake to its last
 * mm_vmscan_lru_shrink_inactive before the next wake; the pages those
 * events reclaimed over the runs' time.  The thread is the pid that emitted
 * the node's wake (no task names needed).
 */
struct ps_kswapd_speed {
	int32_t pid[PS_MAX_NODES];
	uint64_t wake_ns[PS_MAX_NODES], last_ns[PS_MAX_NODES];
	uint64_t pages, busy_ns;	/* over the runs closed so far */
};

/* Fewer pages of kswapd reclaim than this in a trace measure no speed. */
#define PS_KSWAPD_SPEED_MIN_PAGES 1000

void ps_kswapd_speed_event(struct ps_kswapd_speed *k, const struct ps_event *ev);

/* The runs' pages and time, the open ones closed at their last shrink. */
void ps_kswapd_speed_sums(const struct ps_kswapd_speed *k, uint64_t *pages, uint64_t *busy_ns);

/* Pages per ms from the sums, rounded, within the key's range (1 to PS_KSWAPD_RATE_MAX); 0 when they measure none. */
long ps_kswapd_speed_rate(uint64_t pages, uint64_t busy_ns);

/*
 * Node reclaim's speed as the trace shows it: each call's time from
 * mm_vmscan_node_reclaim_begin to the same task's _end on the same CPU,
 * per page it reclaimed, for the calls that reclaimed any; the median of
 * those.  A histogram of PS_NODE_RECLAIM_BIN_NS bins (the last holds the
 * slower ones), and the calls' pages and time summed.
 */
#define PS_NODE_RECLAIM_BINS 1024
#define PS_NODE_RECLAIM_BIN_NS 64
struct ps_node_reclaim_speed {
	int32_t pid[PS_MAX_CPUS];
	uint64_t begin_ns[PS_MAX_CPUS];		/* the open call's, 0 none */
	uint64_t calls;				/* in the histogram */
	uint64_t pages, busy_ns;		/* those calls' */
	uint32_t ns_per_page[PS_NODE_RECLAIM_BINS];
};

/* Fewer calls than this that reclaimed pages measure no speed. */
#define PS_NODE_RECLAIM_SPEED_MIN_CALLS 20

void ps_node_reclaim_speed_event(struct ps_node_reclaim_speed *k, const struct ps_event *ev);

/* Pages per ms of the median call, within 1 to PS_KSWAPD_RATE_MAX; 0 when the calls measure none. */
long ps_node_reclaim_speed_rate(const struct ps_node_reclaim_speed *k);

/* The calls' pages over their summed time, per ms, rounded; 0 when they measure none. */
long ps_node_reclaim_speed_mean(const struct ps_node_reclaim_speed *k);

/* A summary of a trace of @m (which must outlive it); NULL when @m has no zones or out of memory. */
struct ps_pass1_summary *ps_pass1_summary_create(const struct ps_machine *m);

/* Each event of the trace, in the order the file holds them. */
void ps_pass1_summary_event(struct ps_pass1_summary *s, const struct ps_event *ev);

/* The summary's bytes (malloc'd, *@len), or NULL out of memory: the file then carries none. */
void *ps_pass1_summary_finish(struct ps_pass1_summary *s, size_t *len);

void ps_pass1_summary_free(struct ps_pass1_summary *s);

#endif
