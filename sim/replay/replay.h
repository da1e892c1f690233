/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.h - a trace replayed through the buddy model of every zone of a
 * machine, in one of two modes:
 *
 *  follow:   the kernel's own placements are applied (zone_locked takes a
 *            block from the buddy, mm_page_alloc hands it out, mm_page_free
 *            returns it, mm_page_pcpu_drain puts it back in the buddy);
 *            anything the model cannot do is a fidelity defect, counted.
 *  simulate: the trace gives requests (time, CPU, order, gfp, migratetype)
 *            and frees; the model chooses every block under its profile, and
 *            a table maps each traced block to the model's block.
 *
 * Both need two passes over the trace: pass 1 (ps_replay_prepass) infers
 * the state at the start of the trace; pass 2 (ps_replay_event) replays.
 * A pagesim file's pass-1 summary stands in for pass 1
 * (ps_replay_prepass_summary), so that such a file is read once.
 */
#ifndef PS_REPLAY_H
#define PS_REPLAY_H

#include <stdint.h>
#include <stdio.h>

#include "lib/kvfile.h"
#include "sim/mm/buddy.h"
#include "sim/mm/vmstat.h"
#include "lib/machine.h"
#include "sim/mm/lock.h"
#include "sim/config/policy.h"
#include "sim/mm/profile.h"

enum ps_replay_mode { PS_REPLAY_FOLLOW, PS_REPLAY_SIMULATE };

enum ps_defect {
	PS_DEF_ALLOC_NOT_FREE,		/* allocation of a block the model holds as allocated */
	PS_DEF_FREE_NOT_ALLOC,		/* free of a block the model holds as free in the buddy */
	PS_DEF_DRAIN_NOT_PCP,		/* pcp drain of a block not on a per-CPU list */
	PS_DEF_SHAPE,			/* a block whose order does not match the model's blocks */
	PS_DEF_NR
};

struct ps_replay_opts {
	int mode;			/* enum ps_replay_mode */
	const struct ps_profile *profile;
	/*
	 * The release whose rules the model follows within the profile
	 * (PS_KVER; 0: the recorded kernel's when the profile covers it,
	 * else the profile's first release)
	 */
	int kver;
	int verbose;			/* print each defect (first 100) on stderr */
	int check;			/* check every invariant after each event (slow) */
	int fold_invisible;		/* count invisible allocations in the numa/pgalloc rows */
	int defrag_mode;		/* vm.defrag_mode */
	/* tunables in force and as recorded (PS_UNSET where unknown) */
	struct ps_policy policy, recorded;
	/*
	 * Replaying on another machine (simulate mode only): the machine the
	 * trace was recorded on (NULL: the same as the model's), and the model
	 * node of each traced CPU (-1: by the default rule, see replay.c).
	 */
	const struct ps_machine *traced;
	int16_t cpu_node_map[PS_MAX_CPUS];
	/* the zone-lock and cache-line model (lock.h); default costs and layout 4.0 */
	struct ps_lock_params lock;
	/*
	 * Simulate mode, --untraced-use: the recorded machine's state when the
	 * trace ended (the sysroot's after/; NULL: not used).  The pages its
	 * zones hold free (buddy and per-CPU lists) short of what the model's
	 * start and the trace's own frees and allocations leave are memory the
	 * kernel used with no event (compaction's migration targets, ...): the
	 * model takes them from its zones too, evenly over the trace's time
	 * (replay_untraced_use_pages).
	 */
	const struct ps_machine *after;
	/*
	 * replay --ensemble: member @ensemble_member (1..) perturbs what the
	 * trace cannot pin down, from a seed of its own (0: none, the plain
	 * replay): kswapd's wake latency, the per-CPU vmstat drift of the
	 * free counts the allocator's watermark checks read, and the order of
	 * events of different CPUs at the same time (simulate mode).
	 */
	unsigned int ensemble_member;
};

/*
 * Parses --cpu-map "0-1:0,2-3:1" (traced CPUs : model node) into @map
 * (entries not named stay -1).  Returns 0 or -1 on a syntax error.
 */
