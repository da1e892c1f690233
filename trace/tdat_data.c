// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tdat_data.c - per-CPU event data of a trace.dat (see tdat_data.h).
 *
 * File layout (trace-cmd's lib/trace-cmd/trace-output.c and trace-input.c):
 * v7: header, then a chain of options sections (16-byte section header, the
 * options, possibly one zstd block of [compressed size][size][data]; the
 * DONE option holds the offset of the next section).  A BUFFER option names
 * a buffer, its flyrecord section and each CPU's data offset and size.  A
 * compressed CPU data holds a chunk count then chunks of [compressed
 * size][size][data] of whole ring-buffer pages.  v6: options after the
 * "options  " mark, a two-byte 0 ends them, then "flyrecord" and an offset
 * and size per CPU.
 *
 * Timestamps: the raw ring-buffer time, scaled by a TSC2NSEC option's
 * mult/shift, plus the DATE and OFFSET options, as libtracecmd 1.3 computes
 * them.  Guest files (TIME_SHIFT), big-endian files, latency buffers and
 * compression other than zstd are left to libtracecmd.
 *
 * Simplified: only a little-endian host; one zstd context; a page that
 * straddles a chunk or ends the data short is zero-filled past its end.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "trace/reader-local.h"
#include "trace/tdat_data.h"

enum {
	OPT_DONE = 0,
	OPT_DATE = 1,
	OPT_BUFFER = 3,
	OPT_OFFSET = 7,
	OPT_TIME_SHIFT = 12,
	OPT_TSC2NSEC = 14,
	OPT_BUFFER_TEXT = 22,
};

#define SEC_FL_COMPRESS		1

/* ring-buffer page (kernel/trace/ring_buffer.c) */
#define RB_MISSED_EVENTS	(1ull << 31)
#define RB_MISSED_STORED	(1ull << 30)
#define RB_COMMIT_MASK		((1u << 27) - 1)
#define RB_TS_SHIFT		27
#define RB_TS_MSB		(0xf8ull << 56)
#define RB_PADDING		29
#define RB_TIME_EXTEND		30
#define RB_TIME_STAMP		31

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

static int pread_full(int fd, void *buf, size_t len, uint64_t off)
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

/* Damage in the data layout: an error, not a fall-back (libtracecmd may crash on it). */
static int damage(struct layout *l, const char *why, int cpu, uint64_t off)
{
	if (!l->unsupported) {
		snprintf(l->damage, sizeof(l->damage), "cpu %d: %s (file offset %llu)", cpu, why,
			 (unsigned long long)off);
		l->unsupported = 1;
		l->why = l->damage;
		l->damaged = 1;
	}
	return -1;
}

static int refuse(struct layout *l, const char *why)
{
	if (!l->unsupported) {
		l->unsupported = 1;
		l->why = why;
	}
	return -1;
}

/* A NUL-terminated string at @p within @end, or NULL. */
static const char *str_at(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *z = memchr(p, 0, end - p);

	return z ? (const char *)p : NULL;
}

static long long opt_number(const uint8_t *p, uint32_t size)
{
	char tmp[64];

	if (size > sizeof(tmp) - 1)
		size = sizeof(tmp) - 1;
	memcpy(tmp, p, size);
	tmp[size] = 0;
	return strtoll(tmp, NULL, 0);
}

static int set_regions(struct layout *l, int top, struct region *reg, int nreg, uint64_t sec_off)
{
	if (top) {
		free(l->top_reg);
		l->top_reg = reg;
		l->top_nreg = nreg;
		l->top_sec_off = sec_off;
		l->top_found = 1;
	} else {
		free(l->reg);
		l->reg = reg;
		l->nreg = nreg;
		l->sec_off = sec_off;
		l->found = 1;
	}
	return 0;
}

/* v7 BUFFER option: offset, name, clock, page size, CPU count, per CPU [cpu][offset][size]. */
static int opt_buffer_v7(struct layout *l, const uint8_t *p, uint32_t size)
{
	const uint8_t *end = p + size, *q;
	const char *name, *clock;
	uint64_t sec_off;
	uint32_t page, cpus;
	struct region *reg;
	int nreg = 0, top, want;

	if (size < 8)
		return refuse(l, "short BUFFER option");
	sec_off = le64(p);
	q = p + 8;
	name = str_at(q, end);
	if (!name)
		return refuse(l, "bad BUFFER option");
	q += strlen(name) + 1;
	clock = str_at(q, end);
	if (!clock)
		return refuse(l, "bad BUFFER option");
	q += strlen(clock) + 1;
	top = !*name;
	want = !strcmp(name, l->want);
	if (!top && !want)
		return 0;
	if (end - q < 8)
		return refuse(l, "short BUFFER option");
	page = le32(q);
	cpus = le32(q + 4);
	q += 8;
	if ((uint64_t)(end - q) < (uint64_t)cpus * 20)
		return refuse(l, "short BUFFER option");
	if (want && !top)
		l->buf_page = page;
	reg = calloc(PS_READER_MAX_CPUS, sizeof(*reg));
	if (!reg)
		return refuse(l, "out of memory");
	for (uint32_t i = 0; i < cpus; i++, q += 20) {
		uint32_t cpu = le32(q);

		if (cpu >= PS_READER_MAX_CPUS || reg[cpu].used) {
			free(reg);
			return refuse(l, "BUFFER option with an odd CPU list");
		}
		reg[cpu].used = 1;
		reg[cpu].off = le64(q + 4);
		reg[cpu].size = le64(q + 12);
		if (cpu + 1 > (uint32_t)nreg)
			nreg = cpu + 1;
	}
	return set_regions(l, !want, reg, nreg, sec_off);
}

/* One option; v6 and v7 share the numbering.  @v6_buf: a v6 BUFFER option offset for the instance. */
static int option(struct layout *l, uint16_t id, const uint8_t *p, uint32_t size, uint64_t *v6_buf)
{
	switch (id) {
	case OPT_DATE:
		/* microseconds; libtracecmd's sum in long long wraps the same way in practice */
		l->ts_offset += (uint64_t)opt_number(p, size) * 1000;
		break;
	case OPT_OFFSET:
		l->ts_offset += (uint64_t)opt_number(p, size);
		break;
	case OPT_TIME_SHIFT:
		if (size >= 16)
			return refuse(l, "guest trace (TIME_SHIFT option)");
		break;
	case OPT_TSC2NSEC:
		if (size >= 16) {
			l->mult = le32(p);
			l->shift = le32(p + 4);
			if (l->shift > 32)
				return refuse(l, "TSC2NSEC shift out of range");
		}
		break;
	case OPT_BUFFER:
		if (l->version >= 7)
			return opt_buffer_v7(l, p, size);
		if (v6_buf && size > 8 && str_at(p + 8, p + size) && !strcmp((const char *)p + 8, l->want))
			*v6_buf = le64(p);
		break;
	case OPT_BUFFER_TEXT:
		if (size > 8 && str_at(p + 8, p + size) && !strcmp((const char *)p + 8, l->want))
			return refuse(l, "latency buffer");
		break;
	}
	return 0;
}

/* Reads and, when compressed, decompresses an options section's body. */
static uint8_t *section_body(struct layout *l, struct ps_tdat_data *d, uint64_t off, uint32_t *len)
{
	uint8_t hdr[16], *body, *zbody;
	uint64_t size;
	uint32_t zsize, usize;
	size_t ret;

	if (off + 16 > l->file_size || pread_full(d->fd, hdr, 16, off) < 0) {
		refuse(l, "options section out of the file");
		return NULL;
	}
	if (le32(hdr) & 0xffff) {	/* the section id of an options section is DONE (0) */
		refuse(l, "options section with an odd id");
		return NULL;
	}
	size = le64(hdr + 8);
	if (!((le32(hdr) >> 16) & SEC_FL_COMPRESS)) {
		if (size > MAX_CHUNK || off + 16 + size > l->file_size) {
			refuse(l, "options section too large");
			return NULL;
		}
		body = malloc(size + 1);
		if (!body || pread_full(d->fd, body, size, off + 16) < 0) {
			free(body);
			refuse(l, "options section unreadable");
			return NULL;
		}
		*len = size;
		return body;
	}
	if (!l->zstd || off + 24 > l->file_size || pread_full(d->fd, hdr, 8, off + 16) < 0) {
		refuse(l, "compressed options section");
		return NULL;
	}
	zsize = le32(hdr);
	usize = le32(hdr + 4);
	if (usize > MAX_CHUNK || zsize > MAX_CHUNK || off + 24 + zsize > l->file_size) {
		refuse(l, "compressed options section too large");
		return NULL;
	}
	zbody = malloc(zsize + 1);
	body = malloc(usize + 1);
	if (!zbody || !body || pread_full(d->fd, zbody, zsize, off + 24) < 0) {
		free(zbody);
		free(body);
		refuse(l, "compressed options section unreadable");
		return NULL;
	}
	ret = ZSTD_decompressDCtx(d->z, body, usize, zbody, zsize);
	free(zbody);
	if (ZSTD_isError(ret) || ret != usize) {
		free(body);
		refuse(l, "compressed options section damaged");
		return NULL;
	}
	*len = usize;
	return body;
}

static int options_v7(struct layout *l, struct ps_tdat_data *d)
{
	uint64_t off = l->options_start, total = 0;

	for (int n = 0; off; n++) {
		uint32_t len, pos = 0;
		uint8_t *body;
		uint64_t next = 0;
		int done = 0;

		if (n == MAX_SECTIONS)
			return refuse(l, "options sections loop");
		body = section_body(l, d, off, &len);
		if (!body)
			return -1;
		/* a chain that loops back over large sections: bounded work, not MAX_SECTIONS of them */
		total += len;
		if (total > MAX_CHUNK) {
			free(body);
			return refuse(l, "options sections too large");
		}
		while (pos + 6 <= len) {
			uint16_t id = le32(body + pos) & 0xffff;
			uint32_t size = le32(body + pos + 2);

			pos += 6;
			if (size > len - pos) {
				free(body);
				return refuse(l, "option out of its section");
			}
			if (id == OPT_DONE) {
				next = size >= 8 ? le64(body + pos) : 0;
				done = 1;
				break;
			}
			if (option(l, id, body + pos, size, NULL) < 0) {
				free(body);
				return -1;
			}
			pos += size;
		}
		free(body);
		if (!done)
			return refuse(l, "options section without DONE");
		off = next;
	}
	return 0;
}

/* v6 options from @off up to the two-byte DONE; *end is set past it. */
static int options_v6(struct layout *l, struct ps_tdat_data *d, uint64_t off, uint64_t *v6_buf,
		      uint64_t *end)
{
	for (int n = 0;; n++) {
		uint8_t hdr[6], *body;
		uint32_t size;
		int ret;

		if (n == 100000 || off + 2 > l->file_size || pread_full(d->fd, hdr, 2, off) < 0)
			return refuse(l, "v6 options out of the file");
		if (!(hdr[0] | hdr[1])) {
			*end = off + 2;
			return 0;
		}
		if (off + 6 > l->file_size || pread_full(d->fd, hdr, 6, off) < 0)
			return refuse(l, "v6 options out of the file");
		size = le32(hdr + 2);
		if (size > MAX_CHUNK || off + 6 + size > l->file_size)
			return refuse(l, "v6 option out of the file");
		body = malloc(size + 1);
		if (!body || pread_full(d->fd, body, size, off + 6) < 0) {
			free(body);
			return refuse(l, "v6 option unreadable");
		}
		ret = option(l, hdr[0] | hdr[1] << 8, body, size, v6_buf);
		free(body);
		if (ret < 0)
			return -1;
		off += 6 + size;
	}
}

/* v6: "flyrecord" at @off, then @ncpu x [offset][size]. */
static int flyrecord_v6(struct layout *l, struct ps_tdat_data *d, uint64_t off, int ncpu)
{
	uint8_t mark[10], e[16];
	struct region *reg;

	if (off + 10 > l->file_size || pread_full(d->fd, mark, 10, off) < 0 ||
	    memcmp(mark, "flyrecord", 10))
		return refuse(l, "v6 buffer without flyrecord data");
	reg = calloc(PS_READER_MAX_CPUS, sizeof(*reg));
	if (!reg)
		return refuse(l, "out of memory");
	for (int c = 0; c < ncpu; c++) {
		if (pread_full(d->fd, e, 16, off + 10 + 16 * c) < 0) {
			free(reg);
			return refuse(l, "v6 flyrecord table out of the file");
		}
		reg[c].used = 1;
		reg[c].off = le64(e);
		reg[c].size = le64(e + 8);
	}
	return set_regions(l, 0, reg, ncpu, 0);
}

static int layout_v6(struct layout *l, struct ps_tdat_data *d, uint64_t off, int ncpu)
{
	uint64_t buf = 0, end;
	uint8_t mark[10];

	if (!off)
		return refuse(l, "v6 file without options");
	if (options_v6(l, d, off, *l->want ? &buf : NULL, &end) < 0)
		return -1;
	if (!*l->want)
		return flyrecord_v6(l, d, end, ncpu);
	if (!buf)
		return refuse(l, "v6 instance not found");
	if (buf + 10 > l->file_size || pread_full(d->fd, mark, 10, buf) < 0)
		return refuse(l, "v6 instance out of the file");
	if (!memcmp(mark, "options  ", 10)) {
		if (options_v6(l, d, buf + 10, NULL, &end) < 0)
			return -1;
		buf = end;
	}
	return flyrecord_v6(l, d, buf, ncpu);
}

static int header(struct layout *l, struct ps_tdat_data *d)
{
	uint8_t h[256];
	const uint8_t *p, *end;
	const char *ver, *zname, *zver;
	struct stat stb;
	size_t got;

	if (fstat(d->fd, &stb) < 0)
		return refuse(l, "fstat failed");
	l->file_size = stb.st_size;
	got = l->file_size < sizeof(h) ? l->file_size : sizeof(h);
	if (got < 20 || pread_full(d->fd, h, got, 0) < 0)
		return refuse(l, "short header");
	end = h + got;
	ver = str_at(h + 10, end);
	if (!ver)
		return refuse(l, "bad header");
	l->version = atoi(ver);
	p = h + 10 + strlen(ver) + 1;
	if (end - p < 6)
		return refuse(l, "short header");
	if (p[0] != 0)
		return refuse(l, "big-endian file");
	l->long_size = p[1];
	l->page_size = le32(p + 2);
	p += 6;
	if (l->version == 6)
		return 0;
	if (l->version != 7)
		return refuse(l, "file version other than 6 and 7");
	zname = str_at(p, end);
	if (!zname)
		return refuse(l, "bad header");
	p += strlen(zname) + 1;
	zver = str_at(p, end);
	if (!zver)
		return refuse(l, "bad header");
	p += strlen(zver) + 1;
	if (end - p < 8)
		return refuse(l, "short header");
	l->options_start = le64(p);
	if (!strcmp(zname, "zstd"))
		l->zstd = 1;
	else if (*zname && strcmp(zname, "none"))
		return refuse(l, "compression other than zstd");
	return 0;
}

/* Section flags of a v7 flyrecord section: compressed or not. */
static int section_compressed(struct layout *l, struct ps_tdat_data *d, uint64_t off, int *compressed)
{
	uint8_t hdr[16];

	if (off + 16 > l->file_size || pread_full(d->fd, hdr, 16, off) < 0)
		return refuse(l, "flyrecord section out of the file");
	*compressed = (le32(hdr) >> 16) & SEC_FL_COMPRESS;
	if (*compressed && !l->zstd)
		return refuse(l, "compressed data in a file without compression");
	return 0;
}

/*
 * Walks the chunk headers of a compressed CPU data: chunk count, total and
 * largest uncompressed size; all chunks must lie within the region.
 */
static int walk_chunks(struct layout *l, struct ps_tdat_data *d, const struct region *g, int cpu,
		       uint32_t *count, uint64_t *total, uint32_t *largest)
{
	/* the size written for compressed data leaves out the chunk count */
	uint64_t pos = g->off + 4, end = g->off + 4 + g->size;
	uint8_t b[8];

	*total = 0;
	*largest = 0;
	if (end > l->file_size || pread_full(d->fd, b, 4, g->off) < 0)
		return damage(l, "compressed CPU data out of the file", cpu, g->off);
	*count = le32(b);
	if (*count > g->size / 8)
		return damage(l, "compressed CPU data with too many chunks", cpu, g->off);
	for (uint32_t i = 0; i < *count; i++) {
		uint32_t zsize, usize;

		if (pos + 8 > end || pread_full(d->fd, b, 8, pos) < 0)
			return damage(l, "chunk header out of its CPU data", cpu, pos);
		zsize = le32(b);
		usize = le32(b + 4);
		if (usize > MAX_CHUNK || zsize > ZSTD_compressBound(MAX_CHUNK) || pos + 8 + zsize > end)
			return damage(l, "chunk out of its CPU data", cpu, pos);
		*total += usize;
		if (usize > *largest)
			*largest = usize;
		pos += 8 + zsize;
	}
	return 0;
}

static inline uint64_t round_page(uint64_t v, uint64_t page)
{
	return (v + page - 1) & ~(page - 1);
}

static int good_page_size(int p)
{
	return p >= 256 && p <= (1 << 24) && !(p & (p - 1));
}

/* Mirrors libtracecmd's mul_u64_u32_shr(). */
static inline uint64_t mul_shr(uint64_t a, uint64_t mul, unsigned int shift)
{
	uint32_t al = a, ah = a >> 32;
	uint64_t ret = (al * mul) >> shift;

	if (ah)
		ret += (ah * mul) << (32 - shift);
	return ret;
}

/* ---- pages and events ---- */

static int load_chunk(struct ps_tdat_data *d, struct tcpu *c, const char *path, struct ps_error *err)
{
	uint8_t b[8];
	uint32_t zsize, usize;
	size_t ret;

	c->vpos += c->len;
	if (pread_full(d->fd, b, 8, c->pos) < 0)
		return ps_err(err, "%s: cpu %d: cannot read the chunk header at file offset %llu",
			      path, c->cpu, (unsigned long long)c->pos);
	zsize = le32(b);
	usize = le32(b + 4);
	if (usize + (size_t)d->page_size + SLACK > c->cap || c->pos + 8 + zsize > c->end)
		return ps_err(err, "%s: cpu %d: the chunk at file offset %llu changed since the file was opened",
			      path, c->cpu, (unsigned long long)c->pos);
	if (zsize > d->zin_cap) {
		uint8_t *n = realloc(d->zin, zsize);

		if (!n)
			return ps_err(err, "out of memory");
		d->zin = n;
		d->zin_cap = zsize;
	}
	if (pread_full(d->fd, d->zin, zsize, c->pos + 8) < 0)
		return ps_err(err, "%s: cpu %d: cannot read the chunk at file offset %llu",
			      path, c->cpu, (unsigned long long)c->pos);
	ret = ZSTD_decompressDCtx(d->z, c->buf, usize, d->zin, zsize);
	if (ZSTD_isError(ret) || ret != usize)
		return ps_err(err, "%s: cpu %d: the compressed chunk at file offset %llu is damaged (%s)",
			      path, c->cpu, (unsigned long long)c->pos,
			      ZSTD_isError(ret) ? ZSTD_getErrorName(ret) : "short");
	c->pos += 8 + zsize;
	c->zleft--;
	c->len = usize;
	return 0;
}

static int load_window(struct ps_tdat_data *d, struct tcpu *c, const char *path, struct ps_error *err)
{
	uint64_t n = c->end - c->pos;

	if (n > RAW_WINDOW)
		n = RAW_WINDOW;
	if (pread_full(d->fd, c->buf, n, c->pos) < 0)
		return ps_err(err, "%s: cpu %d: cannot read the data at file offset %llu (file cut short?)",
			      path, c->cpu, (unsigned long long)c->pos);
	c->vpos = c->pos;
	c->pos += n;
	c->len = n;
	return 0;
}

/* Moves to the next page: 1, 0 at the end of the CPU's data, -1 on error. */
static int next_page(struct ps_tdat_data *d, struct tcpu *c, const char *path, struct ps_error *err)
{
	if (c->data)
		c->pg += d->page_size;
	c->data = NULL;
	while (c->pg >= c->len) {
		size_t zero;

		if (d->compressed ? !c->zleft : c->pos >= c->end)
			return 0;
		if ((d->compressed ? load_chunk(d, c, path, err) : load_window(d, c, path, err)) < 0)
			return -1;
		c->pg = 0;
		/* a short last page reads zeros, as do fields past a record's end */
		zero = c->cap - c->len;
		if (zero > (size_t)d->page_size + SLACK)
			zero = d->page_size + SLACK;
		memset(c->buf + c->len, 0, zero);
	}
	return 1;
}

/* Opens the page at c->pg: 0, or -1 when its header is damaged. */
static int open_page(struct ps_tdat_data *d, struct tcpu *c)
{
	const uint8_t *p = c->buf + c->pg;
	uint64_t flags = d->long_size == 8 ? le64(p + 8) : le32(p + 8);

	c->ts = le64(p);
	c->data = p + d->start;
	c->size = flags & RB_COMMIT_MASK;
	c->next = 0;
	c->curr = 0;
	if (c->size > (uint32_t)(d->page_size - d->start))
		return -1;
	if (flags & RB_MISSED_EVENTS)
		c->lost = flags & RB_MISSED_STORED ?
			(long long)(d->long_size == 8 ? le64(c->data + c->size) : le32(c->data + c->size)) : -1;
	else
		c->lost = 0;
	return 0;
}

/*
 * The next data event of the page (the walk of libtraceevent's kbuffer):
 * 1, 0 at the end of the page, -1 when the page is damaged.
 */
static int next_event(struct tcpu *c)
{
	for (;;) {
		uint32_t curr = c->next, tlts, type_len, delta, index;
		const uint8_t *p;
		int64_t length;
		uint64_t next;

		if (curr >= c->size)
			return 0;
		p = c->data + curr;
		tlts = le32(p);
		type_len = tlts & 31;
		delta = tlts >> 5;
		switch (type_len) {
		case RB_PADDING:
			c->ts += delta;
			index = curr + 4;
			length = (int32_t)le32(p + 4);
			break;
		case RB_TIME_EXTEND:
			c->ts += ((uint64_t)le32(p + 4) << RB_TS_SHIFT) + delta;
			index = curr + 8;
			length = 0;
			break;
		case RB_TIME_STAMP:
			c->ts = (((uint64_t)le32(p + 4) << RB_TS_SHIFT) + delta) | (c->ts & RB_TS_MSB);
			index = curr + 8;
			length = 0;
			break;
		case 0:
			c->ts += delta;
			index = curr + 8;
			length = ((int64_t)le32(p + 4) - 4 + 3) & ~(int64_t)3;
			break;
		default:
			c->ts += delta;
			index = curr + 4;
			length = type_len * 4;
			break;
		}
		if (length < 0)
			return -1;
		next = index + (uint64_t)length;
		if (type_len >= RB_PADDING) {
			c->next = next > c->size ? c->size : next;
			continue;
		}
		if (next > c->size)
			return -1;
		c->curr = curr;
		c->index = index;
		c->next = next;
		return 1;
	}
}

static int damaged(struct ps_tdat_data *d, struct ps_reader *r, struct tcpu *c, struct ps_error *err)
{
	static const char what[] = "damaged ring-buffer page (bad commit size or event length)";
	char where[64];

	snprintf(where, sizeof(where), "cpu %d offset %llu", c->cpu,
		 (unsigned long long)(c->vpos + c->pg + d->start + c->next));
	return ps_reader_skip(r, PS_SKIP_MALFORMED, where, what, sizeof(what) - 1, err);
}

/* Moves @c to its next record: 1, 0 at the end of its data, -1 on error. */
static int advance(struct ps_tdat_data *d, struct ps_reader *r, struct tcpu *c, struct ps_error *err)
{
	for (;;) {
		int ret = c->data ? next_event(c) : 0;

		if (ret > 0)
			break;
		if (ret < 0 && damaged(d, r, c, err) < 0)
			return -1;
		ret = next_page(d, c, r->path, err);
		if (ret <= 0)
			return ret;
		if (open_page(d, c) < 0) {
			c->next = 0;
			if (damaged(d, r, c, err) < 0)
				return -1;
			c->data = c->buf + c->pg;	/* skip the page */
			c->size = 0;
		}
	}
	{
		uint64_t ts = c->ts;
		struct tep_record *rec = &c->rec;

		if (d->mult)
			ts = mul_shr(ts, d->mult, d->shift);
		rec->ts = ts + d->ts_offset;
		rec->offset = c->vpos + c->pg + d->start + c->curr;
		rec->missed_events = c->curr ? 0 : (int)c->lost;
		rec->record_size = c->next - c->curr;
		rec->size = c->next - c->index;
		rec->data = (void *)(c->data + c->index);
		rec->cpu = c->cpu;
		/* kbuffer_read_event() -> kbuffer_next_event(): the next walk starts at c->next */
	}
	return 1;
}

void ps_tdat_data_close(struct ps_tdat_data *d)
{
	if (!d)
		return;
	for (int c = 0; d->cpu && c < d->ncpu; c++)
		free(d->cpu[c].buf);
	free(d->cpu);
	free(d->act);
	free(d->zin);
	ZSTD_freeDCtx(d->z);
	free(d);
}

static struct ps_tdat_data *give_up(struct ps_tdat_data *d, struct layout *l, const char **why,
				    const char *path, struct ps_error *err)
{
	*why = l->why ? l->why : "unsupported";
	if (l->damaged) {
		ps_err(err, "%s: damaged trace.dat data: %s", path, l->damage);
		*why = NULL;
	}
	free(l->reg);
	free(l->top_reg);
	ps_tdat_data_close(d);
	return NULL;
}

struct ps_tdat_data *ps_tdat_data_open(struct ps_reader *r, int fd, struct tep_handle *tep,
				       uint64_t v6_options, const char *instance, int ncpu,
				       const char **why, struct ps_error *err)
{
	struct ps_tdat_data *d = calloc(1, sizeof(*d));
	struct layout l = { .want = instance };
	uint64_t vnext;
	int compressed = 0;

	*why = NULL;
	if (!d) {
		l.why = "out of memory";
		return give_up(d, &l, why, r->path, err);
	}
	d->fd = fd;
	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
		refuse(&l, "big-endian host");
	else if (tep_get_header_timestamp_size(tep) != 8 || tep_is_old_format(tep))
		refuse(&l, "old ring-buffer page format");
	if (l.unsupported || header(&l, d) < 0)
		return give_up(d, &l, why, r->path, err);
	if (l.long_size != 4 && l.long_size != 8)
		refuse(&l, "odd long size");
	else if (!good_page_size(l.page_size))
		refuse(&l, "odd page size");
	else if (ncpu < 0 || ncpu > PS_READER_MAX_CPUS)
		refuse(&l, "odd CPU count");
	else if (l.zstd && !(d->z = ZSTD_createDCtx()))	/* only files with compression use it */
		refuse(&l, "out of memory");
	if (l.unsupported)
		return give_up(d, &l, why, r->path, err);
	if ((l.version == 6 ? layout_v6(&l, d, v6_options, ncpu) : options_v7(&l, d)) < 0)
		return give_up(d, &l, why, r->path, err);
	if (!l.found && *instance) {
		refuse(&l, "buffer not found in the options");
		return give_up(d, &l, why, r->path, err);
	}
	if (!l.found)
		l.sec_off = 0;		/* no top-level buffer: no data */
	d->page_size = l.page_size;
	if (l.version >= 7 && *instance)
		d->page_size = l.buf_page;
	if (!good_page_size(d->page_size)) {
		refuse(&l, "odd buffer page size");
		return give_up(d, &l, why, r->path, err);
	}
	if (l.version >= 7 && l.found && section_compressed(&l, d, l.sec_off, &compressed) < 0)
		return give_up(d, &l, why, r->path, err);
	d->compressed = compressed;
	d->long_size = l.long_size;
	d->start = 8 + l.long_size;
	d->ts_offset = l.ts_offset;
	d->mult = l.mult;
	d->shift = l.shift;

	/*
	 * libtracecmd numbers compressed data as if uncompressed and laid end
	 * to end from one page in, top-level buffer first: record offsets in
	 * messages stay the same as through libtracecmd.
	 */
	vnext = l.page_size;
	if (*instance && l.top_found && l.version >= 7) {
		int top_z = 0;

		if (section_compressed(&l, d, l.top_sec_off, &top_z) < 0)
			return give_up(d, &l, why, r->path, err);
		for (int c = 0; top_z && c < l.top_nreg; c++) {
			uint32_t count, largest;
			uint64_t total;

			if (!l.top_reg[c].size)
				continue;
			if (walk_chunks(&l, d, &l.top_reg[c], c, &count, &total, &largest) < 0)
				return give_up(d, &l, why, r->path, err);
			vnext = round_page(vnext + total, l.page_size);
		}
	}

	d->ncpu = ncpu < l.nreg ? ncpu : l.nreg;
	d->cpu = calloc(d->ncpu ? d->ncpu : 1, sizeof(*d->cpu));
	d->act = calloc(d->ncpu ? d->ncpu : 1, sizeof(*d->act));
	if (!d->cpu || !d->act) {
		refuse(&l, "out of memory");
		return give_up(d, &l, why, r->path, err);
	}
	for (int i = 0; i < d->ncpu; i++) {
		struct tcpu *c = &d->cpu[i];
		const struct region *g = &l.reg[i];
		uint32_t count = 0, largest = 0;
		uint64_t total = 0;

		c->cpu = i;
		if (!g->size)
			continue;
		if (g->off + g->size > l.file_size || g->off + g->size < g->off) {
			damage(&l, "CPU data out of the file", i, g->off);
			return give_up(d, &l, why, r->path, err);
		}
		c->pos = g->off;
		c->end = g->off + g->size;
		if (compressed) {
			if (walk_chunks(&l, d, g, i, &count, &total, &largest) < 0)
				return give_up(d, &l, why, r->path, err);
			c->pos = g->off + 4;
			c->end = g->off + 4 + g->size;
			c->zleft = count;
			c->vpos = vnext;
			vnext = round_page(vnext + total, d->page_size);
			c->cap = largest + d->page_size + SLACK;
		} else {
			/* load_window() reads at most this much */
			c->cap = (g->size < RAW_WINDOW ? g->size : RAW_WINDOW) + d->page_size + SLACK;
		}
		c->buf = malloc(c->cap);
		if (!c->buf) {
			refuse(&l, "out of memory");
			return give_up(d, &l, why, r->path, err);
		}
	}
	free(l.reg);
	free(l.top_reg);
	for (int i = 0; i < d->ncpu; i++) {
		struct tcpu *c = &d->cpu[i];
		int ret;

		if (!c->buf)
			continue;
		ret = advance(d, r, c, err);
		if (ret < 0) {
			ps_tdat_data_close(d);
			return NULL;
		}
		if (ret)
			d->act[d->nact++] = i;
	}
	return d;
}

int ps_tdat_data_any(const struct ps_tdat_data *d)
{
	return d->nact > 0;
}

int ps_tdat_data_next(struct ps_tdat_data *d, struct ps_reader *r, struct tep_record **rec,
		      struct ps_error *err)
{
	struct tcpu *best = NULL;

	if (d->last) {
		int ret = advance(d, r, d->last, err);

		if (ret < 0)
			return -1;
		if (!ret) {
			for (int i = 0; i < d->nact; i++)
				if (&d->cpu[d->act[i]] == d->last) {
					memmove(d->act + i, d->act + i + 1, (d->nact - i - 1) * sizeof(*d->act));
					d->nact--;
					break;
				}
		}
		d->last = NULL;
	}
	for (int i = 0; i < d->nact; i++) {
		struct tcpu *c = &d->cpu[d->act[i]];

		if (!best || c->rec.ts < best->rec.ts)
			best = c;
	}
	if (!best)
		return 0;
	d->last = best;
	*rec = &best->rec;
	return 1;
}
