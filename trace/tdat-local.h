/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-local.h - what the trace.dat data reader shares between its two
 * halves: the file's options and sections (tdat_options.c: where each
 * CPU's data lies) and the walk of its pages and events (tdat_data.c).
 */
#ifndef PS_TDAT_LOCAL_H
#define PS_TDAT_LOCAL_H

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "trace/reader-local.h"
#include "trace/tdat_data.h"


#define MAX_CHUNK		(64u << 20)	/* a larger chunk or options block is refused */
#define RAW_WINDOW		(256u << 10)	/* uncompressed data is read this much at a time */
#define SLACK			64		/* zeroed bytes past the data in a buffer */
#define MAX_SECTIONS		4096

struct region {
	uint64_t off, size;
	int used;
};

struct layout {
	int version, long_size, page_size, zstd;
	uint64_t file_size, options_start;
	uint64_t ts_offset;		/* signed, kept unsigned: any DATE or OFFSET wraps, no overflow */
	uint32_t mult, shift;
	int unsupported, damaged;
	const char *why;
	char damage[128];
	const char *want;		/* the buffer read, "" for the top level */
	/* per buffer: flyrecord section, page size, regions indexed by CPU */
	int found, top_found;
	uint64_t sec_off, top_sec_off;
	int buf_page;
	struct region *reg, *top_reg;
	int nreg, top_nreg;
};

struct tcpu {
	int cpu;
	uint64_t pos, end;		/* file: next byte to read, end of this CPU's data */
	uint32_t zleft;			/* compressed: chunks not read yet */
	uint8_t *buf;
	size_t cap, len, pg;		/* buffer size, bytes of data in it, current page */
	uint64_t vpos;			/* libtracecmd's offset of buf[0] */
	const uint8_t *data;		/* events of the current page, NULL when none */
	uint32_t size, curr, index, next;
	uint64_t ts;			/* raw time of the current event */
	long long lost;
	struct tep_record rec;
};

struct ps_tdat_data {
	int fd;
	int long_size, page_size, start, compressed;
	uint64_t ts_offset;
	uint32_t mult, shift;
	ZSTD_DCtx *z;
	uint8_t *zin;
	size_t zin_cap;
	int ncpu, nact;
	struct tcpu *cpu;
	int *act;			/* CPUs with a record, ascending */
	struct tcpu *last;		/* CPU of the record handed out last */
};

static inline uint32_t le32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t le64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, off);

		if (n <= 0)
			return -1;
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}


static inline uint64_t round_page(uint64_t v, uint64_t page)
{
	return (v + page - 1) & ~(page - 1);
}

static inline int good_page_size(int p)
{
	return p >= 256 && p <= (1 << 24) && !(p & (p - 1));
}


/* Damage in the data layout: an error, not a fall-back (libtracecmd may crash on it).  Returns -1. */
int ps_tdat_damage(struct layout *l, const char *why, int cpu, uint64_t off);
/* Something this reader leaves to libtracecmd.  Returns -1. */
int ps_tdat_refuse(struct layout *l, const char *why);

/* The file header: version, long and page size, compression, where the options start. */
int ps_tdat_header(struct layout *l, struct ps_tdat_data *d);
/* The options (v7 sections, v6 options and flyrecord): each CPU's data of the buffer l->want. */
int ps_tdat_options(struct layout *l, struct ps_tdat_data *d, uint64_t v6_options, int ncpu);
/* Section flags of a v7 flyrecord section: compressed or not. */
int ps_tdat_section_compressed(struct layout *l, struct ps_tdat_data *d, uint64_t off, int *compressed);
/*
 * Walks the chunk headers of a compressed CPU data: chunk count, total and
 * largest uncompressed size; all chunks must lie within the region.
 */
int ps_tdat_walk_chunks(struct layout *l, struct ps_tdat_data *d, const struct region *g, int cpu,
			uint32_t *count, uint64_t *total, uint32_t *largest);

#endif