int ps_replay_parse_cpu_map(const char *text, int16_t *map);

struct ps_replay;

/*
 * Replays @n events of pass 2 (ps_replay_event each, in the order the
 * ensemble member perturbs; a member holds a batch's last event back for
 * the next batch, so that where batches end changes nothing).  0, or -1
 * with @err and *@bad the event.  ps_replay_batch_end() after the last
 * batch replays what is held.
 */
int ps_replay_batch(struct ps_replay *r, const struct ps_event *evs, int n, const struct ps_event **bad, char *err,
		    int len);
int ps_replay_batch_end(struct ps_replay *r, const struct ps_event **bad, char *err, int len);

/* Builds the model of @m's zones.  NULL with @err on failure. */
struct ps_replay *ps_replay_create(const struct ps_machine *m, const struct ps_replay_opts *o, char *err, int len);
void ps_replay_destroy(struct ps_replay *r);

/* Pass 1: every event of the trace, in order, @n at a time. */
void ps_replay_prepass(struct ps_replay *r, const struct ps_event *evs, int n);

/*
 * Pass 1 from a pass-1 summary (sim/replay/summary.h) of @len bytes
 * instead of the trace.  @with_comm: whether pass 1 would have read tasks
 * (the reader's PS_RD_COMM); then @task_of gives the enum ps_task of a pid
 * (and its comm, NULL when unnamed) as the reader names it.  1: pass 1 is
 * done, and the trace must have *@events events; 0: the summary is of
 * other zones or another version (read the trace); -1: it is damaged (@r
 * is untouched either way).
 */
int ps_replay_prepass_summary(struct ps_replay *r, const void *blob, size_t len, int with_comm,
			      int (*task_of)(void *ctx, int32_t pid, const char **comm), void *ctx, uint64_t *events);

/*
 * Whether replays with @a and @b of one machine make the same pass 1 of a
 * trace (mode, profile, traced machine), and whether @a and @b (created)
 * do.  Then pass 1 of @src (done, not yet started) may be given to @dst
 * (no event seen) instead of its own, as a sweep's cells of one trace do:
 * 0, or -1 out of memory.
 */
int ps_replay_opts_share_prepass(const struct ps_replay_opts *a, const struct ps_replay_opts *b);
int ps_replay_prepass_shares(const struct ps_replay *a, const struct ps_replay *b);
int ps_replay_prepass_copy(struct ps_replay *dst, const struct ps_replay *src);

/* Between the passes: builds the initial free lists and pageblock types. */
int ps_replay_start(struct ps_replay *r, char *err, int len);

/* Pass 2.  Returns 0, or -1 if an invariant check failed (message in @err). */
int ps_replay_event(struct ps_replay *r, const struct ps_event *ev, char *err, int len);

/*
 * Pass 2 over @n events, as ps_replay_event() on each in turn (a timeline
 * counts the trace's own counters a run at a time).  0, or -1 with the
 * index of the event whose check failed in *@failed.
 */
int ps_replay_events(struct ps_replay *r, const struct ps_event *evs, int n, char *err, int len, int *failed);

/* Every counter (stat's rows, then replay_* and model rows) appended to @kv. */
int ps_replay_counters(struct ps_replay *r, struct ps_kv *kv);

/* The model's free lists as /proc/buddyinfo and /proc/pagetypeinfo text; indices as debugfs. */
void ps_replay_write_buddyinfo(const struct ps_replay *r, FILE *f);
void ps_replay_write_pagetypeinfo(const struct ps_replay *r, FILE *f);
void ps_replay_write_unusable_index(const struct ps_replay *r, FILE *f);
void ps_replay_write_extfrag_index(const struct ps_replay *r, FILE *f);

/* Bytes of model state per simulated page (zones plus the simulate-mode table). */
double ps_replay_bytes_per_page(const struct ps_replay *r);

uint64_t ps_replay_defects(const struct ps_replay *r);

#endif
