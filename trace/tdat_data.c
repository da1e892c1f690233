// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tdat_data.c - per-CPU event data of a trace.dat (see tdat_data.h): the
 * walk of its ring-buffer pages and events, merged by time; where the data
 * lies comes from tdat_options.c.
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

#include <zstd.h>

#include "trace/tdat-local.h"

/* ring-buffer page (kernel/trace/ring_buffer.c) */
#define RB_MISSED_EVENTS	(1ull << 31)
#define RB_MISSED_STORED	(1ull << 30)
#define RB_COMMIT_MASK		((1u << 27) - 1)
#define RB_TS_SHIFT		27
#define RB_TS_MSB		(0xf8ull << 56)
#define RB_PADDING		29
#define RB_TIME_EXTEND		30
#define RB_TIME_STAMP		31

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
		ps_tdat_refuse(&l, "big-endian host");
	else if (tep_get_header_timestamp_size(tep) != 8 || tep_is_old_format(tep))
		ps_tdat_refuse(&l, "old ring-buffer page format");
	if (l.unsupported || ps_tdat_header(&l, d) < 0)
		return give_up(d, &l, why, r->path, err);
	if (l.long_size != 4 && l.long_size != 8)
		ps_tdat_refuse(&l, "odd long size");
	else if (!good_page_size(l.page_size))
		ps_tdat_refuse(&l, "odd page size");
	else if (ncpu < 0 || ncpu > PS_READER_MAX_CPUS)
		ps_tdat_refuse(&l, "odd CPU count");
	else if (l.zstd && !(d->z = ZSTD_createDCtx()))	/* only files with compression use it */
		ps_tdat_refuse(&l, "out of memory");
	if (l.unsupported)
		return give_up(d, &l, why, r->path, err);
	if (ps_tdat_options(&l, d, v6_options, ncpu) < 0)
		return give_up(d, &l, why, r->path, err);
	if (!l.found && *instance) {
		ps_tdat_refuse(&l, "buffer not found in the options");
		return give_up(d, &l, why, r->path, err);
	}
	if (!l.found)
		l.sec_off = 0;		/* no top-level buffer: no data */
	d->page_size = l.page_size;
	if (l.version >= 7 && *instance)
		d->page_size = l.buf_page;
	if (!good_page_size(d->page_size)) {
		ps_tdat_refuse(&l, "odd buffer page size");
		return give_up(d, &l, why, r->path, err);
	}
	if (l.version >= 7 && l.found && ps_tdat_section_compressed(&l, d, l.sec_off, &compressed) < 0)
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

		if (ps_tdat_section_compressed(&l, d, l.top_sec_off, &top_z) < 0)
			return give_up(d, &l, why, r->path, err);
		for (int c = 0; top_z && c < l.top_nreg; c++) {
			uint32_t count, largest;
			uint64_t total;

			if (!l.top_reg[c].size)
				continue;
			if (ps_tdat_walk_chunks(&l, d, &l.top_reg[c], c, &count, &total, &largest) < 0)
				return give_up(d, &l, why, r->path, err);
			vnext = round_page(vnext + total, l.page_size);
		}
	}

	d->ncpu = ncpu < l.nreg ? ncpu : l.nreg;
	d->cpu = calloc(d->ncpu ? d->ncpu : 1, sizeof(*d->cpu));
	d->act = calloc(d->ncpu ? d->ncpu : 1, sizeof(*d->act));
	if (!d->cpu || !d->act) {
		ps_tdat_refuse(&l, "out of memory");
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
			ps_tdat_damage(&l, "CPU data out of the file", i, g->off);
			return give_up(d, &l, why, r->path, err);
		}
		c->pos = g->off;
		c->end = g->off + g->size;
		if (compressed) {
			if (ps_tdat_walk_chunks(&l, d, g, i, &count, &total, &largest) < 0)
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
			ps_tdat_refuse(&l, "out of memory");
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
