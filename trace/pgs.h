/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pgs.h - pagesim's own trace files: writer API and the on-disk constants
 * shared by the writer (pgs_write.c) and the reader (pgs_read.c).  The
 * layout is documented in docs/pagesim-format.md.
 *
 * A file is a fixed header, then sections in any order: named blobs
 * (machine snapshots, event format files, pid->comm table), event frames
 * (independent zstd frames of columnar, delta-coded records), a stats
 * section (lost and skipped events), and an END section that marks a file
 * that was closed properly.  Anything after the last whole section is
 * ignored and reported as a cut.
 */
#ifndef PS_PGS_H
#define PS_PGS_H

#include <stdint.h>
#include <stdio.h>

#include "lib/error.h"
#include "lib/event.h"
#include "trace/reader.h"

#define PS_PGS_MAGIC "PAGESIM\0"
#define PS_PGS_MAGIC_LEN 8
#define PS_PGS_VERSION 2		/* what the writer writes */
#define PS_PGS_VERSION_MIN 1		/* the oldest the reader reads: kmem events only */
#define PS_PGS_HEADER_SIZE 256
#define PS_PGS_SECTION_HEADER 16
#define PS_PGS_FRAME_EVENTS 65536	/* events per frame (the writer's default and the reader's limit) */

/* header offsets (little-endian) */
#define PS_PGS_H_VERSION 8		/* u16 format version */
#define PS_PGS_H_HSIZE 10		/* u16 header size */
#define PS_PGS_H_PAGE_SIZE 12		/* u32 */
#define PS_PGS_H_PAGEBLOCK 16		/* i32, -1 unknown */
#define PS_PGS_H_NR_CPUS 20		/* u32, 0 unknown */
#define PS_PGS_H_CREATED 24		/* u64 unix seconds */
#define PS_PGS_H_FLAGS 32		/* u32 PS_PGS_F_* */
#define PS_PGS_H_TOOL 36		/* char[28] tool version, NUL-padded */
#define PS_PGS_H_RELEASE 64		/* char[128] kernel release */
#define PS_PGS_H_SOURCE 192		/* char[64] what the events were read from */

#define PS_PGS_F_RECORDED (1u << 0)	/* written by pagesim record */
#define PS_PGS_F_CONVERTED (1u << 1)	/* written by pagesim convert */

/* section tags */
#define PS_PGS_BLOB "BLOB"
#define PS_PGS_EVTS "EVTS"
#define PS_PGS_STAT "STAT"
#define PS_PGS_END "END "

/* control byte of an event record */
#define PS_PGS_C_TYPE 0x07	/* a kmem event's enum ps_event_type, or PS_PGS_C_XTYPE */
#define PS_PGS_C_XTYPE 0x07	/* v2: a page-cache, LRU or reclaim event (trace/pgs_x.h) */
#define PS_PGS_C_CPU 0x08	/* cpu differs from the previous event's: cpu column */
#define PS_PGS_C_PID 0x10	/* pid differs from the last one on this cpu: pid column */
#define PS_PGS_C_NOPFN 0x20	/* pfn is PS_PFN_NONE: nothing in the pfn column */
#define PS_PGS_C_EXT 0x40	/* fields that do not fit the compact form: ext column */

/* columns of a frame, in this order */
enum ps_pgs_col {
	PS_PGS_COL_CTRL,	/* 1 byte per event */
	PS_PGS_COL_TS,		/* zigzag varint: ts - previous event's ts */
	PS_PGS_COL_CPU,		/* varint cpu, when PS_PGS_C_CPU */
	PS_PGS_COL_PID,		/* zigzag varint pid, when PS_PGS_C_PID */
	PS_PGS_COL_PFN,		/* zigzag varint: pfn - previous pfn on this cpu */
	PS_PGS_COL_ORDER,	/* 1 byte per event */
	PS_PGS_COL_AUX,		/* 1 byte per event: migratetype+1 | percpu_refill<<4 | flags<<5 */
	PS_PGS_COL_GFP,		/* u32 LE per mm_page_alloc (and per event with PS_PGS_C_EXT) */
	PS_PGS_COL_XF,		/* 5 bytes per mm_page_alloc_extfrag without PS_PGS_C_EXT */
	PS_PGS_COL_EXT,		/* 8 bytes per event with PS_PGS_C_EXT */
	PS_PGS_V1_COLS,		/* the columns of a version-1 frame */
	/* version 2: the page-cache, LRU and reclaim events (trace/pgs_x.h) */
	PS_PGS_COL_XTYPE = PS_PGS_V1_COLS,	/* 1 byte per such event: its enum ps_event_type */
	PS_PGS_COL_XPC,		/* x.pc of PC_ADD/PC_DEL: zigzag ino and index deltas, dev */
	PS_PGS_COL_XLRU,	/* x.lru of LRU_ADD/LRU_ACTIVATE: lru byte, varint flags */
	PS_PGS_COL_XKS,		/* x.ks of the kswapd wakes, sleeps and reclaim begins: zigzag nid, zid */
	PS_PGS_COL_XRC,		/* x.rc of the others: four counts, zigzag nid, priority, lru, flags */
	PS_PGS_NR_COLS
};

