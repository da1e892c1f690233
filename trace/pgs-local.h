// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pgs-local.h - the pagesim file reader's state, shared by pgs_read.c (the
 * file's sections, frames and the reader's entry points) and pgs_cols.c (the
 * column decoders of an event frame).  Private to those two files.
 */
#ifndef PS_TRACE_PGS_LOCAL_H
#define PS_TRACE_PGS_LOCAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <zstd.h>

#include "lib/le.h"
#include "trace/pgs.h"
#include "trace/pgs_x.h"
#include "trace/reader-local.h"

struct blob {
	const char *name;
	int name_len;
	uint64_t raw_len;
	const uint8_t *z;
	size_t zlen;
};

struct frame {
	uint64_t off;		/* of the section header */
	uint32_t nr, raw_len;
	const uint8_t *z;
	size_t zlen;
};

#define PGS_BATCH 256
#define PGS_COMM_CACHE 64	/* pid -> comm lookups remembered */
/*
 * Zero bytes after the decompressed columns: the fast decoder reads 8 bytes
 * at a time and checks its cursors against the column ends once per batch,
 * so a damaged frame may take it up to 10 bytes per event of a batch past
 * the last column before the check catches it.
 */
#define RAW_PAD (PGS_BATCH * 10 + 64)
/* the mapped file is released behind the reader in steps of this much */
#define DROP_STEP (8u << 20)

/*
 * Frames decompressed ahead by a helper thread, when the machine has a
 * second CPU: the reader's own thread then only decodes.  A frame the
 * helper could not decompress is decompressed again by load_frame(), which
 * reports the damage as it would without the helper.
 */
#define PF_SLOTS 2

enum { PF_EMPTY, PF_BUSY, PF_READY, PF_FAILED };

struct pf_slot {
	uint8_t *buf;
	size_t cap;
	size_t got;
	int frame;
	int state;
};

struct prefetch {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
	int next;		/* next frame for the helper */
	int expected;		/* next frame the reader will load in order */
	ZSTD_DCtx *dctx;
	struct pf_slot slot[PF_SLOTS];
};

struct comm_map {
	int32_t pid;
	uint8_t task;		/* enum ps_task of comm */
	int8_t task_node;
	const char *comm;
};

struct pgs_state {
	const uint8_t *map;
	size_t size;
	int mapped;
	struct blob *blobs;
	int nr_blobs;
	struct frame *frames;
	int nr_frames, cur;
	size_t dropped;		/* bytes of the mapping released behind the reader */
	struct prefetch *pf;	/* NULL: frames are decompressed in load_frame() */
	ZSTD_DCtx *dctx;
	uint8_t *raw;
	size_t raw_cap;
	int ncols;		/* columns per frame: PS_PGS_V1_COLS in a version-1 file */
	/* cursors into the frame being read */
	const uint8_t *col[PS_PGS_NR_COLS], *end[PS_PGS_NR_COLS];
	uint32_t left;
	uint64_t prev_ts;
	uint16_t prev_cpu;
	int32_t pid[PS_PGS_MAX_CPU_STATE];
	uint64_t pfn[PS_PGS_MAX_CPU_STATE];
	struct ps_pgs_xpred xpred;
	/* pid -> comm, sorted by pid; the last lookups by pid % PGS_COMM_CACHE */
	char *comm_text;
	struct comm_map *comms;
	int nr_comms;
	struct comm_map comm_cache[PGS_COMM_CACHE];
	/* events decoded ahead of the caller */
	struct ps_event batch[PGS_BATCH];
	/* the slots of the batch whose x a page-cache, LRU or reclaim event filled */
	uint16_t xslot[PGS_BATCH];
	int nxslot;
	/* decode_fast()'s tables, by control byte and by aux byte */
	uint64_t tally[256];
	uint64_t type_word[256];
	uint32_t gfp_mask[256];
	uint8_t aux[256][4];
};

/* The per-control-byte and per-aux-byte tables of ps_pgs_decode_fast(), once per file. */
void ps_pgs_fast_tables(struct pgs_state *st);

/*
 * Decodes up to PGS_BATCH records of the current frame into st->batch,
 * every field checked against its column's end: the events kept (records
 * with a bad field are skipped, and counted unless @again says the batch
 * was decoded before), or -1 with @err naming the damaged event.  The
 * caller accounts them.
 */
int ps_pgs_decode_batch(struct ps_reader *r, struct pgs_state *st, int again, struct ps_error *err);

/*
 * The same without the per-field checks, and with the reader's accounting
 * of the batch: the count, or -2 when ps_pgs_decode_batch() must redo the
 * batch (a damaged or unusual record, or one with a bad field).
 */
int ps_pgs_decode_fast(struct ps_reader *r, struct pgs_state *st);

#endif
