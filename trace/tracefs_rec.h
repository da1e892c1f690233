/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracefs_rec.h - live recording of the page events of lib/event.h (kmem,
 * and filemap, pagemap and vmscan's page-cache, LRU and reclaim events) through tracefs:
 * pagesim's own instance ("pagesim-<pid>"), never the top-level buffer;
 * per-CPU raw ring-buffer reads (libtracefs) decoded with libtraceevent
 * (tep_kmem.h); the per-CPU streams merged in time order into a pagesim
 * file writer; lost events per CPU counted from the ring buffer's overrun
 * statistics and from the missed-event marks of the pages read.
 *
 * Everything that ps_rec_start() switched on is switched off and the
 * instance removed by ps_rec_destroy(), which callers run on every exit
 * path.
 */
#ifndef PS_TRACEFS_REC_H
#define PS_TRACEFS_REC_H

#include <stdint.h>

#include "lib/error.h"
#include "trace/pgs.h"

struct ps_rec_opts {
	/*
	 * Bit per PS_EV_* to record, of which those in @required must exist
	 * on this kernel (the others are left out when it lacks them); 0:
	 * every event, the six kmem events required.
	 */
	unsigned int events, required;
	int buffer_kb;		/* per-CPU ring buffer size, 0 for the kernel's default */
};

/* The bit of every PS_EV_* and of the six kmem events. */
#define PS_REC_ALL_EVENTS ((1u << PS_EV_NR) - 1)
#define PS_REC_KMEM_EVENTS ((1u << PS_EV_KMEM_NR) - 1)

struct ps_rec_progress {
	uint64_t events;	/* events read */
	uint64_t lost;		/* events lost so far (overrun + missed marks) */
	uint64_t bytes;		/* bytes read from the ring buffers */
};

struct ps_rec;

/* Checks that recording can work here: root, tracefs mounted and writable. */
int ps_rec_check(struct ps_error *err);

/*
 * Checks the preconditions (as ps_rec_check(), and that the required events
 * exist on this kernel), creates the instance, sizes its ring buffer and
 * enables the events, with tracing still off.  Returns NULL with @err filled.
 */
struct ps_rec *ps_rec_start(const struct ps_rec_opts *o, struct ps_error *err);

/* The events asked for that this kernel does not have (PS_EV_* bits), left out. */
unsigned int ps_rec_missing(const struct ps_rec *r);

/*
 * Tracing on and off.  Apart from ps_rec_start() so that the ring buffer's
 * own pages (allocated when it is sized) fall outside the window a caller
 * snapshots the kernel's counters around.
 */
int ps_rec_on(struct ps_rec *r, struct ps_error *err);
void ps_rec_off(struct ps_rec *r);

/* The instance's name ("pagesim-1234"). */
const char *ps_rec_instance(const struct ps_rec *r);

/* The format files of the enabled events, stored as "format/<system>/<event>". */
int ps_rec_write_formats(struct ps_rec *r, struct ps_pgs_writer *w, struct ps_error *err);

/*
 * Drains what the ring buffers hold into @w, events up to a safe time in
 * time order (later ones wait for the next call).  Returns the number of
 * events read (0 when the buffers were empty) or -1.
 */
long ps_rec_poll(struct ps_rec *r, struct ps_pgs_writer *w, struct ps_error *err);

/* Events read, lost (so far) and bytes. */
void ps_rec_progress(struct ps_rec *r, struct ps_rec_progress *p);

/*
 * Stops tracing (if ps_rec_off() has not), drains the buffers, writes the rest of the events and the
 * per-CPU losses to @w.  Does not remove the instance (ps_rec_destroy).
 */
int ps_rec_stop(struct ps_rec *r, struct ps_pgs_writer *w, struct ps_error *err);

/* Per-CPU losses after ps_rec_stop(): fills up to @max entries, returns the CPU count. */
int ps_rec_lost(const struct ps_rec *r, uint64_t *lost, int max);

/* Disables the events, removes the instance, frees @r.  Safe on a half-started @r. */
void ps_rec_destroy(struct ps_rec *r);

/*
 * Machine snapshot of the live system into @w as "<prefix>/proc/zoneinfo",
 * ... (the files of a sysroot: zoneinfo, pagetypeinfo, buddyinfo, meminfo,
 * every /proc/sys/vm file, kernel release, node cpulists, distances and
 * meminfo), without the counters (ps_rec_read_counters).  Returns the count
 * of files stored or -1.
 */
int ps_rec_snapshot(struct ps_pgs_writer *w, const char *prefix, struct ps_error *err);

/*
 * The ring buffer of @r's instance per CPU, as "<prefix>/sys/kernel/tracing/
 * per_cpu/cpuN/buffer_size_kb": memory the tracer took from each CPU's node
 * before the run, which two recordings compared under two policies should
 * share.  Returns the count of files stored or -1.
 */
int ps_rec_snapshot_buffers(const struct ps_rec *r, struct ps_pgs_writer *w, const char *prefix,
			    struct ps_error *err);

/*
 * The kernel's counters, what stat --check subtracts: proc/vmstat and each
 * node's numastat and vmstat, read into memory so that a caller can read
 * them right before tracing goes on (proc/vmstat last) or right after it
 * goes off (@vmstat_first) and store them later: between the two reads the
 * kernel must count only what the trace shows.
 */
#define PS_REC_MAX_COUNTER_FILES (1 + 2 * 64)
struct ps_rec_counters {
	int nr;
	char *rel[PS_REC_MAX_COUNTER_FILES];
	char *text[PS_REC_MAX_COUNTER_FILES];
	size_t len[PS_REC_MAX_COUNTER_FILES];
};
int ps_rec_read_counters(struct ps_rec_counters *c, int vmstat_first, struct ps_error *err);
/* Stores them as "<prefix>/proc/vmstat", ... and frees them. */
int ps_rec_write_counters(struct ps_pgs_writer *w, const char *prefix, struct ps_rec_counters *c,
			  struct ps_error *err);
void ps_rec_counters_free(struct ps_rec_counters *c);

#endif
