/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reader.h - open any supported trace and pull events from it in time order.
 *
 * Formats, decided from the content (not the name): ftrace text (the
 * tracefs `trace` and `trace_pipe` files), `trace-cmd report` text,
 * trace.dat v6/v7 (through libtracecmd), perf.data of kmem tracepoints
 * (perf.c) and `perf script` text of them, and pagesim files; any of them
 * may be compressed with zstd, gzip or xz (trace/stream.h).  Anything else
 * is refused, named as what it is (sniff.h).
 *
 * What a reader cannot use is skipped and counted per reason, with the
 * place of the first occurrence, so that the caller can report it; with
 * PS_RD_STRICT the first skip is an error instead.
 */
#ifndef PS_READER_H
#define PS_READER_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/event.h"

enum ps_skip_reason {
	PS_SKIP_MALFORMED,	/* a line that is not an ftrace event line */
	PS_SKIP_OTHER_EVENT,	/* an event that is not one of lib/event.h's */
	PS_SKIP_BAD_FIELD,	/* one of them with a missing or unparsable field */
	PS_SKIP_NR
};

#define PS_READER_MAX_CPUS 1024

struct ps_reader_stats {
	uint64_t events[PS_EV_NR];
	uint64_t alloc_failed;		/* mm_page_alloc with no page */
	uint64_t lines;			/* text: lines read */
	uint64_t skipped[PS_SKIP_NR];
	char skip_first[PS_SKIP_NR][160];	/* "file:line: text" of the first one */
	uint64_t lost_events;		/* events the ring buffer dropped (known counts) */
	uint64_t lost_markers;		/* places where events were lost */
	uint64_t lost_unknown;		/* ... of which the count is unknown */
	uint64_t lost_overwritten;	/* text header: entries-written minus entries-in-buffer */
	uint64_t out_of_order;		/* events older than the one before them */
	uint64_t pfn_from_page;		/* pfns derived from a struct page address */
	int truncated;			/* the input ended early (message in truncated_msg) */
	char truncated_msg[512];
	int max_cpu;			/* highest CPU seen, -1 if none */
};

/* reader options */
#define PS_RD_STRICT	(1u << 0)	/* any skip is an error */
#define PS_RD_COMM	(1u << 1)	/* fill ev->comm */

struct ps_reader_opts {
	unsigned int flags;
	int kver;		/* kernel release (PS_KVER) for the trace, or PS_KVER_UNKNOWN */
	int kver_forced;	/* kver overrides what the trace itself says */
};

struct ps_reader;

/* Opens @path; NULL with @err filled on failure.  @opts may be NULL. */
struct ps_reader *ps_reader_open(const char *path, const struct ps_reader_opts *opts,
				 struct ps_error *err);

/*
 * Fills @ev with the next event.  Returns 1, 0 at the end, or -1 on a fatal
 * error (@err filled).  A truncated input ends the stream (returns 0) and
 * sets stats->truncated; callers must report it.
 */
int ps_reader_next(struct ps_reader *r, struct ps_event *ev, struct ps_error *err);

/*
 * The next events as a batch, for hot loops: points *@evs at them and
 * returns how many (at least 1), 0 at the end, or -1 on a fatal error (@err
 * filled), as ps_reader_next() would.  The events are the ones
 * ps_reader_next() would yield one at a time (every field set, comm only
 * with PS_RD_COMM) and stay valid until the next call on @r.  Pagesim files
 * give up to 256 at a time; the other formats one.  Both calls may be mixed.
 *
 * The statistics count a batch when it is decoded: after ps_reader_next()
 * they may already count the rest of the current batch; they are exact once
 * the reader returned 0.
 */
int ps_reader_next_batch(struct ps_reader *r, const struct ps_event **evs, struct ps_error *err);

const struct ps_reader_stats *ps_reader_stats(const struct ps_reader *r);

/* "ftrace text", "trace-cmd report text", "trace.dat", "perf.data", "perf script text", "pagesim v1", ... */
const char *ps_reader_format(const struct ps_reader *r);

/* The kernel release the trace itself names ("6.1.0-57-amd64"), or NULL. */
const char *ps_reader_kernel_release(const struct ps_reader *r);

/* The kernel release used to interpret the events (PS_KVER). */
int ps_reader_kver(const struct ps_reader *r);

/* pageblock_order printed in the trace (extfrag events), or -1. */
int ps_reader_pageblock_order(const struct ps_reader *r);

/* Number of CPUs the trace declares (header), or 0. */
int ps_reader_nr_cpus(const struct ps_reader *r);

/*
 * A machine snapshot file stored in the trace itself (pagesim files carry
 * the before/ and after/ sysroots): @rel is e.g. "before/proc/zoneinfo".
 * Returns a malloc'd NUL-terminated copy (caller frees), or NULL if absent.
 */
char *ps_reader_snapshot(const struct ps_reader *r, const char *rel, size_t *len);

/* Whether the trace carries snapshots (then it needs no --sysroot). */
int ps_reader_has_snapshots(const struct ps_reader *r);

/*
 * The enum ps_task of @pid as the reader names tasks with PS_RD_COMM, and
 * its comm in *@comm (NULL when unnamed), for back-ends that name tasks by
 * pid (pagesim files); -1 for the others.
 */
int ps_reader_task_of(struct ps_reader *r, int32_t pid, const char **comm);

/* Turns PS_RD_COMM on from the next event: 0, or -1 when the back-end cannot (open it again). */
int ps_reader_add_comm(struct ps_reader *r);

void ps_reader_close(struct ps_reader *r);

#endif
