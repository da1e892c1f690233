/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reader-local.h - what the format back-ends of reader.c share. */
#ifndef PS_READER_LOCAL_H
#define PS_READER_LOCAL_H

#include "trace/reader.h"
#include "trace/stream.h"

struct ps_reader;
struct tracecmd_input;
struct tep_handle;
struct ps_tep_kmem;

struct ps_reader_ops {
	const char *name;
	int (*next)(struct ps_reader *r, struct ps_event *ev, struct ps_error *err);
	/* optional: see ps_reader_next_batch(); without it, batches of one from next() */
	int (*next_batch)(struct ps_reader *r, const struct ps_event **evs, struct ps_error *err);
	void (*close)(struct ps_reader *r);
	/* optional: stored sysroot files, see ps_reader_snapshot() */
	char *(*snapshot)(const struct ps_reader *r, const char *rel, size_t *len);
	/* optional: see ps_reader_task_of(); a back-end with it reads PS_RD_COMM per batch */
	int (*task_of)(struct ps_reader *r, int32_t pid, const char **comm);
};

struct ps_reader {
	const struct ps_reader_ops *ops;
	char *path;
	struct ps_stream *stream;	/* text and pagesim back-ends */
	void *priv;			/* back-end state */
	struct ps_reader_opts opts;
	struct ps_reader_stats stats;
	char format[64];
	char release[128];		/* from the trace itself, "" if none */
	int kver;
	int pageblock_order;
	int nr_cpus;
	uint64_t last_ts;
	/*
	 * Events a back-end decoded (and accounted) ahead (pagesim files):
	 * ps_reader_next() hands them out without a call into the back-end.
	 * Empty (equal) unless the back-end sets them.
	 */
	const struct ps_event *ahead, *ahead_end;
	struct ps_event one;		/* ps_reader_next_batch() of a back-end without next_batch */
};

/* Counts a skip of @reason at @where ("line 12"), with a sample of the input. */
int ps_reader_skip(struct ps_reader *r, enum ps_skip_reason reason, const char *where,
		   const char *sample, int sample_len, struct ps_error *err);

/* Book-keeping common to all back-ends once an event is filled. */
void ps_reader_account(struct ps_reader *r, const struct ps_event *ev);

/* The same, inlined for the per-event fast path; no branch on the data. */
static inline void ps_reader_account_inline(struct ps_reader *r, const struct ps_event *ev)
{
	uint64_t ts = ev->ts_ns, last = r->last_ts;
	int older = ts < last;

	r->stats.events[ev->type]++;
	r->stats.alloc_failed += ev->type == PS_EV_ALLOC && ev->pfn == PS_PFN_NONE;
	r->stats.out_of_order += older;
	r->last_ts = older ? last : ts;
	r->stats.max_cpu = (int)ev->cpu > r->stats.max_cpu ? (int)ev->cpu : r->stats.max_cpu;
}

int ps_text_open(struct ps_reader *r, struct ps_error *err);
int ps_tdat_open(struct ps_reader *r, int fd, struct ps_error *err);

/*
 * Reads the event data of the trace.dat on @fd with the header (event
 * formats, CPU count, buffer names, uname) of @handle, opened once from
 * another file and left open, @kmem the ps_tep_kmem_init() of its tep, and
 * @v6_options where a v6 file's options start in @fd's file.  Only
 * tdat_data.c's path: what it does not handle is an error.  For
 * fuzz/fuzz_tdat.c: pagesim's parsing of the data without libtracecmd's of
 * the header.
 */
int ps_tdat_open_with(struct ps_reader *r, int fd, struct tracecmd_input *handle,
		      const struct ps_tep_kmem *kmem, uint64_t v6_options, struct ps_error *err);
int ps_pgs_open(struct ps_reader *r, struct ps_error *err);

/*
 * perf.data: @fd the whole file, readable at any offset (closed by the
 * reader); -1 for a pipe's perf.data, read in order from r->stream.
 */
int ps_perf_open(struct ps_reader *r, int fd, struct ps_error *err);

/*
 * The same with the event formats of @lent (a tep_handle parsed before,
 * left to the caller) instead of the file's own, whose tracing data is
 * still read and checked: for fuzz/fuzz_perf.c, pagesim's reading without
 * libtraceevent's format parser.  @lent may be NULL.
 */
struct tep_handle;
int ps_perf_open_with(struct ps_reader *r, int fd, struct tep_handle *lent, struct ps_error *err);

/* A reader with nothing open yet: what ps_reader_open() starts from; NULL on no memory. */
struct ps_reader *ps_reader_alloc(const char *path, const struct ps_reader_opts *opts);

/* Derives a pfn from an x86-64 struct page address (default vmemmap), or PS_PFN_NONE. */
uint64_t ps_pfn_from_page_addr(uint64_t page);

#endif
