/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pgs-local.h - what the pagesim-file reader (pgs_read.c) and its column
 * decoders (pgs_cols.c) share: the reader's state and the frame index.
 */
#ifndef PS_PGS_LOCAL_H
#define PS_PGS_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include <zstd.h>

#include "trace/pgs.h"
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

struct prefetch;

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
	/* cursors into the frame being read */
	const uint8_t *col[PS_PGS_NR_COLS], *end[PS_PGS_NR_COLS];
	uint32_t left;
	uint64_t prev_ts;
	uint16_t prev_cpu;
	int32_t pid[PS_PGS_MAX_CPU_STATE];
	uint64_t pfn[PS_PGS_MAX_CPU_STATE];
	/* pid -> comm, sorted by pid; the last lookups by pid % PGS_COMM_CACHE */
	char *comm_text;
	struct comm_map *comms;
	int nr_comms;
	struct comm_map comm_cache[PGS_COMM_CACHE];
	/* events decoded ahead of the caller */
	struct ps_event batch[PGS_BATCH];
	/* decode_fast()'s tables, by control byte and by aux byte */
	uint64_t tally[256];
	uint64_t type_word[256];
	uint32_t gfp_mask[256];
	uint8_t aux[256][4];
};


static inline uint16_t get16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

static inline uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get64(const uint8_t *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* The tables of ps_pgs_decode_fast(), by control byte and by aux byte; once per reader. */
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