#define PS_PGS_MAX_CPU_STATE 1024	/* per-cpu predictor state; higher cpus always carry pid */

struct ps_pgs_meta {
	const char *kernel_release;	/* may be NULL */
	int page_size;
	int pageblock_order;		/* -1 unknown */
	int nr_cpus;			/* 0 unknown */
	const char *source;		/* "tracefs", "trace.dat", ... */
	uint32_t flags;			/* PS_PGS_F_* */
	int level;			/* zstd level, 0 for the default */
};

struct ps_pgs_writer;

/*
 * Starts a pagesim file on @f (positioned at 0, seekable for the header
 * patch in ps_pgs_writer_finish()); @name is for messages.  The caller
 * owns @f (atomic rename: cli's struct ps_out).
 */
struct ps_pgs_writer *ps_pgs_writer_open(FILE *f, const char *name, const struct ps_pgs_meta *m,
					 struct ps_error *err);

/* A named blob ("before/proc/zoneinfo", "format/kmem/mm_page_alloc"). */
int ps_pgs_write_blob(struct ps_pgs_writer *w, const char *name, const void *data, size_t len,
		      struct ps_error *err);

/*
 * Every regular file under @dir (recursively) as "<prefix>/<relative path>".
 * Files that cannot be read are skipped.  Returns the number stored or -1.
 */
int ps_pgs_write_dir(struct ps_pgs_writer *w, const char *prefix, const char *dir, struct ps_error *err);

/*
 * The stored files of the pagesim file @r is reading, into @w, but for
 * names that start with one of @skip (NULL-terminated; "comm" and the
 * like, which the writer makes anew): their number, or -1 with @err.
 */
int ps_pgs_copy_blobs(struct ps_reader *r, struct ps_pgs_writer *w, const char *const *skip, struct ps_error *err);

/* Appends one event; a frame is compressed and written every PS_PGS_FRAME_EVENTS. */
int ps_pgs_write_event(struct ps_pgs_writer *w, const struct ps_event *ev, struct ps_error *err);

/*
 * @fn sees each event ps_pgs_write_event() appends, as the file will hold
 * it (cli gives the pass-1 summary its events this way).
 */
void ps_pgs_set_observer(struct ps_pgs_writer *w, void (*fn)(void *ctx, const struct ps_event *ev), void *ctx);

/* Writes the buffered events as a frame now (record does this on a timer). */
int ps_pgs_flush(struct ps_pgs_writer *w, struct ps_error *err);

/* Remembers the comm of a pid (stored as the blob "comm" at the end). */
void ps_pgs_note_comm(struct ps_pgs_writer *w, int32_t pid, const char *comm);

/* Lost/skipped figures of the source (convert) carried into the file. */
void ps_pgs_set_source_stats(struct ps_pgs_writer *w, const struct ps_reader_stats *s);

/* Per-cpu ring-buffer losses (record): overrun count and missed-event reports. */
void ps_pgs_set_cpu_lost(struct ps_pgs_writer *w, int cpu, uint64_t overrun, uint64_t missed,
			 uint64_t markers, uint64_t unknown);

/* Header values learnt late (patched at finish). */
void ps_pgs_set_pageblock_order(struct ps_pgs_writer *w, int order);
void ps_pgs_set_nr_cpus(struct ps_pgs_writer *w, int nr_cpus);

/* Events and bytes written so far (for progress lines). */
uint64_t ps_pgs_events(const struct ps_pgs_writer *w);
uint64_t ps_pgs_bytes(const struct ps_pgs_writer *w);
/* ... of which event frames (section headers included) */
uint64_t ps_pgs_event_bytes(const struct ps_pgs_writer *w);

/* Last frame, stats, comm table, END; patches the header; flushes @f. */
int ps_pgs_writer_finish(struct ps_pgs_writer *w, struct ps_error *err);

void ps_pgs_writer_free(struct ps_pgs_writer *w);

/* varints, shared by writer, reader and tests */
static inline uint64_t ps_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t ps_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

#endif
